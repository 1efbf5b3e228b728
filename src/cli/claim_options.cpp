// SPDX-License-Identifier: Apache-2.0
#include "cli/claim_options.hpp"

#include "cli/input_paths.hpp"
#include "cli/number_options.hpp"

namespace jetgate::cli {

void add_claim_options(CLI::App* sub, claims::ClaimOptions& o, bool policy_required) {
  auto* policy = sub->add_option(
      "--policy", o.policy,
      "Policy JSON (OBLITERATUS ci/conditional-test-policy.json format): the gates, "
      "waivers and the freshness rule (maximum_evidence_age_days)");
  // An empty value would read as "no policy" and judge by the default freshness rule.
  policy->check(CLI::Validator(
      [](const std::string& value) {
        return value.empty()
                   ? std::string("--policy is empty: name the policy file, or leave the option out")
                   : std::string();
      },
      "FILE"));
  if (policy_required) policy->required();
  sub->add_option("--evidence-dir", o.evidence_dirs,
                  "Directory of GATE.json evidence files; repeat for several (e.g. one per board)");
  sub->add_option(
      "--candidate-sha", o.candidate_sha,
      "The commit the claim is for (40 lowercase hex, e.g. \"$GITHUB_SHA\"): evidence of other "
      "commits does not count");
  sub->add_option("--today", o.today,
                  "Judge freshness and waivers as of this UTC day (YYYY-MM-DD); default: today");
  sub->add_option("--max-age-days", o.max_age_days,
                  "Evidence older than this many days is stale (default: the policy's "
                  "maximum_evidence_age_days, else 14)")
      ->check(plain_number());
  sub->add_option(
      "--repo-root", o.repo_root,
      "Repository root for the policy's coverage_paths; default: the nearest directory above the "
      "policy that holds .git");
  sub->add_option(
      "--stale-evidence-reason", o.stale_reason,
      "Accept evidence of another real commit than the candidate: why (with -issue and -expires)");
  sub->add_option("--stale-evidence-issue", o.stale_issue,
                  "Issue URL approving the stale-evidence exception");
  sub->add_option("--stale-evidence-expires", o.stale_expires,
                  "Expiry of the stale-evidence exception (YYYY-MM-DD, at most 30 days away)");
}

Result<claims::ClaimInputs> resolve_cli_inputs(const claims::ClaimOptions& o) {
  if (!o.policy.empty())
    if (auto st = check_policy_path(o.policy); !st) return st.error();
  return claims::resolve_claim_inputs(o);
}

void add_claim_inputs(fs::CommandFiles& files, const claims::ClaimOptions& o) {
  files.add_input(o.policy, "the policy");
  for (const auto& dir : o.evidence_dirs)
    files.add_input_dir(dir, "an evidence directory", {".json"});
}

}  // namespace jetgate::cli
