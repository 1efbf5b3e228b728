// `jetgate run GATE`: requirements first, then probes and the command, then
// one evidence document written atomically. The outside world (platform
// facts, the CUDA driver, Python, child processes, git, the clock) comes in
// through RunDeps, so tests can run a gate against recorded facts and fake
// probes; live_run_deps() wires the real ones.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "jetgate/core/result.hpp"
#include "jetgate/evidence/evidence.hpp"
#include "jetgate/evidence/git_sha.hpp"
#include "jetgate/gate/policy.hpp"
#include "jetgate/proc/child.hpp"
#include "jetgate/probes/cuda_section.hpp"
#include "jetgate/probes/python_runtime.hpp"

namespace jetgate::gate {

struct PlatformFacts {
  nlohmann::json platform;
  std::vector<std::string> warnings;
};

struct RunDeps {
  std::function<PlatformFacts(const std::string& root)> platform;
  std::function<probes::CudaSection(const probes::CudaOptions&)> cuda;
  std::function<probes::PythonRuntime(const probes::PythonOptions&)> python;
  std::function<proc::ChildOutcome(const proc::ProcessSpec&, const proc::ChildLimits&)> process;
  std::function<evidence::GitSha(const std::string& repo_root)> git_sha;
  std::function<std::string()> now;  // generated_at
};

// The real machine: facts::collect_platform, probes::collect_cuda, ... (live_run_deps.cpp).
RunDeps live_run_deps();

struct RunOptions {
  std::string evidence_dir = "conditional-evidence";
  std::string python = "python3";
  std::string root = "/";  // where platform facts are read from
  std::string repo_root;   // command cwd and git_sha; empty: the policy's repo_root
};

struct RunOutcome {
  evidence::Evidence evidence;
  std::string path;  // the evidence file written
  int exit_code = 2; // 0 passed, 1 failed, 2 not_run
  std::vector<std::string> warnings;  // also recorded in the evidence
  std::string command_output;         // the command's stdout + stderr (capped), for the log
};

// Errors only when the evidence cannot be written or the gate is unusable
// (its policy issues are listed in the error).
Result<RunOutcome> run_gate(const Gate& gate, const std::vector<PolicyIssue>& gate_issues,
                            const Policy& policy, const RunOptions& options, const RunDeps& deps);

}  // namespace jetgate::gate
