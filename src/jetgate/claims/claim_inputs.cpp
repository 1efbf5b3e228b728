// SPDX-License-Identifier: Apache-2.0
#include "jetgate/claims/claim_inputs.hpp"

#include <fmt/format.h>

#include "jetgate/core/json_text.hpp"
#include "jetgate/evidence/git_sha.hpp"

namespace jetgate::claims {
namespace {

constexpr int kMaxAgeLimitDays = static_cast<int>(policy::kMaxEvidenceAgeDays);

Result<policy::LoadedPolicy> load_policy(const ClaimOptions& o) {
  if (o.policy.empty())
    return make_error("--policy is empty", "--policy",
                      "name the policy file, e.g. ci/conditional-test-policy.json");
  return policy::load_policy_file(o.policy, o.repo_root);
}

}  // namespace

Result<int> resolve_max_age(std::optional<int> option, const policy::LoadedPolicy* policy) {
  // One freshness rule: a policy that is given sets it, and a second rule on
  // the command line would let two runs judge the same evidence differently.
  if (option && policy)
    return make_error(
        "the policy sets the freshness rule (maximum_evidence_age_days), so --max-age-days cannot "
        "change it",
        "--max-age-days",
        "drop --max-age-days, or change maximum_evidence_age_days in " + policy->policy.source);
  if (option) {
    if (*option < 0 || *option > kMaxAgeLimitDays)
      return make_error(fmt::format("must be between 0 and {} days", kMaxAgeLimitDays),
                        "--max-age-days");
    return *option;
  }
  if (!policy) return kDefaultMaxEvidenceAgeDays;
  const auto& age = policy->policy.maximum_evidence_age_days;
  if (!age || *age < 0 || *age > kMaxAgeLimitDays)
    return make_error(
        fmt::format("maximum_evidence_age_days is missing or not a whole number from 1 to {}",
                    kMaxAgeLimitDays),
        policy->policy.source + "#/maximum_evidence_age_days",
        "set \"maximum_evidence_age_days\" (e.g. 14) in the policy, or pass --max-age-days N");
  return static_cast<int>(*age);
}

Result<ClaimInputs> resolve_claim_inputs(const ClaimOptions& o) {
  ClaimInputs in;
  auto today = today_from_option(o.today);
  if (!today) return today.error();
  in.rules.today = *today;
  if (!o.candidate_sha.empty() && !evidence::is_commit_sha(o.candidate_sha))
    return make_error(
        fmt::format("{} is not a commit: 40 lowercase hex digits", quoted_text(o.candidate_sha)),
        "--candidate-sha", "pass the full commit id, e.g. --candidate-sha \"$GITHUB_SHA\"");
  in.rules.candidate_sha = o.candidate_sha;
  if (!o.policy.empty()) {
    auto p = load_policy(o);
    if (!p) return p.error();
    in.policy = std::move(*p);
    // Evidence of the gates jetgate runs is judged against their definition here.
    for (const auto& g : in.policy->policy.gates)
      if (g.runnable())
        in.rules.definitions.emplace(g.id, policy::expectation_of(g, in.policy->policy.source));
  }
  if (!o.evidence_dirs.empty()) {
    auto age = resolve_max_age(o.max_age_days, in.policy ? &*in.policy : nullptr);
    if (!age) return age.error();
    in.rules.max_age_days = *age;
  } else if (o.max_age_days) {
    in.rules.max_age_days = *o.max_age_days;
  }
  if (!o.stale_reason.empty() || !o.stale_issue.empty() || !o.stale_expires.empty()) {
    if (!o.stale_expires.empty() && !evidence::parse_iso_date(o.stale_expires))
      return make_error(fmt::format("{} is not a date", quoted_text(o.stale_expires)),
                        "--stale-evidence-expires", "write it as YYYY-MM-DD");
    in.stale_exception = policy::StaleException{o.stale_reason, o.stale_issue, o.stale_expires};
    std::optional<std::string> repository = in.policy ? in.policy->policy.repository : std::nullopt;
    in.stale_exception_problems =
        policy::stale_exception_problems(*in.stale_exception, repository, in.rules.today);
    in.rules.stale_exception = in.stale_exception_problems.empty();
  }
  in.evidence_dirs = o.evidence_dirs;
  if (!o.evidence_dirs.empty()) {
    static const std::vector<trust::TrustedKey> kNoKeys;
    const auto& policy = in.policy ? &in.policy->policy : nullptr;
    const bool signed_only = policy && policy->trusted_keys;
    in.rules.signatures_required = signed_only;
    auto set =
        load_evidence_dirs(o.evidence_dirs, in.rules, signed_only ? *policy->trusted_keys : kNoKeys,
                           policy ? policy->repository : std::nullopt);
    if (!set) return set.error();
    in.evidence = std::move(*set);
  }
  in.commands.policy = o.policy;
  in.commands.evidence_dirs = o.evidence_dirs;
  return in;
}

}  // namespace jetgate::claims
