// SPDX-License-Identifier: Apache-2.0
// `jetgate history report --html FILE`: the fleet's history as one self-contained HTML
// file (docs/history.md). Failing and regressed nodes first, the support matrix
// (platform x gate, the latest run's verdict of each node), then per-node sections with
// an inline SVG plot per watched value (values over time, the baseline median, its MAD
// band and the limit past which a value is worse, worse runs marked), each plot's
// numbers also as a table. No script, no external resource of any kind: a
// Content-Security-Policy of default-src 'none' keeps it so when opened.
//
// Rendering only: it is given the runs, their regressions and trends. Node names, gate
// ids, platforms, timestamps and file names come from evidence and are untrusted: every
// string goes through html_escape, in text, attributes and SVG alike.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "jetgate/history/regressions.hpp"
#include "jetgate/history/store.hpp"
#include "jetgate/policy/regression_thresholds.hpp"

namespace jetgate::report {

// Text for HTML element content and double- or single-quoted attribute values (SVG
// included): & < > " ' as character references, and every unit that cannot be shown
// as it is (bytes that are not UTF-8, C0 controls including NUL, DEL, C1 controls,
// bidi overrides and zero-width characters) in core/utf8's one visible form (\xff,
// \x00, \u202e): inert, and what was there can still be read. Tab, CR and LF too.
std::string html_escape(std::string_view text);

struct HtmlReportOptions {
  std::string source;               // what the report was made from (the database path)
  std::size_t max_full_nodes = 24;  // nodes shown with plots: failing and regressed first
  std::size_t max_points = 60;      // per plot: the latest this many runs
};

std::string render_history_html(const std::vector<history::Run>& runs,
                                const history::RegressionReport& regressions,
                                const std::vector<history::Trend>& trends,
                                const policy::RegressionThresholds& thresholds,
                                const HtmlReportOptions& options = {});

}  // namespace jetgate::report
