// SPDX-License-Identifier: Apache-2.0
// Turning decode measurements into the probe's values and verdict. Pure
// functions over recorded numbers (tested without a GPU); decode.cpp
// measures. The wait classification is sync_classify's (one rule, one
// place); this file only phrases it for decoding.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jetgate/probes/probe_result.hpp"

namespace jetgate::probes {

// One scheduling mode's decode.
struct DecodeModeRun {
  std::string mode;                // "spin", "yield", "blocking_sync"
  std::vector<double> latency_us;  // per timed token: launch, id copied back, wait
  double wall_s = 0;               // the timed loop
  double cpu_s = 0;                // process CPU time over it
  double burst_tok_s = 0;          // tokens back to back without a wait per token; 0: not run
};

struct DecodeRun {
  std::string model;
  std::string dtype;
  std::string launch;                 // "persistent" or "graph"
  double weight_bytes_per_token = 0;  // weights one token reads
  double kv_bytes_per_token = 0;      // K and V one token reads, mean over the timed tokens
  double read_gbps = 0;               // read-only bandwidth measured in the same run; 0: unknown
  double theoretical_gbps = 0;        // from the memory clock and bus width; 0: unknown
  std::vector<DecodeModeRun> modes;
};

// Below this share of the measured read bandwidth the decode is a WARN.
inline constexpr double kDecodeWarnFractionOfBound = 0.25;

// Tokens per second of one mode: 1 / the median latency.
double decode_tok_s(const DecodeModeRun& m);
// The mode's process CPU time over its wall time (1.0 = one core busy).
double decode_cpu_fraction(const DecodeModeRun& m);

// "blocking sync burns 0.92 of a core per token: the driver falls back to
// polling (see the sync_path probe)", "... waits interrupt-driven (0.02 of a
// core per token)", ...
std::string describe_decode_wait(const DecodeModeRun& m);

// Fills r's values, details, status and reason. PASS: decoded, at least
// kDecodeWarnFractionOfBound of the read bound (or no bound known). WARN:
// slower. FAIL: no mode measured.
void assess_decode(const DecodeRun& run, ProbeResult& r);

}  // namespace jetgate::probes
