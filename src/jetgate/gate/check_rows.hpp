// SPDX-License-Identifier: Apache-2.0
// One row per thing a gate checked (a requirement, a probe, a test case, the
// command itself), in the style of `dcgmi diag`: a name, a status (core/outcome.hpp) and,
// for what does not pass, what was found and what to do next. The rows are
// the evidence's /checks array; `run` prints them one per line and `summary`
// lists the failed ones, so no reason is ever one 700-character line.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "jetgate/core/outcome.hpp"
#include "jetgate/gate/command_run.hpp"
#include "jetgate/gate/thresholds.hpp"
#include "jetgate/policy/requirements.hpp"
#include "jetgate/probes/probe_result.hpp"

namespace jetgate::gate {

struct CheckRow {
  std::string kind;  // "requirement", "probe", "test", "command", "run"
  std::string name;  // "is_tegra = true", "bandwidth", "tests/test_cuda.py::test_matmul", ...
  Outcome status = Outcome::not_run;
  std::string detail;  // what was found; may be empty for PASS
  std::string next;    // what to do about it; empty when nothing needs doing
};

std::vector<CheckRow> requirement_rows(const std::vector<policy::RequirementOutcome>& outcomes);
// A row per probe the gate names, judged by its thresholds (a probe the gate
// does not threshold still shows its own status).
std::vector<CheckRow> probe_rows(const std::vector<ProbeOutcome>& outcomes,
                                 const std::map<std::string, probes::ProbeResult>& results);
// The command (exit, timeout, report problems) and a row per test case that
// failed, errored or was skipped (the first kMaxListedCases of them).
std::vector<CheckRow> command_rows(const CommandRun& run);

nlohmann::json to_json(const std::vector<CheckRow>& rows);
// "FAIL  probe bandwidth: ... (next: ...)" for terminals: one line per row.
std::string check_line(const CheckRow& row);

}  // namespace jetgate::gate
