// `jetgate summary`: Markdown about the gates' evidence, for a CI step
// summary (--format step) or an issue body (--format issue, sanitized).
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/input_paths.hpp"
#include "jetgate/claims/evidence_set.hpp"
#include "jetgate/claims/gate_summary.hpp"
#include "jetgate/core/exit_codes.hpp"
#include "jetgate/gate/policy.hpp"
#include "jetgate/report/summary_markdown.hpp"
#include "jetgate/report/text_escape.hpp"

namespace jetgate::cli {
namespace {

struct SummaryArgs {
  std::vector<std::string> evidence_dirs;
  std::optional<int> max_age_days;
  std::optional<std::string> policy;
  std::string today, format = "step";
};

int usage_error(const Error& e) {
  std::cerr << report::terminal_text("jetgate summary: " + e.message()) << "\n";
  return kExitUsage;
}

Result<int> max_age_of(const SummaryArgs& a, const gate::LoadedPolicy* policy) {
  if (a.max_age_days) return *a.max_age_days;
  if (!policy) return claims::kDefaultMaxEvidenceAgeDays;
  // The policy was named to set the freshness rule: falling back to 14 would silently judge by another one.
  if (!policy->policy.maximum_evidence_age_days)
    return make_error("the policy's maximum_evidence_age_days is missing or not a positive integer",
                      *a.policy + "#/maximum_evidence_age_days",
                      "set \"maximum_evidence_age_days\" (e.g. 14) in the policy, or pass --max-age-days N");
  auto age = *policy->policy.maximum_evidence_age_days;
  if (age < 0 || age > 3650)
    return make_error("maximum_evidence_age_days must be between 0 and 3650", *a.policy + "#/maximum_evidence_age_days");
  return static_cast<int>(age);
}

int run_summary(const SummaryArgs& a) {
  auto today = claims::today_from_option(a.today);
  if (!today) return usage_error(today.error());
  std::optional<gate::LoadedPolicy> policy;
  if (a.policy) {
    if (auto st = check_policy_path(*a.policy); !st) return usage_error(st.error());
    auto loaded = gate::load_policy_file(*a.policy);
    if (!loaded) return usage_error(loaded.error());
    policy = std::move(*loaded);
  }
  auto max_age = max_age_of(a, policy ? &*policy : nullptr);
  if (!max_age) return usage_error(max_age.error());
  auto set = claims::load_evidence_dirs(a.evidence_dirs);
  if (!set) return usage_error(set.error());
  for (const auto& s : set->skipped)
    std::cerr << report::terminal_text("jetgate summary: warning: skipped " + s.why) << "\n";
  auto summary = claims::build_gate_summary(*set, policy ? &*policy : nullptr, *today, *max_age);
  if (a.format == "issue")
    std::cout << report::render_issue_body(summary, report::sanitize_options_for_this_machine());
  else
    std::cout << report::render_step_summary(summary);
  return kExitOk;
}

}  // namespace

Command add_summary_command(CLI::App& app) {
  auto args = std::make_shared<SummaryArgs>();
  auto* sub = app.add_subcommand("summary", "Markdown about the gates' evidence: a CI step summary or an issue body");
  sub->add_option("--evidence-dir", args->evidence_dirs, "Folder of evidence files (*.json); repeat for more")
      ->required();
  sub->add_option("--policy", args->policy, "Policy file: gate constraints, waivers and the freshness rule");
  sub->add_option("--max-age-days", args->max_age_days,
                  "Evidence older than this many days is stale (default: the policy's, else 14)")
      ->check(CLI::Range(0, 3650));
  sub->add_option("--today", args->today, "Judge freshness and waivers as of this UTC day (YYYY-MM-DD)");
  sub->add_option("--format", args->format,
                  "step: table for $GITHUB_STEP_SUMMARY; issue: sanitized issue body with platform facts")
      ->check(CLI::IsMember({"step", "issue"}));
  sub->footer("Exit status: 0 written, 2 unusable input. Docs: docs/claims.md.");
  return {sub, [args] { return run_summary(*args); }};
}

}  // namespace jetgate::cli
