// SPDX-License-Identifier: Apache-2.0
// The member names under which a document records who or which machine it
// came from: the issue body of `jetgate summary` hides every string found
// under them anywhere in the evidence (report/summary_markdown.cpp), and the
// loader of evidence keeps them when it drops subtrees no verdict reads
// (claims/evidence_set.cpp), so the summary hides the same values either way.
#pragma once

#include <string_view>

namespace jetgate {

enum class IdentifyingKey { none, hostname, user, serial };

// "hostname", "host", "nodename"; "user", "username", "login"; any name
// holding "serial", and "uuid".
IdentifyingKey identifying_key(std::string_view key);

}  // namespace jetgate
