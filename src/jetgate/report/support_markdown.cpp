// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/support_markdown.hpp"

#include <fmt/format.h>

#include "jetgate/claims/support_table.hpp"
#include "jetgate/report/text_escape.hpp"

namespace jetgate::report {
namespace {

// The block is committed to the README and `support --verify` compares it
// byte for byte, so it holds only what is claimed and why not: no value that
// changes while nothing changed (evidence dates, ages). The step summary
// (`summary`) and the badge carry those.
std::string why_not_claimed(const claims::MatrixRow& row, const claims::GateEntry& g) {
  if (!row.key.identified) return "platform not recorded in the evidence";
  return claims::describe(g.verdict.state);
}

// "cuda-runtime, jetson-cuda-runtime"; gate ids are escaped like any cell (a
// gate is named after its evidence file, and a file name can hold "|" or a
// newline).
std::string gates_cell(const claims::MatrixRow& row) {
  std::string out;
  for (const auto& g : row.gates) {
    if (!row.key.identified || !claims::backs_claim(g.verdict)) continue;
    if (!out.empty()) out += ", ";
    out += markdown_cell(g.gate);
  }
  return out;
}

std::string claims_table(const claims::SupportMatrix& m) {
  std::string out = fmt::format("{}\n{}\n", claims::kClaimsHeader, claims::kClaimsSeparator);
  for (const auto& row : m.rows) {
    std::string gates = gates_cell(row);
    if (gates.empty()) continue;
    out += fmt::format("| {} | {} | {} |\n", markdown_cell(row.key.platform),
                       markdown_cell(row.key.runtime), gates);
  }
  return out;
}

std::string not_claimed_rows(const claims::SupportMatrix& m) {
  std::string out;
  for (const auto& row : m.rows)
    for (const auto& g : row.gates)
      if (!row.key.identified || !claims::backs_claim(g.verdict))
        out += fmt::format("| {} | {} | {} | {} |\n", markdown_cell(row.key.platform),
                           markdown_cell(row.key.runtime), markdown_cell(g.gate),
                           markdown_cell(why_not_claimed(row, g)));
  return out;
}

}  // namespace

std::string render_support_markdown(const claims::SupportMatrix& m) {
  std::string out = fmt::format("{}\n", claims::kGeneratedComment);
  if (claims::supported_claims(m).empty()) {
    out += fmt::format("{}\n", claims::kNoClaims);
  } else {
    out += fmt::format(
        "{} Each listed gate passed without skips on exactly that combination, with evidence at "
        "most {} days old.\n\n",
        claims::kClaimsIntro, m.rules.max_age_days);
    out += claims_table(m);
  }
  std::string rest = not_claimed_rows(m);
  if (!rest.empty())
    out += fmt::format(
        "\n{} the evidence below is stale, failed, not run, inconsistent, dated in the future, "
        "or does not name its platform.\n\n{}\n{}\n{}",
        claims::kNotClaimedIntro, claims::kNotClaimedHeader, claims::kNotClaimedSeparator, rest);
  return out;
}

}  // namespace jetgate::report
