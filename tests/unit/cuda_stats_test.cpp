// SPDX-License-Identifier: Apache-2.0
// Statistics and the sync-path classification, on hand-made numbers and on
// recorded profiles (tests/fixtures/sync/).
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "jetgate/probes/stats.hpp"
#include "jetgate/probes/sync_classify.hpp"
#include "test_support.hpp"

namespace jetgate::probes {
namespace {

nlohmann::json load_profile(const std::string& name) {
  std::ifstream in(test::fixtures_dir() + "/sync/" + name);
  EXPECT_TRUE(in.good()) << name;
  return nlohmann::json::parse(in);
}

TEST(CudaStats, PercentileInterpolatesBetweenRanks) {
  std::vector<double> v = {4, 1, 3, 2};  // sorted: 1 2 3 4
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile(v, 100), 4);
  EXPECT_DOUBLE_EQ(percentile(v, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile(v, 25), 1.75);
  EXPECT_DOUBLE_EQ(median({7}), 7);
  EXPECT_DOUBLE_EQ(median({9, 1, 5}), 5);
}

TEST(CudaStats, PercentileEdgeCases) {
  EXPECT_TRUE(std::isnan(percentile({}, 50)));
  EXPECT_TRUE(std::isnan(percentile({1, 2}, std::nan(""))));
  EXPECT_DOUBLE_EQ(percentile({1, 2}, -10), 1);  // clamped
  EXPECT_DOUBLE_EQ(percentile({1, 2}, 250), 2);
}

TEST(CudaStats, SummaryOfSamples) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  Summary s = summarize(v);
  EXPECT_EQ(s.count, 100u);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 100);
  EXPECT_DOUBLE_EQ(s.median, 50.5);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_NEAR(s.p99, 99.01, 1e-9);
  EXPECT_NEAR(s.p90, 90.1, 1e-9);
  Summary empty = summarize({});
  EXPECT_EQ(empty.count, 0u);
  EXPECT_TRUE(to_json(empty)["median"].is_null());
}

TEST(CudaSyncClassify, Thresholds) {
  EXPECT_EQ(classify_wait(1.0), WaitKind::busy_polling);
  EXPECT_EQ(classify_wait(0.51), WaitKind::busy_polling);
  EXPECT_EQ(classify_wait(0.5), WaitKind::unclear);
  EXPECT_EQ(classify_wait(0.1), WaitKind::unclear);
  EXPECT_EQ(classify_wait(0.099), WaitKind::interrupt_driven);
  EXPECT_EQ(classify_wait(0.002), WaitKind::interrupt_driven);
  EXPECT_EQ(classify_wait(std::nan("")), WaitKind::unclear);
  EXPECT_EQ(classify_wait(0.3, WaitThresholds{0.25, 0.05}), WaitKind::busy_polling);
}

TEST(CudaSyncClassify, RecordedH200BlockingSyncSleeps) {
  auto modes = sync_profile_from_json(load_profile("h200.json"));
  ASSERT_TRUE(modes) << modes.error().message();
  SyncAssessment a = assess_sync_path(*modes);
  EXPECT_EQ(a.status, ProbeStatus::pass) << a.reason;
  EXPECT_NE(a.reason.find("interrupt-driven"), std::string::npos);
  ASSERT_EQ(a.modes.size(), 3u);
  EXPECT_EQ(a.modes[0].mode, "spin");
  EXPECT_EQ(a.modes[0].wait, WaitKind::busy_polling);
  EXPECT_EQ(a.modes[2].mode, "blocking_sync");
  EXPECT_EQ(a.modes[2].wait, WaitKind::interrupt_driven);
  // Spin round trips are shorter than blocking ones on this machine.
  EXPECT_LT(a.modes[0].round_trip_us.median, a.modes[2].round_trip_us.median);
  ProbeResult r;
  add_sync_values(a, r);
  EXPECT_EQ(r.values.at("sync_spin_rtt_median_us").unit, "us");
  EXPECT_EQ(r.values.at("sync_blocking_sync_cpu_fraction").unit, "fraction");
  EXPECT_EQ(r.details["modes"].size(), 3u);
}

TEST(CudaSyncClassify, RecordedPollingFallbackIsFlagged) {
  auto modes = sync_profile_from_json(load_profile("polling_fallback.json"));
  ASSERT_TRUE(modes) << modes.error().message();
  SyncAssessment a = assess_sync_path(*modes);
  EXPECT_EQ(a.status, ProbeStatus::warn);
  EXPECT_NE(a.reason.find("blocking sync burns CPU: polling fallback"), std::string::npos)
      << a.reason;
  EXPECT_EQ(a.modes[2].wait, WaitKind::busy_polling);
}

TEST(CudaSyncClassify, UnclearAndMissingModes) {
  SyncModeMeasurement blocking{"blocking_sync", {50, 51, 52}, 0.1, 0.03};
  EXPECT_EQ(assess_sync_path({blocking}).status, ProbeStatus::warn);
  EXPECT_NE(assess_sync_path({blocking}).reason.find("neither"), std::string::npos);
  SyncModeMeasurement spin{"spin", {9, 10}, 0.1, 0.1};
  SyncAssessment no_blocking = assess_sync_path({spin});
  EXPECT_EQ(no_blocking.status, ProbeStatus::fail);
  SyncModeMeasurement empty{"yield", {}, 0.1, 0.1};
  EXPECT_EQ(assess_sync_path({spin, empty}).status, ProbeStatus::fail);
  SyncModeMeasurement zero_wall{"blocking_sync", {1}, 0.0, 0.0};
  EXPECT_EQ(assess_sync_path({zero_wall}).status, ProbeStatus::fail);
}

TEST(CudaSyncClassify, ProfileRoundTripsThroughJson) {
  SyncModeMeasurement m{"yield", {9.0, 9.5}, 0.1, 0.099};
  auto back = sync_profile_from_json({{"modes", {to_json(m)}}});
  ASSERT_TRUE(back);
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0].round_trip_us, m.round_trip_us);
  EXPECT_DOUBLE_EQ((*back)[0].wait_cpu_s, 0.099);
}

TEST(CudaSyncClassify, MalformedProfilesAreErrorsThatNameTheField) {
  EXPECT_FALSE(sync_profile_from_json(nlohmann::json()));
  EXPECT_FALSE(sync_profile_from_json(nlohmann::json::array()));
  EXPECT_FALSE(sync_profile_from_json({{"modes", 3}}));
  auto bad_sample = sync_profile_from_json(
      {{"modes",
        {{{"mode", "spin"}, {"round_trip_us", {1, "x"}}, {"wait_wall_s", 1}, {"wait_cpu_s", 1}}}}});
  ASSERT_FALSE(bad_sample);
  EXPECT_EQ(bad_sample.error().where, "/modes/0/round_trip_us");
  auto no_wall = sync_profile_from_json({{"modes", {{{"mode", "spin"}, {"round_trip_us", {1}}}}}});
  ASSERT_FALSE(no_wall);
  EXPECT_EQ(no_wall.error().where, "/modes/0");
  auto no_name = sync_profile_from_json({{"modes", {{{"round_trip_us", {1}}}}}});
  ASSERT_FALSE(no_name);
  // A truncated or binary recording does not even parse as JSON.
  std::string text = test::read_file(test::fixtures_dir() + "/sync/h200.json");
  EXPECT_TRUE(
      nlohmann::json::parse(text.substr(0, text.size() / 2), nullptr, false).is_discarded());
  EXPECT_TRUE(nlohmann::json::parse(std::string("\x00\xff\x13", 3), nullptr, false).is_discarded());
}

}  // namespace
}  // namespace jetgate::probes
