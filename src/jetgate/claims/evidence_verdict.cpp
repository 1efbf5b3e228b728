// SPDX-License-Identifier: Apache-2.0
#include "jetgate/claims/evidence_verdict.hpp"

#include <fmt/format.h>

#include "jetgate/core/document_keys.hpp"
#include "jetgate/core/identifier.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/evidence/git_sha.hpp"
#include "jetgate/policy/requirements.hpp"

namespace jetgate::claims {
namespace {

struct Finding {
  GateState state;
  std::string why;
};

// Counts that contradict "passed": the runner's own rule is tests > 0 and
// failures = errors = skipped = 0 ("without skips").
std::string inconsistency(const evidence::Evidence& e) {
  const auto& c = e.counts;
  if (c.tests <= 0) return "status passed but no tests ran (counts.tests = 0)";
  if (c.failures > 0 || c.errors > 0)
    return fmt::format("status passed but counts record {} failures and {} errors", c.failures,
                       c.errors);
  if (c.skipped > 0)
    return fmt::format("status passed with {} skipped tests: green means without skips", c.skipped);
  if (e.exit_code && *e.exit_code != 0)
    return fmt::format("status passed but exit_code is {}", *e.exit_code);
  return {};
}

std::string plural_days(long n) {
  return fmt::format("{} day{}", n, n == 1 ? "" : "s");
}

// Evidence written by jetgate records where its facts came from; only facts
// read on the live machine speak for it. OBLITERATUS' evidence records no
// facts at all, so nothing in it can claim a recorded board.
std::string liveness_problem(const nlohmann::json& extra) {
  bool jetgate_facts = keys::find(extra, keys::kJetgate) || keys::find(extra, keys::kPlatform);
  if (!jetgate_facts) return {};
  std::string source = keys::string_at(extra, keys::kFactsSource);
  if (source == "live") return {};
  if (source.empty())
    return "the evidence does not say where its facts came from (facts_source), so they may be a "
           "recording";
  return fmt::format(
      "the evidence's facts come from {} ({}), not from the machine that ran the gate: recorded "
      "roots never back a claim",
      quoted_text(source), quoted_text(keys::string_at(extra, keys::kRoot)));
}

// Unsigned or forged evidence says nothing, so this is the first finding.
std::string trust_problem(const trust::SignatureCheck& sig, const JudgeRules& rules) {
  if (!rules.signatures_required) return {};
  switch (sig.outcome) {
    case trust::Signature::verified:
      if (sig.key_expires && evidence::days_between(*sig.key_expires, rules.today) > 0)
        return fmt::format("evidence is signed by key {} ({}), which expired on {}", sig.key_id,
                           quoted_text(sig.owner), evidence::to_string(*sig.key_expires));
      return {};
    case trust::Signature::unsigned_:
      return sig.why + ", and the policy counts only evidence signed by its trusted_keys";
    case trust::Signature::rejected:
      return "the evidence's signature is rejected: " + sig.why;
    case trust::Signature::not_checked:
      break;
  }
  return "the evidence's signature was not checked, and the policy counts only evidence signed by "
         "its trusted_keys";
}

// Evidence of a gate the policy defines: made by that definition, its
// requirements met by the facts it records, every probe and the command the
// gate names present with a result (issue: a smaller gate of the same id must
// never back the project's claim).
void definition_findings(const evidence::Evidence& e, const JudgeRules& rules,
                         std::vector<Finding>& out) {
  auto it = rules.definitions.find(e.gate);
  if (it == rules.definitions.end()) return;
  const policy::GateExpectation& want = it->second;
  const std::string made_by = keys::string_at(e.extra, keys::kGateDefinitionSha256);
  if (!made_by.empty() && !same_identifier(made_by, want.sha256)) {
    std::string policy = keys::string_at(e.extra, keys::kGateDefinitionPolicy);
    out.push_back(
        {GateState::other_definition,
         fmt::format("made by another definition of gate {} (sha256 {}...{}) than the one in {} "
                     "(sha256 {}...): run it again under this policy",
                     e.gate, quoted_text(made_by.substr(0, 12), 16),
                     policy.empty() ? std::string() : ", policy " + quoted_text(policy, 120),
                     quoted_text(want.policy_source, 120), want.sha256.substr(0, 12))});
    return;  // what follows would only repeat that the definitions differ
  }
  const nlohmann::json* platform = keys::find(e.extra, keys::kPlatform);
  const nlohmann::json* gpu = keys::find(e.extra, keys::kGpu);
  auto outcomes = policy::evaluate_requirements(want.requirements, platform ? *platform : nullptr,
                                                gpu ? *gpu : nullptr);
  for (const auto& o : outcomes)
    if (!o.met)
      out.push_back({GateState::requirements_unmet,
                     fmt::format("the facts the evidence records do not meet the policy's "
                                 "requirement {} (found {})",
                                 o.requirement, quoted_text(o.why, 200))});
  for (const auto& probe : want.probes) {
    const nlohmann::json* result = keys::find(e.extra, ("/probes/" + probe).c_str());
    if (!result || !result->is_object() || !result->contains("status"))
      out.push_back({GateState::incomplete,
                     fmt::format("the evidence has no result of probe {}, which the policy's gate "
                                 "{} names",
                                 probe, e.gate)});
  }
  if (want.command) {
    const nlohmann::json* command = keys::find(e.extra, keys::kCommand);
    if (!command || !command->is_object() || !command->contains("exit_code"))
      out.push_back({GateState::incomplete,
                     fmt::format("the evidence has no result of the command the policy's gate {} "
                                 "names",
                                 e.gate)});
  }
}

std::vector<Finding> findings(const evidence::Evidence& e, const JudgeRules& rules,
                              const GateVerdict& v, const std::optional<Date>& day) {
  std::vector<Finding> out;
  if (e.status == evidence::GateStatus::failed)
    out.push_back({GateState::failed,
                   "the gate failed" + (e.reason.empty() ? std::string() : ": " + e.reason)});
  else if (e.status == evidence::GateStatus::not_run)
    out.push_back({GateState::not_run,
                   "the gate did not run" + (e.reason.empty() ? std::string() : ": " + e.reason)});
  else if (auto why = inconsistency(e); !why.empty())
    out.push_back({GateState::inconsistent, "evidence is inconsistent: " + why});
  if (auto why = liveness_problem(e.extra); !why.empty()) out.push_back({GateState::not_live, why});
  // Evidence jetgate wrote always records "dirty"; another tool's (OBLITERATUS'
  // run_conditional_gate.py records no facts at all) may not record it, and
  // is then judged without it, with a warning (judge_evidence). null is git
  // failing to answer: never clean.
  const bool jetgate_written =
      keys::find(e.extra, keys::kJetgate) || keys::find(e.extra, keys::kPlatform);
  const bool dirty_recorded = e.extra.contains("dirty");
  if (auto dirty = keys::bool_at(e.extra, keys::kDirty);
      !dirty && (jetgate_written || dirty_recorded)) {
    std::string problem = keys::string_at(e.extra, keys::kGitProblem);
    out.push_back({GateState::not_shown_clean,
                   std::string("the evidence does not show a clean tree (\"dirty\" is ") +
                       (e.extra.contains("dirty") ? "null" : "absent") +
                       "), so the commit it names may not be what was tested" +
                       (problem.empty() ? std::string() : ": " + quoted_text(problem, 300))});
  } else if (dirty && *dirty) {
    out.push_back({GateState::dirty,
                   "tracked files had uncommitted changes when the gate ran, so the commit the "
                   "evidence names is not what was tested"});
  }
  definition_findings(e, rules, out);
  if (!evidence::is_commit_sha(e.git_sha)) {
    // "local" evidence names no commit, so nobody can tell what code it tested.
    out.push_back(
        {GateState::no_commit,
         fmt::format(
             "evidence names no commit (git_sha {}), so nobody can tell what code it tested",
             quoted_text(e.git_sha, 64))});
  } else if (!rules.candidate_sha.empty() && e.git_sha != rules.candidate_sha &&
             !rules.stale_exception) {
    out.push_back(
        {GateState::other_commit, fmt::format("evidence is for commit {}, not the candidate {}",
                                              e.git_sha, rules.candidate_sha)});
  }
  if (!day) {
    out.push_back(
        {GateState::undated,
         fmt::format(
             "evidence is undated: generated_at {} is not an ISO-8601 timestamp with a zone",
             quoted_text(e.generated_at, 64))});
  } else if (v.age_days < 0) {
    out.push_back({GateState::future_dated,
                   fmt::format("evidence is dated in the future ({}, today is {})",
                               e.generated_at.substr(0, 40), evidence::to_string(rules.today))});
  } else if (v.age_days > rules.max_age_days) {
    out.push_back(
        {GateState::stale,
         fmt::format("evidence is stale: {} old (generated {}), the freshness rule allows {}",
                     plural_days(v.age_days), v.evidence_date, plural_days(rules.max_age_days))});
  }
  return out;
}

}  // namespace

namespace {

// Each state: its code (the JSON "state"), its status in the one vocabulary
// (core/outcome.hpp) and the words people read. The one table of them, as a
// switch without a default: a state added to GateState without its row here
// does not compile (-Wswitch under -Werror); a value outside the enum reads as
// a failure, never as fresh green (EvidenceVerdict.EveryStateHasOneRow).
struct StateInfo {
  const char* code;
  Outcome status;
  const char* words;
};

constexpr StateInfo info(GateState s) {
  switch (s) {
    case GateState::fresh_green:
      return {"fresh_green", Outcome::pass, "fresh green"};
    case GateState::failed:
      return {"failed", Outcome::fail, "the gate failed"};
    case GateState::not_run:
      return {"not_run", Outcome::not_run, "the gate did not run"};
    case GateState::inconsistent:
      return {"inconsistent", Outcome::fail, "inconsistent counts"};
    case GateState::not_live:
      return {"not_live", Outcome::fail, "facts not read on the machine that ran it"};
    case GateState::dirty:
      return {"dirty", Outcome::fail, "uncommitted changes"};
    case GateState::not_shown_clean:
      return {"not_shown_clean", Outcome::fail, "tree not shown clean (git could not answer)"};
    case GateState::other_definition:
      return {"other_definition", Outcome::fail, "made by another definition of the gate"};
    case GateState::requirements_unmet:
      return {"requirements_unmet", Outcome::fail,
              "recorded facts do not meet the gate's requirements"};
    case GateState::incomplete:
      return {"incomplete", Outcome::fail, "a probe or the command the gate names did not run"};
    case GateState::no_commit:
      return {"no_commit", Outcome::fail, "no commit recorded (git_sha is not a commit)"};
    case GateState::other_commit:
      return {"other_commit", Outcome::fail, "evidence of another commit"};
    case GateState::undated:
      return {"undated", Outcome::fail, "undated"};
    case GateState::future_dated:
      return {"future_dated", Outcome::fail, "dated in the future"};
    case GateState::stale:
      return {"stale", Outcome::fail, "stale"};
    case GateState::missing:
      return {"missing", Outcome::not_run, "no evidence"};
    case GateState::unreadable:
      return {"unreadable", Outcome::fail, "unreadable evidence"};
    case GateState::untrusted:
      return {"untrusted", Outcome::fail, "not signed by a trusted key"};
  }
  return {"unknown_state", Outcome::fail, "a verdict state jetgate does not know"};
}

}  // namespace

const char* to_string(GateState s) {
  return info(s).code;
}
Outcome status_of(GateState s) {
  return info(s).status;
}
const char* describe(GateState s) {
  return info(s).words;
}

GateVerdict judge_evidence(const evidence::Evidence& e, const JudgeRules& rules) {
  return judge_evidence(e, trust::SignatureCheck{}, rules);
}

GateVerdict judge_evidence(const evidence::Evidence& e, const trust::SignatureCheck& signature,
                           const JudgeRules& rules) {
  return with_signature(judge_unsigned(e, rules), signature, rules);
}

bool signature_holds(const trust::SignatureCheck& signature, const JudgeRules& rules) {
  return trust_problem(signature, rules).empty();
}

GateVerdict with_signature(GateVerdict v, const trust::SignatureCheck& signature,
                           const JudgeRules& rules) {
  // Unsigned or forged evidence says nothing, so this is the first finding.
  std::string why = trust_problem(signature, rules);
  if (why.empty()) return v;
  v.state = GateState::untrusted;
  v.detail = why;
  v.problems.insert(v.problems.begin(), std::move(why));
  return v;
}

GateVerdict judge_unsigned(const evidence::Evidence& e, const JudgeRules& rules) {
  GateVerdict v;
  auto day = evidence::utc_date_of_timestamp(e.generated_at);
  if (day) {
    v.evidence_date = evidence::to_string(*day);
    v.age_days = evidence::days_between(*day, rules.today);
  }
  auto found = findings(e, rules, v, day);
  if (!e.extra.contains("dirty") && !keys::find(e.extra, keys::kJetgate) &&
      !keys::find(e.extra, keys::kPlatform))
    v.warnings.push_back(
        "the evidence (written by another tool) does not record whether the working tree was "
        "clean (\"dirty\"), so a tree with uncommitted changes cannot be told apart");
  if (rules.definitions.count(e.gate) &&
      keys::string_at(e.extra, keys::kGateDefinitionSha256).empty())
    v.warnings.push_back(
        "the evidence does not record which definition of the gate made it (older jetgate, or "
        "another tool): judged by re-checking the policy's requirements, probes and command on "
        "what it records; run the gate again to bind it to this definition");
  if (found.empty()) {
    v.state = GateState::fresh_green;
    return v;
  }
  v.state = found.front().state;
  v.detail = found.front().why;
  for (auto& f : found) v.problems.push_back(std::move(f.why));
  return v;
}

GateVerdict verdict_without_evidence(GateState state, std::string why) {
  GateVerdict v;
  v.state = state;
  v.detail = why;
  v.problems.push_back(std::move(why));
  return v;
}

std::vector<std::string> findings(const GateVerdict& v) {
  if ((v.state != GateState::not_run && v.state != GateState::requirements_unmet) ||
      v.problems.size() <= 1)
    return v.problems;
  // The first problem is the cause and names the unmet requirements; the
  // others repeat a requirement or name a result missing because of it.
  const std::string missing_probe = "the evidence has no result of probe ";
  const std::string missing_command = "the evidence has no result of the command";
  const std::string repeated = "the facts the evidence records do not meet";
  std::vector<std::string> probes;
  bool command = false;
  std::string cause;
  for (std::size_t i = 0; i < v.problems.size(); ++i) {
    const auto& p = v.problems[i];
    if (p.compare(0, missing_probe.size(), missing_probe) == 0) {
      auto name = p.substr(missing_probe.size());
      probes.push_back(name.substr(0, name.find(',')));
    } else if (p.compare(0, missing_command.size(), missing_command) == 0) {
      command = true;
    } else if (i > 0 && v.state == GateState::not_run &&
               p.compare(0, repeated.size(), repeated) == 0) {
      // A gate that did not run names its unmet requirements in its first
      // problem; a requirement problem after it adds only what that one lacks.
      const std::string requirement_at = "requirement ";
      auto from = p.find(requirement_at);
      auto to = p.rfind(" (found ");
      std::string requirement =
          from == std::string::npos || to == std::string::npos || to <= from
              ? p
              : p.substr(from + requirement_at.size(), to - from - requirement_at.size());
      if (cause.find(requirement) == std::string::npos)
        cause += "; also unmet: " +
                 (from == std::string::npos ? p : p.substr(from + requirement_at.size()));
    } else {
      cause += (cause.empty() ? "" : "; ") + p;
    }
  }
  std::string results;
  for (std::size_t i = 0; i < probes.size(); ++i)
    results +=
        (i == 0 ? "probe " : (i + 1 == probes.size() && !command ? " and " : ", ")) + probes[i];
  if (command) results += std::string(results.empty() ? "" : " and ") + "the gate's command";
  if (!results.empty()) cause += "; so it has no result of " + results;
  return {cause};
}

}  // namespace jetgate::claims
