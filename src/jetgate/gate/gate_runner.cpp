// SPDX-License-Identifier: Apache-2.0
#include "jetgate/gate/gate_runner.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <map>

#include "jetgate/core/document_keys.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/core/version.hpp"
#include "jetgate/evidence/evidence_dir.hpp"
#include "jetgate/evidence/gpu_facts.hpp"
#include "jetgate/evidence/probe_document.hpp"
#include "jetgate/evidence/utf8_json.hpp"
#include "jetgate/facts/container_injection.hpp"
#include "jetgate/gate/check_rows.hpp"
#include "jetgate/gate/command_run.hpp"
#include "jetgate/gate/live_output.hpp"
#include "jetgate/gate/thresholds.hpp"
#include "jetgate/policy/gate_definition.hpp"
#include "jetgate/policy/requirements.hpp"
#include "jetgate/trust/envelope.hpp"

namespace jetgate::gate {
namespace {

using evidence::Evidence;
using evidence::GateStatus;

// The document is written at the named keys (core/document_keys.hpp).
constexpr const char* kUnfinished = "unfinished";

std::vector<std::string> cuda_probe_ids(const policy::Gate& gate) {
  std::vector<std::string> ids;
  for (const auto& id : gate.probe_ids())
    if (!probes::is_python_probe(id)) ids.push_back(id);
  return ids;
}

std::string unmet_reason(const std::vector<policy::RequirementOutcome>& outcomes) {
  std::vector<std::string> parts;
  for (const auto& o : outcomes)
    if (!o.met) parts.push_back(fmt::format("{} ({})", o.requirement, o.why));
  return "requirements not met: " + fmt::format("{}", fmt::join(parts, "; "));
}

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? INT64_MAX : sum;
}

struct Verdict {
  std::vector<std::string> problems;
  evidence::Counts counts;
};

void add_counts(evidence::Counts& to, std::int64_t tests, std::int64_t failures,
                std::int64_t errors, std::int64_t skipped) {
  to.tests = saturating_add(to.tests, tests);
  to.failures = saturating_add(to.failures, failures);
  to.errors = saturating_add(to.errors, errors);
  to.skipped = saturating_add(to.skipped, skipped);
}

void add_probe_verdict(const std::vector<ProbeOutcome>& outcomes, Verdict& v) {
  auto c = probe_counts(outcomes);
  add_counts(v.counts, c.tests, c.failures, 0, c.skipped);
  for (const auto& o : outcomes)
    for (const auto& p : o.problems) v.problems.push_back(fmt::format("probe {}: {}", o.probe, p));
}

void add_command_verdict(const CommandRun& run, Verdict& v) {
  if (run.junit)
    add_counts(v.counts, run.junit->tests, run.junit->failures, run.junit->errors,
               run.junit->skipped);
  for (const auto& p : run.problems) v.problems.push_back("command: " + p);
}

std::string passed_reason(const policy::Gate& gate, const CommandRun* run) {
  std::vector<std::string> parts;
  if (!gate.probes.empty())
    parts.push_back(fmt::format("{} probe(s) met every threshold", gate.probe_ids().size()));
  if (run && run->junit)
    parts.push_back(fmt::format("{} test(s) passed without skips", run->junit->tests));
  return fmt::format("{}", fmt::join(parts, "; "));
}

nlohmann::json probes_json(const std::map<std::string, probes::ProbeResult>& results) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [id, r] : results) out[id] = probes::to_json(r);
  return out;
}

nlohmann::json optional_json(const std::optional<std::string>& v) {
  return v ? nlohmann::json(*v) : nullptr;
}
nlohmann::json optional_json(const std::optional<bool>& v) {
  return v ? nlohmann::json(*v) : nullptr;
}

// What the run knows about the checkout before anything runs.
struct Checkout {
  evidence::GitSha sha;
  evidence::GitState before, after;
  bool after_read = false;
};

void record_checkout(Evidence& e, const Checkout& c) {
  e.git_sha = c.sha.sha;
  // Dirty before or after: either way the files tested are not the commit named.
  // Unknown (git could not answer) before or after: not shown clean.
  std::optional<bool> dirty = c.before.dirty;
  if (c.after_read) {
    if (c.after.dirty && *c.after.dirty)
      dirty = true;
    else if (!c.after.dirty && dirty == false)
      dirty = std::nullopt;
  }
  e.extra[keys::kDirty] = optional_json(dirty);
  const std::string& problem = !c.before.problem.empty() ? c.before.problem : c.after.problem;
  e.extra[keys::kGitProblem] =
      problem.empty() ? nlohmann::json(nullptr) : nlohmann::json(to_valid_utf8(problem));
  e.extra[keys::kGitShaSource] = c.sha.source;
  e.extra[keys::kGitHeadBefore] = optional_json(c.before.head);
  e.extra[keys::kGitHeadAfter] =
      c.after_read ? optional_json(c.after.head) : nlohmann::json(nullptr);
}

// A command that commits or checks out another commit moves HEAD: the
// evidence would name a commit that was not the one tested.
std::optional<std::string> head_moved(const Checkout& c) {
  if (!c.after_read || c.before.head == c.after.head) return std::nullopt;
  return fmt::format(
      "HEAD moved during the run (from {} to {}): the evidence names the commit checked out "
      "when the run began; run the gate again on a checkout its command does not change",
      c.before.head.value_or("none"), c.after.head.value_or("none"));
}

// GITHUB_SHA (or CI_COMMIT_SHA) naming another commit than the checked-out
// HEAD: the evidence would name a commit that was not the one tested.
std::optional<Error> sha_mismatch(const Checkout& c) {
  const auto& source = c.sha.source;
  if (source != "GITHUB_SHA" && source != "CI_COMMIT_SHA") return std::nullopt;
  if (!c.before.head || *c.before.head == c.sha.sha) return std::nullopt;
  return make_error(
      fmt::format("{} is {}, but the checkout's HEAD is {}: the evidence would name a "
                  "commit that was not the one tested",
                  source, c.sha.sha, *c.before.head),
      source,
      fmt::format("check out {} before running the gate (actions/checkout does), or unset "
                  "{} when running outside that CI job",
                  c.sha.sha, source));
}

// A gate runs only on the live machine (`run --root` is a dry run, cmd_run),
// so its facts are always "live"; under --host-root they are the live host's,
// read through its mount (/host_mount says so).
Evidence base_evidence(const policy::Gate& gate, const policy::Policy& policy,
                       const PlatformFacts& facts, const Checkout& checkout,
                       const std::string& node) {
  Evidence e;
  e.gate = gate.id;
  e.extra = evidence::facts_head(facts.root, true, facts.platform, facts.host_mount);
  e.extra.erase("schema_version");  // Evidence::schema_version writes it
  e.extra[keys::kGpu] = nullptr;
  e.extra[keys::kProbes] = nlohmann::json::object();
  e.extra[keys::kInterrupted] = nullptr;
  // Which definition of the gate ran (policy/gate_definition.hpp): evidence of
  // another definition with the same id never backs this one's claim.
  e.extra[keys::kGateDefinitionSha256] = policy::definition_sha256(gate);
  e.extra[keys::kGateDefinitionPolicy] = to_valid_utf8(policy.source);
  // Which board and lane: each is judged on its own (claims/gate_decision.cpp).
  e.extra[keys::kLaneNode] = node.empty() ? nlohmann::json(nullptr) : nlohmann::json(node);
  const nlohmann::json* in_container = keys::find(e.extra, keys::kContainerDetected);
  e.extra[keys::kLaneKind] = in_container && in_container->is_boolean() && in_container->get<bool>()
                                 ? "container"
                                 : "native";
  record_checkout(e, checkout);
  return e;
}

// Written before anything runs; the final document replaces it.
Status write_unfinished_marker(const policy::Gate& gate, const policy::Policy& policy,
                               const fs::DirHandle& dir, const Checkout& checkout,
                               const std::string& node, const RunDeps& deps) {
  Evidence e = base_evidence(gate, policy, PlatformFacts{nullptr, {}}, checkout, node);
  e.status = GateStatus::not_run;
  e.generated_at = deps.now();
  e.reason = fmt::format(
      "a run began at {} (pid {}) and has not finished; if this remains, jetgate was "
      "killed before it could write its result: run the gate again",
      e.generated_at, ::getpid());
  e.extra[keys::kInterrupted] = kUnfinished;
  auto written = evidence::write_evidence(dir, e);
  if (!written) return written.error();
  return Ok{};
}

std::string interrupted_reason(int sig) {
  return fmt::format(
      "interrupted: jetgate received {} and stopped the run; the gate did not finish, "
      "run it again",
      proc::signal_name_text(sig));
}

// Probes, Python and the command, as far as the requirements and interrupts let them run.
struct Stages {
  std::vector<policy::RequirementOutcome> requirements;
  std::map<std::string, probes::ProbeResult> results;
  std::optional<CommandRun> command;
  std::optional<evidence::GateLogRecord> log;
  std::vector<std::string> problems;  // of the run itself (the log could not be saved, ...)
  const fs::DirHandle* evidence_dir = nullptr;  // held open from before anything ran
  nlohmann::json platform;  // the facts a probe check's "when" is matched against
};

void run_command_stage(const policy::Gate& gate, const CommandPaths& paths,
                       const RunOptions& options, const RunDeps& deps, Stages& st) {
  LiveLines live(options.command_line);
  auto log = evidence::GateLog::create(*st.evidence_dir, gate.id);
  if (!log) st.problems.push_back("cannot save the command's output: " + log.error().message());
  st.command = run_command(*gate.command, paths, deps.process, [&](std::string_view chunk) {
    if (log) log->append(chunk);
    live.feed(chunk);
  });
  live.flush();
  if (!log) return;
  auto record = log->finish();
  if (record)
    st.log = *record;
  else
    st.problems.push_back("cannot save the command's output: " + record.error().message());
}

void run_stages(const policy::Gate& gate, const std::optional<CommandPaths>& paths,
                const PlatformFacts& facts, const RunOptions& options, const RunDeps& deps,
                Evidence& e, Stages& st) {
  st.platform = facts.platform;
  st.requirements = policy::evaluate_requirements(policy::platform_part(gate.requirements),
                                                  facts.platform, nullptr);
  if (!policy::all_met(st.requirements) || deps.interrupted()) return;
  probes::CudaOptions co;
  co.only = cuda_probe_ids(gate);
  co.run_probes = !co.only.empty();
  co.progress = options.progress;
  auto cuda = deps.cuda(co);
  evidence::join_gpu_facts(cuda, e.extra[keys::kPlatform]);
  e.extra[keys::kGpu] = cuda.gpu;
  if (auto note = facts::container_driver_note(facts.platform, cuda.gpu))
    cuda.notes.push_back(*note);
  if (!cuda.notes.empty()) e.extra[keys::kNotes] = cuda.notes;
  for (auto& o :
       policy::evaluate_requirements(policy::gpu_part(gate.requirements), facts.platform, cuda.gpu))
    st.requirements.push_back(std::move(o));
  if (!policy::all_met(st.requirements)) return;
  for (auto& r : cuda.probes) st.results[r.id] = std::move(r);
  auto ids = gate.probe_ids();
  auto named = [&](const char* id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); };
  if ((named(probes::kPythonRuntimeProbe) || named(probes::kBitsandbytesProbe)) &&
      !deps.interrupted()) {
    probes::PythonOptions po;
    po.python = options.python;
    po.progress = options.progress;
    po.bitsandbytes = named(probes::kBitsandbytesProbe);
    auto py = deps.python(po);
    e.extra[keys::kPython] = py.facts;
    if (named(probes::kPythonRuntimeProbe)) st.results[probes::kPythonRuntimeProbe] = py.result;
    if (py.bitsandbytes) st.results[probes::kBitsandbytesProbe] = *py.bitsandbytes;
  }
  if (gate.command && paths && !deps.interrupted())
    run_command_stage(gate, *paths, options, deps, st);
}

void decide(const policy::Gate& gate, Stages& st, const Checkout& checkout, int interrupted,
            Evidence& e, RunOutcome& out) {
  e.extra[keys::kRequirements] = to_json(st.requirements);
  e.extra[keys::kProbes] = probes_json(st.results);
  if (st.command) {
    e.extra[keys::kCommand] = to_json(*st.command);
    e.extra[keys::kCommandLog] = st.log ? to_json(*st.log) : nlohmann::json(nullptr);
    e.exit_code = st.command->exit_code;
  }
  if (interrupted != 0) e.extra[keys::kInterrupted] = proc::signal_name_text(interrupted);
  std::vector<CheckRow> rows = requirement_rows(st.requirements);
  if (!policy::all_met(st.requirements) && interrupted == 0) {
    e.status = GateStatus::not_run;
    e.reason = unmet_reason(st.requirements);
    e.extra[keys::kChecks] = to_json(rows);
    out.checks = std::move(rows);
    out.exit_code = 2;
    return;
  }
  Verdict v;
  std::vector<std::string> run_problems = st.problems;
  if (interrupted != 0) run_problems.insert(run_problems.begin(), interrupted_reason(interrupted));
  if (auto moved = head_moved(checkout)) run_problems.push_back(*moved);
  auto probe_outcomes = evaluate_probe_checks(gate.probes, st.results, st.platform);
  add_probe_verdict(probe_outcomes, v);
  for (auto& r : probe_rows(probe_outcomes, st.results)) rows.push_back(std::move(r));
  if (st.command) {
    add_command_verdict(*st.command, v);
    for (auto& r : command_rows(*st.command)) rows.push_back(std::move(r));
  }
  for (const auto& p : run_problems) {
    v.problems.push_back(p);
    rows.push_back({"run", "jetgate", Outcome::fail, p, ""});
  }
  e.extra[keys::kChecks] = to_json(rows);
  out.checks = std::move(rows);
  e.counts = v.counts;
  bool passed = v.problems.empty() && v.counts.tests > 0;
  e.status = passed ? GateStatus::passed : GateStatus::failed;
  e.reason = passed ? passed_reason(gate, st.command ? &*st.command : nullptr)
                    : fmt::format("{}", fmt::join(v.problems, "; "));
  out.exit_code = passed ? 0 : 1;
}

Error cannot_run(const policy::Gate& gate, const policy::Policy& policy,
                 const std::vector<std::string>& lines) {
  return make_error(fmt::format("gate {} cannot run: {}", gate.id, fmt::join(lines, " | ")),
                    to_valid_utf8(policy.source), "fix the gate in the policy (see docs/gates.md)");
}

// The subject's name: the policy's "repository", else the checkout's folder name.
std::string repository_name(const policy::Policy& policy, const std::string& repo_root) {
  if (policy.repository) return *policy.repository;
  std::error_code ec;
  auto dir = std::filesystem::weakly_canonical(std::filesystem::absolute(repo_root, ec), ec);
  std::string name = dir.filename().string();
  return name.empty() ? "repository" : name;
}

// Evidence that names no commit cannot be bound to one; it backs no claim
// anyway (no_commit), so it stays unsigned and the run says why.
Result<std::string> sign_evidence(const Evidence& e, const policy::Policy& policy,
                                  const std::string& repo_root, const fs::DirHandle& dir,
                                  const RunOptions& options,
                                  std::vector<facts::Warning>& warnings) {
  if (!evidence::is_commit_sha(e.git_sha)) {
    warnings.push_back({"/git_sha", "run --sign-key",
                        "evidence not signed: it names no commit (git_sha " + e.git_sha + ")"});
    return std::string();
  }
  auto written = trust::sign_evidence_text(dir, e.gate, evidence::evidence_file_text(e),
                                           repository_name(policy, repo_root), e.git_sha,
                                           *options.signing_key);
  if (!written)
    return make_error("the evidence was written but could not be signed: " + written.error().what,
                      written.error().where,
                      "check the evidence directory, then run the gate again");
  return written;
}

}  // namespace

std::string node_name_problem(const std::string& name) {
  if (name.empty() || name.size() > 100) return "must be 1 to 100 characters";
  for (char c : name)
    if (c < 0x20 || c > 0x7e) return "must be printable ASCII (no control characters)";
  if (name.front() == ' ' || name.back() == ' ') return "must not start or end with a space";
  return {};
}

Result<RunOutcome> run_gate(const policy::Gate& gate,
                            const std::vector<policy::PolicyIssue>& gate_issues,
                            const policy::Policy& policy, const RunOptions& options,
                            const RunDeps& deps) {
  if (!gate_issues.empty()) {
    std::vector<std::string> lines;
    lines.reserve(gate_issues.size());
    for (const auto& i : gate_issues) lines.push_back(to_valid_utf8(i.line()));
    return cannot_run(gate, policy, lines);
  }
  if (!gate.runnable())
    return make_error(
        fmt::format("gate {} has neither \"probes\" nor a \"command\"", gate.id),
        to_valid_utf8(policy.source),
        "run it with the tool that owns it (OBLITERATUS: scripts/run_conditional_gate.py), "
        "or give it jetgate probes or a command");
  if (!options.node.empty())
    if (auto why = node_name_problem(options.node); !why.empty())
      return make_error(fmt::format("{} {}", quoted_text(options.node, 120), why), "--node",
                        "name the board as its runner is named, e.g. --node agx-orin-01");
  const std::string repo_root = options.repo_root.empty() ? policy.repo_root : options.repo_root;
  std::optional<CommandPaths> paths;
  if (gate.command) {
    auto confined = confine_command_paths(*gate.command, repo_root);
    if (!confined) return cannot_run(gate, policy, {confined.error().what});
    paths = *confined;
    auto user = command_user(
        *gate.command, options.signing_key ? options.signing_key->file_owner() : std::nullopt);
    if (!user) return cannot_run(gate, policy, {user.error().what + "; " + user.error().hint});
    paths->run_as = *user;
  }
  if (auto st = evidence::prepare_evidence_dir(options.evidence_dir); !st) return st.error();
  // Everything this run writes goes through the directory opened now, before
  // the command (untrusted code) runs: moving it and leaving a link in its
  // place afterwards cannot make jetgate write somewhere else.
  auto evidence_dir = fs::DirHandle::open(options.evidence_dir);
  if (!evidence_dir) return evidence_dir.error();
  auto lock = evidence::RunLock::acquire(options.evidence_dir, gate.id);
  if (!lock) return lock.error();
  // Two runs of the gate into different evidence directories share the
  // command's JUnit report: the second is refused while the first runs, or it
  // could record the first one's report as its own.
  std::optional<evidence::RunLock> report_lock;
  if (paths) {
    auto held = evidence::RunLock::acquire_report(paths->junit);
    if (!held) return held.error();
    report_lock.emplace(std::move(*held));
  }

  RunOutcome out;
  Checkout checkout;
  checkout.sha = deps.git_sha(repo_root);
  checkout.before = deps.git_state(repo_root);
  if (auto mismatch = sha_mismatch(checkout)) return *mismatch;
  if (auto st = write_unfinished_marker(gate, policy, *evidence_dir, checkout, options.node, deps);
      !st)
    return st.error();
  // A log or envelope from an earlier run must not sit beside this run's evidence.
  (void)evidence_dir->remove(gate.id + ".log");
  (void)evidence_dir->remove(trust::envelope_name(gate.id));

  PlatformFacts facts = deps.platform(options.root);
  out.warnings = facts.warnings;
  Evidence e = base_evidence(gate, policy, facts, checkout, options.node);
  Stages stages;
  stages.evidence_dir = &*evidence_dir;
  run_stages(gate, paths, facts, options, deps, e, stages);
  const int interrupted = deps.interrupted();
  if (interrupted == 0) {  // after an interrupt, git would be stopped at once too
    checkout.after = deps.git_state(repo_root);
    checkout.after_read = true;
  }
  record_checkout(e, checkout);
  decide(gate, stages, checkout, interrupted, e, out);
  if (stages.log) out.log_path = evidence_dir->shown(stages.log->file);

  if (stages.command && !stages.command->contained)
    out.warnings.push_back(
        {"/command", "run",
         "this system refused PR_SET_CHILD_SUBREAPER (qemu-user does): a process the command "
         "moved to another session (setsid) may still be running; run jetgate natively to "
         "contain the command (docs/trust.md)"});
  for (const auto& w : checkout.sha.warnings)
    out.warnings.push_back({"/git_sha", "the commit under test", w});
  if (e.extra[keys::kDirty].is_null() && interrupted == 0 &&
      !(options.node_validator && !gate.command)) {
    const std::string& problem =
        !checkout.before.problem.empty() ? checkout.before.problem : checkout.after.problem;
    out.warnings.push_back(
        {"/dirty", "git status",
         "the evidence does not show a clean tree (\"dirty\": null) and cannot back a claim: " +
             (problem.empty() ? std::string("git could not say whether tracked files changed")
                              : problem)});
  }
  if (e.extra[keys::kDirty] == true)
    out.warnings.push_back(
        {"/dirty", "git status",
         "tracked files differ from the commit " + e.git_sha +
             " (uncommitted changes): the evidence records \"dirty\": true and cannot back a "
             "claim"});
  e.generated_at = deps.now();
  std::vector<std::string> repaired = evidence::repair_utf8(e.extra);
  if (!is_valid_utf8(e.reason)) {
    e.reason = to_valid_utf8(e.reason);
    repaired.insert(repaired.begin(), "/reason");
  }
  for (const auto& where : repaired)
    out.warnings.push_back(
        {where, "evidence", "text that was not UTF-8 was replaced with U+FFFD at " + where});
  nlohmann::json warnings = nlohmann::json::array();
  for (auto& w : out.warnings) {
    for (auto* text : {&w.fact, &w.source, &w.message}) *text = to_valid_utf8(*text);
    warnings.push_back(facts::to_json(w));
  }
  e.extra[keys::kWarnings] = std::move(warnings);
  auto path = evidence::write_evidence(*evidence_dir, e);
  if (!path) {
    // The "unfinished" marker is not_run already; remove it all the same, so no
    // reader mistakes it for a result.
    (void)evidence_dir->remove(gate.id + ".json");
    return path.error();
  }
  out.path = *path;
  if (options.signing_key) {
    auto signed_path = sign_evidence(e, policy, repo_root, *evidence_dir, options, out.warnings);
    if (!signed_path) return signed_path.error();
    out.envelope_path = *signed_path;
  }
  out.evidence = std::move(e);
  return out;
}

}  // namespace jetgate::gate
