// SPDX-License-Identifier: Apache-2.0
// core/utf8 (terminal_safe), report/text_escape and core/json_text (dump_json): outside text in a
// terminal, a Markdown cell, Markdown prose and JSON never crashes, never forges a line, a cell or
// a comment, and never hides what it says.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "jetgate/claims/support_table.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/report/text_escape.hpp"

namespace jetgate::report {
namespace {

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(ClaimsIoEscape, DecodesUtf8AndRejectsWhatIsNotUtf8) {
  auto d = decode_utf8("\xE2\x80\xAE", 0);
  EXPECT_TRUE(d.valid);
  EXPECT_EQ(d.code_point, 0x202Eu);
  EXPECT_EQ(d.length, 3u);
  for (std::string bad : {"\xC0\xAF", "\xE0\x80\xAF", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xFF",
                          "\xC3", "\xE2\x80"}) {
    auto u = decode_utf8(bad, 0);
    EXPECT_FALSE(u.valid) << bad;
    // The maximal ill-formed subpart: only a truncated but so far well-formed
    // sequence ("\xE2\x80") is longer than its first byte.
    EXPECT_EQ(u.length, bad == "\xE2\x80" ? 2u : 1u) << bad;
  }
  EXPECT_TRUE(decode_utf8("\xF0\x9F\x98\x80", 0).valid);
}

TEST(ClaimsIoEscape, TerminalSafeShowsControlsBidiAndBadBytes) {
  EXPECT_EQ(terminal_safe("plain gate-id 1.2.3 /usr/lib"), "plain gate-id 1.2.3 /usr/lib");
  EXPECT_EQ(terminal_safe("a\x1b[31mred"), "a\\x1b[31mred");
  EXPECT_EQ(terminal_safe("line\nforged: ok"), "line\\x0aforged: ok");
  EXPECT_EQ(terminal_safe("tab\there"), "tab\there");  // harmless on a terminal
  EXPECT_EQ(terminal_safe("gate-\xE2\x80\xAEko"), "gate-\\u202eko");
  EXPECT_EQ(terminal_safe("\xE2\x81\xA6x\xE2\x81\xA9"), "\\u2066x\\u2069");
  EXPECT_EQ(terminal_safe("cut \xC3"), "cut \\xc3");
  EXPECT_EQ(terminal_safe("\xC2\x9B"
                          "c1"),
            "\\u009bc1");
  EXPECT_EQ(terminal_safe("caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC"),
            "caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC");  // ordinary text stays
}

TEST(ClaimsIoEscape, MarkdownCellsCannotAddColumnsRowsHtmlOrCloseComments) {
  EXPECT_EQ(markdown_cell("a | b"), "a \\| b");
  EXPECT_EQ(markdown_cell("x\n| forged | row |"), "x \\| forged \\| row \\|");
  EXPECT_EQ(markdown_cell("<!-- jetgate:support:end -->"), "&lt;!-- jetgate:support:end --&gt;");
  EXPECT_EQ(markdown_cell("a & b \\ c"), "a &amp; b \\\\ c");
  EXPECT_EQ(markdown_cell("  padded\t"), "padded");
  EXPECT_EQ(markdown_cell("ok\xE2\x80\xAE"
                          "evil"),
            "ok\\u202eevil");
  EXPECT_EQ(markdown_cell("\xff"), "\\xff");
  // What the verifier reads back is what was escaped.
  for (std::string s : {"plain", "a|b", "x\\|y", "<!-- c -->", "&lt; literal",
                        "ok\xE2\x80\xAE"
                        "x",
                        "\xff\x01", "\\u202e"}) {
    auto row = claims::split_row("| " + markdown_cell(s) + " | z |");
    ASSERT_TRUE(row) << s;
    ASSERT_EQ(row->size(), 2u) << s;
    EXPECT_EQ(claims::unescape_cell((*row)[0]), s);
  }
}

TEST(ClaimsIoEscape, MarkdownProseCannotStartLinksCodeOrHtml) {
  EXPECT_EQ(markdown_inline("[click](https://evil.example)"),
            "\\[click\\](https\\://evil.example)");
  EXPECT_EQ(markdown_inline("`code` and *bold*"), "\\`code\\` and \\*bold\\*");
  EXPECT_EQ(markdown_inline("<details><summary>x</summary>"),
            "&lt;details&gt;&lt;summary&gt;x&lt;/summary&gt;");
  EXPECT_EQ(markdown_inline("two\nlines"), "two lines");
  // Tokens, ids and paths keep their underscores, so the sanitizer still sees them.
  EXPECT_EQ(markdown_inline("github_pat_11AB /home/a_b nv_tegra_release"),
            "github_pat_11AB /home/a_b nv_tegra_release");
}

TEST(ClaimsIoEscape, JsonTextIsValidWhateverTheBytes) {
  std::string cut;
  for (int i = 0; i < 40; ++i) cut += "\xC3\xA9";
  cut = cut.substr(0, 79);  // mid-character
  nlohmann::json j = {{"file", "bad-\xff\xfe.json"}, {"why", cut}, {"ok", "caf\xC3\xA9"}};
  EXPECT_THROW((void)j.dump(), nlohmann::json::type_error);  // why this exists
  std::string text = dump_json(j, 2);
  auto back = nlohmann::json::parse(text);
  EXPECT_EQ(back["ok"], "caf\xC3\xA9");
  EXPECT_TRUE(has(back["file"].get<std::string>(), "\xEF\xBF\xBD"));
  EXPECT_EQ(dump_json(nlohmann::json{{"a", 1}}), R"({"a":1})");
}

}  // namespace
}  // namespace jetgate::report
