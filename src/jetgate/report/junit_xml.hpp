// SPDX-License-Identifier: Apache-2.0
// JUnit XML for CI systems (GitHub test reporters, GitLab, Jenkins): one
// <testcase> per gate, requirement or probe that jetgate checked, written with
// pugixml. What does not pass carries its reason and the next step in the
// failure's message, so a CI test view says what to do.
#pragma once

#include <string>
#include <vector>

#include "jetgate/claims/check.hpp"
#include "jetgate/core/outcome.hpp"
#include "jetgate/gate/check_rows.hpp"
#include "jetgate/probes/probe_result.hpp"

namespace jetgate::report {

struct JunitTestCase {
  std::string classname;  // "jetgate.run.jetson-cuda-runtime"
  std::string name;       // "requirement arch in [aarch64]"
  Outcome status = Outcome::not_run;
  std::string message;  // what was found; empty for a pass
  std::string next;     // what to do; may be empty
};

struct JunitSuite {
  std::string name;  // "jetgate run jetson-cuda-runtime"
  std::vector<JunitTestCase> cases;
};

// FAIL is a <failure>, SKIP and NOT_RUN <skipped>; PASS and
// WARN pass (a WARN keeps its message in <system-out>). Text that is not
// UTF-8 or not allowed in XML 1.0 is replaced, so the document always parses.
std::string render_junit_xml(const JunitSuite& suite);

// `run --junit`: a test case per row of the gate (requirement, probe, test, command).
JunitSuite run_junit(const std::string& gate, const std::vector<gate::CheckRow>& rows);
// `check --junit`: a test case per policy gate (holds, violated, waived, not
// required) and one for the policy's own rules.
JunitSuite check_junit(const claims::CheckResult& result);
// `probe --junit`: a test case per probe that ran or was asked for.
JunitSuite probe_junit(const std::vector<probes::ProbeResult>& results);

}  // namespace jetgate::report
