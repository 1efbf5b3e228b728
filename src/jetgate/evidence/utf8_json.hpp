// SPDX-License-Identifier: Apache-2.0
// nlohmann::json refuses to serialise a string that is not valid UTF-8 (it
// throws), and evidence carries text from outside: JUnit names, paths,
// command output, facts. Before a document is written, every such string
// (and key) is repaired with U+FFFD, and the places are named, so the reader
// knows the text was changed and where.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace jetgate::evidence {

// Replaces ill-formed UTF-8 in every string and object key of j (core/utf8.hpp)
// and returns the JSON pointers of what was replaced (after replacement).
std::vector<std::string> repair_utf8(nlohmann::json& j);

}  // namespace jetgate::evidence
