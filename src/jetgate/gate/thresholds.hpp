// SPDX-License-Identifier: Apache-2.0
// A gate's "probes": thresholds on built-in probe results. Each probe id the
// gate names counts as one test in the evidence counts (so gates without a
// command still have honest, consistent counts): a probe that did not run
// (SKIP, NOT_RUN, or missing) is skipped; one whose status is FAIL, or that
// misses any of its checks, is a failure; otherwise it passed. WARN passes
// unless the gate asks for "status": "PASS".
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "jetgate/evidence/evidence.hpp"
#include "jetgate/policy/policy.hpp"
#include "jetgate/probes/probe_result.hpp"

namespace jetgate::gate {

// A probe the gate names, judged by its thresholds: PASS, FAIL or SKIP.
struct ProbeOutcome {
  std::string probe;
  Outcome status = Outcome::skip;
  std::vector<std::string> problems;  // each unmet check, in words
};

// `platform` (facts::collect_platform's object) decides which checks with a
// "when" apply: one the facts do not meet (an unknown fact never does) is left
// out, so a gate can hold a floor per Jetson module and power mode beside a
// floor for every board.
std::vector<ProbeOutcome> evaluate_probe_checks(
    const std::vector<policy::ProbeCheck>& checks,
    const std::map<std::string, probes::ProbeResult>& results,
    const nlohmann::json& platform = nullptr);

// Whether check `c` applies on `platform`: no "when", or every part of it met.
bool check_applies(const policy::ProbeCheck& c, const nlohmann::json& platform);

evidence::Counts probe_counts(const std::vector<ProbeOutcome>& outcomes);

}  // namespace jetgate::gate
