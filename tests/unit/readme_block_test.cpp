// SPDX-License-Identifier: Apache-2.0
#include "jetgate/claims/readme_block.hpp"

#include <gtest/gtest.h>

#include <deque>

#include "claims_test_helpers.hpp"
#include "jetgate/claims/support_table.hpp"
#include "jetgate/report/support_markdown.hpp"

namespace jetgate::claims {
namespace {

using test::loaded;
using test::orin_evidence_json;

const char* kReadme =
    "# Project\n\nSome text.\n\n<!-- jetgate:support:begin -->\nold content\n<!-- "
    "jetgate:support:end -->\n\nAfter.\n";

SupportMatrix matrix_of(std::vector<LoadedEvidence> v, const char* today = "2026-11-29") {
  // The matrix points into its evidence set, so each set lives as long as the test binary.
  static std::deque<EvidenceSet> kept;
  return build_support_matrix(kept.emplace_back(
      judge_set(std::move(v), JudgeRules{*evidence::parse_iso_date(today), 14, "", false})));
}

SupportMatrix orin_matrix() {
  return matrix_of(
      {loaded("e/jetson-cuda-runtime.json", orin_evidence_json("2026-11-29T16:23:05Z")),
       loaded("e/cuda-runtime.json",
              orin_evidence_json("2026-11-28T16:23:05Z", {{"gate", "cuda-runtime"}})),
       loaded("e/old.json", orin_evidence_json("2026-11-01T00:00:00Z",
                                               {{"gate", "bnb"},
                                                {"platform", {{"tegra", {{"l4t", "36.3.0"}}}}}}))});
}

std::vector<std::string> verify(const std::string& content, const SupportMatrix& m) {
  return verify_block(content, report::render_support_markdown(m), 10, "README.md", m);
}

bool any_has(const std::vector<std::string>& lines, const std::string& part) {
  for (const auto& l : lines)
    if (l.find(part) != std::string::npos) return true;
  return false;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

TEST(ClaimsReadmeBlock, FindsTheBlockBetweenMarkerLines) {
  auto span = find_support_block(kReadme, "README.md");
  ASSERT_TRUE(span) << span.error().message();
  EXPECT_EQ(
      std::string(kReadme).substr(span->content_begin, span->content_end - span->content_begin),
      "old content\n");
  EXPECT_EQ(span->first_line, 6);
}

TEST(ClaimsReadmeBlock, ReplaceKeepsEverythingOutsideByteForByte) {
  auto span = find_support_block(kReadme, "README.md");
  ASSERT_TRUE(span);
  EXPECT_EQ(replace_block(kReadme, *span, "new\n"),
            "# Project\n\nSome text.\n\n<!-- jetgate:support:begin -->\nnew\n<!-- "
            "jetgate:support:end -->\n\nAfter.\n");
  EXPECT_EQ(replace_block(kReadme, *span, "no newline"),
            "# Project\n\nSome text.\n\n<!-- jetgate:support:begin -->\nno newline\n<!-- "
            "jetgate:support:end -->\n\nAfter.\n");
}

TEST(ClaimsReadmeBlock, CrlfAndIndentedMarkersAreFound) {
  std::string crlf =
      "a\r\n  <!-- jetgate:support:begin -->\r\nx\r\n<!-- jetgate:support:end -->  \r\n";
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
  EXPECT_FALSE(find_support_block(
      "Put `<!-- jetgate:support:begin -->` and `<!-- jetgate:support:end -->` in.\n", "R"));
  auto twice = find_support_block(
      "<!-- jetgate:support:begin -->\n<!-- jetgate:support:end -->\n<!-- jetgate:support:begin "
      "-->\n"
      "<!-- jetgate:support:end -->\n",
      "R");
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().what.find("lines 1, 3"), std::string::npos) << twice.error().what;
  auto reversed =
      find_support_block("<!-- jetgate:support:end -->\n<!-- jetgate:support:begin -->\n", "R");
  ASSERT_FALSE(reversed);
  EXPECT_NE(reversed.error().what.find("before"), std::string::npos);
}

TEST(ClaimsReadmeBlock, MarkersInCodeExamplesAreNotMarkers) {
  const std::string b(kBeginMarker), e(kEndMarker);
  std::string real = b + "\nreal\n" + e + "\n";
  for (const std::string& example :
       {"```\n" + b + "\n" + e + "\n```\n", "````md\n" + b + "\n```\n" + e + "\n````\n",
        "~~~\n" + b + "\n" + e + "\n~~~~~\n", "   ```\n" + b + "\n   ```\n",
        "- item\n\n  ```html\n  " + b + "\n  " + e + "\n  ```\n", "> ```\n> " + b + "\n> ```\n",
        "Indented code:\n\n    " + b + "\n    " + e + "\n\n", "\t" + b + "\n"}) {
    for (const std::string& text : {example + real, real + example}) {
      auto span = find_support_block(text, "README.md");
      ASSERT_TRUE(span) << span.error().message() << "\n" << text;
      EXPECT_EQ(text.substr(span->content_begin, span->content_end - span->content_begin), "real\n")
          << text;
    }
  }
  // A fence that is never closed runs to the end of the file (CommonMark): no block.
  auto unclosed = find_support_block("```\n" + real, "README.md");
  ASSERT_FALSE(unclosed);
  EXPECT_NE(unclosed.error().message().find("code"), std::string::npos)
      << unclosed.error().message();
  // A closing fence must be at least as long as the opening one and carry no info string.
  EXPECT_FALSE(find_support_block("````\n```\n" + real + "````\n", "R"));
  EXPECT_FALSE(find_support_block("```\n``` not a close\n" + real + "```\n", "R"));
  // Up to three spaces of indentation are still a marker line.
  EXPECT_TRUE(find_support_block("   " + b + "\n   " + e + "\n", "R"));
}

TEST(ClaimsReadmeBlock, AByteOrderMarkDoesNotHideTheFirstLine) {
  std::string text =
      "\xEF\xBB\xBF" + std::string(kBeginMarker) + "\nx\n" + std::string(kEndMarker) + "\n";
  auto span = find_support_block(text, "README.md");
  ASSERT_TRUE(span) << span.error().message();
  EXPECT_EQ(span->first_line, 2);
  EXPECT_EQ(replace_block(text, *span, "y\n").substr(0, 3), "\xEF\xBB\xBF");
  auto utf16 = find_support_block(std::string("\xFF\xFE<\0!\0", 6), "README.md");
  ASSERT_FALSE(utf16);
  EXPECT_NE(utf16.error().message().find("UTF-16"), std::string::npos) << utf16.error().message();
}

TEST(ClaimsReadmeBlock, CrlfFilesGetCrlfContent) {
  std::string text =
      "a\r\n" + std::string(kBeginMarker) + "\r\nold\r\n" + std::string(kEndMarker) + "\r\nz\r\n";
  auto span = find_support_block(text, "README.md");
  ASSERT_TRUE(span);
  EXPECT_EQ(replace_block(text, *span, "one\ntwo\n"), "a\r\n" + std::string(kBeginMarker) +
                                                          "\r\none\r\ntwo\r\n" +
                                                          std::string(kEndMarker) + "\r\nz\r\n");
}

TEST(ClaimsReadmeBlock, GeneratedBlockVerifiesAndIsDeterministic) {
  auto m = orin_matrix();
  std::string block = report::render_support_markdown(m);
  EXPECT_EQ(block, report::render_support_markdown(orin_matrix()));
  EXPECT_NE(block.find("| Jetson AGX Orin 64GB | JetPack 6.2 (L4T 36.4.3), CUDA 12.6, torch "
                       "2.5.0a0+872d972e41.nv24.08 | "
                       "cuda-runtime, jetson-cuda-runtime |"),
            std::string::npos)
      << block;
  EXPECT_NE(block.find("| bnb | stale |"), std::string::npos) << block;
  // Nothing in the block changes while nothing changed: no dates.
  EXPECT_EQ(block.find("(2026-"), std::string::npos) << block;
  EXPECT_TRUE(verify(block, m).empty());
}

TEST(ClaimsReadmeBlock, ARowAddedByHandIsAViolation) {
  auto m = orin_matrix();
  std::string block = report::render_support_markdown(m);
  std::string row =
      "| Jetson Orin Nano 8GB | JetPack 6.2 (L4T 36.4.3), CUDA 12.6 | jetson-cuda-runtime "
      "(2026-11-29) |\n";
  auto pos = block.find(std::string(kClaimsSeparator)) + kClaimsSeparator.size() + 1;
  block.insert(pos, row);
  auto v = verify(block, m);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("README.md:"), std::string::npos);
  EXPECT_NE(v[0].find("Jetson Orin Nano 8GB"), std::string::npos);
  EXPECT_NE(v[0].find("no evidence was recorded"), std::string::npos) << v[0];
}

TEST(ClaimsReadmeBlock, ClaimingMoreOrLessThanTheEvidenceIsADifference) {
  auto m = orin_matrix();
  std::string block = report::render_support_markdown(m);
  std::string prefix =
      "| Jetson AGX Orin 64GB | JetPack 6.2 (L4T 36.4.3), CUDA 12.6, torch "
      "2.5.0a0+872d972e41.nv24.08 | ";
  std::string row = prefix + "cuda-runtime, jetson-cuda-runtime |";
  ASSERT_NE(block.find(row), std::string::npos) << block;
  auto with_row = [&](const std::string& replacement) {
    std::string edited = block;
    edited.replace(edited.find(row), row.size(), replacement);
    return verify(edited, m);
  };
  // Fewer gates, older or absurd dates, an empty block: all differ from what the evidence says
  // today.
  for (const std::string& r :
       {prefix + "jetson-cuda-runtime (2026-11-29) |",
        prefix + "cuda-runtime (2026-11-20), jetson-cuda-runtime |",
        prefix + "cuda-runtime (1970-01-01), jetson-cuda-runtime (2026-11-29) |"}) {
    auto v = with_row(r);
    ASSERT_FALSE(v.empty()) << r;
    EXPECT_TRUE(any_has(v, "not the one the evidence generates")) << joined(v);
    EXPECT_TRUE(any_has(v, "README.md:")) << joined(v);
  }
  auto empty = verify("", m);
  ASSERT_FALSE(empty.empty());
  EXPECT_TRUE(any_has(empty, "lacks a line the evidence generates")) << joined(empty);
  // Claiming more: each unbacked gate is named with why.
  auto newer = with_row(prefix + "cuda-runtime (2026-11-29), jetson-cuda-runtime (2026-11-29) |");
  EXPECT_TRUE(any_has(newer, "newest fresh green evidence is of 2026-11-28")) << joined(newer);
  auto extra_gate =
      with_row(prefix + "cuda-runtime (2026-11-28), jetson-cuda-runtime (2026-11-29), bnb |");
  EXPECT_TRUE(any_has(extra_gate, "claims gate bnb") &&
              any_has(extra_gate, "no evidence for this gate"))
      << joined(extra_gate);
  auto stale =
      verify(block + "\n" + std::string(kClaimsHeader) + "\n" + std::string(kClaimsSeparator) +
                 "\n| Jetson AGX Orin 64GB | JetPack 6.2 (L4T 36.3.0), CUDA 12.6, torch "
                 "2.5.0a0+872d972e41.nv24.08 | bnb |\n",
             m);
  EXPECT_TRUE(any_has(stale, "is stale: 28 days old")) << joined(stale);
}

TEST(ClaimsReadmeBlock, ASupportedRowInTheNotClaimedTableIsAViolation) {
  auto m = orin_matrix();
  std::string block = report::render_support_markdown(m);
  std::string forged =
      "| Jetson Orin Nano 8GB | JetPack 6.2 (L4T 36.4.3), CUDA 12.6 | cuda-runtime | supported |\n";
  auto v = verify(block + forged, m);
  ASSERT_EQ(v.size(), 1u) << joined(v);
  EXPECT_NE(v[0].find("not-claimed table"), std::string::npos) << v[0];
  // The same with a row of the generated table edited to say "fresh green".
  std::string edited = block;
  auto pos = edited.find("| stale |");
  ASSERT_NE(pos, std::string::npos) << block;
  edited.replace(pos, std::string("| stale |").size(), "| fresh green |");
  EXPECT_FALSE(verify(edited, m).empty());
}

TEST(ClaimsReadmeBlock, OnlyLineEndingsMayDiffer) {
  auto m = orin_matrix();
  std::string block = report::render_support_markdown(m);
  std::string crlf;
  for (char c : block) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  EXPECT_TRUE(verify(crlf, m).empty());
  auto extra_blank = verify("\n" + block, m);
  ASSERT_EQ(extra_blank.size(), 1u) << joined(extra_blank);
  EXPECT_NE(extra_blank[0].find("README.md:10:"), std::string::npos) << extra_blank[0];
  auto trailing_space = verify(block.substr(0, block.size() - 1) + " \n", m);
  EXPECT_FALSE(trailing_space.empty());
}

TEST(ClaimsReadmeBlock, StaleByTheDayOfVerificationIsAViolation) {
  auto m = orin_matrix();
  std::string block = report::render_support_markdown(m);
  auto later =
      matrix_of({loaded("e/jetson-cuda-runtime.json", orin_evidence_json("2026-11-29T16:23:05Z")),
                 loaded("e/cuda-runtime.json",
                        orin_evidence_json("2026-11-28T16:23:05Z", {{"gate", "cuda-runtime"}}))},
                "2026-12-13");
  auto v = verify(block, later);
  // cuda-runtime is 15 days old on 2026-12-13; the other gate is exactly 14
  EXPECT_TRUE(any_has(v, "claims gate cuda-runtime")) << joined(v);
  EXPECT_TRUE(any_has(v, "stale")) << joined(v);
  EXPECT_FALSE(any_has(v, "claims gate jetson-cuda-runtime")) << joined(v);
}

// One changed claims row is one line: the README's row, why it is not backed,
// and the row the evidence generates instead (not a second line on the end marker).
TEST(ClaimsReadmeBlock, OneChangedRowIsOneLine) {
  auto m = orin_matrix();
  std::string block = report::render_support_markdown(m);
  auto later =
      matrix_of({loaded("e/jetson-cuda-runtime.json", orin_evidence_json("2026-11-29T16:23:05Z")),
                 loaded("e/cuda-runtime.json",
                        orin_evidence_json("2026-11-28T16:23:05Z", {{"gate", "cuda-runtime"}}))},
                "2026-12-13");
  auto v = verify(block, later);
  std::size_t claims_lines = 0;
  for (const auto& line : v)
    if (line.find("claims gate cuda-runtime") != std::string::npos) {
      ++claims_lines;
      EXPECT_NE(line.find("the evidence generates instead: \"| Jetson AGX Orin 64GB"),
                std::string::npos)
          << line;
    }
  EXPECT_EQ(claims_lines, 1u) << joined(v);
  for (const auto& line : v)
    EXPECT_EQ(line.find("lacks a line the evidence generates: \"| Jetson AGX Orin 64GB"),
              std::string::npos)
        << "the changed row is said twice:\n"
        << joined(v);
}

TEST(ClaimsReadmeBlock, HandWrittenTextAndForeignTablesAreViolations) {
  auto m = orin_matrix();
  std::string block = report::render_support_markdown(m) + "\nAlso works on Orin Nano.\n";
  auto v = verify(block, m);
  ASSERT_EQ(v.size(), 1u) << joined(v);
  EXPECT_NE(v[0].find("does not generate"), std::string::npos);
  auto foreign = verify("| Board | Status |\n|---|---|\n| Orin Nano | works |\n", m);
  ASSERT_GE(foreign.size(), 3u);
  for (int i = 0; i < 3; ++i)
    EXPECT_NE(foreign[i].find("outside jetgate's tables"), std::string::npos) << foreign[i];
  auto bad_cells = verify(std::string(kClaimsHeader) + "\n" + std::string(kClaimsSeparator) +
                              "\n| a | b |\n| a | b | not a gate! |\n",
                          m);
  EXPECT_TRUE(any_has(bad_cells, "needs 3 cells")) << joined(bad_cells);
  EXPECT_TRUE(any_has(bad_cells, "cannot read the gates cell")) << joined(bad_cells);
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
    EXPECT_TRUE(any_has(v, "does not generate")) << joined(v);
  }
  EXPECT_FALSE(verify(std::string(kNoClaims) + " But Orin Nano works.\n", m).empty());
  EXPECT_FALSE(verify(std::string(kGeneratedComment) + " Orin Nano works.\n", m).empty());
}

TEST(ClaimsReadmeBlock, NoClaimsBlockVerifies) {
  auto m = matrix_of({});
  std::string block = report::render_support_markdown(m);
  EXPECT_NE(block.find(std::string(kNoClaims)), std::string::npos);
  EXPECT_EQ(block.find('|'), std::string::npos);
  EXPECT_TRUE(verify(block, m).empty());
}

TEST(ClaimsSupportTable, RowsSplitOnUnescapedBars) {
  EXPECT_FALSE(split_row("not a row"));
  EXPECT_FALSE(split_row("| open \\|"));
  EXPECT_FALSE(split_row(""));
  auto row = split_row("| a \\| b | c |");
  ASSERT_TRUE(row);
  ASSERT_EQ(row->size(), 2u);
  EXPECT_EQ(unescape_cell((*row)[0]), "a | b");
}

// A gate id like "x | y\n| z" never gets this far: evidence outside the gate
// id grammar is refused when it is read (GateIdGrammar.*).
TEST(ClaimsSupportTable, HostileNamesAreEscapedAndVerify) {
  auto m = matrix_of(
      {loaded("e.json",
              orin_evidence_json("2026-11-29T16:23:05Z",
                                 {{"platform", {{"tegra", {{"module", "M\u202e <!-- -->"}}}}}}))});
  std::string block = report::render_support_markdown(m);
  EXPECT_NE(block.find("| M\\u202e &lt;!-- --&gt; |"), std::string::npos) << block;
  EXPECT_NE(block.find("| jetson-cuda-runtime |"), std::string::npos) << block;
  EXPECT_EQ(block.find("\xE2\x80\xAE"), std::string::npos);
  EXPECT_TRUE(verify(block, m).empty());
}

TEST(ClaimsSupportTable, AnEscapedPlatformNameRoundTripsThroughVerify) {
  auto m = matrix_of(
      {loaded("e.json", orin_evidence_json(
                            "2026-11-29T16:23:05Z",
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
  EXPECT_FALSE(parse_gate_cell(""));
  EXPECT_FALSE(parse_gate_cell("a (2026-13-01)"));
  EXPECT_FALSE(parse_gate_cell("a (yesterday)"));
  EXPECT_FALSE(parse_gate_cell("../etc"));
  EXPECT_FALSE(parse_gate_cell("a,,b"));
}

}  // namespace
}  // namespace jetgate::claims
