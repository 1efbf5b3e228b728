// SPDX-License-Identifier: Apache-2.0
// `jetgate support`: the support matrix from evidence, printed or written
// into the README block, or the README block verified against the evidence.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/ci_outputs.hpp"
#include "cli/claim_options.hpp"
#include "cli/commands.hpp"
#include "cli/environment.hpp"
#include "cli/input_paths.hpp"
#include "cli/safe_streams.hpp"
#include "jetgate/claims/evidence_set.hpp"
#include "jetgate/claims/readme_block.hpp"
#include "jetgate/claims/support_matrix.hpp"
#include "jetgate/core/exit_codes.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/fs/root_fs.hpp"
#include "jetgate/fs/write_in_place.hpp"
#include "jetgate/report/annotations.hpp"
#include "jetgate/report/badge.hpp"
#include "jetgate/report/support_markdown.hpp"

namespace jetgate::cli {
namespace {

constexpr std::size_t kMaxReadmeBytes = 4u << 20;
// `--readme -`: the README is read from stdin and, updated, written to stdout.
constexpr const char* kStdinReadme = "-";
constexpr const char* kStdinName = "<stdin>";

struct SupportArgs {
  claims::ClaimOptions claim;
  std::optional<std::string> readme;
  std::string format = "md";
  bool verify = false;
  std::string badge;
  std::string badge_label = "Jetson";
};

// Every message names files and values from outside: shown escaped.
void say(std::ostream& out, const std::string& line) {
  out << terminal_safe(line) << "\n";
}

// For --verify: read only, following symbolic links as the system does
// (a README linked from elsewhere is read where the link points).
Result<std::string> read_readme(const std::string& path) {
  if (path == kStdinReadme) return read_stdin(kMaxReadmeBytes);
  auto root = fs::RootFs::open("/");
  if (!root) return make_error(root.error().what, path);
  std::error_code ec;
  auto text = root->read(std::filesystem::absolute(path, ec).string(), kMaxReadmeBytes);
  if (!text) return make_error(text.error().what, path, text.error().hint);
  return *text;
}

// A word as a POSIX shell reads it back: quoted when it holds anything but
// letters, digits and /._-+=:@,
std::string shell_word(const std::string& w) {
  bool plain = !w.empty() && w.find_first_not_of(
                                 "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                 "0123456789/._-+=:@,") == std::string::npos;
  if (plain) return w;
  std::string out = "'";
  for (char c : w) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The command that writes the block this run verified: the same inputs, --readme
// without --verify.
std::string regenerate_command(const SupportArgs& a, const std::string& readme) {
  const auto& c = a.claim;
  std::string out = "jetgate support";
  if (!c.policy.empty()) out += " --policy " + shell_word(c.policy);
  if (!c.repo_root.empty()) out += " --repo-root " + shell_word(c.repo_root);
  for (const auto& d : c.evidence_dirs) out += " --evidence-dir " + shell_word(d);
  if (!c.candidate_sha.empty()) out += " --candidate-sha " + shell_word(c.candidate_sha);
  if (!c.today.empty()) out += " --today " + shell_word(c.today);
  if (c.max_age_days) out += " --max-age-days " + std::to_string(*c.max_age_days);
  if (!c.stale_reason.empty()) out += " --stale-evidence-reason " + shell_word(c.stale_reason);
  if (!c.stale_issue.empty()) out += " --stale-evidence-issue " + shell_word(c.stale_issue);
  if (!c.stale_expires.empty()) out += " --stale-evidence-expires " + shell_word(c.stale_expires);
  return out + " --readme " + shell_word(readme);
}

// "README.md:12: ..." -> 12 (0 when the difference names no line).
int line_of(const std::string& violation, const std::string& where) {
  if (violation.compare(0, where.size() + 1, where + ":") != 0) return 0;
  int n = 0;
  for (std::size_t i = where.size() + 1;
       i < violation.size() && violation[i] >= '0' && violation[i] <= '9' && n < 100000000; ++i)
    n = n * 10 + (violation[i] - '0');
  return n;
}

int verify_readme(const std::string& path, const claims::SupportMatrix& matrix,
                  const SupportArgs& a) {
  std::string where = path == kStdinReadme ? kStdinName : path;
  auto readme = read_readme(path);
  if (!readme) return usage_error("support", readme.error().message());
  auto span = claims::find_support_block(*readme, where);
  if (!span) return usage_error("support", span.error().message());
  std::string_view block = std::string_view(*readme).substr(
      span->content_begin, span->content_end - span->content_begin);
  auto violations = claims::verify_block(block, report::render_support_markdown(matrix),
                                         span->first_line, where, matrix);
  for (const auto& v : violations) say(std::cout, v);
  if (github_actions())
    for (const auto& v : violations)
      write_workflow_command(
          std::cout, report::github_annotation("error", v, where, "jetgate support --verify",
                                               line_of(v, where)));
  if (!violations.empty()) {
    say(std::cerr,
        fmt::format(
            "jetgate support: {}: the support block is not what the evidence backs today ({} "
            "difference{}); regenerate it from the same evidence and commit it: {}",
            where, violations.size(), violations.size() == 1 ? "" : "s",
            regenerate_command(a, path == kStdinReadme ? std::string("README.md") : path)));
    return kExitDoesNotHold;
  }
  say(std::cout,
      fmt::format(
          "{}: the support block holds: {} supported gate/platform claims backed by fresh green "
          "evidence",
          where, claims::supported_claims(matrix).size()));
  return kExitOk;
}

// `--readme -`: stdin in, the updated README on stdout, the status on stderr.
int filter_readme(const claims::SupportMatrix& matrix) {
  auto readme = read_stdin(kMaxReadmeBytes);
  if (!readme) return usage_error("support", readme.error().message());
  auto span = claims::find_support_block(*readme, kStdinName);
  if (!span) return usage_error("support", span.error().message());
  std::cout << claims::replace_block(*readme, *span, report::render_support_markdown(matrix));
  return kExitOk;
}

int write_readme(const std::string& path, const claims::SupportMatrix& matrix) {
  if (path == kStdinReadme) return filter_readme(matrix);
  auto file = fs::InPlaceFile::open(path, kMaxReadmeBytes);
  if (!file) return usage_error("support", file.error().message());
  auto span = claims::find_support_block(file->contents(), path);
  if (!span) return usage_error("support", span.error().message());
  std::string updated =
      claims::replace_block(file->contents(), *span, report::render_support_markdown(matrix));
  if (updated == file->contents()) {
    say(std::cout, path + ": support block already up to date");
    return kExitOk;
  }
  if (auto written = file->replace(updated); !written)
    return usage_error("support", written.error().message());
  say(std::cout, fmt::format("{}: support block updated ({} supported gate/platform claims)", path,
                             claims::supported_claims(matrix).size()));
  return kExitOk;
}

int run_support(const SupportArgs& a) {
  if (a.readme && a.readme->empty())
    return usage_error(
        "support",
        make_error("--readme is empty", "", "name the README file, or - for stdin").message());
  fs::CommandFiles files;
  add_claim_inputs(files, a.claim);
  if (a.readme && *a.readme != kStdinReadme) files.add_input(*a.readme, "the README");
  if (!check_outputs("support", files, {{"--badge", a.badge}})) return kExitUsage;
  auto in = resolve_cli_inputs(a.claim);
  if (!in) return usage_error("support", in.error().message());
  for (const auto& s : in->evidence.skipped)
    say(std::cerr, "jetgate support: warning: skipped " + s.why);
  auto matrix = claims::build_support_matrix(in->evidence);
  if (!a.badge.empty() &&
      !write_output_file("support", a.badge,
                         dump_json(report::support_badge(matrix, a.badge_label), 2) + "\n"))
    return kExitUsage;

  if (!a.readme) {
    if (a.format == "json")
      std::cout << dump_json(claims::to_json(matrix), 2) << "\n";
    else
      std::cout << report::render_support_markdown(matrix);
    return kExitOk;
  }
  return a.verify ? verify_readme(*a.readme, matrix, a) : write_readme(*a.readme, matrix);
}

}  // namespace

Command add_support_command(CLI::App& app) {
  auto args = std::make_shared<SupportArgs>();
  auto* sub = app.add_subcommand(
      "support",
      "Which platform combinations may claim support: the gates with fresh green evidence on each");
  add_claim_options(sub, args->claim, /*policy_required=*/false);
  sub->get_option("--evidence-dir")->required();
  sub->add_option("--format", args->format, "Output format without --readme")
      ->check(CLI::IsMember({"md", "json"}));
  // --json, as on every command; --format json stays for existing scripts.
  sub->add_flag_callback(
      "--json", [args] { args->format = "json"; },
      "Print the support matrix as JSON (docs/schemas/support.schema.json); same as --format "
      "json");
  auto* readme = sub->add_option(
      "--readme", args->readme,
      "Rewrite the block between <!-- jetgate:support:begin --> and "
      "<!-- jetgate:support:end --> in this file, in place (- : read stdin, write the "
      "updated README to stdout)");
  sub->add_flag("--verify", args->verify,
                "With --readme: write nothing; exit 1 unless the block is exactly what the "
                "evidence generates")
      ->needs(readme);
  sub->add_option("--badge", args->badge,
                  "Also write a shields.io endpoint badge (JSON) of what may be claimed")
      ->type_name("FILE");
  sub->add_option("--badge-label", args->badge_label,
                  "The badge's label; under Jetson only Jetson platforms count, under any other "
                  "every supported platform does")
      ->capture_default_str();
  sub->footer(
      "Exit status: 0 ok, 1 the README block is not what the evidence backs, 2 unusable input.\n"
      "Docs: docs/claims.md.");
  return {sub, [args] { return run_support(*args); }};
}

}  // namespace jetgate::cli
