// SPDX-License-Identifier: Apache-2.0
// Environment waivers and the stale-evidence exception, by OBLITERATUS'
// rules (OBLITERATUS' scripts/check_conditional_policy.py): a waiver names a known,
// waivable gate (software-only gates never are), once; reason and
// blocked_claim are not blank; the issue is a canonical GitHub issue URL;
// opened <= today, opened <= expires <= opened + 30 days, and expires >=
// today (a waiver that expires today is still active). An invalid waiver is
// not active: its gate is required again.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jetgate/evidence/dates.hpp"
#include "jetgate/policy/policy.hpp"

namespace jetgate::policy {

inline constexpr long kMaxWaiverDays = 30;
inline constexpr long kMaxStaleExceptionDays = 30;

struct Waiver {
  std::string gate, reason, issue, blocked_claim;
  evidence::Date opened, expires;
};

struct WaiverReview {
  std::map<std::string, Waiver> active;  // by gate id
  std::vector<PolicyIssue> issues;       // subject: the waived gate (or "policy")
};

WaiverReview review_waivers(const Policy& policy, evidence::Date today);

// https://github.com/OWNER/NAME/issues/N with N >= 1 (no leading zero, no
// query, no fragment); with repository set, OWNER/NAME must be it.
bool is_canonical_issue_url(std::string_view url, const std::optional<std::string>& repository);

// Accepts evidence whose git_sha differs from the candidate (and nothing
// else): reason, canonical issue, today <= expires <= today + 30 days.
struct StaleException {
  std::string reason, issue, expires;
};
// Empty when valid; otherwise what is wrong with it.
std::vector<std::string> stale_exception_problems(const StaleException& e,
                                                  const std::optional<std::string>& repository,
                                                  evidence::Date today);

}  // namespace jetgate::policy
