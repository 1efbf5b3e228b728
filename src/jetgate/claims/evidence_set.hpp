// Every evidence file in the directories a user names. A file that cannot be
// read or does not parse as evidence is skipped and reported, never fatal:
// one corrupt file must not hide the others (it backs nothing either way).
#pragma once

#include <string>
#include <vector>

#include "jetgate/core/result.hpp"
#include "jetgate/evidence/evidence.hpp"

namespace jetgate::claims {

struct LoadedEvidence {
  std::string file;  // path as the user named it: DIR/NAME.json
  evidence::Evidence evidence;
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
// skipped with a reason.
Result<EvidenceSet> load_evidence_dirs(const std::vector<std::string>& dirs);

}  // namespace jetgate::claims
