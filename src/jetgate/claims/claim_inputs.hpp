// SPDX-License-Identifier: Apache-2.0
// The inputs `check`, `support` and `summary` share, resolved once: the
// policy, the evidence, and the rules every verdict is judged by (today,
// the freshness rule, the candidate commit, a stale-evidence exception).
// The three commands take the same options and call this, so the same
// command line gives the same verdicts everywhere (docs/claims.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "jetgate/claims/evidence_set.hpp"
#include "jetgate/claims/evidence_verdict.hpp"
#include "jetgate/claims/next_steps.hpp"
#include "jetgate/core/result.hpp"
#include "jetgate/policy/policy.hpp"
#include "jetgate/policy/waivers.hpp"

namespace jetgate::claims {

// As the user typed them.
struct ClaimOptions {
  std::string policy;  // "" when none (check requires one; the CLI enforces it)
  std::string repo_root;
  std::vector<std::string> evidence_dirs;
  std::string candidate_sha;  // "" when none
  std::string today;          // "" means today in UTC
  std::optional<int> max_age_days;
  std::string stale_reason, stale_issue, stale_expires;
};

struct ClaimInputs {
  std::optional<policy::LoadedPolicy> policy;
  JudgeRules rules;
  std::optional<policy::StaleException> stale_exception;  // as given
  std::vector<std::string>
      stale_exception_problems;  // why it is not valid (then it admits nothing)
  std::vector<std::string> evidence_dirs;
  EvidenceSet evidence;
  CommandContext commands;
};

// Errors are unusable input (exit 2): an unreadable policy, a bad date or
// commit, a missing evidence directory, no freshness rule to judge by.
Result<ClaimInputs> resolve_claim_inputs(const ClaimOptions& o);

// --max-age-days, else the policy's maximum_evidence_age_days, else 14 when
// no policy is named. A named policy without a valid one is an error: it was
// named to set the rule, and 14 would silently judge by another.
Result<int> resolve_max_age(std::optional<int> option, const policy::LoadedPolicy* policy);

}  // namespace jetgate::claims
