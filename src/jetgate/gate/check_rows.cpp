// SPDX-License-Identifier: Apache-2.0
#include "jetgate/gate/check_rows.hpp"

#include <fmt/format.h>

#include "jetgate/probes/python_runtime.hpp"

namespace jetgate::gate {
namespace {}  // namespace

std::vector<CheckRow> requirement_rows(const std::vector<policy::RequirementOutcome>& outcomes) {
  std::vector<CheckRow> rows;
  for (const auto& o : outcomes) {
    CheckRow r{"requirement", o.requirement, o.met ? Outcome::pass : Outcome::fail, o.why, ""};
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
    CheckRow r{"probe", o.probe, o.status, "", ""};
    auto found = results.find(o.probe);
    if (found != results.end()) {
      if (o.status == Outcome::pass) r.status = found->second.status;
      r.detail = found->second.reason;
      r.next = found->second.next;
    }
    if (!o.problems.empty()) r.detail = fmt::format("{}", fmt::join(o.problems, "; "));
    if (!holds(r.status) && r.next.empty())
      r.next =
          fmt::format("see docs/probes.md#{} and `jetgate probe --cuda` on this machine", o.probe);
    rows.push_back(std::move(r));
  }
  return rows;
}

std::vector<CheckRow> command_rows(const CommandRun& run) {
  std::vector<CheckRow> rows;
  CheckRow cmd{"command", run.argv.empty() ? "command" : run.argv.front(),
               run.problems.empty() ? Outcome::pass : Outcome::fail, run.outcome, ""};
  if (!run.problems.empty()) {
    cmd.detail = fmt::format("{}", fmt::join(run.problems, "; "));
    cmd.next =
        "read the command's output in GATE.log beside the evidence, fix, and run the gate again";
  }
  rows.push_back(std::move(cmd));
  if (!run.junit) return rows;
  for (const auto& c : run.junit->not_passed) {
    bool skipped = c.outcome == "skipped";
    CheckRow r{"test", c.name, skipped ? Outcome::skip : Outcome::fail,
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
        {"test", fmt::format("{} more", not_passed - listed), Outcome::fail,
         fmt::format("only the first {} test cases that did not pass are listed", kMaxListedCases),
         "see the JUnit report"});
  return rows;
}

nlohmann::json to_json(const std::vector<CheckRow>& rows) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : rows)
    out.push_back({{"kind", r.kind},
                   {"name", r.name},
                   {"status", to_string(r.status)},
                   {"detail", r.detail},
                   {"next", r.next}});
  return out;
}

std::string check_line(const CheckRow& row) {
  std::string line = fmt::format("{:<7} {} {}", to_string(row.status), row.kind, row.name);
  if (!row.detail.empty()) line += ": " + row.detail;
  if (!row.next.empty()) line += " (next: " + row.next + ")";
  return line;
}

}  // namespace jetgate::gate
