// SPDX-License-Identifier: Apache-2.0
// `jetgate run GATE`: runs one gate of a policy (the embedded default policy
// when --policy is not given) and writes its evidence (docs/gates.md).
// Everything echoed comes from outside (ids, paths, JUnit text, the command's
// output) and is made terminal-safe first (core/utf8.hpp).
#include <iostream>

#include "cli/ci_outputs.hpp"
#include "cli/commands.hpp"
#include "cli/live_run_deps.hpp"
#include "cli/number_options.hpp"
#include "cli/progress_lines.hpp"
#include "jetgate/core/exit_codes.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/evidence/gate_id.hpp"
#include "jetgate/fs/atomic_write.hpp"
#include "jetgate/fs/host_root.hpp"
#include "jetgate/gate/command_run.hpp"
#include "jetgate/gate/dry_run.hpp"
#include "jetgate/gate/gate_runner.hpp"
#include "jetgate/proc/interrupt.hpp"
#include "jetgate/report/platform_text.hpp"
#include "jetgate/trust/keys.hpp"

namespace jetgate::cli {
namespace {

struct RunArgs {
  std::string gate;
  std::string policy;
  std::string repo_root;
  bool quiet = false;
  bool dry_run = false;
  std::string sign_key;
  std::string junit;
  std::string prometheus;
  std::string nfd_features;
  int nfd_expiry_hours = 24;
  bool json = false;
  std::string host_root;  // --host-root DIR: the live host's facts through its mount
  gate::RunOptions options;
};

Result<policy::LoadedPolicy> load(const RunArgs& a) {
  if (a.policy.empty()) return policy::load_default_policy(a.repo_root.empty() ? "." : a.repo_root);
  return policy::load_policy_file(a.policy, a.repo_root);
}

std::string safe(std::string_view s) {
  return terminal_safe(s);
}

// One warning as `probe` prints it (report::render_warnings_text).
std::string warning_line(const facts::Warning& w) {
  return report::render_warnings_text(nlohmann::json::array({facts::to_json(w)}));
}

void print_rows(const std::vector<gate::CheckRow>& rows) {
  for (const auto& r : rows) std::cout << "  " << safe(gate::check_line(r)) << "\n";
}

// Requirements only, nothing run, no evidence: 0 the gate would run on that
// machine, 1 it would not; 2 when it was asked to really run against a recording.
int dry_run(const RunArgs& a, const policy::Gate& g) {
  const bool recorded = a.options.root != "/";
  auto facts = live_run_deps(a.host_root).platform(a.options.root);
  for (const auto& w : facts.warnings) std::cerr << warning_line(w);
  auto d = gate::dry_run(g, facts.platform);
  std::string where = recorded ? "the recorded root " + safe(a.options.root)
                      : a.host_root.empty()
                          ? std::string("this machine")
                          : "this machine's host, mounted at " + safe(a.host_root);
  std::cout << safe(g.id) << ": dry run on " << where << ": "
            << (d.would_run_here() ? "would run" : "would not run (a requirement is not met)")
            << "\n";
  print_rows(gate::dry_run_rows(d));
  std::cout << "no evidence written\n";
  if (recorded && !a.dry_run) {
    std::cerr << "jetgate run: " << safe(g.id)
              << ": a recorded root cannot run probes or a command: its facts "
              << "describe another machine, and evidence from it would claim that machine "
                 "(facts_source). "
              << "Run the gate on the machine itself, or add --dry-run to ask only whether it "
                 "would run there\n";
    return kExitUsage;
  }
  return d.would_run_here() ? kExitOk : kExitDoesNotHold;
}

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
  const auto* g = policy::find_gate(policy->policy, a.gate);
  if (!g) {
    std::cerr << "jetgate run: " << safe(policy->policy.source) << ": no gate \"" << a.gate
              << "\" (gates:";
    for (const auto& x : policy->policy.gates) std::cerr << " " << safe(x.id);
    std::cerr << ")\n";
    return kExitUsage;
  }
  for (const auto& w : policy->warnings) std::cerr << "warning: " << safe(w) << "\n";
  // Other gates' and policy-wide problems do not stop this gate; `check` reports them.
  for (const auto& i : policy->issues)
    if (i.subject != a.gate) std::cerr << "warning: policy: " << safe(i.line()) << "\n";
  // A host mount that is refused (a recording, no procfs) stops the run before anything runs.
  if (!a.host_root.empty())
    if (auto st = fs::check_host_root(a.host_root); !st) {
      std::cerr << "jetgate run: --host-root: " << safe(st.error().message()) << "\n";
      return kExitUsage;
    }
  if (a.dry_run || a.options.root != "/") return dry_run(a, *g);
  // An output that cannot be written stops the run before anything runs; its
  // directory is held open from here, so the gate's command cannot move it.
  // No output may be one of the run's inputs (the policy, the signing key, the gate's
  // JUnit report) or the evidence files it writes itself.
  fs::CommandFiles files;
  files.add_input(a.policy, "the policy");
  files.add_input(a.sign_key, "the signing key");
  if (g->command) {
    const auto& root = a.options.repo_root.empty() ? policy->policy.repo_root : a.options.repo_root;
    if (auto paths = gate::confine_command_paths(*g->command, root))
      files.add_input(paths->junit, "the JUnit report of the gate's command");
  }
  files.add_input_dir(a.options.evidence_dir, "the evidence directory", {".json", ".log"});
  if (!check_outputs("run", files,
                     {{"--junit", a.junit},
                      {"--prometheus", a.prometheus},
                      {"--nfd-features", a.nfd_features}}))
    return kExitUsage;
  HeldOutput junit, prometheus, nfd_features;
  if (!hold_output("run", "--junit", a.junit, junit) ||
      !hold_output("run", "--prometheus", a.prometheus, prometheus) ||
      !hold_output("run", "--nfd-features", a.nfd_features, nfd_features))
    return kExitUsage;
  // A key that cannot be used stops the run before anything runs.
  if (!a.sign_key.empty()) {
    auto key = trust::load_signing_key(a.sign_key);
    if (!key) {
      std::cerr << "jetgate run: " << safe(key.error().message()) << "\n";
      return kExitUsage;
    }
    a.options.signing_key = std::move(*key);
  }
  if (progress_wanted(a.quiet)) a.options.progress = stderr_progress();
  if (!a.quiet)
    a.options.command_line = [prefix = "[" + a.gate + "] "](std::string_view line) {
      std::cerr << prefix << line << "\n" << std::flush;
    };
  // From here on SIGINT/SIGTERM/SIGHUP stop the gate's command and probes, and
  // the evidence says the run was interrupted.
  proc::InterruptScope interrupts;
  auto outcome = gate::run_gate(*g, policy::issues_of(*policy, a.gate), policy->policy, a.options,
                                live_run_deps(a.host_root));
  if (!outcome) {
    std::cerr << "jetgate run: " << safe(outcome.error().message()) << "\n";
    return kExitUsage;
  }
  for (const auto& w : outcome->warnings) std::cerr << warning_line(w);
  const auto& e = outcome->evidence;
  // --json: stdout is the evidence document just written, nothing else.
  std::ostream& text = a.json ? std::cerr : std::cout;
  if (a.json) std::cout << dump_json(evidence::to_json(e), 2) << "\n";
  text << e.gate << ": " << evidence::to_string(e.status) << "\n";
  for (const auto& r : outcome->checks) text << "  " << safe(gate::check_line(r)) << "\n";
  text << "counts: tests " << e.counts.tests << ", failures " << e.counts.failures << ", errors "
       << e.counts.errors << ", skipped " << e.counts.skipped << "\n"
       << "evidence: " << safe(outcome->path) << " (git_sha " << e.git_sha << ")\n";
  if (!outcome->log_path.empty()) text << "log: " << safe(outcome->log_path) << "\n";
  if (!outcome->envelope_path.empty())
    text << "signed: " << safe(outcome->envelope_path) << " (key "
         << a.options.signing_key->key_id() << ")\n";
  auto suite = report::run_junit(e.gate, outcome->checks);
  annotate(suite, a.policy, a.json);
  if (!write_junit("run", junit, suite)) return kExitUsage;
  if (!write_prometheus("run", prometheus, evidence::to_json(e))) return kExitUsage;
  if (!write_nfd_features("run", nfd_features, evidence::to_json(e), a.nfd_expiry_hours))
    return kExitUsage;
  return outcome->exit_code;
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  auto* sub = app.add_subcommand(
      "run", "Run one gate (requirements, probes, test command) and write its evidence");
  sub->add_option("gate", args->gate, "Gate id, e.g. cuda-runtime or jetson-cuda-runtime")
      ->required();
  sub->add_option("--policy", args->policy,
                  "Policy JSON (OBLITERATUS ci/conditional-test-policy.json format); default: the "
                  "embedded policy with cuda-runtime and jetson-cuda-runtime");
  sub->add_option(
         "--evidence-dir", args->options.evidence_dir,
         "Where GATE.json (and the command's output, GATE.log) is written; an existing directory, "
         "or a new one inside an existing directory")
      ->capture_default_str();
  sub->add_option("--python", args->options.python,
                  "Python interpreter for the python_runtime probe")
      ->capture_default_str();
  auto* root_opt =
      sub->add_option("--root", args->options.root,
                      "Judge the requirements against the recorded machine under DIR (needs "
                      "--dry-run: a recording never runs probes or a command, and never writes "
                      "evidence)")
          ->capture_default_str();
  sub->add_option("--host-root", args->host_root,
                  "Run in a pod or container with the live host's /etc, /proc, /sys and "
                  "/lib/modules mounted read-only at DIR (node_exporter's --path.rootfs): the "
                  "host's facts are read there, live, while the probes and the command run here "
                  "with the devices and libraries the container has; the evidence is live and "
                  "records the mount (/host_mount) and $JETGATE_IMAGE (docs/probes.md)")
      ->type_name("DIR")
      ->excludes(root_opt);
  sub->add_flag("--dry-run", args->dry_run,
                "Only say whether the gate's requirements are met and what it would run; run "
                "nothing, write no "
                "evidence (exit 0 would run, 1 would not)");
  sub->add_option("--repo-root", args->repo_root,
                  "Repository root for coverage paths, the command's cwd and git_sha; default: the "
                  "nearest directory above the policy that holds .git");
  sub->add_option("--sign-key", args->sign_key,
                  "Sign the evidence with this secret key file (`jetgate keygen`; mode 0600): "
                  "writes GATE.dsse.json beside GATE.json (docs/trust.md)")
      ->envname("JETGATE_SIGNING_KEY");
  sub->add_flag("--json", args->json,
                "Print the evidence document written (docs/schemas/evidence.schema.json) on "
                "stdout; the text goes to stderr")
      ->excludes("--dry-run");
  sub->add_option("--junit", args->junit,
                  "Also write a JUnit XML report: a test case per requirement, probe and test")
      ->type_name("FILE");
  sub->add_option("--prometheus", args->prometheus,
                  "Also write the gate's status and the probes' values as a node_exporter "
                  "textfile-collector file, atomically (docs/metrics.md)")
      ->type_name("FILE");
  add_nfd_features_options(sub, args->nfd_features, args->nfd_expiry_hours);
  sub->add_option("--node", args->options.node,
                  "The board this run speaks for, recorded in the evidence (/lane/node) so that "
                  "identical boards are judged each on its own; default: $RUNNER_NAME, the "
                  "GitHub runner's name")
      ->envname("RUNNER_NAME");
  sub->add_flag(
      "--quiet", args->quiet,
      "Show neither probe progress nor the command's output while it runs (GATE.log keeps it)");
  sub->footer(
      "Exit status: 0 passed, 1 failed (or interrupted by SIGINT/SIGTERM/SIGHUP), 2 not run "
      "(requirements unmet) or unusable input (--root without --dry-run; a --host-root that is a "
      "recording, not a directory, or whose proc is not a procfs).\n"
      "With --dry-run: 0 the gate would run here (or on the --root recording), 1 it would not.");
  return {sub, [args] {
            args->options.repo_root = args->repo_root;
            return run(*args);
          }};
}

}  // namespace jetgate::cli
