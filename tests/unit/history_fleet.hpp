// SPDX-License-Identifier: Apache-2.0
// A fleet's nightly evidence for the history tests, made from a real evidence file:
// docs/examples/evidence-h200-cuda-runtime.json, what `jetgate run cuda-runtime` wrote
// on an NVIDIA H200 (bench/results/ has that run). Each copy gets another node
// (/lane/node), another night (generated_at) and values with seeded noise around a
// per-node level: bandwidth +-1% run to run and +-3% node to node, the sync path's CPU
// fractions a little jittered. Nothing else is changed, so each file is read by the
// same reader as the original.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <random>
#include <string>

#include "test_support.hpp"

namespace jetgate::test {

inline const nlohmann::json& example_evidence() {
  static const nlohmann::json doc = nlohmann::json::parse(
      read_file(source_dir() + "/docs/examples/evidence-h200-cuda-runtime.json"));
  return doc;
}

struct NightPlan {
  double bandwidth_factor = 1;  // d2d only (the copy engines and SMs)
  bool polling = false;         // blocking_sync falls back to polling
  bool failed = false;          // the gate's command failed
};

// One node's evidence for one night: day 0 is 2026-11-01.
inline std::string night_evidence(const std::string& node, int node_index, int day,
                                  const NightPlan& plan, std::mt19937_64& rng) {
  nlohmann::json e = example_evidence();
  std::normal_distribution<double> run_noise(0, 0.01);
  // The node's own level: a fixed offset from the template, by its index.
  std::mt19937_64 node_rng(static_cast<std::uint64_t>(node_index) * 7919 + 17);
  std::normal_distribution<double> node_noise(0, 0.03);
  const double level = 1 + node_noise(node_rng);
  e["lane"] = {{"node", node}, {"kind", "native"}};
  e["generated_at"] = fmt::format("2026-11-{:02d}T02:{:02d}:{:02d}Z", day + 1, node_index % 60,
                                  (node_index * 7 + day) % 60);
  auto& values = e["probes"]["bandwidth"]["values"];
  for (const char* k :
       {"d2d_gbps", "d2d_copy_engine_gbps", "d2d_sm_copy_gbps", "h2d_gbps", "d2h_gbps"}) {
    double f = level * (1 + run_noise(rng));
    if (std::string(k).rfind("d2d", 0) == 0) f *= plan.bandwidth_factor;
    values[k]["value"] = values[k]["value"].get<double>() * f;
  }
  values["d2d_copy_engine_gbps"]["value"] = values["d2d_gbps"]["value"];
  values["d2d_fraction_of_peak"]["value"] =
      values["d2d_gbps"]["value"].get<double>() / values["theoretical_gbps"]["value"].get<double>();
  auto& sync = e["probes"]["sync_path"];
  std::uniform_real_distribution<double> small(0.0015, 0.004), busy(0.995, 1.002);
  const double blocking = plan.polling ? busy(rng) : small(rng);
  sync["values"]["sync_blocking_sync_cpu_fraction"]["value"] = blocking;
  sync["values"]["sync_spin_cpu_fraction"]["value"] = busy(rng);
  sync["values"]["sync_yield_cpu_fraction"]["value"] = busy(rng);
  for (auto& m : sync["details"]["modes"])
    if (m["mode"] == "blocking_sync") {
      m["wait_cpu_fraction"] = blocking;
      m["wait"] = plan.polling ? "busy-polling" : "interrupt-driven";
    }
  if (plan.polling) {
    sync["status"] = "WARN";
    sync["reason"] = "blocking sync burns CPU: polling fallback";
  }
  if (plan.failed) {
    e["status"] = "failed";
    e["counts"]["failures"] = 1;
    e["reason"] = "1 of 4 tests failed";
  }
  return e.dump(2) + "\n";
}

// A month (30 nights) of a 200-node fleet with three planted regressions: node-017's
// device-to-device bandwidth drops by 30% from night 19 (0-based), node-088's blocking
// sync polls from night 12, node-150's gate fails from night 25. Written under
// DIR/fleet/2026-11-DD/NODE/cuda-runtime.json; returns DIR/fleet.
constexpr int kNodes = 200, kDays = 30;
constexpr int kDropNode = 17, kDropDay = 19;
constexpr int kPollNode = 88, kPollDay = 12;
constexpr int kFailNode = 150, kFailDay = 25;

inline std::string write_fleet_month(const TempDir& t) {
  std::mt19937_64 rng(424242);
  for (int d = 0; d < kDays; ++d)
    for (int n = 0; n < kNodes; ++n) {
      NightPlan plan;
      if (n == kDropNode && d >= kDropDay) plan.bandwidth_factor = 0.7;
      if (n == kPollNode && d >= kPollDay) plan.polling = true;
      if (n == kFailNode && d >= kFailDay) plan.failed = true;
      const std::string node = fmt::format("node-{:03d}", n);
      t.write(fmt::format("fleet/2026-11-{:02d}/{}/cuda-runtime.json", d + 1, node),
              night_evidence(node, n, d, plan, rng));
    }
  return t.path("fleet");
}

}  // namespace jetgate::test
