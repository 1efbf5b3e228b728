// SPDX-License-Identifier: Apache-2.0
#include "jetgate/gate/check_rows.hpp"

#include <fmt/format.h>

#include "jetgate/probes/python_runtime.hpp"

namespace jetgate::gate {
namespace {

// Probe reasons end with "Next: ..." when the probe knows the next step.
void split_next(const std::string& reason, CheckRow& row) {
  constexpr std::string_view kNext = "Next: ";
  auto at = reason.find(kNext);
  if (at == std::string::npos) {
    row.detail = reason;
    return;
  }
  std::string detail = reason.substr(0, at);
  while (!detail.empty() && (detail.back() == ' ' || detail.back() == '.')) detail.pop_back();
  row.detail = detail;
  row.next = reason.substr(at + kNext.size());
}

const char* verdict_status(ProbeVerdict v) {
  switch (v) {
    case ProbeVerdict::passed:
      return "PASS";
    case ProbeVerdict::failed:
      return "FAIL";
    case ProbeVerdict::skipped:
      return "SKIP";
  }
  return "SKIP";
}

}  // namespace

std::vector<CheckRow> requirement_rows(const std::vector<RequirementOutcome>& outcomes) {
  std::vector<CheckRow> rows;
  for (const auto& o : outcomes) {
    CheckRow r{"requirement", o.requirement, o.met ? "PASS" : "FAIL", o.why, ""};
    if (!o.met)
      r.next =
          "run this gate on a machine that meets it, or change the gate's \"requires\" in the "
          "policy";
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<CheckRow> probe_rows(const std::vector<ProbeOutcome>& outcomes,
                                 const std::map<std::string, probes::ProbeResult>& results) {
  std::vector<CheckRow> rows;
  for (const auto& o : outcomes) {
    CheckRow r{"probe", o.probe, verdict_status(o.verdict), "", ""};
    auto found = results.find(o.probe);
    if (found != results.end()) {
      if (o.verdict == ProbeVerdict::passed) r.status = probes::to_string(found->second.status);
      split_next(found->second.reason, r);
    }
    if (!o.problems.empty()) r.detail = fmt::format("{}", fmt::join(o.problems, "; "));
    if (r.status != std::string("PASS") && r.status != std::string("WARN") && r.next.empty())
      r.next =
          fmt::format("see docs/probes.md#{} and `jetgate probe --cuda` on this machine", o.probe);
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<CheckRow> command_rows(const CommandRun& run) {
  std::vector<CheckRow> rows;
  CheckRow cmd{"command", run.argv.empty() ? "command" : run.argv.front(),
               run.problems.empty() ? "PASS" : "FAIL", run.outcome, ""};
  if (!run.problems.empty()) {
    cmd.detail = fmt::format("{}", fmt::join(run.problems, "; "));
    cmd.next =
        "read the command's output in GATE.log beside the evidence, fix, and run the gate again";
  }
  rows.push_back(std::move(cmd));
  if (!run.junit) return rows;
  for (const auto& c : run.junit->not_passed) {
    bool skipped = c.outcome == "skipped";
    CheckRow r{"test", c.name, skipped ? "SKIP" : "FAIL",
               c.outcome + (c.message.empty() ? "" : ": " + c.message),
               skipped ? "green means without skips: make the test run here, or leave it out of "
                         "this gate's command"
                       : "run this test locally; its output is in GATE.log"};
    rows.push_back(std::move(r));
  }
  const auto& j = *run.junit;
  std::int64_t not_passed = j.failures + j.errors + j.skipped;
  auto listed = static_cast<std::int64_t>(j.not_passed.size());
  if (not_passed > listed)
    rows.push_back(
        {"test", fmt::format("{} more", not_passed - listed), "FAIL",
         fmt::format("only the first {} test cases that did not pass are listed", kMaxListedCases),
         "see the JUnit report"});
  return rows;
}

nlohmann::json to_json(const std::vector<CheckRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rows)
    out.push_back({{"kind", r.kind},
                   {"name", r.name},
                   {"status", r.status},
                   {"detail", r.detail},
                   {"next", r.next}});
  return out;
}

std::string check_line(const CheckRow& row) {
  std::string line = fmt::format("{:<7} {} {}", row.status, row.kind, row.name);
  if (!row.detail.empty()) line += ": " + row.detail;
  if (!row.next.empty()) line += " (next: " + row.next + ")";
  return line;
}

}  // namespace jetgate::gate
