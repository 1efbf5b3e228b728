// SPDX-License-Identifier: Apache-2.0
// What physics allows, on recorded profiles: the H200's real figures pass;
// figures no hardware can produce are FAIL "implausible: ..." with a next step.
#include "jetgate/probes/plausibility.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "test_support.hpp"

namespace jetgate::probes {
namespace {

// The evidence jetgate wrote on an NVIDIA H200 (docs/examples/).
nlohmann::json h200_evidence() {
  std::ifstream in(test::source_dir() + "/docs/examples/evidence-h200-cuda-runtime.json");
  return nlohmann::json::parse(in);
}

ProbeResult recorded(const std::string& id) {
  std::string err;
  auto r = probe_result_from_json(h200_evidence()["probes"][id], &err);
  if (!r) throw std::runtime_error(err);
  return *r;
}

DeviceLimits h200_limits() {
  return device_limits(h200_evidence()["gpu"]["devices"][0]);
}

// An Orin NX 16GB: integrated, 102.4 GB/s (NVIDIA's data sheet).
DeviceLimits orin_limits() {
  return DeviceLimits{102.4, true};
}

TEST(Plausibility, EveryRecordedH200FigureIsPlausible) {
  auto limits = h200_limits();
  ASSERT_TRUE(limits.theoretical_gbps);
  EXPECT_NEAR(*limits.theoretical_gbps, 4814.3, 0.1);
  EXPECT_EQ(limits.integrated, false);
  for (const char* id : {"launch", "memory", "bandwidth", "sync_path"}) {
    auto r = recorded(id);
    EXPECT_EQ(implausibility(r, limits), std::nullopt) << id;
    check_plausibility(r, limits);
    EXPECT_EQ(r.status, ProbeStatus::pass) << id << ": " << r.reason;
  }
}

TEST(Plausibility, BandwidthAboveThePeakIsABrokenClockNotAFastMachine) {
  auto r = recorded("bandwidth");
  r.values["d2d_gbps"].value = 5.24 * 4814.304;  // what the fake driver reports: 524 %
  check_plausibility(r, h200_limits());
  EXPECT_EQ(r.status, ProbeStatus::fail);
  EXPECT_EQ(
      r.reason.rfind(
          "implausible: d2d_gbps 25227 GB/s is 524% of the device's theoretical 4814 GB/s", 0),
      0u)
      << r.reason;
  // The next step is its own field, never cut out of the reason.
  EXPECT_EQ(r.reason.find("Next"), std::string::npos) << r.reason;
  EXPECT_NE(r.next.find("nvidia-smi"), std::string::npos) << r.next;
  EXPECT_EQ(to_json(r)["next"], r.next);
  std::string err;
  auto back = probe_result_from_json(to_json(r), &err);
  ASSERT_TRUE(back) << err;
  EXPECT_EQ(back->next, r.next);
  EXPECT_TRUE(r.details.contains("measured_reason"));
  // 105 % is the edge: measurement noise above the nominal peak is tolerated, more is not.
  auto edge = recorded("bandwidth");
  edge.values["d2d_gbps"].value = 1.049 * 4814.304;
  EXPECT_EQ(implausibility(edge, h200_limits()), std::nullopt);
  edge.values["d2d_gbps"].value = 1.051 * 4814.304;
  EXPECT_NE(implausibility(edge, h200_limits()), std::nullopt);
}

TEST(Plausibility, AHostLinkCannotBeFasterThanItsBus) {
  auto r = recorded("bandwidth");
  r.values["h2d_gbps"].value = 900;  // no PCIe or C2C link carries that
  EXPECT_NE(implausibility(r, h200_limits()), std::nullopt);
  r.values["h2d_gbps"].value = 440;  // NVLink-C2C class: possible on a Grace Hopper
  EXPECT_EQ(implausibility(r, h200_limits()), std::nullopt);
  // On a Jetson the "host link" is the shared DRAM.
  ProbeResult orin;
  orin.id = "bandwidth";
  orin.status = ProbeStatus::pass;
  orin.values["d2d_gbps"] = {85, "GB/s"};
  orin.values["h2d_gbps"] = {60, "GB/s"};
  EXPECT_EQ(implausibility(orin, orin_limits()), std::nullopt);
  orin.values["h2d_gbps"] = {150, "GB/s"};
  auto why = implausibility(orin, orin_limits());
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("shared DRAM"), std::string::npos) << *why;
}

TEST(Plausibility, ZeroNegativeAndNonFiniteTimesAreABrokenTimer) {
  for (double bad : {0.0, -3.0, std::nan(""), static_cast<double>(INFINITY)}) {
    auto r = recorded("launch");
    r.values["first_launch_us"].value = bad;
    check_plausibility(r, h200_limits());
    EXPECT_EQ(r.status, ProbeStatus::fail) << bad;
    EXPECT_EQ(r.reason.rfind("implausible: ", 0), 0u) << r.reason;
  }
}

TEST(Plausibility, ARoundTripFasterThanAnyLaunchAndWaitIsABrokenTimer) {
  auto r = recorded("sync_path");
  r.values["sync_spin_rtt_median_us"].value = 0.2;
  auto why = implausibility(r, h200_limits());
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("sync_spin_rtt_median_us is 0.200 us"), std::string::npos) << *why;
  r.values["sync_spin_rtt_median_us"].value = 8.6;
  EXPECT_EQ(implausibility(r, h200_limits()), std::nullopt);
}

TEST(Plausibility, OnlyResultsThatClaimToHaveMeasuredAreJudged) {
  auto r = recorded("bandwidth");
  r.values["d2d_gbps"].value = 1e9;
  r.status = ProbeStatus::skip;
  r.reason = "no CUDA device";
  check_plausibility(r, h200_limits());
  EXPECT_EQ(r.status, ProbeStatus::skip);
  EXPECT_EQ(r.reason, "no CUDA device");
  // Without a theoretical peak only the timer rules apply.
  auto unknown = recorded("bandwidth");
  unknown.values["d2d_gbps"].value = 1e6;
  EXPECT_EQ(implausibility(unknown, DeviceLimits{}), std::nullopt);
}

}  // namespace
}  // namespace jetgate::probes
