// SPDX-License-Identifier: Apache-2.0
// The decode probe's verdict from recorded numbers: no GPU needed.
#include "jetgate/probes/decode_assess.hpp"

#include <gtest/gtest.h>

namespace jetgate::probes {
namespace {

DecodeModeRun mode(const std::string& name, double latency_us, double cpu_fraction) {
  DecodeModeRun m;
  m.mode = name;
  m.latency_us.assign(100, latency_us);
  m.latency_us[99] = latency_us * 2;  // one slow token: p99 moves, the median does not
  m.wall_s = 100 * latency_us * 1e-6;
  m.cpu_s = m.wall_s * cpu_fraction;
  m.burst_tok_s = 1e6 / (latency_us * 0.9);
  return m;
}

// Qwen2.5-0.5B in fp16 on an H200-like device: 988 MB per token, 4200 GB/s.
DecodeRun h200_like(double spin_us, double blocking_cpu) {
  DecodeRun r;
  r.model = "qwen2.5-0.5b";
  r.dtype = "fp16";
  r.launch = "persistent";
  r.weight_bytes_per_token = 988e6;
  r.kv_bytes_per_token = 12e6;
  r.read_gbps = 4200;
  r.theoretical_gbps = 4800;
  r.modes = {mode("spin", spin_us, 1.0), mode("yield", spin_us * 1.01, 1.0),
             mode("blocking_sync", spin_us * 1.05, blocking_cpu)};
  return r;
}

TEST(DecodeAssess, HealthyRunPassesWithEveryFigure) {
  ProbeResult r;
  assess_decode(h200_like(500, 0.02), r);
  EXPECT_EQ(r.status, ProbeStatus::pass) << r.reason;
  EXPECT_DOUBLE_EQ(r.values.at("decode_tok_s").value, 2000);
  EXPECT_DOUBLE_EQ(r.values.at("decode_bytes_per_token").value, 1000e6);
  EXPECT_DOUBLE_EQ(r.values.at("decode_achieved_gbps").value, 2000);
  EXPECT_NEAR(r.values.at("decode_fraction_of_bound").value, 2000.0 / 4200, 1e-12);
  EXPECT_DOUBLE_EQ(r.values.at("decode_bound_tok_s").value, 4200);
  EXPECT_DOUBLE_EQ(r.values.at("decode_expected_tok_s").value, 4800);
  EXPECT_DOUBLE_EQ(r.values.at("decode_latency_p50_us").value, 500);
  EXPECT_GT(r.values.at("decode_latency_p99_us").value, 500);
  EXPECT_DOUBLE_EQ(r.values.at("decode_host_cpu_us_per_token").value, 500);  // a full core
  EXPECT_NEAR(r.values.at("decode_blocking_sync_cpu_fraction").value, 0.02, 1e-12);
  EXPECT_NEAR(r.values.at("decode_blocking_sync_tok_s").value, 2000 / 1.05, 1e-9);
  EXPECT_EQ(r.details["best_mode"], "spin");
  EXPECT_EQ(r.details["modes"].size(), 3u);
  EXPECT_NE(r.reason.find("2000 tok/s (spin)"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("blocking sync waits interrupt-driven: 0.02 of a core per token"),
            std::string::npos)
      << r.reason;
}

TEST(DecodeAssess, PollingBlockingSyncIsNamedInTheSeedsWords) {
  ProbeResult r;
  assess_decode(h200_like(500, 0.9), r);
  EXPECT_NE(r.reason.find("blocking sync burns 0.90 of a core per token: the driver falls back "
                          "to polling (see the sync_path probe)"),
            std::string::npos)
      << r.reason;
  EXPECT_EQ(r.details["modes"][2]["wait"], "busy-polling");
}

TEST(DecodeAssess, FarBelowTheBoundIsAWarning) {
  ProbeResult r;
  assess_decode(h200_like(8 * 500, 0.02), r);  // an 8x drop
  EXPECT_EQ(r.status, ProbeStatus::warn);
  EXPECT_LT(r.values.at("decode_fraction_of_bound").value, kDecodeWarnFractionOfBound);
  EXPECT_NE(r.reason.find("nvpmodel"), std::string::npos);
}

TEST(DecodeAssess, UnknownBoundsLeaveTheirValuesOut) {
  DecodeRun run = h200_like(500, 0.02);
  run.read_gbps = 0;
  run.theoretical_gbps = 0;
  ProbeResult r;
  assess_decode(run, r);
  EXPECT_EQ(r.status, ProbeStatus::pass);
  EXPECT_EQ(r.values.count("decode_fraction_of_bound"), 0u);
  EXPECT_EQ(r.values.count("decode_expected_tok_s"), 0u);
  EXPECT_EQ(r.values.count("decode_tok_s"), 1u);
}

TEST(DecodeAssess, NoTimedTokenIsAFailure) {
  DecodeRun run = h200_like(500, 0.02);
  for (auto& m : run.modes) m.latency_us.clear();
  ProbeResult r;
  assess_decode(run, r);
  EXPECT_EQ(r.status, ProbeStatus::fail);
}

TEST(DecodeAssess, WaitSentences) {
  EXPECT_EQ(describe_decode_wait(mode("spin", 500, 1.0)),
            "spin polls, as it is meant to: 1.00 of a core per token");
  EXPECT_NE(describe_decode_wait(mode("blocking_sync", 500, 0.3)).find("neither"),
            std::string::npos);
  DecodeModeRun empty;
  empty.mode = "yield";
  EXPECT_NE(describe_decode_wait(empty).find("neither"), std::string::npos);
  EXPECT_TRUE(std::isnan(decode_tok_s(empty)));
}

}  // namespace
}  // namespace jetgate::probes
