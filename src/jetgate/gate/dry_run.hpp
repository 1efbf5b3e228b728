// SPDX-License-Identifier: Apache-2.0
// `jetgate run GATE --dry-run` (and every `run` against a recorded root):
// which of a gate's requirements the machine's facts meet and what the gate
// would run, with nothing run and no evidence written. A recording can say
// whether a gate would run on that board; only the board itself can produce
// evidence for it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "jetgate/gate/check_rows.hpp"
#include "jetgate/policy/policy.hpp"
#include "jetgate/policy/requirements.hpp"

namespace jetgate::gate {

struct DryRun {
  std::string gate;
  std::vector<policy::RequirementOutcome> platform;  // judged from the facts
  std::vector<std::string> on_device;  // requirements only a loaded CUDA driver can answer
  std::vector<std::string> would_run;  // "probe bandwidth", "command: pytest -q (JUnit: r.xml)"
  bool would_run_here() const { return policy::all_met(platform); }
};

DryRun dry_run(const policy::Gate& gate, const nlohmann::json& platform);
// One row per requirement (PASS/FAIL), then one per step it would run (NOT_RUN).
std::vector<CheckRow> dry_run_rows(const DryRun& d);

}  // namespace jetgate::gate
