// SPDX-License-Identifier: Apache-2.0
// A node_exporter textfile-collector file (Prometheus text exposition format 0.0.4,
// https://prometheus.io/docs/instrumenting/exposition_formats/) from a probe document
// (`probe --prometheus`) or a gate's evidence (`run --prometheus`). Names follow
// Prometheus' naming conventions (https://prometheus.io/docs/practices/naming/): the
// `jetgate_` prefix, base units in the name (seconds, bytes, ratio), values converted
// to them; statuses are state sets (one series per status, 1 for the current one);
// times are Unix timestamps, so an age is `time() - jetgate_evidence_timestamp_seconds`.
// docs/metrics.md lists every family.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "jetgate/history/regressions.hpp"

namespace jetgate::report {

struct PrometheusInput {
  // The probe document, or the gate's evidence as written (evidence::to_json): a
  // document with a string /gate is a gate's evidence.
  const nlohmann::json* document = nullptr;
  // The node label: /lane/node when the evidence names one, else this (the host name).
  std::string node;
  // What the file held before this run ("" when it did not exist): a failed run keeps
  // the last success time it recorded for the same gate and node.
  std::string previous;
};

std::string render_prometheus_textfile(const PrometheusInput& in);

// The value of `jetgate_gate_last_success_timestamp_seconds` for this gate and node in a
// file rendered above; nullopt when there is none or the line does not parse.
std::optional<double> previous_last_success(std::string_view previous, std::string_view gate,
                                            std::string_view node);

// `jetgate history regressions --prometheus`: how many regressions and each one
// (labels node, platform, gate, probe, metric, kind), its baseline, latest value and
// the first run's time. docs/metrics.md lists the families.
std::string render_regressions_prometheus(const history::RegressionReport& r);

// A label value escaped for the text format: backslash, double quote and line feed.
std::string prometheus_label_value(std::string_view s);

}  // namespace jetgate::report
