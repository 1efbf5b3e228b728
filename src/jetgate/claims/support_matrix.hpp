// SPDX-License-Identifier: Apache-2.0
// The support matrix: for each platform combination that evidence was
// recorded on, the state of each gate there. A combination is supported for
// a gate only when the newest evidence for that gate on exactly that
// combination is fresh green (docs/claims.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "jetgate/claims/evidence_set.hpp"
#include "jetgate/claims/evidence_verdict.hpp"
#include "jetgate/claims/freshness.hpp"
#include "jetgate/claims/gate_decision.hpp"
#include "jetgate/claims/platform_key.hpp"

namespace jetgate::claims {

struct MatrixRow {
  PlatformKey key;
  std::vector<GateEntry> gates;  // sorted by gate id

  // Ids of gates whose deciding evidence is fresh green, sorted; always empty
  // when the platform is not identified.
  std::vector<std::string> supported_gates() const;
};

struct SupportMatrix {
  JudgeRules rules;
  std::vector<MatrixRow> rows;       // sorted by platform, then runtime
  std::vector<SkippedFile> skipped;  // files that were not evidence
};

// One supported (platform, runtime, gate) triple: what a README may claim.
struct Claim {
  std::string platform;
  std::string runtime;
  std::string gate;
  std::string evidence_date;  // may be empty when parsed from a hand-written block
  friend bool operator==(const Claim&, const Claim&) = default;
};

// Judged under the set's rules. The matrix's entries point into `set`, which must outlive it.
SupportMatrix build_support_matrix(const EvidenceSet& set);
SupportMatrix build_support_matrix(const EvidenceSet&& set) = delete;

// Every claim the matrix backs, in the matrix order.
std::vector<Claim> supported_claims(const SupportMatrix& m);

// {"schema_version": 1, "today", "max_age_days", "candidate_sha", "rows": [...], "skipped": [...]}
nlohmann::json to_json(const SupportMatrix& m);

}  // namespace jetgate::claims
