// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/history_text.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>

#include "jetgate/core/units.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/report/text_escape.hpp"

namespace jetgate::report {
namespace {

std::string number(double v, const std::string& unit) {
  return unit.empty() ? fmt::format("{:.6g}", v) : fmt::format("{:.6g} {}", v, unit);
}

std::string duration(std::int64_t seconds) {
  if (seconds >= 86400) return fmt::format("{:.1f} days", static_cast<double>(seconds) / 86400);
  if (seconds >= 3600) return fmt::format("{:.1f} hours", static_cast<double>(seconds) / 3600);
  return fmt::format("{} s", seconds);
}

}  // namespace

PeopleUnit people_unit_of(const std::string& base_unit) {
  // The one table of units (core/units.hpp); a unit it does not know is shown as written.
  if (const auto* b = units::base_named(base_unit))
    return {b->people_scale, std::string(b->people_unit)};
  return {1, base_unit};
}

std::string people_number(double v, const std::string& base_unit) {
  const PeopleUnit u = people_unit_of(base_unit);
  const double x = v / u.scale;
  // Three or four significant digits: 2527 GB/s, 98.4 %, 41.2 µs, 0.31 %.
  std::string n = std::fabs(x) >= 1000 ? fmt::format("{:.0f}", x) : fmt::format("{:.3g}", x);
  if (u.unit.empty()) return n;
  return n + " " + u.unit;
}

std::string regression_percent(const history::Regression& g) {
  if (!g.numeric || g.baseline_median == 0 || g.kind == history::RegressionKind::wait_mode ||
      g.kind == history::RegressionKind::rise)
    return "";
  return fmt::format("{:+.1f} %",
                     100 * (g.value - g.baseline_median) / std::fabs(g.baseline_median));
}

std::string regression_change(const history::Regression& g) {
  switch (g.kind) {
    case history::RegressionKind::drop:
      return "dropped";
    case history::RegressionKind::rise:
      return "rose";
    case history::RegressionKind::wait_mode:
      return "waits by polling";
    case history::RegressionKind::gate_failed:
      return "gate failed";
    case history::RegressionKind::silent:
      return "silent";
    case history::RegressionKind::below_peers:
      return "below its peers";
  }
  return "";
}

std::string regression_subject(const history::Regression& g) {
  if (g.kind == history::RegressionKind::gate_failed) return g.gate;
  if (g.kind == history::RegressionKind::silent) return "evidence of every gate";
  if (g.kind == history::RegressionKind::wait_mode)
    return fmt::format("{} {}/{} wait", g.gate, g.probe, g.metric);
  std::string out = fmt::format("{} {}/{}", g.gate, g.probe, g.metric);
  for (std::size_t i = 0; i < g.also.size(); ++i) out += (i ? ", " : " (also ") + g.also[i];
  return g.also.empty() ? out : out + ")";
}

std::string regression_baseline(const history::Regression& g) {
  std::string from = g.baseline_source == "fleet"
                         ? fmt::format("{} peers of its platform", g.baseline_runs)
                         : fmt::format("its last {} green runs", g.baseline_runs);
  if (g.kind == history::RegressionKind::gate_failed)
    return fmt::format("passed before ({} passed runs)", g.baseline_runs);
  if (g.kind == history::RegressionKind::silent)
    return fmt::format("last seen {}", g.last_timestamp);
  std::string out;
  if (!g.baseline_text.empty()) out = g.baseline_text;
  if (g.numeric) {
    std::string n = fmt::format("median {} (MAD {})", people_number(g.baseline_median, g.unit),
                                people_number(g.baseline_mad, g.unit));
    out = out.empty() ? n : out + ", CPU per wait " + n;
  }
  return out + ", " + from;
}

std::string regression_value(const history::Regression& g) {
  if (g.kind == history::RegressionKind::silent)
    return "no evidence for " + duration(g.age_seconds);
  std::string out = g.value_text;
  if (g.numeric) {
    std::string n = people_number(g.value, g.unit);
    if (g.kind == history::RegressionKind::below_peers) n = "median " + n;
    const std::string pct = regression_percent(g);
    if (!pct.empty())
      n += (g.kind == history::RegressionKind::below_peers ? ", " : " (") + pct +
           (g.kind == history::RegressionKind::below_peers ? " against its peers" : ")");
    out = out.empty() ? n : out + ", CPU per wait " + n;
  }
  return out;
}

std::string render_points_text(const std::vector<history::Point>& points) {
  std::string out;
  for (const auto& p : points)
    out +=
        terminal_safe(fmt::format("{}  {}  {}  {}/{}  {}  {}  {}", p.timestamp, p.node, p.gate,
                                  p.probe, p.metric, number(p.value, p.unit), p.status, p.file)) +
        "\n";
  if (points.empty()) out = "no stored value matches\n";
  return out;
}

std::string render_points_markdown(const std::vector<history::Point>& points) {
  std::string out =
      "| time | node | gate | probe | metric | value | unit | status | file |\n"
      "|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& p : points)
    out += fmt::format("| {} | {} | {} | {} | {} | {:.6g} | {} | {} | {} |\n",
                       markdown_cell(p.timestamp), markdown_cell(p.node), markdown_cell(p.gate),
                       markdown_cell(p.probe), markdown_cell(p.metric), p.value,
                       markdown_cell(p.unit), markdown_cell(p.status), markdown_cell(p.file));
  return out;
}

std::string render_regressions_text(const history::RegressionReport& r) {
  std::string out;
  for (const auto& g : r.found) {
    if (g.kind == history::RegressionKind::silent) {
      out += terminal_safe(fmt::format("SILENT {} ({}): {}, last seen {} ({}); silent after {}",
                                       g.node, g.platform, regression_value(g), g.last_timestamp,
                                       g.last_file, duration(r.silent_after_seconds))) +
             "\n";
      continue;
    }
    out += terminal_safe(fmt::format(
               "{} {} ({}): {} {}: {}; baseline {}; since {} ({}), {} run(s) in a row",
               g.kind == history::RegressionKind::below_peers ? "BELOW PEERS" : "REGRESSION",
               g.node, g.platform, regression_subject(g), regression_change(g), regression_value(g),
               regression_baseline(g), g.first_timestamp, g.first_file, g.worse_runs)) +
           "\n";
  }
  out += fmt::format("{} regression(s) in {} series of {} node(s), {} run(s); {} silent node(s)\n",
                     r.found.size(), r.series, r.nodes, r.runs, r.silent());
  return out;
}

std::string render_regressions_markdown(const history::RegressionReport& r) {
  std::string out =
      fmt::format("### Regressions: {} in {} series of {} node(s); {} silent node(s)\n\n",
                  r.found.size(), r.series, r.nodes, r.silent());
  if (r.found.empty()) return out + "No node got worse.\n";
  out +=
      "| node | platform | what | change | value | baseline | since | first file |\n"
      "|---|---|---|---|---|---|---|---|\n";
  for (const auto& g : r.found)
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", markdown_cell(g.node),
                       markdown_cell(g.platform), markdown_cell(regression_subject(g)),
                       markdown_cell(regression_change(g)), markdown_cell(regression_value(g)),
                       markdown_cell(regression_baseline(g)), markdown_cell(g.first_timestamp),
                       markdown_cell(g.first_file));
  return out;
}

}  // namespace jetgate::report
