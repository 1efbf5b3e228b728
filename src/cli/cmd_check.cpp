// `jetgate check`: validates a policy, its waivers and (with --evidence-dir)
// the evidence of every required gate. One line per violation on stdout
// (docs/gates.md lists them), or the whole result as JSON with --json.
#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "jetgate/core/exit_codes.hpp"
#include "jetgate/evidence/git_sha.hpp"
#include "jetgate/gate/check.hpp"
#include "jetgate/report/json_text.hpp"

namespace jetgate::cli {
namespace {

struct CheckArgs {
  std::string policy, repo_root, today, candidate_sha, evidence_dir;
  std::vector<std::string> require_gates;
  std::string stale_reason, stale_issue, stale_expires;
  bool json = false;
};

int usage(const std::string& message) {
  std::cerr << "jetgate check: " << message << "\n";
  return kExitUsage;
}

// Arguments that make the check meaningless are usage errors (exit 2), not violations.
std::optional<int> build_options(const CheckArgs& a, gate::CheckOptions& o) {
  if (a.today.empty()) {
    o.today = evidence::today_utc();
  } else if (auto d = evidence::parse_iso_date(a.today)) {
    o.today = *d;
  } else {
    return usage("--today \"" + a.today + "\" is not a date (YYYY-MM-DD)");
  }
  if (!a.evidence_dir.empty()) {
    if (a.candidate_sha.empty())
      return usage("--evidence-dir needs --candidate-sha (e.g. --candidate-sha \"$GITHUB_SHA\")");
    std::error_code ec;
    if (!std::filesystem::is_directory(a.evidence_dir, ec))
      return usage("--evidence-dir \"" + a.evidence_dir +
                   "\" is not a directory; pass the directory that holds the GATE.json evidence files");
    o.evidence_dir = a.evidence_dir;
  }
  if (!a.candidate_sha.empty() && !evidence::is_commit_sha(a.candidate_sha))
    return usage("--candidate-sha \"" + a.candidate_sha + "\" is not 40 lowercase hex digits");
  o.candidate_sha = a.candidate_sha;
  o.required_gates = a.require_gates;
  if (!a.stale_reason.empty() || !a.stale_issue.empty() || !a.stale_expires.empty()) {
    if (!a.stale_expires.empty() && !evidence::parse_iso_date(a.stale_expires))
      return usage("--stale-evidence-expires \"" + a.stale_expires + "\" is not a date (YYYY-MM-DD)");
    o.stale_exception = gate::StaleException{a.stale_reason, a.stale_issue, a.stale_expires};
  }
  return std::nullopt;
}

int run(const CheckArgs& a) {
  gate::CheckOptions options;
  if (auto code = build_options(a, options)) return *code;
  auto policy = gate::load_policy_file(a.policy, a.repo_root);
  if (!policy) return usage(policy.error().message());
  auto result = gate::check_claim(*policy, options);
  if (a.json) {
    std::cout << report::json_text(gate::to_json(result, options, policy->policy)) << "\n";
  } else {
    for (const auto& w : result.warnings) std::cerr << "warning: " << w << "\n";
    for (const auto& v : result.violations) std::cout << v.line() << "\n";
    if (result.holds()) {
      std::cout << "policy " << policy->policy.source << ": valid";
      if (options.evidence_dir) std::cout << "; evidence holds for " << options.candidate_sha;
      std::cout << "\n";
    } else {
      std::cerr << result.violations.size() << " violation(s)\n";
    }
  }
  return result.holds() ? kExitOk : kExitDoesNotHold;
}

}  // namespace

Command add_check_command(CLI::App& app) {
  auto a = std::make_shared<CheckArgs>();
  auto* sub = app.add_subcommand(
      "check", "Validate a gate policy, its waivers and the evidence behind a support claim");
  sub->add_option("--policy", a->policy, "Policy JSON (OBLITERATUS ci/conditional-test-policy.json format)")
      ->required();
  sub->add_option("--evidence-dir", a->evidence_dir, "Directory of GATE.json evidence files");
  sub->add_option("--candidate-sha", a->candidate_sha, "The commit the claim is for (40 lowercase hex)");
  sub->add_option("--require-gate", a->require_gates,
                  "Gate that must have passed evidence (repeatable); default: every gate without an "
                  "active waiver");
  sub->add_option("--today", a->today, "Date for waiver and freshness rules (YYYY-MM-DD); default: today (UTC)");
  sub->add_option("--repo-root", a->repo_root,
                  "Repository root for coverage_paths; default: the nearest directory above the policy "
                  "that holds .git");
  sub->add_option("--stale-evidence-reason", a->stale_reason, "Why older evidence is accepted");
  sub->add_option("--stale-evidence-issue", a->stale_issue, "Issue URL approving the exception");
  sub->add_option("--stale-evidence-expires", a->stale_expires, "Expiry of the exception (<= 30 days)");
  sub->add_flag("--json", a->json, "Print the result as JSON");
  sub->footer("Exit status: 0 the claim holds, 1 violations, 2 unusable policy or arguments.");
  return {sub, [a] { return run(*a); }};
}

}  // namespace jetgate::cli
