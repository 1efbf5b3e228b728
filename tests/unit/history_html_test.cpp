// SPDX-License-Identifier: Apache-2.0
// `jetgate history report --html` (report/history_html, docs/history.md): the escaper,
// hostile names from evidence never reaching the page as markup, and the report of the
// generated 200-node month with its three planted regressions (history_fleet.hpp):
// structure checked as text here, and, with Debian's chromium installed, the page
// opened in headless Chromium (a screenshot that is not blank, the DOM it builds).
// tests/html/check-report.sh runs the Chromium test and fails when chromium is missing.
#include "jetgate/report/history_html.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

#include "history_fleet.hpp"
#include "jetgate/history/regressions.hpp"
#include "jetgate/history/store.hpp"
#include "jetgate/proc/child.hpp"
#include "test_support.hpp"

namespace jetgate {
namespace {

using report::html_escape;
using test::TempDir;

std::size_t count_of(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (auto p = s.find(part); p != std::string::npos; p = s.find(part, p + part.size())) ++n;
  return n;
}

TEST(HistoryHtml, EscapesMarkupQuotesControlsAndBadBytes) {
  EXPECT_EQ(html_escape("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(html_escape(std::string("x\0y", 3)), "x\\x00y");
  EXPECT_EQ(html_escape("bad\xff\xfe"), "bad\\xff\\xfe");
  EXPECT_EQ(html_escape("\xe2\x80\xae"
                        "ko-etag"),
            "\\u202eko-etag");  // RIGHT-TO-LEFT OVERRIDE
  EXPECT_EQ(html_escape("a\tb\nc\x1b[31m"), "a\\x09b\\x0ac\\x1b[31m");
  EXPECT_EQ(html_escape("\xc2\x85"), "\\u0085");  // C1 NEXT LINE
  EXPECT_EQ(html_escape("orin-17 \xc3\xa9\xe2\x9c\x93"), "orin-17 \xc3\xa9\xe2\x9c\x93");
  EXPECT_EQ(html_escape("&amp;"), "&amp;amp;");  // an entity in the input stays text
  EXPECT_EQ(html_escape(""), "");
}

history::Run hostile_run(const std::string& node, const std::string& gate, int day, double v) {
  history::Run r;
  r.node = node;
  r.gate = gate;
  r.platform = "javascript:alert(1) <svg onload=alert(2)>";
  r.timestamp = fmt::format("2026-11-{:02d}T02:00:00Z<u>", day);
  r.unix_time = 1790000000 + day * 86400;
  r.file =
      "/ev/\xff\xe2\x80\xae"
      "evil\".json";
  r.status = "passed";
  r.verdict = "fresh_green\"><script>x</script>";
  // A watched value (the registry's d2d_gbps) and one under a hostile name, which the
  // registry does not know: it is stored, never watched nor plotted.
  r.values[{"bandwidth", "d2d_gbps"}] = {v, "bytes_per_second"};
  r.values[{"bandwidth", "d2d_gbps</text><script>alert(3)</script>"}] = {v, "bytes_per_second"};
  r.sync_waits[{"sync_path", "blocking_sync'><iframe>"}] = "interrupt_driven";
  return r;
}

TEST(HistoryHtml, HostileNamesFromEvidenceNeverBecomeMarkup) {
  std::vector<history::Run> runs;
  const std::vector<std::string> nodes = {"<script>alert(1)</script>",
                                          "\"><img src=x onerror=alert(1)>", "javascript:alert(1)",
                                          "a&b\xe2\x80\xae\x01"};
  for (const auto& n : nodes)
    for (int d = 1; d <= 10; ++d)
      runs.push_back(hostile_run(n, "<gate onclick=x>", d, d < 9 ? 1e11 : 5e10));
  std::sort(runs.begin(), runs.end(), [](const history::Run& a, const history::Run& b) {
    return std::tie(a.node, a.gate, a.unix_time) < std::tie(b.node, b.gate, b.unix_time);
  });
  const auto found = history::find_regressions(runs);
  ASSERT_EQ(found.found.size(), nodes.size());  // the drop on nights 9 and 10 of each
  const auto trends = history::find_trends(runs);
  report::HtmlReportOptions o;
  o.source = "/db/<i>fleet</i>.db";
  const std::string html = report::render_history_html(runs, found, trends, {}, o);

  for (const char* bad :
       {"<script", "<img", "<iframe", "<svg onload", "<gate", "<u>", "<i>", "onerror=alert(1)>"})
    EXPECT_EQ(html.find(bad), std::string::npos) << bad;
  // The only links are to the page's own sections; no attribute is opened by a name.
  EXPECT_EQ(count_of(html, "href="), count_of(html, "href=\"#n"));
  EXPECT_EQ(html.find("href=\"javascript"), std::string::npos);
  EXPECT_EQ(html.find("\xff"), std::string::npos);
  EXPECT_EQ(html.find("\xe2\x80\xae"), std::string::npos);
  EXPECT_EQ(html.find('\x01'), std::string::npos);
  // ... and each is there, escaped, in text, attributes and the SVG's <title>.
  EXPECT_NE(html.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("data-node=\"&quot;&gt;&lt;img src=x onerror=alert(1)&gt;\""),
            std::string::npos);
  EXPECT_NE(html.find("<title>&lt;script&gt;alert(1)&lt;/script&gt; &lt;gate onclick=x&gt; "
                      "bandwidth/d2d_gbps</title>"),
            std::string::npos);
  EXPECT_EQ(html.find("alert(3)"), std::string::npos) << "a metric the registry does not know";
  EXPECT_NE(html.find("/ev/\\xff\\u202eevil&quot;.json"), std::string::npos);
  EXPECT_NE(html.find("a&amp;b\\u202e\\x01"), std::string::npos);
  EXPECT_NE(html.find("/db/&lt;i&gt;fleet&lt;/i&gt;.db"), std::string::npos);
  EXPECT_EQ(count_of(html, "<svg class=\"trend\""), nodes.size());
}

TEST(HistoryHtml, AnEmptyDatabaseIsAReportThatSaysSo) {
  const std::vector<history::Run> runs;
  const std::string html = report::render_history_html(runs, history::find_regressions(runs),
                                                       history::find_trends(runs), {});
  EXPECT_NE(html.find("0 node(s), 0 gate(s), 0 run(s)"), std::string::npos);
  EXPECT_NE(html.find("id=\"no-attention\""), std::string::npos);
  EXPECT_EQ(html.find("<svg"), std::string::npos);
}

TEST(HistoryHtml, AValueTheSameInEveryRunIsListedNotPlotted) {
  std::vector<history::Run> runs;
  for (int d = 1; d <= 5; ++d) {
    history::Run r;
    r.node = "n1";
    r.gate = "g";
    r.platform = "p";
    r.timestamp = fmt::format("2026-11-{:02d}T02:00:00Z", d);
    r.unix_time = 1793491200 + (d - 1) * 86400 + 7200;  // the timestamp above
    r.file = "f.json";
    r.status = "passed";
    r.verdict = "fresh_green";
    r.values[{"bandwidth", "d2d_gbps"}] = {2e12, "bytes_per_second"};
    r.values[{"bandwidth", "h2d_gbps"}] = {5e10 + d * 1e8, "bytes_per_second"};
    runs.push_back(r);
  }
  const auto found = history::find_regressions(runs);
  const std::string html = report::render_history_html(runs, found, history::find_trends(runs), {});
  EXPECT_EQ(count_of(html, "<svg class=\"trend\""), 1u);
  EXPECT_NE(html.find("data-series=\"bandwidth/h2d_gbps\""), std::string::npos);
  EXPECT_NE(html.find("Not plotted, the same in every run: bandwidth/d2d_gbps (2000 GB/s);"),
            std::string::npos)
      << html;
  EXPECT_EQ(count_of(html, "<svg class=\"status-strip\""), 1u);
  EXPECT_NE(html.find(">11-02</text>"), std::string::npos) << "a date a day";
}

// A node validator's passed runs (issue 40): the node is judged by the gate's status,
// shown green, and its verdict is grey, never the amber of a claim that does not hold.
TEST(HistoryHtml, ANodeValidatorIsJudgedByItsStatusNotByClaims) {
  std::vector<history::Run> runs;
  for (int d = 1; d <= 3; ++d) {
    history::Run r;
    r.node = "orin-pod";
    r.gate = "cuda-runtime";
    r.platform = "p";
    r.timestamp = fmt::format("2026-11-{:02d}T02:00:00Z", d);
    r.unix_time = 1793491200 + (d - 1) * 86400 + 7200;
    r.file = fmt::format("f{}.json", d);
    r.status = "passed";
    r.verdict = history::kNodeValidatorVerdict;
    runs.push_back(r);
  }
  const auto found = history::find_regressions(runs);
  const std::string html = report::render_history_html(runs, found, history::find_trends(runs), {});
  EXPECT_EQ(html.find("verdict-other\">"), std::string::npos) << "no amber verdict";
  EXPECT_NE(html.find("<td class=\"status status-passed\">passed</td><td class=\"verdict "
                      "verdict-validator\">node_validator</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<span class=\"verdict verdict-validator\">node_validator</span>: 1"),
            std::string::npos)
      << "the support matrix counts it apart from claims";
  // A claim that was not shown clean stays amber.
  runs.back().verdict = "not_shown_clean";
  const std::string claim =
      report::render_history_html(runs, found, history::find_trends(runs), {});
  EXPECT_NE(claim.find("<td class=\"verdict verdict-other\">not_shown_clean</td>"),
            std::string::npos);
}

// Strings every report of the month must show, wherever it is looked at (text or DOM).
void expect_fleet_month(const std::string& html, const std::string& where) {
  // Failing, regressed and silent nodes first: the attention table and the first five
  // sections.
  const std::regex section(R"re(<section class="node[^"]*" id="n(\d+)" data-node="([^"]+)")re");
  std::vector<std::string> order;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), section);
       it != std::sregex_iterator(); ++it)
    order.push_back((*it)[2]);
  ASSERT_EQ(order.size(), 24u) << where;  // --full-nodes' default
  EXPECT_EQ(order[0], "node-017") << where;
  EXPECT_EQ(order[1], "node-063") << where;
  EXPECT_EQ(order[2], "node-088") << where;
  EXPECT_EQ(order[3], "node-120") << where;
  EXPECT_EQ(order[4], "node-150") << where;
  EXPECT_EQ(order[5], "node-000") << where;
  EXPECT_EQ(count_of(html, "<tr class=\"regression\""), 5u) << where;
  // The silent node: its count box, and its "last seen" cell coloured.
  EXPECT_NE(html.find("<li id=\"count-silent\" class=\"bad\"><b>1</b>"), std::string::npos)
      << where;
  EXPECT_EQ(count_of(html, "<td class=\"last-seen silent\">"), 1u) << where;
  EXPECT_EQ(count_of(html, "<td class=\"last-seen\">"), 199u) << where;
  const auto silent_row = html.find("<tr class=\"node-row\" data-node=\"node-120\"");
  ASSERT_NE(silent_row, std::string::npos) << where;
  EXPECT_NE(html.substr(silent_row, html.find("</tr>", silent_row) - silent_row)
                .find("<td class=\"last-seen silent\">2026-11-20T"),
            std::string::npos)
      << where;
  for (const char* kind :
       {"data-kind=\"drop\"", "data-kind=\"wait_mode\"", "data-kind=\"gate_failed\"",
        "data-kind=\"silent\"", "data-kind=\"below_peers\""})
    EXPECT_EQ(count_of(html, kind), 1u) << where << kind;
  const auto attention = html.find("id=\"attention-table\"");
  const auto matrix = html.find("id=\"matrix-table\"");
  ASSERT_NE(attention, std::string::npos) << where;
  EXPECT_LT(attention, matrix) << where;
  // Every node is in the node table, once, with its verdict.
  for (int n = 0; n < test::kNodes; ++n)
    EXPECT_EQ(count_of(html, fmt::format("<tr class=\"node-row\" data-node=\"node-{:03d}\"", n)),
              1u)
        << where << n;
  EXPECT_EQ(count_of(html, "<td class=\"verdict "), 200u + 24u) << where;
  // 24 nodes shown in full, each with a plot per watched value: six bandwidths and the
  // sync path's three CPU shares.
  EXPECT_EQ(count_of(html, "<svg class=\"trend\""), 24u * 9u) << where;
  EXPECT_EQ(count_of(html, "<figcaption>"), 24u * 9u + 24u) << where;  // and a status strip each
  // node-017's d2d plot marks its 11 worse nights.
  const auto n17 = html.find("data-node=\"node-017\">\n<h3>");
  const auto n63 = html.find("data-node=\"node-063\">\n<h3>");
  ASSERT_NE(n17, std::string::npos) << where;
  const std::string n17_section = html.substr(n17, n63 - n17);
  EXPECT_NE(n17_section.find("<span class=\"worse-count\">11</span>"), std::string::npos) << where;
  EXPECT_EQ(count_of(n17_section, "class=\"point worse\""), 4u * 11u) << where;
  // Each section shows its gate's status over time, and leads with what regressed:
  // node-017's first plot is a d2d value, node-063's (below its peers) too.
  EXPECT_EQ(count_of(html, "<svg class=\"status-strip\""), 24u) << where;
  const auto n150 = html.find("data-node=\"node-150\">\n<h3>");
  ASSERT_NE(n150, std::string::npos) << where;
  EXPECT_NE(html.find("class=\"failed-count\">5</span>", n150), std::string::npos) << where;
  EXPECT_EQ(n17_section.find("<figure class=\"plot\" data-series=\"bandwidth/d2d"),
            n17_section.find("<figure class=\"plot\""))
      << where;
  const auto n63_first = html.find("<figure class=\"plot\"", n63);
  EXPECT_EQ(html.find("<figure class=\"plot\" data-series=\"bandwidth/d2d", n63), n63_first)
      << where;
  // Dates a reader can count: a tick every 7 days of the month (11-02 ... 11-30).
  for (const char* date : {">11-02</text>", ">11-09</text>", ">11-16</text>", ">11-30</text>"})
    EXPECT_NE(html.find(date), std::string::npos) << where << date;
  // In people's units: GB/s and the change in percent.
  EXPECT_NE(html.find(" GB/s"), std::string::npos) << where;
  EXPECT_NE(html.find(" GB/s (-"), std::string::npos) << where;
  // The matrix: one platform, one gate, 200 nodes counted by their latest verdict.
  EXPECT_NE(html.find("<td class=\"cell\">200 node(s)"), std::string::npos) << where;
}

TEST(HistoryHtml, TheFleetMonthPutsThePlantedFiveFirstAndPlotsEveryValue) {
  TempDir t;
  const std::string db = test::shared_fleet_month().db;
  const std::string out = t.path("report.html");
  auto r = test::run_jetgate({"history", "report", "--db", db, "--html", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("200 node(s), 5990 run(s), 5 regression(s)"), std::string::npos) << r.out;
  const std::string html = test::read_file(out);
  expect_fleet_month(html, "the file");
  // Self-contained: the policy forbids loading anything, and nothing names a URL.
  EXPECT_NE(html.find("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
                      "'none'; style-src 'unsafe-inline'; img-src data:\">"),
            std::string::npos);
  for (const char* url : {"http:", "https:", "//", "src=", "<link", "<script", "url("})
    EXPECT_EQ(html.find(url), std::string::npos) << url;
  EXPECT_LT(html.size(), 4u << 20) << "a 200-node month stays a few MB";
  RecordProperty("html_bytes", std::to_string(html.size()));  // recorded, docs/history.md

  // Usage and input errors.
  EXPECT_EQ(test::run_jetgate(
                {"history", "report", "--db", t.path("none.db"), "--html", t.path("x.html")})
                .exit_code,
            2);
  EXPECT_EQ(test::run_jetgate({"history", "report", "--db", db, "--html", t.path("no/such/dir/")})
                .exit_code,
            2);
  EXPECT_EQ(test::run_jetgate({"history", "report", "--db", db}).exit_code, 2);
  t.write("p.json", R"({"schema_version": 1, "gates": [], "regressions": {"drop_fracton": 0.2}})");
  auto bad = test::run_jetgate(
      {"history", "report", "--db", db, "--html", t.path("y.html"), "--policy", t.path("p.json")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("drop_fraction"), std::string::npos) << bad.err;
}

// Debian's chromium, or "" (then the test is skipped, unless JETGATE_REQUIRE_CHROMIUM=1:
// tests/html/check-report.sh, CI's html stage, fails instead).
std::string chromium() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (::access(p, X_OK) == 0) return p;
  return "";
}

proc::ChildOutcome run(const std::vector<std::string>& argv, int seconds = 120) {
  proc::ProcessSpec spec;
  spec.argv = argv;
  proc::ChildLimits limits;
  limits.timeout = std::chrono::seconds(seconds);
  limits.max_output_bytes = 16u << 20;
  return proc::run_process(spec, limits);
}

TEST(HistoryHtmlChromium, TheFleetMonthOpensInHeadlessChromium) {
  const std::string browser = chromium();
  if (browser.empty()) {
    const char* req = std::getenv("JETGATE_REQUIRE_CHROMIUM");
    if (req && std::string(req) == "1")
      FAIL() << "chromium is not installed (apt-get install chromium; scripts/install-deps.sh)";
    GTEST_SKIP() << "chromium is not installed (CI installs it: scripts/install-deps.sh --ci)";
  }
  TempDir t;
  const std::string db = test::shared_fleet_month().db;
  const std::string html = t.path("report.html");
  auto r = test::run_jetgate({"history", "report", "--db", db, "--html", html});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> common = {browser,
                                           "--headless",
                                           "--no-sandbox",
                                           "--disable-gpu",
                                           "--user-data-dir=" + t.path("profile"),
                                           "--no-first-run",
                                           "--disable-extensions",
                                           "--disable-background-networking",
                                           "--window-size=1280,2000"};

  // A screenshot: 1280x2000, and not blank (colours of text, tables and plots).
  auto shot = common;
  shot.push_back("--screenshot=" + t.path("shot.png"));
  shot.push_back("file://" + html);
  auto s = run(shot);
  ASSERT_TRUE(s.kind == proc::ChildOutcome::Kind::exited && s.exit_code == 0)
      << s.describe() << s.error_text;
  const std::string png = test::read_file(t.path("shot.png"));
  EXPECT_GT(png.size(), 20000u) << "a blank 1280x2000 PNG is a few kB";
  auto stats = run({"/usr/bin/python3", "-c",
                    "import sys; from PIL import Image\n"
                    "im = Image.open(sys.argv[1]).convert('RGB')\n"
                    "c = im.getcolors(1 << 24)\n"
                    "top = max(n for n, _ in c)\n"
                    "print(im.size[0], im.size[1], len(c), top / (im.size[0] * im.size[1]))",
                    t.path("shot.png")});
  ASSERT_TRUE(stats.kind == proc::ChildOutcome::Kind::exited && stats.exit_code == 0)
      << stats.describe() << stats.error_text << " (python3-pil: scripts/install-deps.sh)";
  int width = 0, height = 0, colours = 0;
  double background = 1;
  ASSERT_EQ(
      std::sscanf(stats.output.c_str(), "%d %d %d %lf", &width, &height, &colours, &background), 4)
      << stats.output;
  EXPECT_EQ(width, 1280);
  EXPECT_EQ(height, 2000);
  EXPECT_GE(colours, 64) << "a page of text, coloured counts and tables";
  EXPECT_LT(background, 0.97) << "the page is almost one colour";

  // The DOM Chromium builds: every node, verdict and plot, the three first.
  auto dom = common;
  dom.push_back("--dump-dom");
  dom.push_back("file://" + html);
  auto d = run(dom);
  ASSERT_TRUE(d.kind == proc::ChildOutcome::Kind::exited && d.exit_code == 0)
      << d.describe() << d.error_text;
  expect_fleet_month(d.output, "Chromium's DOM");
  // No network request: the page names none, and under its policy nothing would load.
  EXPECT_EQ(d.error_text.find("Refused to load"), std::string::npos) << d.error_text;
}

}  // namespace
}  // namespace jetgate
