// SPDX-License-Identifier: Apache-2.0
// The result of one probe: a status, measured values with units, and a reason
// a user can act on. Probes never print; reports render these.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "jetgate/core/outcome.hpp"

namespace jetgate::probes {

// A probe's status is the one status vocabulary (core/outcome.hpp).
using ProbeStatus = jetgate::Outcome;
using jetgate::to_string;

struct Measurement {
  double value = 0;
  std::string unit;  // "GB/s", "us", "fraction", "percent", "bytes", "count", ...
};

struct ProbeResult {
  std::string id;  // "launch", "memory", "bandwidth", "sync_path", "python_runtime"
  ProbeStatus status = ProbeStatus::not_run;
  std::string reason;  // why this status, in words a user can act on; never the next step
  std::string next;    // what to do next, when the probe knows ("" when nothing needs doing)
  std::map<std::string, Measurement> values;          // keyed by metric, e.g. "d2d_gbps"
  nlohmann::json details = nlohmann::json::object();  // structured extras (per-mode tables, ...)
  double duration_ms = 0;
};

// A probe that was asked for holds only when it measured and found nothing
// wrong: PASS or WARN. FAIL, SKIP (no driver, no device) and NOT_RUN (no
// kernels in this build) all mean the question was not answered.
inline bool probe_holds(ProbeStatus s) {
  return jetgate::holds(s);
}

// One line per requested probe that does not hold ("sync_path: SKIP: no CUDA
// device"), including requested ids with no result at all; empty when all hold.
std::vector<std::string> unmet_probes(const std::vector<ProbeResult>& results,
                                      const std::vector<std::string>& requested);

// {"id", "status", "reason", "next" (when set), "values": {metric: {"value", "unit"}}, "details",
// "duration_ms"}
nlohmann::json to_json(const ProbeResult& r);
// Inverse of to_json; nullopt plus a message in *err when the document does not fit.
std::optional<ProbeResult> probe_result_from_json(const nlohmann::json& j, std::string* err);

}  // namespace jetgate::probes
