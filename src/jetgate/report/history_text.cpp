// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/history_text.hpp"

#include <fmt/format.h>

#include "jetgate/core/utf8.hpp"
#include "jetgate/report/text_escape.hpp"

namespace jetgate::report {
namespace {

std::string number(double v, const std::string& unit) {
  return unit.empty() ? fmt::format("{:.6g}", v) : fmt::format("{:.6g} {}", v, unit);
}

}  // namespace

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
  }
  return "";
}

std::string regression_subject(const history::Regression& g) {
  if (g.kind == history::RegressionKind::gate_failed) return g.gate;
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
  std::string out;
  if (!g.baseline_text.empty()) out = g.baseline_text;
  if (g.numeric) {
    std::string n = fmt::format("median {} (MAD {})", number(g.baseline_median, g.unit),
                                number(g.baseline_mad, g.unit));
    out = out.empty() ? n : out + ", CPU per wait " + n;
  }
  return out + ", " + from;
}

std::string regression_value(const history::Regression& g) {
  std::string out = g.value_text;
  if (g.numeric) {
    std::string n = number(g.value, g.unit);
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
  for (const auto& g : r.found)
    out += terminal_safe(fmt::format(
               "REGRESSION {} ({}): {} {}: {}; baseline {}; since {} ({}), {} run(s) in a row",
               g.node, g.platform, regression_subject(g), regression_change(g), regression_value(g),
               regression_baseline(g), g.first_timestamp, g.first_file, g.worse_runs)) +
           "\n";
  out += fmt::format("{} regression(s) in {} series of {} node(s), {} run(s)\n", r.found.size(),
                     r.series, r.nodes, r.runs);
  return out;
}

std::string render_regressions_markdown(const history::RegressionReport& r) {
  std::string out = fmt::format("### Regressions: {} in {} series of {} node(s)\n\n",
                                r.found.size(), r.series, r.nodes);
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
