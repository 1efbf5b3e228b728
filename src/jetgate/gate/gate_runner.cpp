#include "jetgate/gate/gate_runner.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "jetgate/core/version.hpp"
#include "jetgate/gate/command_run.hpp"
#include "jetgate/gate/requirements.hpp"
#include "jetgate/gate/thresholds.hpp"

namespace jetgate::gate {
namespace {

using evidence::Evidence;
using evidence::GateStatus;

std::vector<std::string> cuda_probe_ids(const Gate& gate) {
  std::vector<std::string> ids;
  for (const auto& id : gate.probe_ids())
    if (!probes::is_python_probe(id)) ids.push_back(id);
  return ids;
}

// Platform requirements are checked before the GPU is touched: on a machine
// that is not a Jetson there is no reason to initialise CUDA at all.
Requirements platform_part(const Requirements& r) {
  Requirements p;
  p.arch = r.arch;
  p.is_tegra = r.is_tegra;
  p.l4t = r.l4t;
  return p;
}

Requirements gpu_part(const Requirements& r) {
  Requirements g;
  g.cuda = r.cuda;
  g.min_cuda_driver = r.min_cuda_driver;
  g.min_memory_bytes = r.min_memory_bytes;
  return g;
}

std::string unmet_reason(const std::vector<RequirementOutcome>& outcomes) {
  std::vector<std::string> parts;
  for (const auto& o : outcomes)
    if (!o.met) parts.push_back(fmt::format("{} ({})", o.requirement, o.why));
  return "requirements not met: " + fmt::format("{}", fmt::join(parts, "; "));
}

struct Verdict {
  std::vector<std::string> problems;
  evidence::Counts counts;
};

void add_probe_verdict(const std::vector<ProbeOutcome>& outcomes, Verdict& v) {
  auto c = probe_counts(outcomes);
  v.counts.tests += c.tests;
  v.counts.failures += c.failures;
  v.counts.skipped += c.skipped;
  for (const auto& o : outcomes)
    for (const auto& p : o.problems) v.problems.push_back(fmt::format("probe {}: {}", o.probe, p));
}

void add_command_verdict(const CommandRun& run, Verdict& v) {
  if (run.junit) {
    v.counts.tests += run.junit->tests;
    v.counts.failures += run.junit->failures;
    v.counts.errors += run.junit->errors;
    v.counts.skipped += run.junit->skipped;
  }
  for (const auto& p : run.problems) v.problems.push_back("command: " + p);
}

std::string passed_reason(const Gate& gate, const Verdict& v, const CommandRun* run) {
  std::vector<std::string> parts;
  if (!gate.probes.empty())
    parts.push_back(fmt::format("{} probe(s) met every threshold", gate.probe_ids().size()));
  if (run && run->junit)
    parts.push_back(fmt::format("{} test(s) passed without skips", run->junit->tests));
  (void)v;
  return fmt::format("{}", fmt::join(parts, "; "));
}

nlohmann::json probes_json(const std::map<std::string, probes::ProbeResult>& results) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [id, r] : results) out[id] = probes::to_json(r);
  return out;
}

Evidence base_evidence(const Gate& gate, const PlatformFacts& facts) {
  Evidence e;
  e.gate = gate.id;
  e.extra["jetgate"] = {{"version", version()}};
  e.extra["platform"] = facts.platform;
  e.extra["gpu"] = nullptr;
  e.extra["probes"] = nlohmann::json::object();
  return e;
}

}  // namespace

Result<RunOutcome> run_gate(const Gate& gate, const std::vector<PolicyIssue>& gate_issues,
                            const Policy& policy, const RunOptions& options, const RunDeps& deps) {
  if (!gate_issues.empty()) {
    std::vector<std::string> lines;
    for (const auto& i : gate_issues) lines.push_back(i.line());
    return make_error(fmt::format("gate {} cannot run: {}", gate.id, fmt::join(lines, " | ")),
                      policy.source, "fix the gate in the policy (see docs/gates.md)");
  }
  if (!gate.runnable())
    return make_error(fmt::format("gate {} has neither \"probes\" nor a \"command\"", gate.id),
                      policy.source,
                      "run it with the tool that owns it (OBLITERATUS: scripts/run_conditional_gate.py), "
                      "or give it jetgate probes or a command");
  RunOutcome out;
  const std::string repo_root = options.repo_root.empty() ? policy.repo_root : options.repo_root;
  PlatformFacts facts = deps.platform(options.root);
  out.warnings = facts.warnings;
  Evidence e = base_evidence(gate, facts);

  auto requirements = evaluate_requirements(platform_part(gate.requirements), facts.platform, nullptr);
  std::map<std::string, probes::ProbeResult> results;
  std::optional<CommandRun> command_run;
  if (all_met(requirements)) {
    probes::CudaOptions co;
    co.only = cuda_probe_ids(gate);
    co.run_probes = !co.only.empty();
    auto cuda = deps.cuda(co);
    e.extra["gpu"] = cuda.gpu;
    if (!cuda.notes.empty()) e.extra["notes"] = cuda.notes;
    for (auto& o : evaluate_requirements(gpu_part(gate.requirements), facts.platform, cuda.gpu))
      requirements.push_back(std::move(o));
    if (all_met(requirements)) {
      for (auto& r : cuda.probes) results[r.id] = std::move(r);
      auto ids = gate.probe_ids();
      auto named = [&](const char* id) { return std::find(ids.begin(), ids.end(), id) != ids.end(); };
      if (named(probes::kPythonRuntimeProbe) || named(probes::kBitsandbytesProbe)) {
        probes::PythonOptions po;
        po.python = options.python;
        po.bitsandbytes = named(probes::kBitsandbytesProbe);
        auto py = deps.python(po);
        e.extra["python"] = py.facts;
        if (named(probes::kPythonRuntimeProbe)) results[probes::kPythonRuntimeProbe] = py.result;
        if (py.bitsandbytes) results[probes::kBitsandbytesProbe] = *py.bitsandbytes;
      }
      if (gate.command) command_run = run_command(*gate.command, repo_root, deps.process);
    }
  }
  e.extra["requirements"] = to_json(requirements);
  e.extra["probes"] = probes_json(results);

  if (!all_met(requirements)) {
    e.status = GateStatus::not_run;
    e.reason = unmet_reason(requirements);
    out.exit_code = 2;
  } else {
    Verdict v;
    add_probe_verdict(evaluate_probe_checks(gate.probes, results), v);
    if (command_run) {
      add_command_verdict(*command_run, v);
      e.extra["command"] = to_json(*command_run);
      e.exit_code = command_run->exit_code;
      out.command_output = command_run->output;
    }
    e.counts = v.counts;
    bool passed = v.problems.empty() && v.counts.tests > 0;
    e.status = passed ? GateStatus::passed : GateStatus::failed;
    e.reason = passed ? passed_reason(gate, v, command_run ? &*command_run : nullptr)
                      : fmt::format("{}", fmt::join(v.problems, "; "));
    out.exit_code = passed ? 0 : 1;
  }

  auto sha = deps.git_sha(repo_root);
  e.git_sha = sha.sha;
  out.warnings.insert(out.warnings.end(), sha.warnings.begin(), sha.warnings.end());
  e.generated_at = deps.now();
  e.extra["warnings"] = out.warnings;
  auto path = evidence::write_evidence(options.evidence_dir, e);
  if (!path) return path.error();
  out.path = *path;
  out.evidence = std::move(e);
  return out;
}

}  // namespace jetgate::gate
