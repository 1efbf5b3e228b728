// Runs a gate's external test command and reads the JUnit XML it writes.
// The report is deleted before the run, so a report left over from an
// earlier run can never stand in for this one.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "jetgate/gate/junit.hpp"
#include "jetgate/gate/policy.hpp"
#include "jetgate/proc/child.hpp"

namespace jetgate::gate {

using ProcessRunner =
    std::function<proc::ChildOutcome(const proc::ProcessSpec&, const proc::ChildLimits&)>;

struct CommandRun {
  std::vector<std::string> argv;
  std::string cwd, junit_path;
  std::optional<int> exit_code;      // when the command exited
  std::string outcome;               // "exit status 0", "timed out after 600.0 s", ...
  double wall_ms = 0;
  std::optional<JunitCounts> junit;  // when the report was read
  std::vector<std::string> problems; // why it does not pass; empty: it passes
  std::string output;                // stdout + stderr, capped (not recorded in evidence)
};

CommandRun run_command(const CommandSpec& spec, const std::string& repo_root,
                       const ProcessRunner& run);
nlohmann::json to_json(const CommandRun& r);

}  // namespace jetgate::gate
