// What one evidence document says about its gate today. "Fresh green" is the
// only state that backs a claim: passed, consistent counts (tests > 0, no
// failures, errors or skips, exit code 0 where recorded), dated in UTC, not in
// the future, and at most max_age_days old (docs/claims.md).
#pragma once

#include <string>

#include "jetgate/claims/freshness.hpp"
#include "jetgate/evidence/evidence.hpp"

namespace jetgate::claims {

enum class GateState { fresh_green, stale, failed, not_run, inconsistent, no_commit, future_dated, undated };

const char* to_string(GateState s);  // "fresh_green", "stale", ...

struct GateVerdict {
  GateState state = GateState::not_run;
  std::string detail;         // why this state, in words; empty for fresh_green
  std::string evidence_date;  // UTC "YYYY-MM-DD" of generated_at; empty when undated
  long age_days = 0;          // meaningful only when evidence_date is set
};

GateVerdict judge_evidence(const evidence::Evidence& e, Date today, int max_age_days);

// Only fresh green evidence backs a support claim.
inline bool backs_claim(const GateVerdict& v) { return v.state == GateState::fresh_green; }

}  // namespace jetgate::claims
