// SPDX-License-Identifier: Apache-2.0
// The fleet on Prometheus and Grafana (docs/metrics.md): the alerting and recording
// rules over the node_exporter textfiles `run --prometheus` and `probe --prometheus`
// write, as a plain rules file and as a prometheus-operator PrometheusRule, and a
// Grafana dashboard. The watched values, their families (base units) and which way is
// worse come from the probe registry (probes/watched.hpp), the thresholds from the
// policy's "regressions" section: the same findings `jetgate history regressions`
// makes from the same evidence (tests/unit/monitoring_test.cpp runs both on one month).
// Written by `jetgate init --kubernetes` and shipped in deploy/monitoring/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jetgate/init/init_templates.hpp"
#include "jetgate/policy/regression_thresholds.hpp"

namespace jetgate::init {

inline constexpr const char* kMonitoringDir = "deploy/monitoring";

struct MonitoringOptions {
  policy::RegressionThresholds thresholds{};
  // How often a node runs its gate: the baseline window is thresholds.baseline_runs runs.
  std::int64_t run_interval_seconds = 86400;
  // No evidence for longer than this: the node is silent.
  std::int64_t silent_after_seconds = policy::kDefaultSilentAfterDays * 86400;
  std::string name_space = "jetgate";  // the PrometheusRule's namespace
};

// A duration in PromQL's notation: 7d, 42h, 90s.
std::string promql_duration(std::int64_t seconds);

// The rules file (`promtool check rules`; Prometheus' rule_files).
std::string render_prometheus_rules(const MonitoringOptions& o);
// The same groups in a PrometheusRule object (monitoring.coreos.com/v1).
std::string render_prometheus_rule_object(const MonitoringOptions& o);
// The Grafana dashboard (JSON model, schemaVersion 39) with a `node` variable.
std::string render_grafana_dashboard(const MonitoringOptions& o);

struct MonitoringFile {
  std::string name;  // under kMonitoringDir (or a kubernetes dir's monitoring/)
  std::string text;
};
// jetgate-rules.yaml, jetgate-prometheusrule.yaml, jetgate-dashboard.json.
std::vector<MonitoringFile> render_monitoring_files(const MonitoringOptions& o);

// `init --kubernetes`: the three under KubernetesOptions::dir/monitoring/ (not applied
// by `kubectl apply -f DIR`: a PrometheusRule needs the prometheus-operator's CRD),
// with the DaemonSet's interval as the run interval and the cluster policy's freshness
// rule as the silence limit.
std::vector<InitFile> render_kubernetes_monitoring_files(const KubernetesOptions& k);

}  // namespace jetgate::init
