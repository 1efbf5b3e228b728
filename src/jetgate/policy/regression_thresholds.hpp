// SPDX-License-Identifier: Apache-2.0
// The policy's optional "regressions" section: when `jetgate history regressions`
// calls a node's value worse than its baseline (docs/history.md). Every field has a
// default; a field outside these, or out of range, is a policy issue.
#pragma once

#include <cstdint>

namespace jetgate::policy {

// A node is silent when its latest evidence is older than the policy's freshness rule
// (maximum_evidence_age_days) where it has one, else than this: two nightly runs missed.
inline constexpr std::int64_t kDefaultSilentAfterDays = 2;

struct RegressionThresholds {
  // The baseline: the median and median absolute deviation of a node's last
  // baseline_runs green runs before the value; at least min_baseline_runs of them,
  // else the fleet's (peers of the same platform), else none.
  std::int64_t baseline_runs = 7;
  std::int64_t min_baseline_runs = 3;
  // Peers of the same platform needed for a fleet baseline.
  std::int64_t min_peers = 3;
  // A drop (bandwidth, tokens per second, fraction of the bound) counts when the value
  // is below the median by more than drop_fraction of it and by more than mad_factor
  // times the deviation (1.4826 x MAD, the normal-equivalent sigma).
  double drop_fraction = 0.10;
  double mad_factor = 4.0;
  // A rise in the sync path's CPU per wait counts when it is above the median by more
  // than cpu_rise (a share of one core) and by more than mad_factor times the deviation.
  double cpu_rise = 0.05;
  // Runs in a row that must be worse before it is called a regression (1: the first).
  std::int64_t confirm_runs = 1;
};

}  // namespace jetgate::policy
