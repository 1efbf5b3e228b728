// SPDX-License-Identifier: Apache-2.0
// The probe registry: every probe jetgate has, and every metric each one reports, with
// its unit, which way is better, and whether it is a speed. This is the one list: the
// policy parser checks a gate's thresholds against it (a misspelt metric is an error
// with a did-you-mean, not a gate that fails on the board), and the CLI, `jetgate init`
// and the docs read it. The probes write their values under these names; the
// registry test runs them (fake CUDA driver, recorded Python facts) and fails on a
// value the registry does not declare, or declares with another unit.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jetgate::probes {

enum class Better { higher, lower, neither };
const char* to_string(Better b);  // "higher", "lower", "neither"

enum class ProbeKind { cuda, python };

// Which way a watched metric regresses: a rate that drops, a cost that rises.
enum class Watch { drop, rise };

struct MetricSpec {
  std::string name;  // a key of ProbeResult::values, e.g. "d2d_gbps"
  std::string unit;  // as the probe writes it: "GB/s", "us", "tok/s", "fraction", "bytes", ...
  Better better = Better::neither;
  bool speed = false;  // a throughput or latency: what a regression or a floor is about
  std::string what;    // one line for people
  // Whether a fleet watches it for regressions (history, the Prometheus rules),
  // and which way is worse: every speed that is better higher drops; a cost the
  // registry names (the sync path's CPU per wait) rises. Unset: not watched.
  std::optional<Watch> watch;
};

struct ProbeSpec {
  std::string id;  // "launch", "memory", "bandwidth", "sync_path", "decode", ...
  ProbeKind kind = ProbeKind::cuda;
  std::string what;
  std::vector<MetricSpec> metrics;
  bool by_default = true;       // runs when no probe is named (probe --cuda, init's gate)
  bool measures_speed = false;  // its status depends on how fast the device is
};

// In the order the probes run.
const std::vector<ProbeSpec>& probe_registry();
const ProbeSpec* find_probe_spec(std::string_view id);
const MetricSpec* find_metric(const ProbeSpec& probe, std::string_view metric);
// Every probe id, in registry order; only those of one kind.
std::vector<std::string> registered_probe_ids();
std::vector<std::string> registered_probe_ids(ProbeKind kind);
std::vector<std::string> metric_names(const ProbeSpec& probe);

// The scheduling modes the sync_path and decode probes measure, in the order they run.
const std::vector<std::string>& sync_modes();

}  // namespace jetgate::probes
