// SPDX-License-Identifier: Apache-2.0
// Turning sync-path measurements into a verdict: how each CUDA scheduling
// mode waits for the GPU (interrupt-driven or busy-polling, judged by the CPU
// time the waiting thread burnt) and whether blocking sync has fallen back to
// polling, as reported for Talos on Orin without the sync-point device
// (https://github.com/siderolabs/pkgs/pull/1518). Pure functions over recorded
// numbers; the probe measures, this decides.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "jetgate/core/result.hpp"
#include "jetgate/probes/probe_result.hpp"
#include "jetgate/probes/stats.hpp"

namespace jetgate::probes {

enum class WaitKind { interrupt_driven, busy_polling, unclear };
const char* to_string(WaitKind k);  // "interrupt-driven", "busy-polling", "unclear"

// The share of one core the waiting thread used: above polling_above it
// polls, below interrupt_below it sleeps until an interrupt wakes it; in
// between jetgate does not guess.
struct WaitThresholds {
  double polling_above = 0.5;
  double interrupt_below = 0.1;
};
WaitKind classify_wait(double cpu_fraction, const WaitThresholds& t = {});

// What was measured for one scheduling mode ("spin", "yield", "blocking_sync").
struct SyncModeMeasurement {
  std::string mode;
  std::vector<double> round_trip_us;  // tiny kernel + cuStreamSynchronize, each
  double wait_wall_s = 0;             // waiting on one long kernel
  double wait_cpu_s = 0;              // thread CPU time burnt meanwhile
};

struct SyncModeVerdict {
  std::string mode;
  Summary round_trip_us;
  double cpu_fraction = 0;
  WaitKind wait = WaitKind::unclear;
};

struct SyncAssessment {
  ProbeStatus status = ProbeStatus::not_run;
  std::string reason;
  std::vector<SyncModeVerdict> modes;
};

// PASS: blocking sync sleeps (interrupt-driven). WARN "blocking sync burns
// CPU: polling fallback": it polls. WARN: its CPU share is between the
// thresholds. FAIL: a mode has no usable measurement, or blocking_sync is
// missing.
SyncAssessment assess_sync_path(const std::vector<SyncModeMeasurement>& modes,
                                const WaitThresholds& t = {});

// Probe values (sync_<mode>_rtt_median_us, ..._p99_us, ..._cpu_fraction) and
// a per-mode table for details.
void add_sync_values(const SyncAssessment& a, ProbeResult& r);

// A recorded profile: {"source": "...", "modes": [{"mode", "round_trip_us":
// [...], "wait_wall_s", "wait_cpu_s"}]}.
nlohmann::json to_json(const SyncModeMeasurement& m);
Result<std::vector<SyncModeMeasurement>> sync_profile_from_json(const nlohmann::json& j);

}  // namespace jetgate::probes
