// SPDX-License-Identifier: Apache-2.0
// Which node got worse, and since when (docs/history.md). Each node's series (per
// gate, probe and metric) is compared with its own baseline: the median and median
// absolute deviation of its last green runs (the gate passed) before the value; a
// node with too little history is compared with its fleet peers of the same platform.
// Worse is: a drop in bandwidth, decode tokens per second or a fraction of the bound;
// a rise in the sync path's CPU per wait; a scheduling mode's wait that turns from
// interrupt-driven to polling; a gate that passed and now fails. A regression is a
// trailing run of worse values (the latest run is worse): its first run says since when.
// Two findings are about the fleet: a node whose latest evidence is older than the
// silence limit (silent: the validator or the node is down), and a node whose own
// median is below its platform's peers by the same thresholds (below_peers: slow from
// its first night, never "worse than itself"). The values watched, and which way is
// worse, come from the probe registry (probes/watched.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "jetgate/history/store.hpp"
#include "jetgate/policy/regression_thresholds.hpp"

namespace jetgate::history {

enum class RegressionKind { drop, rise, wait_mode, gate_failed, silent, below_peers };
// "drop", "rise", "wait_mode", "gate_failed", "silent", "below_peers"
const char* to_string(RegressionKind k);

struct Regression {
  RegressionKind kind = RegressionKind::drop;
  std::string node, platform, gate;
  std::string probe;  // "" for gate_failed and silent
  // the value's key; the scheduling mode for wait_mode; "status" for a gate; "evidence"
  // for silent (gate: "" as the node's evidence of every gate is silent)
  std::string metric;
  // Other values of the same probe that got worse the same way (one finding, one cause).
  std::vector<std::string> also;
  std::string unit;  // base unit of baseline and value; "" where they are words
  // Numbers (drop, rise; wait_mode: the mode's CPU fraction where recorded).
  bool numeric = false;
  double baseline_median = 0, baseline_mad = 0, value = 0;
  std::string baseline_source;    // "own" (the node's runs) or "fleet" (peers of its platform)
  std::size_t baseline_runs = 0;  // runs (own) or peers (fleet) the baseline is made of
  // Words (wait_mode: "interrupt_driven" -> "busy_polling"; gate_failed: "passed" -> "failed").
  std::string baseline_text, value_text;
  // Since when: the first worse run of the trailing streak, and the latest one.
  std::string first_timestamp, first_file, last_timestamp, last_file;
  std::int64_t first_unix_time = 0;
  std::size_t worse_runs = 0;  // runs in the streak
  // silent: the latest run (first_* and last_* name it), seconds from it to "now".
  std::int64_t age_seconds = 0;
};

// Every node's latest run of any gate.
struct LastSeen {
  std::string node, platform, timestamp, file;
  std::int64_t unix_time = 0, age_seconds = 0;
  bool silent = false;
};

struct RegressionReport {
  std::size_t runs = 0, nodes = 0, series = 0;  // what was looked at
  std::vector<Regression> found;                // ordered by node, gate, probe, metric
  std::int64_t now = 0;                         // Unix time the ages are counted to
  std::int64_t silent_after_seconds = 0;
  std::vector<LastSeen> last_seen;  // ordered by node
  std::size_t silent() const;
};

struct FindOptions {
  // "Now": the newest run's time when absent (the same database gives the same answer
  // tomorrow). Runs after it are left out, as if the database were read then.
  std::optional<std::int64_t> now;
  std::int64_t silent_after_seconds = policy::kDefaultSilentAfterDays * 86400;
};

// The runs at or before `now` (load_runs' order kept).
std::vector<Run> runs_until(const std::vector<Run>& runs, std::int64_t now);

RegressionReport find_regressions(const std::vector<Run>& runs,
                                  const policy::RegressionThresholds& t = {},
                                  const FindOptions& o = {});

// One watched numeric series of one node and gate (bandwidth, decode rate, fraction of
// the bound, sync-path CPU per wait) as find_regressions walks it: each value, oldest
// first, with the baseline it was judged against (none while neither the node nor its
// fleet has one), the value past which it would be worse, and whether it was. The HTML
// report plots these; a regression is a trailing streak of worse points.
struct TrendPoint {
  const Run* run = nullptr;  // points into the runs given to find_trends
  double value = 0;
  bool has_baseline = false;
  double baseline_median = 0, baseline_mad = 0;
  double limit = 0;             // below it (drop) or above it (rise) a value is worse
  double spread = 0;            // mad_factor deviations (x 1.4826 MAD): the noise part of the limit
  std::string baseline_source;  // "own" or "fleet"
  std::size_t baseline_runs = 0;
  bool worse = false;
};

struct Trend {
  std::string node, platform, gate, probe, metric, unit;
  RegressionKind kind = RegressionKind::drop;  // drop or rise: which way is worse
  std::vector<TrendPoint> points;
};

// Every watched numeric series, ordered by node, gate, probe, metric. The points
// refer to `runs`, which must outlive them.
std::vector<Trend> find_trends(const std::vector<Run>& runs,
                               const policy::RegressionThresholds& t = {});
std::vector<Trend> find_trends(const std::vector<Run>&& runs,
                               const policy::RegressionThresholds& t = {}) = delete;

nlohmann::json to_json(const RegressionReport& r, const policy::RegressionThresholds& t);

}  // namespace jetgate::history
