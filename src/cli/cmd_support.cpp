// `jetgate support`: the support matrix from evidence, printed or written
// into the README block, or the README block verified against the evidence.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/claim_options.hpp"
#include "cli/commands.hpp"
#include "jetgate/claims/evidence_set.hpp"
#include "jetgate/claims/readme_block.hpp"
#include "jetgate/claims/support_matrix.hpp"
#include "jetgate/core/exit_codes.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/evidence/atomic_write.hpp"
#include "jetgate/fs/root_fs.hpp"
#include "jetgate/report/support_markdown.hpp"

namespace jetgate::cli {
namespace {

constexpr std::size_t kMaxReadmeBytes = 4u << 20;

struct SupportArgs {
  claims::ClaimOptions claim;
  std::string format = "md", readme;
  bool verify = false;
};

int usage_error(const Error& e) {
  std::cerr << "jetgate support: " << e.message() << "\n";
  return kExitUsage;
}

Result<std::string> read_readme(const std::string& path) {
  std::filesystem::path p(path);
  auto root = fs::RootFs::open(p.has_parent_path() ? p.parent_path().string() : ".");
  if (!root) return make_error(root.error().what, path);
  auto text = root->read(p.filename().string(), kMaxReadmeBytes);
  if (!text) return make_error(text.error().what, path, text.error().hint);
  return *text;
}

int verify_readme(const std::string& path, std::string_view block, int first_line,
                  const claims::SupportMatrix& matrix) {
  auto violations = claims::verify_block(block, first_line, path, matrix);
  for (const auto& v : violations) std::cout << v << "\n";
  if (!violations.empty()) {
    std::cerr << "jetgate support: " << path << ": the support block claims more than fresh green evidence backs ("
              << violations.size() << " violation" << (violations.size() == 1 ? "" : "s") << ")\n";
    return kExitDoesNotHold;
  }
  std::cout << path << ": the support block holds: " << claims::supported_claims(matrix).size()
            << " supported gate/platform claims backed by fresh green evidence\n";
  return kExitOk;
}

int write_readme(const std::string& path, const std::string& readme, const claims::BlockSpan& span,
                 const claims::SupportMatrix& matrix) {
  std::string updated = claims::replace_block(readme, span, report::render_support_markdown(matrix));
  if (updated == readme) {
    std::cout << path << ": support block already up to date\n";
    return kExitOk;
  }
  std::filesystem::path p(path);
  auto written = evidence::write_file_atomically(p.has_parent_path() ? p.parent_path().string() : ".",
                                                 p.filename().string(), updated);
  if (!written) return usage_error(written.error());
  std::cout << path << ": support block updated (" << claims::supported_claims(matrix).size()
            << " supported gate/platform claims)\n";
  return kExitOk;
}

int run_support(const SupportArgs& a) {
  auto in = claims::resolve_claim_inputs(a.claim);
  if (!in) return usage_error(in.error());
  for (const auto& s : in->evidence.skipped) std::cerr << "jetgate support: warning: skipped " << s.why << "\n";
  auto matrix = claims::build_support_matrix(in->evidence, in->rules);

  if (a.readme.empty()) {
    if (a.format == "json") std::cout << dump_json(claims::to_json(matrix), 2) << "\n";
    else std::cout << report::render_support_markdown(matrix);
    return kExitOk;
  }
  auto readme = read_readme(a.readme);
  if (!readme) return usage_error(readme.error());
  auto span = claims::find_support_block(*readme, a.readme);
  if (!span) return usage_error(span.error());
  if (a.verify) {
    std::string_view text = *readme;
    return verify_readme(a.readme, text.substr(span->content_begin, span->content_end - span->content_begin),
                         span->first_line, matrix);
  }
  return write_readme(a.readme, *readme, *span, matrix);
}

}  // namespace

Command add_support_command(CLI::App& app) {
  auto args = std::make_shared<SupportArgs>();
  auto* sub = app.add_subcommand(
      "support", "Which platform combinations may claim support: the gates with fresh green evidence on each");
  add_claim_options(sub, args->claim, /*policy_required=*/false);
  sub->get_option("--evidence-dir")->required();
  sub->add_option("--format", args->format, "Output format without --readme")->check(CLI::IsMember({"md", "json"}));
  auto* readme = sub->add_option("--readme", args->readme,
                                 "Rewrite the block between <!-- jetgate:support:begin --> and "
                                 "<!-- jetgate:support:end --> in this file");
  sub->add_flag("--verify", args->verify,
                "With --readme: write nothing; exit 1 when the block claims more than the evidence backs")
      ->needs(readme);
  sub->footer("Exit status: 0 ok, 1 the README block claims more than the evidence backs, 2 unusable input.\n"
              "Docs: docs/claims.md.");
  return {sub, [args] { return run_support(*args); }};
}

}  // namespace jetgate::cli
