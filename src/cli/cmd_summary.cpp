// SPDX-License-Identifier: Apache-2.0
// `jetgate summary`: Markdown about the gates' evidence, for a CI step
// summary (--format step) or an issue body (--format issue, sanitized).
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/claim_options.hpp"
#include "cli/commands.hpp"
#include "cli/environment.hpp"
#include "cli/input_paths.hpp"
#include "jetgate/claims/evidence_set.hpp"
#include "jetgate/claims/gate_summary.hpp"
#include "jetgate/core/exit_codes.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/report/summary_markdown.hpp"

namespace jetgate::cli {
namespace {

struct SummaryArgs {
  claims::ClaimOptions claim;
  std::string format = "step";
  bool json = false;
};

int run_summary(const SummaryArgs& a) {
  auto in = resolve_cli_inputs(a.claim);
  if (!in) return usage_error("summary", in.error().message());
  for (const auto& s : in->evidence.skipped)
    std::cerr << terminal_safe("jetgate summary: warning: skipped " + s.why) << "\n";
  auto summary = claims::build_gate_summary(*in);
  if (a.json)
    std::cout << dump_json(claims::to_json(summary), 2) << "\n";
  else if (a.format == "issue")
    std::cout << report::render_issue_body(summary, sanitize_options_for_this_machine());
  else
    std::cout << report::render_step_summary(summary);
  return kExitOk;
}

}  // namespace

Command add_summary_command(CLI::App& app) {
  auto args = std::make_shared<SummaryArgs>();
  auto* sub = app.add_subcommand(
      "summary", "Markdown about the gates' evidence: a CI step summary or an issue body");
  add_claim_options(sub, args->claim, /*policy_required=*/false);
  sub->get_option("--evidence-dir")->required();
  sub->add_option(
         "--format", args->format,
         "step: table for $GITHUB_STEP_SUMMARY; issue: sanitized issue body with platform facts")
      ->check(CLI::IsMember({"step", "issue"}));
  sub->add_flag("--json", args->json,
                "Print the rows as JSON instead of Markdown (docs/schemas/summary.schema.json)")
      ->excludes("--format");
  sub->footer(
      "Exit status: 0 written, 2 unusable input. The verdicts are check's: the same options give "
      "the "
      "same answer. Docs: docs/claims.md.");
  return {sub, [args] { return run_summary(*args); }};
}

}  // namespace jetgate::cli
