// SPDX-License-Identifier: Apache-2.0
#include "jetgate/claims/check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "jetgate/claims/platform_key.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/evidence/dates.hpp"
#include "jetgate/policy/waivers.hpp"

namespace jetgate::claims {
namespace {

std::vector<std::string> required_gates(const policy::Policy& p,
                                        const std::vector<std::string>& asked,
                                        const policy::WaiverReview& w) {
  if (!asked.empty()) return asked;
  std::vector<std::string> out;
  for (const auto& g : p.gates)
    if (!w.active.count(g.id)) out.push_back(g.id);
  return out;
}

nlohmann::json waiver_json(const policy::Waiver& w) {
  return {{"reason", w.reason},
          {"issue", w.issue},
          {"opened", evidence::to_string(w.opened)},
          {"expires", evidence::to_string(w.expires)},
          {"blocked_claim", w.blocked_claim}};
}

nlohmann::json decision_json(const GateEntry& d) {
  nlohmann::json j = {{"status", to_string(status_of(d.verdict.state))},
                      {"state", to_string(d.verdict.state)},
                      {"problems", d.verdict.problems},
                      {"file", d.file.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.file)},
                      {"evidence_files", d.evidence_files},
                      {"signature", signature_json(d)}};
  if (d.evidence) {
    const evidence::Evidence* e = &d.evidence->evidence;
    j["evidence"] = {{"gate", e->gate},
                     {"status", evidence::to_string(e->status)},
                     {"generated_at", e->generated_at},
                     {"git_sha", e->git_sha},
                     {"reason", e->reason},
                     {"counts",
                      {{"tests", e->counts.tests},
                       {"failures", e->counts.failures},
                       {"errors", e->counts.errors},
                       {"skipped", e->counts.skipped}}}};
  } else {
    j["evidence"] = nullptr;
  }
  return j;
}

// One violation per problem: a failed gate that is also stale says both.
void add_violations(const GateEntry& d, const CommandContext& ctx, std::vector<Violation>& out) {
  std::string next = next_step(d.verdict, d.gate, deciding_dir_first(ctx, d.file));
  // One cause, one finding (findings(): a gate that did not run).
  for (const auto& p : findings(d.verdict)) out.push_back({d.gate, p, next});
}

// Without trusted_keys anyone who can write the evidence directory decides
// the verdict; say so, without failing the policies that never asked for
// signatures (docs/trust.md).
std::string unsigned_warning(const EvidenceSet& set) {
  // A fleet has thousands: the first few are named, the rest counted.
  constexpr std::size_t kNamed = 10;
  std::vector<std::string> named;
  std::size_t unsigned_files = 0;
  for (const auto& le : set.loaded)
    if (!le.signature.envelope_present && ++unsigned_files <= kNamed) named.push_back(le.file);
  if (set.loaded.empty()) return {};
  if (unsigned_files == 0)
    return "evidence signatures are not checked: the policy names no trusted_keys (docs/trust.md)";
  std::string more = unsigned_files > kNamed ? fmt::format(" and {} more", unsigned_files - kNamed)
                                             : std::string();
  return fmt::format(
      "evidence is unsigned ({} of {} files: {}{}): the policy names no trusted_keys, so whoever "
      "can change the evidence files can change this verdict (docs/trust.md)",
      unsigned_files, set.loaded.size(), fmt::join(named, ", "), more);
}

// Each --evidence-dir is a board and lane of the workflow; one that holds no
// evidence file at all is a lane that produced nothing (its job failed before
// uploading, or uploaded nothing): named, never silently left out.
void empty_lanes(const ClaimInputs& in, std::vector<Violation>& out) {
  std::set<std::string> seen;
  for (const auto& le : in.evidence.loaded) seen.insert(directory_key(le.file));
  for (const auto& sf : in.evidence.skipped) seen.insert(directory_key(sf.file));
  for (const auto& dir : in.evidence_dirs)
    if (!seen.count(normal_directory(dir)))
      out.push_back({"evidence",
                     fmt::format("{} holds no evidence: the board and lane that "
                                 "write it produced none",
                                 quoted_text(dir, 200)),
                     "look at that lane's job log (a failed container build or image pull "
                     "uploads nothing), then run it again"});
}

}  // namespace

std::string Violation::line() const {
  std::string out = gate + ": " + what;
  if (!next.empty()) out += "; " + next;
  return out;
}

CheckResult check_claim(const ClaimInputs& in, const std::vector<std::string>& asked) {
  CheckResult r;
  const policy::Policy& policy = in.policy->policy;
  r.warnings = in.policy->warnings;
  for (const auto& i : in.policy->issues) r.violations.push_back({i.subject, i.what, i.next});
  auto waivers = policy::review_waivers(policy, in.rules.today);
  for (const auto& i : waivers.issues) r.violations.push_back({i.subject, i.what, i.next});
  for (const auto& p : in.stale_exception_problems)
    r.violations.push_back(
        {"policy", "stale-evidence exception is invalid: " + p,
         "give a reason, a canonical issue URL and an expiry at most 30 days away"});

  auto required = required_gates(policy, asked, waivers);
  for (const auto& id : required)
    if (!policy::find_gate(policy, id))
      r.violations.push_back(
          {id, "the policy does not define this gate", "fix --require-gate or the policy"});

  const bool judge = !in.evidence_dirs.empty();
  for (const auto& g : policy.gates) {
    bool is_required = std::find(required.begin(), required.end(), g.id) != required.end();
    GateRow row{g.id, is_required ? "unchecked" : "not_required", Outcome::not_run, std::nullopt,
                nullptr};
    if (is_required && judge) {
      row.decision = decide_gate(in.evidence, g.id);
      bool holds = backs_claim(row.decision->verdict);
      row.state = holds ? "holds" : "violated";
      row.status = holds ? Outcome::pass : Outcome::fail;
      add_violations(*row.decision, in.commands, r.violations);
      for (const auto& w : row.decision->verdict.warnings)
        r.warnings.push_back(g.id + ": " + std::string(w));
    }
    if (auto w = waivers.active.find(g.id); w != waivers.active.end()) {
      row.waiver = waiver_json(w->second);
      if (!is_required) {
        row.state = "waived";
        row.status = Outcome::skip;
      }
    }
    r.gates.push_back(std::move(row));
  }
  if (judge) empty_lanes(in, r.violations);
  if (judge && !in.rules.signatures_required)
    if (auto w = unsigned_warning(in.evidence); !w.empty()) r.warnings.push_back(w);
  return r;
}

nlohmann::json to_json(const CheckResult& r, const ClaimInputs& in) {
  nlohmann::json violations = nlohmann::json::array(), gates = nlohmann::json::array();
  for (const auto& v : r.violations)
    violations.push_back(
        {{"gate", v.gate}, {"what", v.what}, {"next", v.next}, {"line", v.line()}});
  for (const auto& g : r.gates)
    gates.push_back({{"gate", g.gate},
                     {"status", to_string(g.status)},
                     {"state", g.state},
                     {"verdict", g.decision ? decision_json(*g.decision) : nlohmann::json(nullptr)},
                     {"waiver", g.waiver}});
  const auto& policy = in.policy->policy;
  return {{"schema_version", 1},
          {"holds", r.holds()},
          {"policy", policy.source},
          {"today", evidence::to_string(in.rules.today)},
          {"candidate_sha", text_or_null(in.rules.candidate_sha)},
          {"evidence_dirs", in.evidence_dirs},
          {"maximum_evidence_age_days", in.rules.max_age_days},
          {"gates", gates},
          {"violations", violations},
          {"warnings", r.warnings}};
}

}  // namespace jetgate::claims
