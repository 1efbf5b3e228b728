// `jetgate support`: the support matrix from evidence, printed or written
// into the README block, or the README block verified against the evidence.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/input_paths.hpp"
#include "jetgate/claims/evidence_set.hpp"
#include "jetgate/claims/readme_block.hpp"
#include "jetgate/claims/support_matrix.hpp"
#include "jetgate/core/exit_codes.hpp"
#include "jetgate/fs/root_fs.hpp"
#include "jetgate/fs/write_in_place.hpp"
#include "jetgate/gate/policy.hpp"
#include "jetgate/report/json_text.hpp"
#include "jetgate/report/support_markdown.hpp"
#include "jetgate/report/text_escape.hpp"

namespace jetgate::cli {
namespace {

constexpr std::size_t kMaxReadmeBytes = 4u << 20;
// `--readme -`: the README is read from stdin and, updated, written to stdout.
constexpr const char* kStdinReadme = "-";
constexpr const char* kStdinName = "<stdin>";

struct SupportArgs {
  std::vector<std::string> evidence_dirs;
  std::optional<int> max_age_days;
  std::optional<std::string> policy, readme;
  std::string today, format = "md";
  bool verify = false;
};

// Every message names files and values from outside: shown escaped.
void say(std::ostream& out, const std::string& line) { out << report::terminal_text(line) << "\n"; }

int usage_error(const Error& e) {
  say(std::cerr, "jetgate support: " + e.message());
  return kExitUsage;
}

// --max-age-days, else the policy's maximum_evidence_age_days (required when --policy is given), else 14.
Result<int> max_age_from(const SupportArgs& a) {
  if (a.max_age_days) return *a.max_age_days;
  if (!a.policy) return claims::kDefaultMaxEvidenceAgeDays;
  if (auto st = check_policy_path(*a.policy); !st) return st.error();
  auto loaded = gate::load_policy_file(*a.policy);
  if (!loaded) return loaded.error();
  const auto& age = loaded->policy.maximum_evidence_age_days;
  // The policy was named to set the freshness rule: falling back to 14 would silently judge by another one.
  if (!age)
    return make_error("the policy's maximum_evidence_age_days is missing or not a positive integer",
                      *a.policy + "#/maximum_evidence_age_days",
                      "set \"maximum_evidence_age_days\" (e.g. 14) in the policy, or drop --policy and pass "
                      "--max-age-days N");
  if (*age < 0 || *age > 3650)
    return make_error("maximum_evidence_age_days must be between 0 and 3650", *a.policy + "#/maximum_evidence_age_days");
  return static_cast<int>(*age);
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

int verify_readme(const std::string& path, const claims::SupportMatrix& matrix) {
  std::string where = path == kStdinReadme ? kStdinName : path;
  auto readme = read_readme(path);
  if (!readme) return usage_error(readme.error());
  auto span = claims::find_support_block(*readme, where);
  if (!span) return usage_error(span.error());
  std::string_view block = std::string_view(*readme).substr(span->content_begin, span->content_end - span->content_begin);
  auto violations =
      claims::verify_block(block, report::render_support_markdown(matrix), span->first_line, where, matrix);
  for (const auto& v : violations) say(std::cout, v);
  if (!violations.empty()) {
    say(std::cerr, fmt::format("jetgate support: {}: the support block is not what the evidence backs today ({} "
                               "difference{})",
                               where, violations.size(), violations.size() == 1 ? "" : "s"));
    return kExitDoesNotHold;
  }
  say(std::cout, fmt::format("{}: the support block holds: {} supported gate/platform claims backed by fresh green "
                             "evidence",
                             where, claims::supported_claims(matrix).size()));
  return kExitOk;
}

// `--readme -`: stdin in, the updated README on stdout, the status on stderr.
int filter_readme(const claims::SupportMatrix& matrix) {
  auto readme = read_stdin(kMaxReadmeBytes);
  if (!readme) return usage_error(readme.error());
  auto span = claims::find_support_block(*readme, kStdinName);
  if (!span) return usage_error(span.error());
  std::cout << claims::replace_block(*readme, *span, report::render_support_markdown(matrix));
  return kExitOk;
}

int write_readme(const std::string& path, const claims::SupportMatrix& matrix) {
  if (path == kStdinReadme) return filter_readme(matrix);
  auto file = fs::InPlaceFile::open(path, kMaxReadmeBytes);
  if (!file) return usage_error(file.error());
  auto span = claims::find_support_block(file->contents(), path);
  if (!span) return usage_error(span.error());
  std::string updated = claims::replace_block(file->contents(), *span, report::render_support_markdown(matrix));
  if (updated == file->contents()) {
    say(std::cout, path + ": support block already up to date");
    return kExitOk;
  }
  if (auto written = file->replace(updated); !written) return usage_error(written.error());
  say(std::cout, fmt::format("{}: support block updated ({} supported gate/platform claims)", path,
                             claims::supported_claims(matrix).size()));
  return kExitOk;
}

int run_support(const SupportArgs& a) {
  auto today = claims::today_from_option(a.today);
  if (!today) return usage_error(today.error());
  if (a.readme && a.readme->empty())
    return usage_error(make_error("--readme is empty", "", "name the README file, or - for stdin"));
  auto max_age = max_age_from(a);
  if (!max_age) return usage_error(max_age.error());
  auto set = claims::load_evidence_dirs(a.evidence_dirs);
  if (!set) return usage_error(set.error());
  for (const auto& s : set->skipped) say(std::cerr, "jetgate support: warning: skipped " + s.why);
  auto matrix = claims::build_support_matrix(*set, *today, *max_age);

  if (!a.readme) {
    if (a.format == "json") std::cout << report::json_text(claims::to_json(matrix)) << "\n";
    else std::cout << report::render_support_markdown(matrix);
    return kExitOk;
  }
  return a.verify ? verify_readme(*a.readme, matrix) : write_readme(*a.readme, matrix);
}

}  // namespace

Command add_support_command(CLI::App& app) {
  auto args = std::make_shared<SupportArgs>();
  auto* sub = app.add_subcommand(
      "support", "Which platform combinations may claim support: the gates with fresh green evidence on each");
  sub->add_option("--evidence-dir", args->evidence_dirs, "Folder of evidence files (*.json); repeat for more")
      ->required();
  auto* age = sub->add_option("--max-age-days", args->max_age_days,
                              "Evidence older than this many days is stale (default: the policy's "
                              "maximum_evidence_age_days, else 14)")
                  ->check(CLI::Range(0, 3650));
  sub->add_option("--policy", args->policy, "Policy file whose maximum_evidence_age_days applies (a regular file)")
      ->excludes(age);
  sub->add_option("--today", args->today, "Judge freshness as of this UTC day (YYYY-MM-DD)");
  sub->add_option("--format", args->format, "Output format without --readme")->check(CLI::IsMember({"md", "json"}));
  auto* readme = sub->add_option("--readme", args->readme,
                                 "Rewrite the block between <!-- jetgate:support:begin --> and "
                                 "<!-- jetgate:support:end --> in this file, in place (- : read stdin, write the "
                                 "updated README to stdout)");
  sub->add_flag("--verify", args->verify,
                "With --readme: write nothing; exit 1 unless the block is exactly what the evidence generates")
      ->needs(readme);
  sub->footer("Exit status: 0 ok, 1 the README block is not what the evidence backs, 2 unusable input.\n"
              "Docs: docs/claims.md.");
  return {sub, [args] { return run_support(*args); }};
}

}  // namespace jetgate::cli
