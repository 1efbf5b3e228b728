#include <gtest/gtest.h>

#include "claims_test_helpers.hpp"
#include "jetgate/claims/readme_block.hpp"
#include "jetgate/claims/support_table.hpp"
#include "jetgate/report/support_markdown.hpp"

namespace jetgate::claims {
namespace {

using test::loaded;
using test::orin_evidence_json;

const char* kReadme =
    "# Project\n\nSome text.\n\n<!-- jetgate:support:begin -->\nold content\n<!-- jetgate:support:end -->\n\nAfter.\n";

SupportMatrix matrix_of(std::vector<LoadedEvidence> v, const char* today = "2026-11-29") {
  return build_support_matrix(EvidenceSet{std::move(v), {}}, JudgeRules{*evidence::parse_iso_date(today), 14, "", false});
}

SupportMatrix orin_matrix() {
  return matrix_of({loaded("e/jetson-cuda-runtime.json", orin_evidence_json("2026-11-29T16:23:05Z")),
                    loaded("e/cuda-runtime.json", orin_evidence_json("2026-11-28T16:23:05Z", {{"gate", "cuda-runtime"}})),
                    loaded("e/old.json", orin_evidence_json("2026-11-01T00:00:00Z",
                                                            {{"gate", "bnb"}, {"platform", {{"tegra", {{"l4t", "36.3.0"}}}}}}))});
}

std::vector<std::string> verify(const std::string& content, const SupportMatrix& m) {
  return verify_block(content, 10, "README.md", m);
}

TEST(ClaimsReadmeBlock, FindsTheBlockBetweenMarkerLines) {
  auto span = find_support_block(kReadme, "README.md");
  ASSERT_TRUE(span) << span.error().message();
  EXPECT_EQ(std::string(kReadme).substr(span->content_begin, span->content_end - span->content_begin), "old content\n");
  EXPECT_EQ(span->first_line, 6);
}

TEST(ClaimsReadmeBlock, ReplaceKeepsEverythingOutsideByteForByte) {
  auto span = find_support_block(kReadme, "README.md");
  ASSERT_TRUE(span);
  EXPECT_EQ(replace_block(kReadme, *span, "new\n"),
            "# Project\n\nSome text.\n\n<!-- jetgate:support:begin -->\nnew\n<!-- jetgate:support:end -->\n\nAfter.\n");
  EXPECT_EQ(replace_block(kReadme, *span, "no newline"),
            "# Project\n\nSome text.\n\n<!-- jetgate:support:begin -->\nno newline\n<!-- jetgate:support:end -->\n\nAfter.\n");
}

TEST(ClaimsReadmeBlock, CrlfAndIndentedMarkersAreFound) {
  std::string crlf = "a\r\n  <!-- jetgate:support:begin -->\r\nx\r\n<!-- jetgate:support:end -->  \r\n";
  EXPECT_TRUE(find_support_block(crlf, "R"));
}

TEST(ClaimsReadmeBlock, MissingDuplicatedAndMisorderedMarkersAreErrors) {
  auto missing = find_support_block("# Project\nno markers\n", "README.md");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().hint.find("add the two lines"), std::string::npos);
  EXPECT_EQ(missing.error().where, "README.md");
  EXPECT_FALSE(find_support_block("<!-- jetgate:support:begin -->\n", "R"));
  EXPECT_FALSE(find_support_block("<!-- jetgate:support:end -->\n", "R"));
  // A marker quoted inside prose is not a marker line.
  EXPECT_FALSE(find_support_block("Put `<!-- jetgate:support:begin -->` and `<!-- jetgate:support:end -->` in.\n", "R"));
  auto twice = find_support_block(
      "<!-- jetgate:support:begin -->\n<!-- jetgate:support:end -->\n<!-- jetgate:support:begin -->\n"
      "<!-- jetgate:support:end -->\n",
      "R");
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().what.find("lines 1, 3"), std::string::npos) << twice.error().what;
  auto reversed = find_support_block("<!-- jetgate:support:end -->\n<!-- jetgate:support:begin -->\n", "R");
  ASSERT_FALSE(reversed);
  EXPECT_NE(reversed.error().what.find("before"), std::string::npos);
}

TEST(ClaimsReadmeBlock, GeneratedBlockVerifiesAndIsDeterministic) {
  auto m = orin_matrix();
  std::string block = report::render_support_markdown(m);
  EXPECT_EQ(block, report::render_support_markdown(orin_matrix()));
  EXPECT_NE(block.find("| Jetson AGX Orin 64GB | JetPack 6.2 (L4T 36.4.3), CUDA 12.6, torch 2.5.0a0+872d972e41.nv24.08 | "
                       "cuda-runtime (2026-11-28), jetson-cuda-runtime (2026-11-29) |"),
            std::string::npos)
      << block;
  EXPECT_NE(block.find("| bnb | stale (evidence of 2026-11-01) |"), std::string::npos) << block;
  EXPECT_TRUE(verify(block, m).empty());
}

TEST(ClaimsReadmeBlock, ARowAddedByHandIsAViolation) {
  auto m = orin_matrix();
  std::string block = report::render_support_markdown(m);
  std::string row = "| Jetson Orin Nano 8GB | JetPack 6.2 (L4T 36.4.3), CUDA 12.6 | jetson-cuda-runtime (2026-11-29) |\n";
  auto pos = block.find(std::string(kClaimsSeparator)) + kClaimsSeparator.size() + 1;
  block.insert(pos, row);
  auto v = verify(block, m);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("README.md:"), std::string::npos);
  EXPECT_NE(v[0].find("Jetson Orin Nano 8GB"), std::string::npos);
  EXPECT_NE(v[0].find("no evidence was recorded"), std::string::npos) << v[0];
}

TEST(ClaimsReadmeBlock, ClaimingLessIsFineClaimingMoreIsNot) {
  auto m = orin_matrix();
  std::string header = std::string(kClaimsHeader) + "\n" + std::string(kClaimsSeparator) + "\n";
  std::string prefix = "| Jetson AGX Orin 64GB | JetPack 6.2 (L4T 36.4.3), CUDA 12.6, torch 2.5.0a0+872d972e41.nv24.08 | ";
  EXPECT_TRUE(verify(header + prefix + "jetson-cuda-runtime (2026-11-29) |\n", m).empty());
  EXPECT_TRUE(verify(header + prefix + "cuda-runtime (2026-11-20) |\n", m).empty());  // cites older evidence
  EXPECT_TRUE(verify(header + prefix + "cuda-runtime |\n", m).empty());
  EXPECT_TRUE(verify("", m).empty());
  auto newer = verify(header + prefix + "cuda-runtime (2026-11-29) |\n", m);
  ASSERT_EQ(newer.size(), 1u);
  EXPECT_NE(newer[0].find("newest fresh green evidence is of 2026-11-28"), std::string::npos) << newer[0];
  auto extra_gate = verify(header + prefix + "jetson-cuda-runtime (2026-11-29), bnb |\n", m);
  ASSERT_EQ(extra_gate.size(), 1u);
  EXPECT_NE(extra_gate[0].find("no evidence for this gate"), std::string::npos);
  auto stale = verify(header + "| Jetson AGX Orin 64GB | JetPack 6.2 (L4T 36.3.0), CUDA 12.6, torch "
                               "2.5.0a0+872d972e41.nv24.08 | bnb |\n",
                      m);
  ASSERT_EQ(stale.size(), 1u);
  EXPECT_NE(stale[0].find("is stale: 28 days old"), std::string::npos) << stale[0];
}

TEST(ClaimsReadmeBlock, StaleByTheDayOfVerificationIsAViolation) {
  auto m = orin_matrix();
  std::string block = report::render_support_markdown(m);
  auto later = matrix_of({loaded("e/jetson-cuda-runtime.json", orin_evidence_json("2026-11-29T16:23:05Z")),
                          loaded("e/cuda-runtime.json", orin_evidence_json("2026-11-28T16:23:05Z", {{"gate", "cuda-runtime"}}))},
                         "2026-12-13");
  auto v = verify(block, later);
  ASSERT_EQ(v.size(), 1u);  // cuda-runtime is 15 days old on 2026-12-13; the other gate is exactly 14
  EXPECT_NE(v[0].find("cuda-runtime"), std::string::npos);
  EXPECT_NE(v[0].find("stale"), std::string::npos) << v[0];
}

TEST(ClaimsReadmeBlock, HandWrittenTextAndForeignTablesAreViolations) {
  auto m = orin_matrix();
  std::string block = report::render_support_markdown(m) + "\nAlso works on Orin Nano.\n";
  auto v = verify(block, m);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("does not generate"), std::string::npos);
  EXPECT_EQ(verify("| Board | Status |\n|---|---|\n| Orin Nano | works |\n", m).size(), 3u);
  auto bad_cells = verify(std::string(kClaimsHeader) + "\n" + std::string(kClaimsSeparator) + "\n| a | b |\n| a | b | not a gate! |\n", m);
  EXPECT_EQ(bad_cells.size(), 2u);
}

TEST(ClaimsReadmeBlock, ClaimsAppendedToGeneratedProseAreViolations) {
  auto m = orin_matrix();
  std::string block = report::render_support_markdown(m);
  for (auto sentence : {kClaimsIntro, kNotClaimedIntro}) {
    auto pos = block.find(std::string(sentence));
    ASSERT_NE(pos, std::string::npos) << block;
    std::string edited = block;
    edited.insert(block.find('\n', pos), " Also works on Orin Nano.");
    auto v = verify(edited, m);
    ASSERT_EQ(v.size(), 1u) << edited;
    EXPECT_NE(v[0].find("does not generate"), std::string::npos) << v[0];
  }
  EXPECT_EQ(verify(std::string(kNoClaims) + " But Orin Nano works.\n", m).size(), 1u);
  EXPECT_EQ(verify(std::string(kGeneratedComment) + " Orin Nano works.\n", m).size(), 1u);
}

TEST(ClaimsReadmeBlock, NoClaimsBlockVerifies) {
  auto m = matrix_of({});
  std::string block = report::render_support_markdown(m);
  EXPECT_NE(block.find(std::string(kNoClaims)), std::string::npos);
  EXPECT_EQ(block.find('|'), std::string::npos);
  EXPECT_TRUE(verify(block, m).empty());
}

TEST(ClaimsSupportTable, CellsEscapeAndRoundTrip) {
  for (std::string s : {"plain", "a|b", "x\\|y", "<!-- jetgate:support:end -->", "&lt; literal", "tab\there"}) {
    std::string cell = escape_cell(s);
    EXPECT_EQ(cell.find("-->"), std::string::npos);
    auto row = split_row("| " + cell + " | z |");
    ASSERT_TRUE(row) << cell;
    ASSERT_EQ(row->size(), 2u) << cell;
    std::string expected = s;
    for (auto& c : expected)
      if (c == '\t') c = ' ';
    EXPECT_EQ(unescape_cell((*row)[0]), expected);
  }
  EXPECT_FALSE(split_row("not a row"));
  EXPECT_FALSE(split_row("| open \\|"));
  EXPECT_FALSE(split_row(""));
}

TEST(ClaimsSupportTable, AnEscapedPlatformNameRoundTripsThroughVerify) {
  auto m = matrix_of({loaded("e.json", orin_evidence_json("2026-11-29T16:23:05Z",
                                                          {{"platform", {{"tegra", {{"module", "Odd | <Module> & co"}}}}}}))});
  std::string block = report::render_support_markdown(m);
  EXPECT_NE(block.find("Odd \\| &lt;Module&gt; &amp; co"), std::string::npos) << block;
  EXPECT_TRUE(verify(block, m).empty());
}

TEST(ClaimsSupportTable, GateCells) {
  auto gates = parse_gate_cell("a-gate (2026-11-29), b");
  ASSERT_TRUE(gates);
  ASSERT_EQ(gates->size(), 2u);
  EXPECT_EQ((*gates)[0].evidence_date, "2026-11-29");
  EXPECT_EQ((*gates)[1].gate, "b");
  EXPECT_EQ(format_gate_cell(*gates), "a-gate (2026-11-29), b");
  EXPECT_FALSE(parse_gate_cell(""));
  EXPECT_FALSE(parse_gate_cell("a (2026-13-01)"));
  EXPECT_FALSE(parse_gate_cell("a (yesterday)"));
  EXPECT_FALSE(parse_gate_cell("../etc"));
  EXPECT_FALSE(parse_gate_cell("a,,b"));
}

}  // namespace
}  // namespace jetgate::claims
