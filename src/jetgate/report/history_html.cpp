// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/history_html.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "jetgate/core/utf8.hpp"
#include "jetgate/report/history_text.hpp"

namespace jetgate::report {

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t pos = 0; pos < text.size();) {
    const Utf8Unit u = decode_utf8(text, pos);
    const std::string_view raw = text.substr(pos, u.length);
    pos += u.length;
    if (needs_visible_form(u)) {
      append_visible_form(out, raw, u);  // ASCII only: "\xff", "\u202e"
      continue;
    }
    switch (u.code_point) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += raw;
    }
  }
  return out;
}

namespace {

using history::Regression;
using history::RegressionKind;
using history::Run;
using history::Trend;

std::string e(std::string_view s) {
  return html_escape(s);
}

// A value in the unit people read: base units are bytes per second, seconds, ratios.
struct Display {
  double scale = 1;
  std::string unit;
};
Display display_of(const std::string& unit) {
  const PeopleUnit u = people_unit_of(unit);
  return {u.scale, u.unit};
}
std::string shown(double v, const Display& d) {
  return fmt::format("{:.4g}", v / d.scale);
}
std::string with_unit(double v, const Display& d) {
  return d.unit.empty() ? shown(v, d) : shown(v, d) + " " + d.unit;
}
std::string day_of(const std::string& timestamp) {
  return timestamp.substr(0, 10);
}

constexpr const char* kStyle = R"(
body{font-family:sans-serif;margin:0 2em 2em;color:#1b1f24;background:#fff;max-width:1200px}
h1{margin:.6em 0 .2em}h2{border-bottom:2px solid #d0d7de;padding-bottom:.2em;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0;font-size:.9em}
th,td{border:1px solid #d0d7de;padding:.2em .5em;text-align:left;vertical-align:top}
th{background:#f0f3f6}td.num{text-align:right;font-variant-numeric:tabular-nums}
.counts{display:flex;flex-wrap:wrap;gap:.6em;padding:0;list-style:none}
.counts li{border:1px solid #d0d7de;border-radius:6px;padding:.4em .8em;background:#f6f8fa}
.counts b{font-size:1.4em;display:block}
.bad{background:#ffebe9}.bad b{color:#cf222e}.ok b{color:#1a7f37}
tr.regression td,tr.failing td{background:#fff5f5}
td.last-seen.silent{background:#ffebe9;color:#cf222e;font-weight:bold}
.verdict-fresh_green{color:#1a7f37;font-weight:bold}
.verdict-other{color:#9a6700;font-weight:bold}.verdict-validator{color:#57606a}
.status-failed{color:#cf222e;font-weight:bold}.status-passed{color:#1a7f37;font-weight:bold}
section.node{border:1px solid #d0d7de;border-radius:6px;padding:0 1em 1em;margin:1em 0}
section.node.attention{border:2px solid #cf222e}
figure.plot{display:inline-block;margin:.5em 1em .5em 0;vertical-align:top;max-width:660px}
figcaption{font-size:.85em}figcaption table{font-size:.95em}
svg .frame{fill:#fbfcfd;stroke:#d0d7de}svg .tick{stroke:#57606a}
svg .run-pass{fill:#2da44e}svg .run-fail{fill:#cf222e}svg .run-notrun{fill:#afb8c1}svg .band{fill:#54aeff;fill-opacity:.25;stroke:none}
svg .median{fill:none;stroke:#0969da;stroke-width:1.5}
svg .limit{fill:none;stroke:#cf222e;stroke-width:1;stroke-dasharray:4 3}
svg .values{fill:none;stroke:#1b1f24;stroke-width:1.2}
svg .point{fill:#1b1f24}svg .point.worse{fill:#cf222e}
svg text{font-size:11px;fill:#57606a;font-family:sans-serif}
.note{color:#57606a;font-size:.9em}
)";

// The latest run of each node and gate (runs come ordered by node, gate, time).
std::map<std::pair<std::string, std::string>, const Run*> latest_runs(
    const std::vector<Run>& runs) {
  std::map<std::pair<std::string, std::string>, const Run*> out;
  for (const auto& r : runs) {
    auto& slot = out[{r.node, r.gate}];
    if (!slot || std::tie(slot->unix_time, slot->file) <= std::tie(r.unix_time, r.file)) slot = &r;
  }
  return out;
}

// The verdict's colour: green when fresh green, amber for a claim that does not hold,
// grey for a node validator's run, which backs no claim (its health is its status).
const char* verdict_class(const std::string& verdict) {
  if (verdict == "fresh_green") return "verdict-fresh_green";
  if (verdict == history::kNodeValidatorVerdict) return "verdict-validator";
  return "verdict-other";
}
std::string verdict_cell(const std::string& verdict) {
  return fmt::format("<td class=\"verdict {}\">{}</td>", verdict_class(verdict), e(verdict));
}
std::string status_cell(const std::string& status) {
  return fmt::format("<td class=\"status{}\">{}</td>",
                     status == "failed"   ? " status-failed"
                     : status == "passed" ? " status-passed"
                                          : "",
                     e(status));
}

// The trailing streak of failed runs of one node's gate: its first run.
const Run* failing_since(const std::vector<Run>& runs, const std::string& node,
                         const std::string& gate) {
  const Run* first = nullptr;
  for (const auto& r : runs) {
    if (r.node != node || r.gate != gate) continue;
    if (r.status == "failed") {
      if (!first) first = &r;
    } else if (r.status == "passed") {
      first = nullptr;
    }
  }
  return first;
}

// One plot: the values over time against the baseline of their time.
std::string plot(const Trend& t, std::size_t max_points) {
  const Display d = display_of(t.unit);
  const std::size_t skip = t.points.size() > max_points ? t.points.size() - max_points : 0;
  std::vector<history::TrendPoint> pts(t.points.begin() + static_cast<std::ptrdiff_t>(skip),
                                       t.points.end());
  const std::string label = fmt::format("{} {} {}/{}", t.node, t.gate, t.probe, t.metric);
  std::string out = fmt::format(
      "<figure class=\"plot\" data-series=\"{}/{}\">\n<svg "
      "class=\"trend\" width=\"640\" height=\"180\" viewBox=\"0 0 640 180\" role=\"img\">"
      "<title>{}</title>",
      e(t.probe), e(t.metric), e(label));
  if (pts.empty()) return out + "</svg><figcaption>no values</figcaption></figure>\n";

  constexpr double kLeft = 64, kRight = 630, kTop = 8, kBottom = 150;
  double lo = pts.front().value, hi = lo;
  for (const auto& p : pts) {
    lo = std::min(lo, p.value);
    hi = std::max(hi, p.value);
    if (p.has_baseline) {
      lo = std::min({lo, p.baseline_median - p.spread, p.limit});
      hi = std::max({hi, p.baseline_median + p.spread, p.limit});
    }
  }
  if (!(hi > lo)) {
    const double pad = lo == 0 ? 1 : std::fabs(lo) * 0.05;
    lo -= pad;
    hi += pad;
  }
  const double pad = (hi - lo) * 0.06;
  lo -= pad;
  hi += pad;
  const double t0 = static_cast<double>(pts.front().run->unix_time);
  const double t1 = static_cast<double>(pts.back().run->unix_time);
  auto x = [&](const history::TrendPoint& p) {
    if (!(t1 > t0)) return (kLeft + kRight) / 2;
    return kLeft + (static_cast<double>(p.run->unix_time) - t0) / (t1 - t0) * (kRight - kLeft);
  };
  auto y = [&](double v) { return kBottom - (v - lo) / (hi - lo) * (kBottom - kTop); };
  auto xy = [](double a, double b) { return fmt::format("{:.1f},{:.1f} ", a, b); };

  out += fmt::format("<rect class=\"frame\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>", kLeft,
                     kTop, kRight - kLeft, kBottom - kTop);
  // The baseline where there is one, in runs of consecutive points: the MAD band
  // (median +- mad_factor deviations), the median and the limit.
  std::size_t i = 0;
  while (i < pts.size()) {
    if (!pts[i].has_baseline) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < pts.size() && pts[j].has_baseline) ++j;
    std::string band, median, limit;
    for (std::size_t k = i; k < j; ++k) {
      band += xy(x(pts[k]), y(pts[k].baseline_median + pts[k].spread));
      median += xy(x(pts[k]), y(pts[k].baseline_median));
      limit += xy(x(pts[k]), y(pts[k].limit));
    }
    for (std::size_t k = j; k-- > i;)
      band += xy(x(pts[k]), y(pts[k].baseline_median - pts[k].spread));
    out += fmt::format(
        "<polygon class=\"band\" points=\"{}\"/><polyline class=\"median\" points=\"{}\"/>"
        "<polyline class=\"limit\" points=\"{}\"/>",
        band, median, limit);
    i = j;
  }
  std::string line;
  for (const auto& p : pts) line += xy(x(p), y(p.value));
  out += fmt::format("<polyline class=\"values\" points=\"{}\"/>", line);
  for (const auto& p : pts)
    out += fmt::format("<circle class=\"point{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\"/>",
                       p.worse ? " worse" : "", x(p), y(p.value), p.worse ? 4 : 2.5);
  // The time axis: a tick and a date (MM-DD) at midnight UTC every few days, at most
  // eight, so a reader can count the days between a change and its neighbours.
  if (t1 > t0) {
    const double span_days = (t1 - t0) / 86400;
    const int every = span_days <= 8 ? 1 : span_days <= 16 ? 2 : span_days <= 40 ? 7 : 14;
    const std::int64_t first_day =
        (static_cast<std::int64_t>(t0) + 86399) / 86400;  // the first midnight at or after t0
    for (std::int64_t day = first_day; day * 86400 <= static_cast<std::int64_t>(t1); day += every) {
      const double tx =
          kLeft + (static_cast<double>(day * 86400) - t0) / (t1 - t0) * (kRight - kLeft);
      const std::time_t when = static_cast<std::time_t>(day * 86400);
      std::tm tm{};
      gmtime_r(&when, &tm);
      out += fmt::format(
          "<line class=\"tick\" x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\"/>"
          "<text class=\"date\" x=\"{0:.1f}\" y=\"162\" "
          "text-anchor=\"middle\">{3:02d}-{4:02d}</text>",
          tx, kBottom, kBottom + 4, tm.tm_mon + 1, tm.tm_mday);
    }
  }
  out += fmt::format(
      "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>"
      "<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>"
      "<text x=\"{}\" y=\"176\" text-anchor=\"middle\">{}</text></svg>\n",
      kLeft - 4, kTop + 10, e(shown(hi, d)), kLeft - 4, kBottom, e(shown(lo, d)),
      (kLeft + kRight) / 2,
      e(fmt::format("{}/{} ({}), {} to {} (UTC)", t.probe, t.metric,
                    d.unit.empty() ? "count" : d.unit, day_of(pts.front().run->timestamp),
                    day_of(pts.back().run->timestamp))));

  // The same numbers as text.
  std::size_t worse = 0;
  for (const auto& p : pts) worse += p.worse ? 1 : 0;
  const auto& last = pts.back();
  out += fmt::format(
      "<figcaption><b>{}/{}</b> ({}), {} run(s){}: latest {}", e(t.probe), e(t.metric),
      t.kind == RegressionKind::drop ? "worse when lower" : "worse when higher", pts.size(),
      skip ? fmt::format(", the latest {} of {}", pts.size(), t.points.size()) : "",
      e(with_unit(last.value, d)));
  if (last.has_baseline)
    out += fmt::format("; baseline median {}, MAD {} ({}, {} {}), worse past {}",
                       e(with_unit(last.baseline_median, d)), e(with_unit(last.baseline_mad, d)),
                       e(last.baseline_source), last.baseline_runs,
                       last.baseline_source == "fleet" ? "peers" : "runs",
                       e(with_unit(last.limit, d)));
  out += fmt::format("; <span class=\"worse-count\">{}</span> worse run(s).\n", worse);
  out +=
      "<details><summary>values</summary><table class=\"values\"><thead><tr><th>time</th>"
      "<th>status</th><th>value</th><th>baseline median</th><th>MAD</th><th>limit</th>"
      "<th>worse</th></tr></thead><tbody>\n";
  for (const auto& p : pts) {
    out += fmt::format("<tr{}><td>{}</td><td>{}</td><td class=\"num\">{}</td>",
                       p.worse ? " class=\"worse\"" : "", e(p.run->timestamp), e(p.run->status),
                       shown(p.value, d));
    if (p.has_baseline)
      out +=
          fmt::format("<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
                      shown(p.baseline_median, d), shown(p.baseline_mad, d), shown(p.limit, d));
    else
      out += "<td colspan=\"3\">no baseline yet</td>";
    out += fmt::format("<td>{}</td></tr>\n", p.worse ? "worse" : "");
  }
  out += "</tbody></table></details></figcaption></figure>\n";
  return out;
}

// The gate's status over time: one mark per run (passed, failed, not run), oldest
// first, the latest max_points, with the first and last dates.
std::string status_strip(const std::vector<const Run*>& runs, std::size_t max_points) {
  const std::size_t skip = runs.size() > max_points ? runs.size() - max_points : 0;
  const std::size_t n = runs.size() - skip;
  if (n == 0) return "";
  constexpr double kLeft = 64, kRight = 630;
  const double w = (kRight - kLeft) / static_cast<double>(n);
  std::size_t failed = 0;
  std::string out = fmt::format(
      "<figure class=\"status\"><svg class=\"status-strip\" width=\"640\" height=\"34\" "
      "viewBox=\"0 0 640 34\" role=\"img\"><title>gate status over time</title>"
      "<text x=\"{}\" y=\"14\" text-anchor=\"end\">status</text>",
      kLeft - 4);
  for (std::size_t i = 0; i < n; ++i) {
    const Run* r = runs[skip + i];
    const char* cls = r->status == "passed" ? "pass" : r->status == "failed" ? "fail" : "notrun";
    failed += r->status == "failed" ? 1 : 0;
    out += fmt::format(
        "<rect class=\"run-{}\" x=\"{:.1f}\" y=\"4\" width=\"{:.1f}\" "
        "height=\"14\"><title>{} {}</title></rect>",
        cls, kLeft + w * static_cast<double>(i), std::max(1.0, w - 1), e(r->timestamp),
        e(r->status));
  }
  out += fmt::format(
      "<text x=\"{}\" y=\"30\">{}</text><text x=\"{}\" y=\"30\" "
      "text-anchor=\"end\">{}</text></svg><figcaption>Gate status, {} run(s): <span "
      "class=\"failed-count\">{}</span> failed.</figcaption></figure>\n",
      kLeft, e(day_of(runs[skip]->timestamp)), kRight, e(day_of(runs.back()->timestamp)), n,
      failed);
  return out;
}

// A plot that cannot carry information for this node: one value, or every value the
// same and none worse.
bool says_nothing(const Trend& t) {
  if (t.points.size() < 2) return true;
  for (const auto& p : t.points)
    if (p.worse || p.value != t.points.front().value) return false;
  return true;
}

std::string regression_row(const Regression& g, std::size_t anchor) {
  return fmt::format(
      "<tr class=\"regression\" data-kind=\"{}\"><td class=\"node\"><a href=\"#n{}\">{}</a></td>"
      "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
      "</tr>\n",
      history::to_string(g.kind), anchor, e(g.node), e(g.platform), e(regression_subject(g)),
      e(regression_change(g)), e(regression_value(g)), e(regression_baseline(g)),
      e(g.first_timestamp), g.worse_runs, e(g.first_file));
}

}  // namespace

std::string render_history_html(const std::vector<history::Run>& runs,
                                const history::RegressionReport& regressions,
                                const std::vector<history::Trend>& trends,
                                const policy::RegressionThresholds& thresholds,
                                const HtmlReportOptions& options) {
  const auto latest = latest_runs(runs);
  std::set<std::string> nodes, gates;
  std::string first_time, last_time;
  for (const auto& r : runs) {
    nodes.insert(r.node);
    gates.insert(r.gate);
  }
  if (!runs.empty()) {
    const auto [lo, hi] =
        std::minmax_element(runs.begin(), runs.end(),
                            [](const Run& a, const Run& b) { return a.unix_time < b.unix_time; });
    first_time = lo->timestamp;
    last_time = hi->timestamp;
  }

  // Failing: the latest run of a gate failed and no regression says so already (a gate
  // that never passed has no baseline to have got worse from).
  struct Failing {
    std::string node, gate;
    const Run* latest;
    const Run* since;
  };
  std::set<std::pair<std::string, std::string>> failed_regressions;
  std::set<std::string> regressed;
  for (const auto& g : regressions.found) {
    regressed.insert(g.node);
    if (g.kind == RegressionKind::gate_failed) failed_regressions.insert({g.node, g.gate});
  }
  std::vector<Failing> failing;
  std::set<std::string> failing_nodes;
  for (const auto& [key, r] : latest)
    if (r->status == "failed") {
      failing_nodes.insert(key.first);
      if (!failed_regressions.count(key))
        failing.push_back({key.first, key.second, r, failing_since(runs, key.first, key.second)});
    }

  // The order of the node sections: regressed, then failing, then the rest by name.
  std::vector<std::string> order;
  for (const auto& g : regressions.found)
    if (std::find(order.begin(), order.end(), g.node) == order.end()) order.push_back(g.node);
  for (const auto& n : failing_nodes)
    if (std::find(order.begin(), order.end(), n) == order.end()) order.push_back(n);
  for (const auto& n : nodes)
    if (!regressed.count(n) && !failing_nodes.count(n)) order.push_back(n);
  std::map<std::string, std::size_t> anchor;
  for (std::size_t i = 0; i < order.size(); ++i) anchor[order[i]] = i;
  const std::size_t full = std::min(order.size(), options.max_full_nodes);

  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
      "'unsafe-inline'; img-src data:\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>jetgate fleet report</title>\n<style>";
  out += kStyle;
  out += "</style>\n</head>\n<body>\n<header>\n<h1>jetgate fleet report</h1>\n";
  out += fmt::format(
      "<p class=\"note\" id=\"summary\">{} node(s), {} gate(s), {} run(s) from {} to {}{}. "
      "Made by <code>jetgate history report</code>; the numbers of every plot are in the "
      "table under it.</p>\n",
      nodes.size(), gates.size(), runs.size(), e(first_time), e(last_time),
      options.source.empty() ? "" : ", database " + e(options.source));
  out += "<ul class=\"counts\">\n";
  auto count = [&](const char* id, std::size_t n, const char* what, bool bad) {
    out += fmt::format("<li id=\"count-{}\" class=\"{}\"><b>{}</b>{}</li>\n", id,
                       bad ? (n ? "bad" : "ok") : "", n, what);
  };
  count("nodes", nodes.size(), "nodes", false);
  count("runs", runs.size(), "runs", false);
  count("regressions", regressions.found.size(), "regressions", true);
  count("regressed", regressed.size(), "regressed nodes", true);
  count("failing", failing_nodes.size(), "nodes whose latest run failed", true);
  count("silent", regressions.silent(), "silent nodes (no evidence for longer than the limit)",
        true);
  out += "</ul>\n</header>\n";

  // Failing and regressed nodes first.
  out += "<section id=\"attention\">\n<h2>Failing and regressed nodes</h2>\n";
  if (regressions.found.empty() && failing.empty()) {
    out += "<p id=\"no-attention\">No node got worse and no latest run failed.</p>\n";
  } else {
    out +=
        "<table id=\"attention-table\"><thead><tr><th>node</th><th>platform</th><th>what</th>"
        "<th>change</th><th>latest</th><th>baseline</th><th>since</th><th>runs in a row</th>"
        "<th>first file</th></tr></thead><tbody>\n";
    for (const auto& g : regressions.found) out += regression_row(g, anchor[g.node]);
    for (const auto& f : failing) {
      std::size_t streak = 0;
      bool counting = false;
      for (const auto& r : runs)
        if (r.node == f.node && r.gate == f.gate) {
          if (f.since && &r == f.since) counting = true;
          if (counting && r.status == "failed") ++streak;
        }
      out += fmt::format(
          "<tr class=\"failing\"><td class=\"node\"><a href=\"#n{}\">{}</a></td><td>{}</td>"
          "<td>{}</td><td>latest run failed</td><td>{}</td><td>never passed before</td>"
          "<td>{}</td><td>{}</td><td>{}</td></tr>\n",
          anchor[f.node], e(f.node), e(f.latest->platform), e(f.gate), e(f.latest->verdict),
          e(f.since ? f.since->timestamp : f.latest->timestamp), streak,
          e(f.since ? f.since->file : f.latest->file));
    }
    out += "</tbody></table>\n";
  }
  out += fmt::format(
      "<p class=\"note\">Thresholds: a baseline of the last {} green runs (at least {}, else "
      "{} peers of the platform); a drop counts past {:.0f}% and {} deviations of the median, "
      "a rise in CPU per wait past {} of a core and {} deviations; {} run(s) in a row.</p>\n"
      "</section>\n",
      thresholds.baseline_runs, thresholds.min_baseline_runs, thresholds.min_peers,
      thresholds.drop_fraction * 100, thresholds.mad_factor, thresholds.cpu_rise,
      thresholds.mad_factor, thresholds.confirm_runs);

  // The support matrix: platform x gate, each node's latest run of the gate.
  std::set<std::string> platforms;
  std::map<std::pair<std::string, std::string>, std::map<std::string, std::size_t>> cells;
  for (const auto& [key, r] : latest) {
    platforms.insert(r->platform);
    ++cells[{r->platform, key.second}][r->verdict];
  }
  out +=
      "<section id=\"matrix\">\n<h2>Support matrix</h2>\n<p class=\"note\">Per platform and "
      "gate, the nodes counted by the verdict of their latest run of that gate (as of the "
      "run's own day, without a policy: <code>jetgate support</code> judges the evidence "
      "files against one).</p>\n<table id=\"matrix-table\"><thead><tr><th>platform</th>";
  for (const auto& g : gates) out += "<th>" + e(g) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (const auto& p : platforms) {
    out += "<tr><th>" + e(p) + "</th>";
    for (const auto& g : gates) {
      auto it = cells.find({p, g});
      if (it == cells.end()) {
        out += "<td>-</td>";
        continue;
      }
      std::size_t total = 0;
      std::string parts;
      for (const auto& [verdict, n] : it->second) {
        total += n;
        parts += fmt::format("<li><span class=\"verdict {}\">{}</span>: {}</li>",
                             verdict_class(verdict), e(verdict), n);
      }
      out += fmt::format("<td class=\"cell\">{} node(s)<ul>{}</ul></td>", total, parts);
    }
    out += "</tr>\n";
  }
  out += "</tbody></table>\n</section>\n";

  // Every node: a row each per gate, then the sections with plots.
  out += fmt::format(
      "<section id=\"nodes\">\n<h2>Nodes</h2>\n<p class=\"note\" id=\"cap\">{} of {} node(s) "
      "are shown in full below with a plot per watched value (failing and regressed ones "
      "first, then by name; at most {}); every node is in this table. Each plot shows at "
      "most the latest {} runs.</p>\n"
      "<table id=\"node-table\"><thead><tr><th>node</th><th>platform</th><th>gate</th>"
      "<th>runs</th><th>latest run</th><th>status</th><th>verdict</th><th>findings</th>"
      "<th>last seen</th></tr></thead><tbody>\n",
      full, order.size(), options.max_full_nodes, options.max_points);
  std::map<std::string, const history::LastSeen*> seen;
  for (const auto& l : regressions.last_seen) seen[l.node] = &l;
  auto last_seen_cell = [&seen](const std::string& node) {
    auto it = seen.find(node);
    if (it == seen.end()) return std::string("<td class=\"last-seen\">-</td>");
    const auto& l = *it->second;
    return fmt::format("<td class=\"last-seen{}\">{} ({:.1f} days ago{})</td>",
                       l.silent ? " silent" : "", e(l.timestamp),
                       static_cast<double>(l.age_seconds) / 86400, l.silent ? ": silent" : "");
  };
  std::map<std::pair<std::string, std::string>, std::size_t> run_count, finding_count;
  for (const auto& r : runs) ++run_count[{r.node, r.gate}];
  for (const auto& g : regressions.found) ++finding_count[{g.node, g.gate}];
  for (const auto& n : order)
    for (auto it = latest.lower_bound({n, ""}); it != latest.end() && it->first.first == n; ++it) {
      const Run* r = it->second;
      const bool shown_full = anchor[n] < full;
      out += fmt::format(
          "<tr class=\"node-row\" data-node=\"{}\"><td class=\"node\">{}</td><td>{}</td><td>{}</td>"
          "<td class=\"num\">{}</td><td>{}</td>{}{}<td class=\"num\">{}</td>{}</tr>\n",
          e(n), shown_full ? fmt::format("<a href=\"#n{}\">{}</a>", anchor[n], e(n)) : e(n),
          e(r->platform), e(it->first.second), run_count[it->first], e(r->timestamp),
          status_cell(r->status), verdict_cell(r->verdict), finding_count[it->first],
          last_seen_cell(n));
    }
  out += "</tbody></table>\n";

  std::map<std::string, std::vector<const Trend*>> trends_of;
  for (const auto& t : trends) trends_of[t.node].push_back(&t);
  for (std::size_t i = 0; i < full; ++i) {
    const std::string& n = order[i];
    const bool bad = regressed.count(n) || failing_nodes.count(n);
    out += fmt::format("<section class=\"node{}\" id=\"n{}\" data-node=\"{}\">\n<h3>{}</h3>\n",
                       bad ? " attention" : "", i, e(n), e(n));
    for (const auto& g : regressions.found)
      if (g.node == n && g.kind == RegressionKind::silent)
        out += fmt::format("<p class=\"finding silent\">Silent: {}; last seen {} ({}).</p>\n",
                           e(regression_value(g)), e(g.last_timestamp), e(g.last_file));
    for (auto it = latest.lower_bound({n, ""}); it != latest.end() && it->first.first == n; ++it) {
      const Run* r = it->second;
      out += fmt::format(
          "<h4>{}</h4>\n<table class=\"latest\"><tr><th>platform</th><th>latest run</th>"
          "<th>status</th><th>verdict</th><th>file</th></tr><tr><td>{}</td><td>{}</td>{}{}<td>{}"
          "</td></tr></table>\n",
          e(it->first.second), e(r->platform), e(r->timestamp), status_cell(r->status),
          verdict_cell(r->verdict), e(r->file));
      std::string findings;
      for (const auto& g : regressions.found)
        if (g.node == n && g.gate == it->first.second)
          findings +=
              fmt::format("<li class=\"finding\">{} {}: {}; baseline {}; since {}</li>\n",
                          e(regression_subject(g)), e(regression_change(g)), e(regression_value(g)),
                          e(regression_baseline(g)), e(g.first_timestamp));
      if (!findings.empty()) out += "<ul class=\"findings\">\n" + findings + "</ul>\n";
      // The wait of each scheduling mode, latest run (words, not plotted).
      if (!r->sync_waits.empty()) {
        out += "<p class=\"note\">Waits in the latest run:";
        for (const auto& [pm, wait] : r->sync_waits)
          out += fmt::format(" {}/{} {};", e(pm.first), e(pm.second), e(wait));
        out += "</p>\n";
      }
      std::vector<const Run*> gate_runs;
      for (const auto& run : runs)
        if (run.node == n && run.gate == it->first.second) gate_runs.push_back(&run);
      out += status_strip(gate_runs, options.max_points);
      // The values a finding names first (what regressed leads), then the others;
      // plots that say nothing are listed, not drawn.
      std::vector<const Trend*> named, rest;
      std::string flat;
      for (const Trend* t : trends_of[n]) {
        if (t->gate != it->first.second) continue;
        if (says_nothing(*t)) {
          flat += fmt::format(" {}/{} ({});", e(t->probe), e(t->metric),
                              t->points.empty()
                                  ? std::string("no value")
                                  : e(with_unit(t->points.back().value, display_of(t->unit))));
          continue;
        }
        bool is_named = false;
        for (const auto& g : regressions.found)
          if (g.node == n && g.gate == t->gate && g.probe == t->probe &&
              (g.metric == t->metric ||
               std::find(g.also.begin(), g.also.end(), t->metric) != g.also.end()))
            is_named = true;
        (is_named ? named : rest).push_back(t);
      }
      for (const Trend* t : named) out += plot(*t, options.max_points);
      for (const Trend* t : rest) out += plot(*t, options.max_points);
      if (!flat.empty())
        out += "<p class=\"note flat\">Not plotted, the same in every run:" + flat + "</p>\n";
    }
    out += "</section>\n";
  }
  out += "</section>\n</body>\n</html>\n";
  return out;
}

}  // namespace jetgate::report
