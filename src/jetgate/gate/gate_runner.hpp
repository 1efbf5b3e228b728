// SPDX-License-Identifier: Apache-2.0
// `jetgate run GATE`: requirements first, then probes and the command, then
// one evidence document written atomically. The outside world (platform
// facts, the CUDA driver, Python, child processes, git, the clock) comes in
// through RunDeps, so tests can run a gate against recorded facts and fake
// probes; src/cli/live_run_deps.cpp wires the real ones.
//
// Everything that can be checked without running anything is checked first:
// the gate's policy, the command's paths (confined to the repository), the
// evidence directory (usable, writable, and locked for this gate). Then,
// before any probe or command runs, the old GATE.json is replaced by a
// "not_run, unfinished" document, so whatever happens afterwards (a crash, a
// SIGKILL, a failed write) no older green evidence is left standing for this
// run; the final document replaces it, and if even that cannot be written the
// file is removed.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jetgate/core/result.hpp"
#include "jetgate/evidence/evidence.hpp"
#include "jetgate/evidence/gate_log.hpp"
#include "jetgate/evidence/git_sha.hpp"
#include "jetgate/facts/warning.hpp"
#include "jetgate/gate/check_rows.hpp"
#include "jetgate/policy/policy.hpp"
#include "jetgate/probes/cuda_section.hpp"
#include "jetgate/probes/progress.hpp"
#include "jetgate/probes/python_runtime.hpp"
#include "jetgate/proc/child.hpp"
#include "jetgate/trust/keys.hpp"

namespace jetgate::gate {

struct PlatformFacts {  // NOLINT(bugprone-exception-escape): see .clang-tidy
  nlohmann::json platform;
  std::vector<facts::Warning> warnings;
  // Where they were read: "/" and null, or the host mount (`run --host-root DIR`):
  // DIR and evidence::host_mount_json(). Either way they are live.
  std::string root = "/";
  nlohmann::json host_mount = nullptr;
};

struct RunDeps {
  std::function<PlatformFacts(const std::string& root)> platform;
  std::function<probes::CudaSection(const probes::CudaOptions&)> cuda;
  std::function<probes::PythonRuntime(const probes::PythonOptions&)> python;
  std::function<proc::ChildOutcome(const proc::ProcessSpec&, const proc::ChildLimits&,
                                   const proc::LiveOutput&)>
      process;
  std::function<evidence::GitSha(const std::string& repo_root)> git_sha;
  // HEAD and dirtiness, read before and after the probes and the command.
  std::function<evidence::GitState(const std::string& repo_root)> git_state;
  std::function<std::string()> now;  // generated_at
  // The signal that interrupted jetgate (proc/interrupt.hpp), else 0.
  std::function<int()> interrupted;
};

struct RunOptions {
  std::string evidence_dir = "conditional-evidence";
  std::string python = "python3";
  std::string root = "/";          // where platform facts are read from
  std::string repo_root;           // command cwd and git_sha; empty: the policy's repo_root
  probes::ProbeProgress progress;  // as each probe starts and ends
  // Each line of the command's output as it is written (terminal-safe, no newline).
  std::function<void(std::string_view line)> command_line;
  // Set: GATE.dsse.json is written beside GATE.json, signed with it (docs/trust.md).
  std::optional<trust::SigningKey> signing_key;
  // The board this run speaks for (`run --node`, default $RUNNER_NAME):
  // recorded as /lane/node, so two identical boards are judged each on its
  // own. Empty: not recorded (the evidence directory then tells lanes apart).
  std::string node;
  // A node validator (`run --host-root`, a pod): the run judges a machine, not a
  // checkout, so a gate without a test command is not warned that git cannot show a clean
  // tree ("dirty": null stays in the evidence, which backs no support claim).
  bool node_validator = false;
};

// "" when NAME may name a node: 1 to 100 printable ASCII characters, no
// leading or trailing space; else why not.
std::string node_name_problem(const std::string& name);

struct RunOutcome {
  evidence::Evidence evidence;
  std::string path;           // the evidence file written
  std::string log_path;       // GATE.log, when the command ran and its output was saved
  std::string envelope_path;  // GATE.dsse.json, when the evidence was signed
  int exit_code = 2;          // 0 passed, 1 failed or interrupted, 2 not_run
  // Also recorded in the evidence's /warnings, in the shape `probe` writes them:
  // {fact, source, message}, the fact a JSON pointer into the evidence.
  std::vector<facts::Warning> warnings;
  std::vector<CheckRow> checks;  // one per requirement, probe, failed test, run problem (/checks)
};

// Errors (exit 2, nothing run) when the gate is unusable (its policy issues,
// or command paths that leave the repository, are listed in the error), when
// the evidence directory cannot be used, or when another run of the gate holds
// its lock; and, after a run, when its evidence could not be written (the old
// file is then removed).
Result<RunOutcome> run_gate(const policy::Gate& gate,
                            const std::vector<policy::PolicyIssue>& gate_issues,
                            const policy::Policy& policy, const RunOptions& options,
                            const RunDeps& deps);

}  // namespace jetgate::gate
