// SPDX-License-Identifier: Apache-2.0
// Which evidence decides a gate when several files speak for it (several
// evidence directories, runs merged from CI artefacts): the newest, where a
// tie goes to the one that is not green, so a tie never turns red into green.
// `check`, `summary` and each platform row of `support` decide this way.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "jetgate/claims/evidence_set.hpp"
#include "jetgate/claims/evidence_verdict.hpp"

namespace jetgate::claims {

struct GateEntry {
  std::string gate;
  GateVerdict verdict;
  std::string file;  // the evidence that decided; "" when missing
  std::string git_sha;
  std::string generated_at;
  int evidence_files = 0;                    // how many files spoke for this gate here
  const LoadedEvidence* evidence = nullptr;  // the deciding evidence (owned by the EvidenceSet)
  // What was found about the deciding evidence's GATE.dsse.json (owned by the
  // EvidenceSet); nullptr when no evidence decided. The verdict already
  // counts it: this is carried only to be shown.
  const trust::SignatureCheck* signature = nullptr;
};

// The "signature" object of check's and support's JSON (docs/claims.md):
// outcome, envelope, key_id, owner, key_expires, why; null without evidence.
nlohmann::json signature_json(const GateEntry& entry);

// One decided gate as `support --json` and `summary --json` show it
// (docs/schemas/gate-decision.schema.json).
nlohmann::json to_json(const GateEntry& g);

// Decides GATE among all of its evidence in the set. With none: an unreadable
// file named for the gate among the skipped makes it unreadable, else missing.
GateEntry decide_gate(const EvidenceSet& set, const std::string& gate);
// Decides GATE among `files` (evidence of GATE in set; missing when none).
GateEntry decide_gate(const EvidenceSet& set, const std::string& gate,
                      const std::vector<const LoadedEvidence*>& files);

// Every loaded evidence of GATE in the set.
std::vector<const LoadedEvidence*> evidence_of_gate(const EvidenceSet& set,
                                                    const std::string& gate);

}  // namespace jetgate::claims
