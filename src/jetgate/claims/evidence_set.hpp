// SPDX-License-Identifier: Apache-2.0
// Every evidence file in the directories a user names. A file that cannot be
// read or does not parse as evidence is skipped and reported, never fatal:
// one corrupt file must not hide the others (it backs nothing either way).
#pragma once

#include <string>
#include <vector>

#include "jetgate/core/fast_json.hpp"
#include "jetgate/core/result.hpp"
#include "jetgate/evidence/evidence.hpp"
#include "jetgate/trust/verify.hpp"

namespace jetgate::claims {

struct LoadedEvidence {
  std::string file;  // path as the user named it: DIR/NAME.json
  evidence::Evidence evidence;
  trust::SignatureCheck signature;  // GATE.dsse.json beside it, checked against the trusted keys
};

struct SkippedFile {
  std::string file;
  std::string why;   // one line: what is wrong with it
  std::string gate;  // the gate its name speaks for (DIR/GATE.json), "" when the name is no gate id
};

struct EvidenceSet {
  std::vector<LoadedEvidence> loaded;  // sorted by file
  std::vector<SkippedFile> skipped;    // sorted by file
};

// Reads DIR/*.json (not recursive) of each directory. A directory that is
// missing or unreadable is an Error (unusable input); files inside are
// skipped with a reason. GATE.dsse.json files are envelopes, not evidence:
// each is checked with its GATE.json against `trusted` (trust/verify.hpp),
// and the subject's name against `repository` when given.
// Each file is read once and parsed once (core/fast_json.hpp), on `threads`
// threads (0: one per core); the result does not depend on how many. What no
// verdict, matrix row or summary line reads (never_judged()) is dropped from
// Evidence::extra at once, so that 100k files fit in memory.
// The subtrees of an evidence document the loader leaves out (fast_json.hpp's
// JsonPrune: the identifying values the summary hides stay).
const JsonPrune& never_judged();

Result<EvidenceSet> load_evidence_dirs(const std::vector<std::string>& dirs,
                                       const std::vector<trust::TrustedKey>& trusted = {},
                                       const std::optional<std::string>& repository = {},
                                       unsigned threads = 0);

}  // namespace jetgate::claims
