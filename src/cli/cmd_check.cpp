// SPDX-License-Identifier: Apache-2.0
// `jetgate check`: validates a policy, its waivers and (with --evidence-dir)
// the evidence of every required gate. One line per violation on stdout
// (docs/gates.md lists them), or the whole result as JSON with --json.
#include <iostream>

#include "cli/ci_outputs.hpp"
#include "cli/claim_options.hpp"
#include "cli/commands.hpp"
#include "jetgate/claims/check.hpp"
#include "jetgate/core/exit_codes.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/evidence/gate_id.hpp"

namespace jetgate::cli {
namespace {

struct CheckArgs {
  claims::ClaimOptions claim;
  std::vector<std::string> require_gates;
  bool json = false;
  std::string junit;
};

int run(const CheckArgs& a) {
  // A commit claim without a commit is meaningless: evidence of any commit would do.
  if (!a.claim.evidence_dirs.empty() && a.claim.candidate_sha.empty())
    return usage_error(
        "check", "--evidence-dir needs --candidate-sha (e.g. --candidate-sha \"$GITHUB_SHA\")");
  for (const auto& id : a.require_gates)
    if (auto st = evidence::validate_gate_id(id, "--require-gate"); !st)
      return usage_error("check", st.error().message());
  fs::CommandFiles files;
  add_claim_inputs(files, a.claim);
  if (!check_outputs("check", files, {{"--junit", a.junit}})) return kExitUsage;
  auto in = resolve_cli_inputs(a.claim);
  if (!in) return usage_error("check", in.error().message());
  for (const auto& s : in->evidence.skipped)
    std::cerr << "jetgate check: warning: " << s.why << "\n";
  auto result = claims::check_claim(*in, a.require_gates);
  if (a.json) {
    std::cout << dump_json(claims::to_json(result, *in), 2) << "\n";
  } else {
    for (const auto& w : result.warnings) std::cerr << "warning: " << w << "\n";
    for (const auto& v : result.violations) std::cout << v.line() << "\n";
    if (result.holds()) {
      std::cout << "policy " << in->policy->policy.source << ": valid";
      if (!in->evidence_dirs.empty())
        std::cout << "; evidence holds for " << in->rules.candidate_sha;
      std::cout << "\n";
    } else {
      std::cerr << result.violations.size() << " violation(s)\n";
    }
  }
  auto suite = report::check_junit(result);
  annotate(suite, a.claim.policy, a.json);
  if (!write_junit("check", a.junit, suite)) return kExitUsage;
  return result.holds() ? kExitOk : kExitDoesNotHold;
}

}  // namespace

Command add_check_command(CLI::App& app) {
  auto a = std::make_shared<CheckArgs>();
  auto* sub = app.add_subcommand(
      "check", "Validate a gate policy, its waivers and the evidence behind a support claim");
  add_claim_options(sub, a->claim, /*policy_required=*/true);
  sub->add_option(
      "--require-gate", a->require_gates,
      "Gate that must have passed evidence (repeatable); default: every gate without an "
      "active waiver");
  sub->add_flag("--json", a->json, "Print the result as JSON");
  sub->add_option("--junit", a->junit,
                  "Also write a JUnit XML report: a test case per gate and one for the policy")
      ->type_name("FILE");
  sub->footer("Exit status: 0 the claim holds, 1 violations, 2 unusable policy or arguments.");
  return {sub, [a] { return run(*a); }};
}

}  // namespace jetgate::cli
