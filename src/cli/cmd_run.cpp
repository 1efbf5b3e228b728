// SPDX-License-Identifier: Apache-2.0
// `jetgate run GATE`: runs one gate of a policy (the embedded default policy
// when --policy is not given) and writes its evidence (docs/gates.md).
// Everything echoed comes from outside (ids, paths, JUnit text, the command's
// output) and is made terminal-safe first (core/utf8.hpp).
#include <iostream>
#include <optional>
#include <random>

#include "cli/ci_outputs.hpp"
#include "cli/commands.hpp"
#include "cli/input_paths.hpp"
#include "cli/live_run_deps.hpp"
#include "cli/number_options.hpp"
#include "cli/progress_lines.hpp"
#include "cli/run_every.hpp"
#include "jetgate/core/document_keys.hpp"
#include "jetgate/core/exit_codes.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/evidence/gate_id.hpp"
#include "jetgate/facts/container_injection.hpp"
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
  std::string host_root;              // --host-root DIR: the live host's facts through its mount
  std::vector<std::string> cdi_dirs;  // --cdi-dir
  // --every DURATION: run on a schedule until SIGTERM (run_every); --jitter, --keep.
  std::string every;
  std::string jitter;
  int keep = 28;
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
  auto facts = live_run_deps(a.host_root, a.cdi_dirs).platform(a.options.root);
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

// The policy, with the gate found in it; nullopt (the reason printed) when either is unusable.
std::optional<policy::LoadedPolicy> load_gate(const RunArgs& a) {
  if (auto st = evidence::validate_gate_id(a.gate, "GATE"); !st) {
    std::cerr << "jetgate run: " << safe(st.error().message()) << "\n";
    return std::nullopt;
  }
  auto policy = load(a);
  if (!policy) {
    std::cerr << "jetgate run: " << safe(policy.error().message()) << "\n";
    return std::nullopt;
  }
  if (!policy::find_gate(policy->policy, a.gate)) {
    std::cerr << "jetgate run: " << safe(policy->policy.source) << ": no gate \"" << a.gate
              << "\" (gates:";
    for (const auto& x : policy->policy.gates) std::cerr << " " << safe(x.id);
    std::cerr << ")\n";
    return std::nullopt;
  }
  return std::move(*policy);
}

// One run of the gate. in_loop: the caller (run_every) holds the InterruptScope, and a run
// cut short by a signal leaves the labels and metrics of the last complete run in place.
int run_loaded(RunArgs a, const policy::LoadedPolicy& loaded, bool in_loop) {
  const auto* policy = &loaded;
  const auto* g = policy::find_gate(policy->policy, a.gate);
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
  std::optional<proc::InterruptScope> interrupts;
  if (!in_loop) interrupts.emplace();
  auto outcome = gate::run_gate(*g, policy::issues_of(*policy, a.gate), policy->policy, a.options,
                                live_run_deps(a.host_root, a.cdi_dirs));
  if (!outcome) {
    std::cerr << "jetgate run: " << safe(outcome.error().message()) << "\n";
    return kExitUsage;
  }
  for (const auto& w : outcome->warnings) std::cerr << warning_line(w);
  const auto& e = outcome->evidence;
  // In a pod the driver's library and the device nodes are the runtime's to inject: say
  // which injection to check, not "install the driver" (the host may well have it).
  // The evidence's /notes say it too (gate_runner: facts::container_driver_note).
  if (keys::bool_at(evidence::to_json(e), keys::kDriverLoaded) == std::optional<bool>(false) &&
      (!a.host_root.empty() ||
       keys::bool_at(evidence::to_json(e), keys::kContainerDetected) == std::optional<bool>(true)))
    std::cerr << "warning: /gpu/driver: " << facts::kContainerGpuInjection << "\n";
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
  if (in_loop && proc::interrupt_signal() != 0) {
    std::cerr << "jetgate run: " << safe(e.gate)
              << ": the run was cut short; the node labels and metrics of the last complete run "
                 "stay in place\n";
    return outcome->exit_code;
  }
  if (!write_prometheus("run", prometheus, evidence::to_json(e))) return kExitUsage;
  if (!write_nfd_features("run", nfd_features, evidence::to_json(e), a.nfd_expiry_hours))
    return kExitUsage;
  return outcome->exit_code;
}

int run(const RunArgs& a) {
  auto policy = load_gate(a);
  if (!policy) return kExitUsage;
  return run_loaded(a, *policy, false);
}

const char* exit_meaning(int rc) {
  switch (rc) {
    case kExitOk:
      return "passed";
    case kExitDoesNotHold:
      return "failed";
    case kExitUsage:
      return "not run";
    default:
      return "ended abnormally";
  }
}

// --every: the gate runs now, then again every DURATION (plus or minus half the jitter)
// after the previous run ended, until SIGTERM, SIGINT or SIGHUP. A run that fails, is not
// run, or stops on an internal error is logged and the loop goes on: only unusable
// arguments at the start end it (exit 2). A signal stops the running gate's command and
// probes (their process groups get SIGTERM, then SIGKILL after their grace of at most 5 s),
// the cut-short run's evidence is written (marked interrupted) but not kept in runs/, and
// jetgate exits 0.
int run_every(const RunArgs& a) {
  const auto every = parse_duration(a.every);
  if (!every || every->count() < 1 || every->count() > 366 * 86400)
    return usage_error("run", "--every \"" + safe(a.every) +
                                  "\" is not a duration from 1s to 366d (e.g. 6h, 90m, 1h30m)");
  auto jitter = std::chrono::seconds(every->count() / 10);
  if (!a.jitter.empty()) {
    auto j = parse_duration(a.jitter);
    if (!j || *j > *every)
      return usage_error("run", "--jitter \"" + safe(a.jitter) +
                                    "\" is not a duration from 0s to --every's " +
                                    duration_text(*every) + " (e.g. 0s, 10m)");
    jitter = *j;
  }
  if (a.dry_run || a.options.root != "/")
    return usage_error("run",
                       "--every runs the gate on this machine: not with --dry-run or --root");
  // Arguments that cannot work stop it at the start, not on every run.
  if (!load_gate(a)) return kExitUsage;
  if (!a.host_root.empty())
    if (auto st = fs::check_host_root(a.host_root); !st)
      return usage_error("run", "--host-root: " + st.error().message());
  std::mt19937_64 rng{std::random_device{}()};
  proc::InterruptScope interrupts;
  const std::string who = "jetgate run " + safe(a.gate);
  std::cerr << who << ": every " << duration_text(*every) << " (jitter " << duration_text(jitter)
            << "), keeping the last " << a.keep << " runs' evidence in "
            << safe(a.options.evidence_dir) << "/runs; SIGTERM stops it\n"
            << std::flush;
  for (long long n = 1;; ++n) {
    const std::string stamp = run_stamp(std::chrono::system_clock::now());
    int rc = kExitUsage;
    try {
      // The policy is read again each run: a ConfigMap that changed applies from the next one.
      if (auto policy = load_gate(a)) rc = run_loaded(a, *policy, true);
    } catch (const std::exception& ex) {
      std::cerr << who << ": run " << n << " stopped on an internal error (a bug, please report "
                << "it): " << safe(ex.what()) << "\n";
    }
    const int sig = proc::interrupt_signal();
    if (sig != 0) {
      // A cut-short run measured nothing about the node: runs/ is what the history ingests,
      // so it keeps complete runs only (a rollout or a drain must not read as a failure).
      std::cerr << who << ": run " << n << " was cut short by " << proc::signal_name_text(sig)
                << ": its evidence (marked interrupted) stays in " << safe(a.options.evidence_dir)
                << " and is not kept in runs/\n"
                << who << ": stopped by " << proc::signal_name_text(sig) << "\n"
                << std::flush;
      return kExitOk;
    }
    std::vector<std::string> removed;
    std::string keep_error;
    const std::string kept =
        keep_run(a.options.evidence_dir, a.gate, stamp, a.keep, removed, keep_error);
    std::cerr << who << ": run " << n << " exited " << rc << " (" << exit_meaning(rc) << ")";
    if (!kept.empty())
      std::cerr << "; evidence kept in " << safe(kept);
    else
      std::cerr << "; no evidence kept: " << safe(keep_error);
    if (!removed.empty()) std::cerr << "; removed " << removed.size() << " older run(s)";
    std::cerr << "\n";
    auto wait = *every;
    if (jitter.count() > 0)
      wait += std::chrono::seconds(static_cast<long long>(rng() % (jitter.count() + 1)) -
                                   jitter.count() / 2);
    if (wait.count() < 1) wait = std::chrono::seconds(1);
    std::cerr << who << ": next run in " << duration_text(wait) << "\n" << std::flush;
    std::cout << std::flush;
    if (wait_or_interrupt(wait)) {
      std::cerr << who << ": stopped by " << proc::signal_name_text(proc::interrupt_signal())
                << " between runs\n"
                << std::flush;
      return kExitOk;
    }
  }
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
  add_cdi_dir_option(sub, args->cdi_dirs);
  auto* every_opt =
      sub->add_option("--every", args->every,
                      "Keep running: the gate now, then again DURATION after each run ended "
                      "(e.g. 6h, 90m, 1h30m), until SIGTERM/SIGINT/SIGHUP, which stops the "
                      "running probe or command and exits 0. A failed run never ends it; each "
                      "run rewrites the --prometheus and --nfd-features files and keeps a copy "
                      "of its evidence in EVIDENCE_DIR/runs/STAMP/ (a node validator's "
                      "DaemonSet; docs/kubernetes.md)")
          ->type_name("DURATION")
          ->excludes("--dry-run")
          ->excludes(root_opt);
  sub->add_option("--jitter", args->jitter,
                  "With --every: each wait is DURATION plus or minus half of this, at random "
                  "(default a tenth of --every), so that nodes started together drift apart")
      ->type_name("DURATION")
      ->needs(every_opt);
  sub->add_option("--keep", args->keep,
                  "With --every: how many runs' evidence EVIDENCE_DIR/runs keeps (the oldest "
                  "are removed)")
      ->check(plain_number() & CLI::Range(1, 10000))
      ->capture_default_str()
      ->needs(every_opt);
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
      "With --dry-run: 0 the gate would run here (or on the --root recording), 1 it would not.\n"
      "With --every: 0 stopped by a signal, 2 unusable arguments; a run's own status is logged.");
  return {sub, [args] {
            args->options.repo_root = args->repo_root;
            args->options.node_validator = !args->host_root.empty();
            return args->every.empty() ? run(*args) : run_every(*args);
          }};
}

}  // namespace jetgate::cli
