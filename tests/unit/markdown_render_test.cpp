// SPDX-License-Identifier: Apache-2.0
// Outside text in jetgate's Markdown shows as text (issue 21, class 3): each
// output is rendered with cmark-gfm, the reference implementation of GitHub
// Flavored Markdown (Debian's cmark-gfm, with the extensions github.com
// enables: table, autolink, strikethrough, tagfilter), and the HTML is
// compared with the HTML of the same document holding a plain word instead:
// an element that is in one and not the other came from the string.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "claims_test_helpers.hpp"
#include "jetgate/proc/child.hpp"
#include "jetgate/report/text_escape.hpp"
#include "test_support.hpp"

namespace jetgate {
namespace {

std::string render_gfm(const std::string& markdown) {
  proc::ProcessSpec spec;
  spec.argv = {"cmark-gfm",     "-e", "table",    "-e", "autolink", "-e",
               "strikethrough", "-e", "tagfilter"};
  spec.stdin_text = markdown;
  proc::ChildLimits limits;
  limits.timeout = std::chrono::seconds(60);
  limits.max_output_bytes = 64u << 20;
  auto o = proc::run_process(spec, limits);
  EXPECT_EQ(o.kind, proc::ChildOutcome::Kind::exited)
      << o.describe() << " (install Debian's cmark-gfm: scripts/install-deps.sh)";
  EXPECT_EQ(o.exit_code, 0) << o.error_text;
  return o.output;
}

// The element names in order, opening and closing: what the rendering built.
std::vector<std::string> tags(const std::string& html) {
  std::vector<std::string> out;
  auto is_alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); };
  for (std::size_t i = html.find('<'); i != std::string::npos; i = html.find('<', i + 1)) {
    std::size_t j = i + 1;
    if (j < html.size() && html[j] == '/') ++j;
    if (j >= html.size() || !is_alpha(html[j])) continue;
    std::size_t k = j;
    while (k < html.size() && (is_alpha(html[k]) || (html[k] >= '0' && html[k] <= '9'))) ++k;
    out.push_back(html.substr(i + 1, k - i - 1));
  }
  return out;
}

// Every element of got is one the plain document has too (as many times): a
// string may leave an element empty or drop an empty paragraph, but never add one.
bool within(const std::vector<std::string>& got, const std::vector<std::string>& plain) {
  std::map<std::string, int> count;
  for (const auto& t : plain) ++count[t];
  for (const auto& t : got)
    if (--count[t] < 0) return false;
  return true;
}

std::string html_escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

std::string without_word_joiners(std::string s) {
  for (auto pos = s.find("\u2060"); pos != std::string::npos; pos = s.find("\u2060"))
    s.erase(pos, 3);
  return s;
}

// Each string in every place jetgate puts one: a table cell, a list item, a
// heading, a paragraph. One document per kind of text, so one cmark-gfm run.
std::string document(const std::vector<std::string>& texts) {
  std::string md;
  for (const auto& t : texts) {
    md += "| Platform | Gates |\n|---|---|\n| " + report::markdown_cell(t) + " | x |\n\n";
    md += "- **gate**: " + report::markdown_inline(t) +
          "\n  - next: " + report::markdown_inline(t) + "\n\n";
    md += "### " + report::markdown_inline(t) + " on x\n\n";
    md += report::markdown_inline(t) + "\n\n---\n\n";
  }
  return md;
}

void expect_inert(const std::vector<std::string>& texts) {
  std::vector<std::string> plain(texts.size(), "x");
  std::string html = render_gfm(document(texts));
  std::string baseline = render_gfm(document(plain));
  if (!within(tags(html), tags(baseline))) {
    // Find the first string that made an element, for the message.
    for (const auto& t : texts) {
      if (!within(tags(render_gfm(document({t}))), tags(render_gfm(document({"x"}))))) {
        ADD_FAILURE() << "this text made an element: " << testing::PrintToString(t) << "\n"
                      << render_gfm(document({t}));
        return;
      }
    }
    ADD_FAILURE() << "the elements differ";
  }
}

const std::vector<std::string> kHostile = {
    "![Jetson AGX Thor: fully supported](https://evil.example/thor.png)",
    "[click here](https://evil.example)",
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "<!-- jetgate:support:end -->",
    "https://evil.example/a",
    "HTTP://EVIL.EXAMPLE",
    "see www.evil.example now",
    "mail a@b.example",
    "@octocat",
    "`code`",
    "*em* **strong**",
    "_em_ __strong__",
    "~~gone~~ ~x~",
    "$x^2$",
    "# heading",
    "- item",
    "+ item",
    "1. item",
    "2) item",
    "===",
    "---",
    "| a | b |",
    "&#60;b&#62;bold&#60;/b&#62;",
    "&lt;img&gt;",
    "\\[x](y)",
    "[x]: https://evil.example",
    "[^1]",
    "[ ] task",
    "    indented code",
    "```",
    "> quote",
    "a\nb\n# c",
    "x\r\n===",
    "<https://evil.example>",
    "<a@b.example>",
    "\xe2\x80\xae"
    "gate-ok",
};

TEST(MarkdownRender, EveryHostileStringShowsAsText) {
  expect_inert(kHostile);
  // And as its own text: the paragraph holds the string, HTML-escaped.
  for (const auto& t : {std::string("![Jetson AGX Thor: fully supported](https://evil.example/x)"),
                        std::string("a@b.example and @octocat"), std::string("_em_ and $x$")}) {
    std::string html = without_word_joiners(render_gfm(report::markdown_inline(t) + "\n"));
    EXPECT_NE(html.find(html_escaped(t)), std::string::npos) << t << "\n" << html;
  }
}

TEST(MarkdownRender, OrdinaryTextKeepsItsLook) {
  // Ids, metric names, versions and dates are common; they stay readable.
  EXPECT_EQ(report::markdown_inline("jetson-cuda-runtime"), "jetson-cuda-runtime");
  EXPECT_EQ(report::markdown_inline("launch_ms 12.6"), "launch_ms 12.6");
  EXPECT_EQ(report::markdown_inline("2026-11-29T16:23:05Z"), "2026-11-29T16:23:05Z");
  EXPECT_EQ(report::markdown_cell("JetPack 6.2 (L4T 36.4.3)"), "JetPack 6.2 (L4T 36.4.3)");
}

// GitHub links "#12", "GH-12" and "owner/repo#12" to issues (and leaves a
// "mentioned" entry in their timelines); cmark-gfm does not, so the escape is
// checked as text: a word joiner follows the "#" or "GH-", the text reads the same.
TEST(MarkdownRender, IssueReferencesAreBrokenLikeMentions) {
  EXPECT_EQ(report::markdown_inline("fixes #12"), "fixes #&#8288;12");
  EXPECT_EQ(report::markdown_inline("acme/robot#7"), "acme/robot#&#8288;7");
  EXPECT_EQ(report::markdown_inline("see gh-3 and GH-4"), "see gh-&#8288;3 and GH-&#8288;4");
  EXPECT_EQ(report::markdown_inline("#1"), "#&#8288;1");
  EXPECT_EQ(report::markdown_inline("tag #a, v-1, gh-x, 2026-01-05"),
            "tag #a, v-1, gh-x, 2026-01-05");
  const std::string html =
      without_word_joiners(render_gfm(report::markdown_inline("fixes #12") + "\n"));
  EXPECT_NE(html.find("fixes #12"), std::string::npos) << html;
}

// The property: random strings over the characters and words Markdown gives
// meaning to never add an element. A fixed seed, so a failure repeats.
TEST(MarkdownRender, RandomOutsideStringsNeverAddAnElement) {
  const std::vector<std::string> atoms = {
      "[",       "]",        "(",    ")",   "!",       "<",           ">",          "*",
      "_",       "`",        "~",    "$",   "|",       "#",           "-",          "+",
      "=",       ".",        ":",    "//",  "@",       "&",           "#60;",       "\\",
      " ",       "\n",       "\t",   "\r",  "a",       "b",           "1",          "x.example",
      "http://", "https://", "www.", "img", "mailto:", "<img src=x>", "<a href=y>", "\xe2\x80\xae",
      "\xff",    "::",       "1."};
  std::mt19937 rng(21);
  std::uniform_int_distribution<std::size_t> pick(0, atoms.size() - 1), len(1, 12);
  std::vector<std::string> texts;
  for (int i = 0; i < 400; ++i) {
    std::string s;
    for (std::size_t n = len(rng); n > 0; --n) s += atoms[pick(rng)];
    texts.push_back(s);
  }
  expect_inert(texts);
}

// End to end: evidence whose module name is an image and whose reason is a
// link, through `support` and `summary --format step` (what lands in a README
// and in $GITHUB_STEP_SUMMARY): the HTML has no image and no link to it.
TEST(MarkdownRender, EvidenceStringsInSupportAndSummaryRenderAsText) {
  test::TempDir t;
  const std::string image = "![Jetson AGX Thor: fully supported](https://evil.example/thor.png)";
  auto doc = test::orin_evidence_json(
      "2026-11-29T16:23:05Z",
      {{"platform", {{"tegra", {{"module", image}}}}},
       {"status", "failed"},
       {"reason", "[details](https://evil.example/r) <img src=x> @octocat"}});
  t.write("ev/jetson-cuda-runtime.json", doc.dump(2));
  std::vector<std::vector<std::string>> runs = {
      {"support", "--today", "2026-11-29", "--evidence-dir", t.path("ev")},
      {"summary", "--format", "step", "--today", "2026-11-29", "--evidence-dir", t.path("ev")},
      {"summary", "--format", "issue", "--today", "2026-11-29", "--evidence-dir", t.path("ev")}};
  for (const auto& args : runs) {
    auto r = test::run_jetgate(args);
    ASSERT_EQ(r.exit_code, 0) << args[0] << ": " << r.err;
    std::string html = render_gfm(r.out);
    EXPECT_EQ(html.find("<img"), std::string::npos) << args[0] << "\n" << r.out << "\n" << html;
    EXPECT_EQ(html.find("href=\"https://evil.example"), std::string::npos) << html;
    EXPECT_EQ(html.find("octocat</a>"), std::string::npos) << html;
  }
}

}  // namespace
}  // namespace jetgate
