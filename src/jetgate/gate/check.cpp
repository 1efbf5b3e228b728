#include "jetgate/gate/check.hpp"

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "jetgate/evidence/evidence.hpp"
#include "jetgate/evidence/gate_id.hpp"
#include "jetgate/evidence/git_sha.hpp"

namespace jetgate::gate {
namespace {

using evidence::Evidence;
using evidence::GateStatus;

struct GateContext {
  const Policy& policy;
  const CheckOptions& options;
  bool stale_exception_valid;
};

std::string rerun_hint(const std::string& gate) {
  return fmt::format("run `jetgate run {}` on the target platform for the candidate commit", gate);
}

// Passed evidence must add up: OBLITERATUS' rule "tests > 0 and failures =
// errors = skipped = 0", plus a zero exit code when one is recorded.
std::optional<std::string> inconsistency(const Evidence& e) {
  const auto& c = e.counts;
  if (c.tests == 0) return "claims passed with 0 tests";
  if (c.skipped > 0) return fmt::format("claims passed with {} skipped test(s)", c.skipped);
  if (c.failures > 0 || c.errors > 0)
    return fmt::format("claims passed with {} failure(s) and {} error(s)", c.failures, c.errors);
  if (e.exit_code && *e.exit_code != 0) return fmt::format("claims passed with exit code {}", *e.exit_code);
  return std::nullopt;
}

void check_dates(const Evidence& e, const GateContext& ctx, std::vector<Violation>& out) {
  auto day = evidence::utc_date_of_timestamp(e.generated_at);
  if (!day) return;  // evidence_from_json already refused such files
  long age = evidence::days_between(*day, ctx.options.today);
  if (age < 0) {
    out.push_back({e.gate, fmt::format("evidence is dated in the future ({}, today is {})", e.generated_at,
                                       evidence::to_string(ctx.options.today)),
                   "check the runner's clock and --today, then re-run the gate"});
    return;
  }
  const auto& max = ctx.policy.maximum_evidence_age_days;
  if (max && age > *max)
    out.push_back({e.gate, fmt::format("evidence is stale: {} days old (generated {}), the policy allows {}",
                                       age, e.generated_at, *max),
                   rerun_hint(e.gate)});
}

void check_evidence(const Evidence& e, const std::string& gate, const GateContext& ctx,
                    std::vector<Violation>& out) {
  if (e.gate != gate) {
    out.push_back({gate, fmt::format("evidence file records gate \"{}\"", e.gate),
                   "each gate's evidence must be DIR/GATE.json written for that gate; " + rerun_hint(gate)});
    return;
  }
  if (e.status != GateStatus::passed) {
    out.push_back({gate, fmt::format("evidence did not pass: {}{}", evidence::to_string(e.status),
                                     e.reason.empty() ? "" : " (" + e.reason + ")"),
                   "fix what failed, then " + rerun_hint(gate)});
  } else if (auto why = inconsistency(e)) {
    out.push_back({gate, "evidence is inconsistent: " + *why,
                   "a gate passes only with tests > 0 and no skips, failures or errors; " + rerun_hint(gate)});
  }
  // The exception waives evidence of an older real commit; "local" evidence names no commit at all.
  bool real_sha = evidence::is_commit_sha(e.git_sha);
  if (e.git_sha != ctx.options.candidate_sha && !(ctx.stale_exception_valid && real_sha))
    out.push_back({gate, fmt::format("evidence git_sha {} does not match candidate {}", e.git_sha,
                                     ctx.options.candidate_sha),
                   real_sha ? rerun_hint(gate) + " (or grant a stale-evidence exception)"
                            : rerun_hint(gate) + " in a git checkout or CI job (a stale-evidence exception "
                                                 "never admits \"local\" evidence)"});
  check_dates(e, ctx, out);
}

nlohmann::json evidence_summary(const Evidence& e) {
  return {{"gate", e.gate},          {"status", evidence::to_string(e.status)},
          {"generated_at", e.generated_at}, {"git_sha", e.git_sha},
          {"reason", e.reason},
          {"counts", {{"tests", e.counts.tests}, {"failures", e.counts.failures},
                      {"errors", e.counts.errors}, {"skipped", e.counts.skipped}}}};
}

GateRow check_gate_evidence(const std::string& gate, const GateContext& ctx, std::vector<Violation>& out) {
  GateRow row{gate, "holds"};
  std::size_t before = out.size();
  std::string path = (std::filesystem::path(*ctx.options.evidence_dir) / (gate + ".json")).string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    out.push_back({gate, fmt::format("no evidence ({} is missing)", path), rerun_hint(gate)});
  } else if (auto e = evidence::read_evidence(path); !e) {
    out.push_back({gate, "evidence is unreadable or corrupt: " + e.error().message(), rerun_hint(gate)});
  } else {
    row.evidence = evidence_summary(*e);
    check_evidence(*e, gate, ctx, out);
  }
  if (out.size() != before) row.state = "violated";
  return row;
}

std::vector<std::string> required_gates(const Policy& p, const CheckOptions& o, const WaiverReview& w) {
  if (!o.required_gates.empty()) return o.required_gates;
  std::vector<std::string> out;
  for (const auto& g : p.gates)
    if (!w.active.count(g.id)) out.push_back(g.id);
  return out;
}

nlohmann::json waiver_json(const Waiver& w) {
  return {{"reason", w.reason}, {"issue", w.issue}, {"opened", evidence::to_string(w.opened)},
          {"expires", evidence::to_string(w.expires)}, {"blocked_claim", w.blocked_claim}};
}

bool stale_exception_ok(const Policy& policy, const CheckOptions& o, std::vector<Violation>& out) {
  if (!o.stale_exception) return false;
  auto problems = stale_exception_problems(*o.stale_exception, policy.repository, o.today);
  for (const auto& p : problems)
    out.push_back({"policy", "stale-evidence exception is invalid: " + p,
                   "give a reason, a canonical issue URL and an expiry at most 30 days away"});
  return problems.empty();
}

}  // namespace

std::string Violation::line() const {
  std::string out = gate + ": " + what;
  if (!next.empty()) out += "; " + next;
  return out;
}

CheckResult check_claim(const LoadedPolicy& loaded, const CheckOptions& options) {
  CheckResult r;
  const Policy& policy = loaded.policy;
  r.warnings = loaded.warnings;
  for (const auto& i : loaded.issues) r.violations.push_back({i.subject, i.what, i.next});
  WaiverReview waivers = review_waivers(policy, options.today);
  for (const auto& i : waivers.issues) r.violations.push_back({i.subject, i.what, i.next});

  auto required = required_gates(policy, options, waivers);
  for (const auto& id : required)
    if (!find_gate(policy, id))
      r.violations.push_back({id, "the policy does not define this gate", "fix --require-gate or the policy"});

  GateContext ctx{policy, options, stale_exception_ok(policy, options, r.violations)};
  for (const auto& g : policy.gates) {
    bool is_required = std::find(required.begin(), required.end(), g.id) != required.end();
    GateRow row{g.id, is_required ? "unchecked" : "not_required"};
    if (is_required && options.evidence_dir) row = check_gate_evidence(g.id, ctx, r.violations);
    if (auto w = waivers.active.find(g.id); w != waivers.active.end()) {
      row.waiver = waiver_json(w->second);
      if (!is_required) row.state = "waived";
    }
    r.gates.push_back(std::move(row));
  }
  return r;
}

nlohmann::json to_json(const CheckResult& r, const CheckOptions& o, const Policy& policy) {
  nlohmann::json violations = nlohmann::json::array(), gates = nlohmann::json::array();
  for (const auto& v : r.violations)
    violations.push_back({{"gate", v.gate}, {"what", v.what}, {"next", v.next}, {"line", v.line()}});
  for (const auto& g : r.gates)
    gates.push_back({{"gate", g.gate}, {"state", g.state}, {"evidence", g.evidence}, {"waiver", g.waiver}});
  return {{"holds", r.holds()},
          {"policy", policy.source},
          {"today", evidence::to_string(o.today)},
          {"candidate_sha", o.evidence_dir ? nlohmann::json(o.candidate_sha) : nlohmann::json(nullptr)},
          {"evidence_dir", o.evidence_dir ? nlohmann::json(*o.evidence_dir) : nlohmann::json(nullptr)},
          {"maximum_evidence_age_days", policy.maximum_evidence_age_days
                                            ? nlohmann::json(*policy.maximum_evidence_age_days)
                                            : nlohmann::json(nullptr)},
          {"gates", gates},
          {"violations", violations},
          {"warnings", r.warnings}};
}

}  // namespace jetgate::gate
