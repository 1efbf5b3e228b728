// SPDX-License-Identifier: Apache-2.0
// Runs a gate's external test command and reads the JUnit XML it writes.
//
// The policy names the command's cwd and its report relative to the
// repository, and jetgate deletes the old report before the run (so a report
// from an earlier run can never stand in for this one). A policy must not be
// able to make jetgate delete, or read, a file anywhere else: both paths are
// confined to the repository (relative, no "..", and no symbolic link that
// leads out), checked before the run and again before the report is read.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jetgate/core/result.hpp"
#include "jetgate/gate/junit.hpp"
#include "jetgate/policy/policy.hpp"
#include "jetgate/proc/child.hpp"

namespace jetgate::gate {

using ProcessRunner = std::function<proc::ChildOutcome(
    const proc::ProcessSpec&, const proc::ChildLimits&, const proc::LiveOutput&)>;

// The command's working directory and report, as absolute paths inside the
// repository (cwd with symbolic links resolved).
struct CommandPaths {
  std::string repo_root;  // with symbolic links resolved
  std::string cwd, junit;
  std::optional<proc::RunAs> run_as;  // command.user, resolved (command_user)
};

// command.user resolved, or why the command cannot run as that user: the user
// does not exist, jetgate is not root (and is not that user), or the user owns
// the signing key (key_owner_uid) and so could read it.
Result<std::optional<proc::RunAs>> command_user(const policy::CommandSpec& spec,
                                                std::optional<unsigned> key_owner_uid);

// Errors say which field is wrong and why ("command.junit \"/etc/passwd\" is
// an absolute path, ..."): they are problems of the policy, and the gate does
// not run (exit 2).
Result<CommandPaths> confine_command_paths(const policy::CommandSpec& spec,
                                           const std::string& repo_root);

struct CommandRun {
  std::vector<std::string> argv;
  std::string cwd, junit_path;
  std::optional<int> exit_code;  // when the command exited
  std::string outcome;           // "exit status 0", "timed out after 600.0 s", ...
  int interrupted = 0;           // the signal that interrupted jetgate during the run, else 0
  double wall_ms = 0;
  std::optional<JunitCounts> junit;   // when the report was read
  std::vector<std::string> problems;  // why it does not pass; empty: it passes
  // False where the system refused a child subreaper (qemu-user): a process
  // the command moved to another session may have outlived it. run warns.
  bool contained = true;
};

// on_output receives the command's stdout and stderr, merged in the order
// they were written, as they arrive.
CommandRun run_command(const policy::CommandSpec& spec, const CommandPaths& paths,
                       const ProcessRunner& run,
                       const std::function<void(std::string_view)>& on_output);
nlohmann::json to_json(const CommandRun& r);

}  // namespace jetgate::gate
