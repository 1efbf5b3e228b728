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

std::vector<ProbeOutcome> evaluate_probe_checks(
    const std::vector<policy::ProbeCheck>& checks,
    const std::map<std::string, probes::ProbeResult>& results);

evidence::Counts probe_counts(const std::vector<ProbeOutcome>& outcomes);

}  // namespace jetgate::gate
