// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include "jetgate/policy/waivers.hpp"

namespace jetgate::policy {
namespace {

using evidence::Date;

Date d(const char* s) {
  return *evidence::parse_iso_date(s);
}

Policy policy_with(nlohmann::json waivers, std::optional<std::string> repository = std::nullopt) {
  Policy p;
  Gate hw;
  hw.id = "jetson-cuda-runtime";
  Gate sw;
  sw.id = "packaging";
  sw.software_only = true;
  p.gates = {hw, sw};
  p.environment_waivers = std::move(waivers);
  p.repository = std::move(repository);
  return p;
}

nlohmann::json waiver(const char* opened, const char* expires,
                      const char* gate = "jetson-cuda-runtime") {
  return {{"gate", gate},
          {"reason", "no Jetson runner yet"},
          {"issue", "https://github.com/acme/robot/issues/7"},
          {"opened", opened},
          {"expires", expires},
          {"blocked_claim", "Jetson support"}};
}

std::string issues_text(const WaiverReview& r) {
  std::string out;
  for (const auto& i : r.issues) out += i.line() + "\n";
  return out;
}

bool active(const nlohmann::json& w, const char* today) {
  return review_waivers(policy_with(nlohmann::json::array({w})), d(today))
             .active.count("jetson-cuda-runtime") == 1;
}

TEST(WaiverTest, ExpiresTodayIsStillActive) {
  EXPECT_TRUE(active(waiver("2026-11-10", "2026-11-29"), "2026-11-29"));
  auto r = review_waivers(policy_with(nlohmann::json::array({waiver("2026-11-10", "2026-11-28")})),
                          d("2026-11-29"));
  EXPECT_TRUE(r.active.empty());
  EXPECT_NE(issues_text(r).find("expired on 2026-11-28"), std::string::npos) << issues_text(r);
}

TEST(WaiverTest, LifetimeOfThirtyDaysAtMost) {
  EXPECT_TRUE(active(waiver("2026-11-01", "2026-12-01"), "2026-11-15"));  // opened + 30
  auto r = review_waivers(policy_with(nlohmann::json::array({waiver("2026-11-01", "2026-12-02")})),
                          d("2026-11-15"));
  EXPECT_TRUE(r.active.empty());  // opened + 31
  EXPECT_NE(issues_text(r).find("exceeds 30 days"), std::string::npos) << issues_text(r);
}

TEST(WaiverTest, OpenedTodayOkOpenedTomorrowInvalid) {
  EXPECT_TRUE(active(waiver("2026-11-29", "2026-12-01"), "2026-11-29"));
  auto r = review_waivers(policy_with(nlohmann::json::array({waiver("2026-11-30", "2026-12-01")})),
                          d("2026-11-29"));
  EXPECT_TRUE(r.active.empty());
  EXPECT_NE(issues_text(r).find("opens in the future: 2026-11-30"), std::string::npos)
      << issues_text(r);
}

TEST(WaiverTest, ExpiresBeforeOpened) {
  auto r = review_waivers(policy_with(nlohmann::json::array({waiver("2026-11-20", "2026-11-19")})),
                          d("2026-11-10"));
  EXPECT_NE(issues_text(r).find("expires before it opens"), std::string::npos) << issues_text(r);
}

TEST(WaiverTest, SoftwareOnlyGatesCanNeverBeWaived) {
  auto r = review_waivers(
      policy_with(nlohmann::json::array({waiver("2026-11-20", "2026-11-30", "packaging")})),
      d("2026-11-25"));
  EXPECT_TRUE(r.active.empty());
  EXPECT_NE(issues_text(r).find("packaging: environment waiver waives a software-only gate"),
            std::string::npos);
}

TEST(WaiverTest, StructuralRules) {
  auto unknown = waiver("2026-11-20", "2026-11-30", "no-such-gate");
  auto blank = waiver("2026-11-20", "2026-11-30");
  blank["reason"] = "   ";
  blank["blocked_claim"] = "";
  auto missing = waiver("2026-11-20", "2026-11-30");
  missing.erase("issue");
  auto baddate = waiver("2026-11-20", "30.11.2026");
  auto r = review_waivers(
      policy_with(nlohmann::json::array(
          {unknown, blank, waiver("2026-11-20", "2026-11-30"), missing, baddate, 42})),
      d("2026-11-25"));
  auto text = issues_text(r);
  for (const char* expect :
       {"no-such-gate: environment waiver references an unknown gate", "reason must be non-empty",
        "blocked_claim must be non-empty", "duplicate environment waiver",
        "is missing fields: issue", "environment waiver 5 must be an object"})
    EXPECT_NE(text.find(expect), std::string::npos) << expect << "\n" << text;
  // The first (blank) waiver for the gate is invalid and the later ones are duplicates: none
  // active.
  EXPECT_TRUE(r.active.empty());
  auto not_list = policy_with(nlohmann::json::object());
  EXPECT_NE(issues_text(review_waivers(not_list, d("2026-11-25"))).find("must be a list"),
            std::string::npos);
}

TEST(WaiverTest, DuplicatesLeaveNoWaiverOfThatGateActive) {
  auto first = waiver("2026-11-20", "2026-11-30");
  auto second = waiver("2026-11-21", "2026-11-29");
  auto r = review_waivers(policy_with(nlohmann::json::array({first, second})), d("2026-11-25"));
  EXPECT_TRUE(r.active.empty()) << issues_text(r);
  auto text = issues_text(r);
  EXPECT_NE(text.find("environment waiver 0 is a duplicate"), std::string::npos) << text;
  EXPECT_NE(text.find("environment waiver 1 is a duplicate"), std::string::npos) << text;
}

TEST(WaiverTest, DotOnlyOwnerOrNameIsNotARepository) {
  std::optional<std::string> none;
  for (const char* bad :
       {"https://github.com/../robot/issues/7", "https://github.com/acme/../issues/7",
        "https://github.com/./robot/issues/7", "https://github.com/acme/.../issues/7"})
    EXPECT_FALSE(is_canonical_issue_url(bad, none)) << bad;
  EXPECT_TRUE(is_canonical_issue_url("https://github.com/acme/robot.py/issues/7", none));
}

TEST(WaiverTest, IssuesWithoutANextStepAreNotWritten) {
  auto no_gate = waiver("2026-11-20", "2026-11-30");
  no_gate["gate"] = "";
  auto r = review_waivers(policy_with(nlohmann::json::array({42, no_gate})), d("2026-11-25"));
  ASSERT_EQ(r.issues.size(), 2u) << issues_text(r);
  for (const auto& i : r.issues) EXPECT_FALSE(i.next.empty()) << i.line();
}

TEST(WaiverTest, IssueUrls) {
  std::optional<std::string> none, repo = "acme/robot";
  EXPECT_TRUE(is_canonical_issue_url("https://github.com/acme/robot/issues/7", none));
  EXPECT_TRUE(is_canonical_issue_url("https://github.com/acme/robot/issues/7", repo));
  EXPECT_TRUE(
      is_canonical_issue_url("https://github.com/elder-plinius/OBLITERATUS/issues/31", none));
  EXPECT_FALSE(is_canonical_issue_url("https://github.com/other/robot/issues/7", repo));
  for (const char* bad :
       {"https://github.com/acme/robot/issues/0", "https://github.com/acme/robot/issues/07",
        "https://github.com/acme/robot/pull/7", "http://github.com/acme/robot/issues/7",
        "https://github.com/acme/robot/issues/7#x", "https://github.com/acme/robot/issues/7/",
        "https://github.com/acme/issues/7", "https://gitlab.com/acme/robot/issues/7",
        "https://github.com/acme/robot/issues/", "https://github.com/a b/robot/issues/7", ""})
    EXPECT_FALSE(is_canonical_issue_url(bad, none)) << bad;
  auto w = waiver("2026-11-20", "2026-11-30");
  w["issue"] = "https://github.com/other/repo/issues/1";
  auto r = review_waivers(policy_with(nlohmann::json::array({w}), "acme/robot"), d("2026-11-25"));
  EXPECT_NE(issues_text(r).find("https://github.com/acme/robot/issues/N"), std::string::npos)
      << issues_text(r);
}

TEST(WaiverTest, StaleExceptionBoundaries) {
  std::optional<std::string> none;
  auto ok = [&](const char* expires) {
    return stale_exception_problems({"runner down", "https://github.com/a/b/issues/2", expires},
                                    none, d("2026-11-29"))
        .empty();
  };
  EXPECT_TRUE(ok("2026-11-29"));   // today
  EXPECT_TRUE(ok("2026-12-29"));   // today + 30
  EXPECT_FALSE(ok("2026-12-30"));  // today + 31
  EXPECT_FALSE(ok("2026-11-28"));  // yesterday
  EXPECT_FALSE(ok("soon"));
  EXPECT_EQ(stale_exception_problems({" ", "nope", "2026-11-30"}, none, d("2026-11-29")).size(),
            2u);
}

}  // namespace
}  // namespace jetgate::policy
