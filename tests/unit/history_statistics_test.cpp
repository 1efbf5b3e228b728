// SPDX-License-Identifier: Apache-2.0
// The statistics of `history regressions` at their edges (history/regressions.cpp,
// docs/history.md), on runs made here rather than a generated fleet so each number is
// known: a median of an even count is the mean of the two middle values, the deviation
// is 1.4826 x MAD (the normal-equivalent sigma), and a run that did not run neither
// breaks nor extends a failing streak.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "jetgate/history/regressions.hpp"

namespace jetgate::history {
namespace {

constexpr std::int64_t kDay = 86400;
constexpr std::int64_t kStart = 1795000000;  // 2026-11-18

Run run_of(const std::string& node, int day, const std::string& status,
           std::optional<double> d2d = std::nullopt) {
  Run r;
  r.id = day + 1;
  r.node = node;
  r.gate = "cuda-runtime";
  r.platform = "Jetson AGX Orin 64GB, L4T 36.4.3";
  r.unix_time = kStart + day * kDay;
  r.timestamp = "day-" + std::to_string(day);
  r.file = node + "/" + std::to_string(day) + "/cuda-runtime.json";
  r.status = status;
  if (d2d) r.values[{"bandwidth", "d2d_gbps"}] = {*d2d, "bytes/s"};
  return r;
}

// The trend point of the run after the given green values.
TrendPoint judged_after(const std::vector<double>& green, double next,
                        const policy::RegressionThresholds& t) {
  std::vector<Run> runs;
  int day = 0;
  for (double v : green) runs.push_back(run_of("node-1", day++, "passed", v));
  runs.push_back(run_of("node-1", day, "passed", next));
  auto trends = find_trends(runs, t);
  EXPECT_EQ(trends.size(), 1u);
  if (trends.empty() || trends[0].points.empty()) return {};
  return trends[0].points.back();
}

TEST(HistoryStatistics, AnEvenCountsMedianIsTheMeanOfTheTwoMiddleValues) {
  policy::RegressionThresholds t;
  t.min_baseline_runs = 3;
  // Four green runs 10, 20, 30, 40 (in another order): median 25, not 20 nor 30.
  auto p = judged_after({40e9, 10e9, 30e9, 20e9}, 25e9, t);
  ASSERT_TRUE(p.has_baseline);
  EXPECT_DOUBLE_EQ(p.baseline_median, 25e9);
  // Deviations 15, 15, 5, 5: MAD is their even-count median, 10.
  EXPECT_DOUBLE_EQ(p.baseline_mad, 10e9);
  // An odd count's median is its middle value: 10, 20, 40 -> 20; deviations 10, 0, 20 -> 10.
  auto odd = judged_after({10e9, 40e9, 20e9}, 20e9, t);
  EXPECT_DOUBLE_EQ(odd.baseline_median, 20e9);
  EXPECT_DOUBLE_EQ(odd.baseline_mad, 10e9);
}

TEST(HistoryStatistics, TheSpreadIsMadFactorTimes1Point4826TimesTheMad) {
  policy::RegressionThresholds t;
  t.mad_factor = 4.0;
  t.drop_fraction = 0.01;  // the spread decides, not the fraction
  auto p = judged_after({100e9, 90e9, 110e9}, 100e9, t);
  ASSERT_TRUE(p.has_baseline);
  EXPECT_DOUBLE_EQ(p.baseline_mad, 10e9);
  EXPECT_NEAR(p.spread, 4.0 * 1.4826 * 10e9, 1e3);
  EXPECT_NEAR(p.limit, 100e9 - 4.0 * 1.4826 * 10e9, 1e3);  // 40.696e9
  // Both sides of the limit: 40.6 GB/s is worse, 40.8 GB/s is not (with a factor of
  // 1.0 instead of 1.4826 the limit would be 60 GB/s and both would be worse; with 1.5,
  // 40 GB/s and neither).
  EXPECT_TRUE(judged_after({100e9, 90e9, 110e9}, 40.6e9, t).worse);
  EXPECT_FALSE(judged_after({100e9, 90e9, 110e9}, 40.8e9, t).worse);
}

std::vector<Regression> gate_failures(const std::vector<std::string>& statuses,
                                      std::int64_t confirm) {
  std::vector<Run> runs;
  int day = 0;
  for (const auto& s : statuses) runs.push_back(run_of("node-1", day++, s));
  policy::RegressionThresholds t;
  t.confirm_runs = confirm;
  FindOptions o;
  o.now = kStart + day * kDay;
  std::vector<Regression> out;
  for (auto& r : find_regressions(runs, t, o).found)
    if (r.kind == RegressionKind::gate_failed) out.push_back(r);
  return out;
}

TEST(HistoryStatistics, ARunThatDidNotRunNeitherBreaksNorExtendsAFailingStreak) {
  // passed, failed, not_run, failed: two failures in a row, since the first.
  auto f = gate_failures({"passed", "failed", "not_run", "failed"}, 2);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].worse_runs, 2u);
  EXPECT_EQ(f[0].first_timestamp, "day-1");
  EXPECT_EQ(f[0].last_timestamp, "day-3");
  // Three are not confirmed by two failures and a run that did not run.
  EXPECT_TRUE(gate_failures({"passed", "failed", "not_run", "failed"}, 3).empty());
  // A not_run at the end does not end the streak either.
  auto tail = gate_failures({"passed", "failed", "failed", "not_run"}, 2);
  ASSERT_EQ(tail.size(), 1u);
  EXPECT_EQ(tail[0].worse_runs, 2u);
  EXPECT_EQ(tail[0].last_timestamp, "day-2");
  // A pass ends it; failures with no pass before are no regression (never passed).
  EXPECT_TRUE(gate_failures({"passed", "failed", "passed", "failed"}, 2).empty());
  EXPECT_TRUE(gate_failures({"failed", "not_run", "failed"}, 1).empty());
}

}  // namespace
}  // namespace jetgate::history
