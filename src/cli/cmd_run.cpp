// `jetgate run GATE`: runs one gate of a policy (the embedded default policy
// when --policy is not given) and writes its evidence (docs/gates.md).
// Everything echoed comes from outside (ids, paths, JUnit text, the command's
// output) and is made terminal-safe first (core/utf8.hpp).
#include <iostream>

#include "cli/commands.hpp"
#include "cli/progress_lines.hpp"
#include "jetgate/core/exit_codes.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/evidence/gate_id.hpp"
#include "jetgate/gate/gate_runner.hpp"
#include "jetgate/proc/interrupt.hpp"

namespace jetgate::cli {
namespace {

struct RunArgs {
  std::string gate;
  std::string policy;
  std::string repo_root;
  bool quiet = false;
  gate::RunOptions options;
};

Result<gate::LoadedPolicy> load(const RunArgs& a) {
  if (a.policy.empty()) return gate::load_default_policy(a.repo_root.empty() ? "." : a.repo_root);
  return gate::load_policy_file(a.policy, a.repo_root);
}

std::string safe(std::string_view s) { return terminal_safe(s); }

int run(RunArgs a) {
  if (auto st = evidence::validate_gate_id(a.gate, "GATE"); !st) {
    std::cerr << "jetgate run: " << safe(st.error().message()) << "\n";
    return kExitUsage;
  }
  auto policy = load(a);
  if (!policy) {
    std::cerr << "jetgate run: " << safe(policy.error().message()) << "\n";
    return kExitUsage;
  }
  const auto* g = gate::find_gate(policy->policy, a.gate);
  if (!g) {
    std::cerr << "jetgate run: " << safe(policy->policy.source) << ": no gate \"" << a.gate << "\" (gates:";
    for (const auto& x : policy->policy.gates) std::cerr << " " << safe(x.id);
    std::cerr << ")\n";
    return kExitUsage;
  }
  for (const auto& w : policy->warnings) std::cerr << "warning: " << safe(w) << "\n";
  // Other gates' and policy-wide problems do not stop this gate; `check` reports them.
  for (const auto& i : policy->issues)
    if (i.subject != a.gate) std::cerr << "warning: policy: " << safe(i.line()) << "\n";
  if (progress_wanted(a.quiet)) a.options.progress = stderr_progress();
  if (!a.quiet)
    a.options.command_line = [prefix = "[" + a.gate + "] "](std::string_view line) {
      std::cerr << prefix << line << "\n" << std::flush;
    };
  // From here on SIGINT/SIGTERM/SIGHUP stop the gate's command and probes, and
  // the evidence says the run was interrupted.
  proc::InterruptScope interrupts;
  auto outcome = gate::run_gate(*g, gate::issues_of(*policy, a.gate), policy->policy, a.options,
                                gate::live_run_deps());
  if (!outcome) {
    std::cerr << "jetgate run: " << safe(outcome.error().message()) << "\n";
    return kExitUsage;
  }
  for (const auto& w : outcome->warnings) std::cerr << "warning: " << safe(w) << "\n";
  const auto& e = outcome->evidence;
  std::cout << e.gate << ": " << evidence::to_string(e.status) << ": " << safe(e.reason) << "\n"
            << "counts: tests " << e.counts.tests << ", failures " << e.counts.failures
            << ", errors " << e.counts.errors << ", skipped " << e.counts.skipped << "\n"
            << "evidence: " << safe(outcome->path) << " (git_sha " << e.git_sha << ")\n";
  if (!outcome->log_path.empty()) std::cout << "log: " << safe(outcome->log_path) << "\n";
  return outcome->exit_code;
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* sub = app.add_subcommand(
      "run", "Run one gate (requirements, probes, test command) and write its evidence");
  sub->add_option("gate", args->gate, "Gate id, e.g. cuda-runtime or jetson-cuda-runtime")->required();
  sub->add_option("--policy", args->policy,
                  "Policy JSON (OBLITERATUS ci/conditional-test-policy.json format); default: the "
                  "embedded policy with cuda-runtime and jetson-cuda-runtime");
  sub->add_option("--evidence-dir", args->options.evidence_dir,
                  "Where GATE.json (and the command's output, GATE.log) is written; an existing directory, "
                  "or a new one inside an existing directory")
      ->capture_default_str();
  sub->add_option("--python", args->options.python, "Python interpreter for the python_runtime probe")
      ->capture_default_str();
  sub->add_option("--root", args->options.root, "Read platform facts under DIR (a recorded machine)")
      ->capture_default_str();
  sub->add_option("--repo-root", args->repo_root,
                  "Repository root for coverage paths, the command's cwd and git_sha; default: the "
                  "nearest directory above the policy that holds .git");
  sub->add_flag("--quiet", args->quiet,
                "Show neither probe progress nor the command's output while it runs (GATE.log keeps it)");
  sub->footer(
      "Exit status: 0 passed, 1 failed (or interrupted by SIGINT/SIGTERM/SIGHUP), 2 not run "
      "(requirements unmet) or unusable input.");
  return {sub, [args] {
            args->options.repo_root = args->repo_root;
            return run(*args);
          }};
}

}  // namespace jetgate::cli
