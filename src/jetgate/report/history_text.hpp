// SPDX-License-Identifier: Apache-2.0
// `jetgate history show` and `history regressions` as terminal text and Markdown.
// Node, gate, probe and metric names and file paths come from evidence files and are
// untrusted: Markdown goes through markdown_cell, text through terminal_safe.
#pragma once

#include <string>
#include <vector>

#include "jetgate/history/regressions.hpp"
#include "jetgate/history/store.hpp"

namespace jetgate::report {

// The unit people read a base unit in (GB/s, µs, tok/s, %): value / scale in it.
struct PeopleUnit {
  double scale = 1;
  std::string unit;  // "" for counts
};
PeopleUnit people_unit_of(const std::string& base_unit);
// "2527 GB/s", "41.2 µs", "98.4 %": a base-unit value in the unit people read.
std::string people_number(double v, const std::string& base_unit);
// The change of a drop or a gap to the peers against its baseline, "-29.8 %"; "" for
// kinds without one (a rise of CPU per wait, a wait mode, a gate, silence).
std::string regression_percent(const history::Regression& g);

std::string render_points_text(const std::vector<history::Point>& points);
std::string render_points_markdown(const std::vector<history::Point>& points);

// One line per regression: node, metric, baseline, value, the first run (timestamp, file).
std::string render_regressions_text(const history::RegressionReport& r);
std::string render_regressions_markdown(const history::RegressionReport& r);

// The parts of one regression's line, as plain text (the caller escapes them): what
// got worse ("cuda-runtime bandwidth/d2d_gbps (also ...)"), how ("dropped"), the latest
// value and the baseline ("median 1.2e+11 bytes_per_second (MAD ...), its last 7 green
// runs").
std::string regression_subject(const history::Regression& g);
std::string regression_change(const history::Regression& g);
std::string regression_value(const history::Regression& g);
std::string regression_baseline(const history::Regression& g);

}  // namespace jetgate::report
