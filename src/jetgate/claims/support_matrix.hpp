// The support matrix: for each platform combination that evidence was
// recorded on, the state of each gate there. A combination is supported for
// a gate only when the newest evidence for that gate on exactly that
// combination is fresh green (docs/claims.md).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "jetgate/claims/evidence_set.hpp"
#include "jetgate/claims/evidence_verdict.hpp"
#include "jetgate/claims/freshness.hpp"
#include "jetgate/claims/platform_key.hpp"

namespace jetgate::claims {

struct GateEntry {
  std::string gate;
  GateVerdict verdict;
  std::string file;  // the evidence that decided (the newest for this gate here)
  std::string git_sha;
  std::string generated_at;
  int evidence_files = 1;  // how many files spoke for this gate on this platform
};

struct MatrixRow {
  PlatformKey key;
  std::vector<GateEntry> gates;  // sorted by gate id

  // Ids of gates whose deciding evidence is fresh green, sorted; always empty
  // when the platform is not identified.
  std::vector<std::string> supported_gates() const;
};

struct SupportMatrix {
  Date today{};
  int max_age_days = kDefaultMaxEvidenceAgeDays;
  std::vector<MatrixRow> rows;        // sorted by platform, then runtime
  std::vector<SkippedFile> skipped;   // files that were not evidence
};

// One supported (platform, runtime, gate) triple: what a README may claim.
struct Claim {
  std::string platform;
  std::string runtime;
  std::string gate;
  std::string evidence_date;  // may be empty when parsed from a hand-written block
  friend bool operator==(const Claim&, const Claim&) = default;
};

SupportMatrix build_support_matrix(const EvidenceSet& set, Date today, int max_age_days);

// Every claim the matrix backs, in the matrix order.
std::vector<Claim> supported_claims(const SupportMatrix& m);

// {"schema_version": 1, "today", "max_age_days", "rows": [...], "skipped": [...]}
nlohmann::json to_json(const SupportMatrix& m);

}  // namespace jetgate::claims
