// SPDX-License-Identifier: Apache-2.0
// A limit is written once: what the policy parser accepts, the claim commands accept.
#include <gtest/gtest.h>

#include <string>

#include "jetgate/claims/claim_inputs.hpp"
#include "jetgate/policy/policy.hpp"

namespace jetgate::policy {
namespace {

Result<LoadedPolicy> policy_with_age(long days) {
  std::string text = R"({"schema_version": 1, "owner": "o", "cadence": "c",
    "maximum_evidence_age_days": )" +
                     std::to_string(days) + R"(,
    "gates": [{"id": "g", "description": "d", "job": "j", "marker": "m", "runner": "r", "coverage_paths": ["README.md"],
               "probes": [{"probe": "launch", "status": "PASS"}]}]})";
  return parse_policy(text, "policy.json", JETGATE_SOURCE_DIR);
}

bool age_is_an_issue(const LoadedPolicy& p) {
  for (const auto& i : p.issues)
    if (i.what.find("maximum_evidence_age_days") != std::string::npos) return true;
  return false;
}

TEST(PolicyLimits, TheLargestAgeThePolicyAcceptsIsTheLargestTheClaimCommandsAccept) {
  auto at = policy_with_age(kMaxEvidenceAgeDays);
  ASSERT_TRUE(at.ok());
  EXPECT_FALSE(age_is_an_issue(*at));
  auto age = claims::resolve_max_age(std::nullopt, &*at);
  ASSERT_TRUE(age.ok()) << age.error().message();
  EXPECT_EQ(*age, kMaxEvidenceAgeDays);

  auto above = policy_with_age(kMaxEvidenceAgeDays + 1);
  ASSERT_TRUE(above.ok());
  EXPECT_TRUE(age_is_an_issue(*above))
      << "a policy the claim commands would refuse must not validate";

  auto option = claims::resolve_max_age(static_cast<int>(kMaxEvidenceAgeDays), nullptr);
  ASSERT_TRUE(option.ok());
  EXPECT_FALSE(claims::resolve_max_age(static_cast<int>(kMaxEvidenceAgeDays) + 1, nullptr).ok());
}

TEST(PolicyLimits, FiveThousandDaysIsAPolicyErrorNotAnExitTwoOnEveryCheck) {
  auto p = policy_with_age(5000);
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(age_is_an_issue(*p));
}

}  // namespace
}  // namespace jetgate::policy
