// SPDX-License-Identifier: Apache-2.0
#include "jetgate/init/init_monitoring.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

#include "jetgate/core/units.hpp"
#include "jetgate/evidence/probe_values.hpp"
#include "jetgate/probes/watched.hpp"

namespace jetgate::init {
namespace {

// Labels every jetgate series of a textfile carries (report/prometheus.cpp): the
// producer (probe, run) and, for run, the gate tell two files of one node apart.
constexpr const char* kSeriesKey = "node, gate, producer";

struct Rule {
  std::string record, alert, expr;
  std::vector<std::pair<std::string, std::string>> labels, annotations;
};

// One group of watched metrics: a textfile family (its base unit) and which way is worse.
struct WatchGroup {
  std::string family, base, watch;
  std::vector<std::string> metrics;
};

std::vector<WatchGroup> watch_groups() {
  std::vector<WatchGroup> out;
  for (const auto& w : probes::watched_metrics()) {
    const auto* unit = evidence::base_unit_of(w.metric->unit);
    if (!unit) continue;
    const auto* base = &units::info(unit->base);
    const std::string watch = w.watch == probes::Watch::drop ? "drop" : "rise";
    auto it = std::find_if(out.begin(), out.end(), [&](const WatchGroup& g) {
      return g.base == base->name && g.watch == watch;
    });
    if (it == out.end()) {
      out.push_back(
          {"jetgate_probe_" + std::string(base->name), std::string(base->name), watch, {}});
      it = out.end() - 1;
    }
    if (std::find(it->metrics.begin(), it->metrics.end(), w.metric->name) == it->metrics.end())
      it->metrics.push_back(w.metric->name);
  }
  return out;
}

// FAMILY{metric=~"a|b"} (Prometheus anchors the expression); more matchers after it.
std::string selector(const WatchGroup& g, const std::string& more = "") {
  std::string re;
  for (const auto& m : g.metrics) re += (re.empty() ? "" : "|") + m;
  return fmt::format("{}{{metric=~\"{}\"{}}}", g.family, re, more);
}

std::string number(double v) {
  return fmt::format("{}", v);
}

struct Windows {
  std::string window, lookback, silent;
};

Windows windows_of(const MonitoringOptions& o) {
  const std::int64_t window = std::max<std::int64_t>(1, o.thresholds.baseline_runs) *
                              std::max<std::int64_t>(60, o.run_interval_seconds);
  const std::int64_t lookback = std::max<std::int64_t>(30 * 86400, 4 * window);
  return {promql_duration(window), promql_duration(lookback),
          std::to_string(o.silent_after_seconds)};
}

std::vector<Rule> rules_of(const MonitoringOptions& o) {
  const auto& t = o.thresholds;
  const Windows w = windows_of(o);
  const std::string keep = number(1 - t.drop_fraction);
  const std::string series = "node, platform, gate, producer, probe";
  std::vector<Rule> r;
  // Recording: each watched value, its median over the baseline window (the last
  // baseline_runs runs), the node's best such median over the lookback (its own recent
  // past: a drop stays a drop while it lasts, as `history regressions` keeps the
  // baseline of the runs before it), and the platform's median of the nodes' medians.
  for (const auto& g : watch_groups()) {
    r.push_back(
        {"jetgate:watched_value", "", selector(g), {{"watch", g.watch}, {"unit", g.base}}, {}});
    r.push_back({"jetgate:watched_value:median_window",
                 "",
                 fmt::format("quantile_over_time(0.5, {}[{}])", selector(g), w.window),
                 {{"watch", g.watch}, {"unit", g.base}},
                 {}});
  }
  r.push_back(
      {"jetgate:watched_value:own_best",
       "",
       fmt::format("max_over_time(jetgate:watched_value:median_window{{watch=\"drop\"}}[{}])",
                   w.lookback),
       {{"watch", "drop"}},
       {}});
  r.push_back(
      {"jetgate:watched_value:own_best",
       "",
       fmt::format("min_over_time(jetgate:watched_value:median_window{{watch=\"rise\"}}[{}])",
                   w.lookback),
       {{"watch", "rise"}},
       {}});
  r.push_back({"jetgate:watched_value:dropped",
               "",
               fmt::format("jetgate:watched_value{{watch=\"drop\"}} < {} * "
                           "jetgate:watched_value:own_best{{watch=\"drop\"}}",
                           keep),
               {},
               {}});
  // A mode that now polls explains its CPU per wait: one cause, one alert.
  r.push_back({"jetgate:watched_value:rose",
               "",
               fmt::format("(jetgate:watched_value{{watch=\"rise\"}} > {} + "
                           "jetgate:watched_value:own_best{{watch=\"rise\"}}) unless on({}, probe, "
                           "metric) label_replace(jetgate_sync_wait{{wait=\"busy_polling\"}} == 1, "
                           "\"metric\", \"sync_${{1}}_cpu_fraction\", \"sched_mode\", \"(.+)\")",
                           number(t.cpu_rise), kSeriesKey),
               {},
               {}});
  r.push_back(
      {"jetgate:watched_value:platform_median",
       "",
       fmt::format("quantile by (platform, gate, producer, probe, metric, watch, unit) (0.5, "
                   "jetgate:watched_value:median_window{{watch=\"drop\"}}) and on(platform, gate, "
                   "producer, probe, metric) count by (platform, gate, producer, probe, metric) "
                   "(jetgate:watched_value:median_window{{watch=\"drop\"}}) > {}",
                   std::max<std::int64_t>(1, t.min_peers)),
       {},
       {}});
  r.push_back(
      {"jetgate:watched_value:below_peers",
       "",
       fmt::format("(jetgate:watched_value:median_window{{watch=\"drop\"}} < on(platform, gate, "
                   "producer, probe, metric) group_left {0} * "
                   "jetgate:watched_value:platform_median) and on({1}, probe, metric) "
                   "(jetgate:watched_value{{watch=\"drop\"}} < on(platform, gate, producer, probe, "
                   "metric) group_left {0} * jetgate:watched_value:platform_median) unless on({1}, "
                   "probe) jetgate:watched_value:dropped",
                   keep, kSeriesKey),
       {},
       {}});
  r.push_back({"jetgate:node:last_evidence_timestamp_seconds",
               "",
               fmt::format("max by (node) (max_over_time(jetgate_evidence_timestamp_seconds[{}]))",
                           w.lookback),
               {},
               {}});

  const std::string docs = "https://github.com/jetgate/jetgate/blob/main/docs/metrics.md";
  auto alert = [&](std::string name, std::string expr, std::string severity, std::string summary,
                   std::string description) {
    r.push_back({"",
                 std::move(name),
                 std::move(expr),
                 {{"severity", std::move(severity)}},
                 {{"summary", std::move(summary)},
                  {"description", std::move(description)},
                  {"runbook_url", docs}}});
  };
  alert("JetgateNodeSilent",
        fmt::format("time() - jetgate:node:last_evidence_timestamp_seconds > {}", w.silent),
        "critical", "{{ $labels.node }} has sent no jetgate evidence for too long",
        fmt::format("The newest evidence of {{{{ $labels.node }}}} is {{{{ $value | "
                    "humanizeDuration }}}} old (limit {}): the validator or the node is down.",
                    promql_duration(o.silent_after_seconds)));
  alert("JetgateGateFailing",
        fmt::format("jetgate_gate_status{{status=\"FAIL\"}} == 1 and on({}) "
                    "jetgate_gate_last_success_timestamp_seconds",
                    kSeriesKey),
        "critical", "jetgate gate {{ $labels.gate }} fails on {{ $labels.node }}",
        "The gate passed on this node before and its latest run failed.");
  alert("JetgateGateNeverPassed",
        fmt::format("jetgate_gate_status{{status=\"FAIL\"}} == 1 unless on({}) "
                    "jetgate_gate_last_success_timestamp_seconds",
                    kSeriesKey),
        "critical", "jetgate gate {{ $labels.gate }} has never passed on {{ $labels.node }}",
        "The latest run failed and this node's textfile records no success of the gate.");
  alert("JetgateSyncWaitPolling",
        fmt::format("jetgate_sync_wait{{wait=\"busy_polling\"}} == 1 and on({}, probe, sched_mode) "
                    "max_over_time(jetgate_sync_wait{{wait=\"interrupt_driven\"}}[{}]) == 1",
                    kSeriesKey, w.lookback),
        "warning", "{{ $labels.node }} waits for the GPU by polling in {{ $labels.sched_mode }}",
        "The scheduling mode waited interrupt-driven before and now burns a core polling.");
  alert("JetgateValueDropped",
        "count by (node, platform, gate, producer, probe) (jetgate:watched_value:dropped)",
        "warning", "{{ $labels.probe }} dropped on {{ $labels.node }}",
        fmt::format("{{{{ $value }}}} value(s) of {{{{ $labels.probe }}}} are more than {:.0f}% "
                    "below the node's best {}-median of the last {}.",
                    t.drop_fraction * 100, w.window, w.lookback));
  alert("JetgateCpuPerWaitRose",
        "count by (node, platform, gate, producer, probe) (jetgate:watched_value:rose)", "warning",
        "CPU per wait rose on {{ $labels.node }}",
        fmt::format("{{{{ $value }}}} scheduling mode(s) use more than {} of a core more per wait "
                    "than the node's best {}-median of the last {}.",
                    number(t.cpu_rise), w.window, w.lookback));
  alert("JetgateBelowPeers",
        "count by (node, platform, gate, producer, probe) (jetgate:watched_value:below_peers)",
        "warning", "{{ $labels.node }} is slower than its platform's siblings",
        fmt::format("{{{{ $value }}}} value(s) of {{{{ $labels.probe }}}}: the node's {}-median "
                    "is more than {:.0f}% below the median of its platform's nodes.",
                    w.window, t.drop_fraction * 100));
  alert("JetgateHistoryRegression", "jetgate_history_regression == 1", "warning",
        "jetgate history: {{ $labels.kind }} on {{ $labels.node }}",
        "`jetgate history regressions --prometheus` found it: {{ $labels.gate }} "
        "{{ $labels.probe }}/{{ $labels.metric }}.");
  return r;
}

void emit_pairs(YAML::Emitter& y, const char* key,
                const std::vector<std::pair<std::string, std::string>>& kv) {
  if (kv.empty()) return;
  y << YAML::Key << key << YAML::Value << YAML::BeginMap;
  for (const auto& [k, v] : kv) y << YAML::Key << k << YAML::Value << YAML::DoubleQuoted << v;
  y << YAML::EndMap;
}

void emit_groups(YAML::Emitter& y, const MonitoringOptions& o) {
  y << YAML::BeginSeq << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << "jetgate";
  y << YAML::Key << "rules" << YAML::Value << YAML::BeginSeq;
  for (const auto& r : rules_of(o)) {
    y << YAML::BeginMap;
    if (!r.record.empty())
      y << YAML::Key << "record" << YAML::Value << YAML::DoubleQuoted << r.record;
    else
      y << YAML::Key << "alert" << YAML::Value << YAML::DoubleQuoted << r.alert;
    y << YAML::Key << "expr" << YAML::Value << YAML::DoubleQuoted << r.expr;
    emit_pairs(y, "labels", r.labels);
    emit_pairs(y, "annotations", r.annotations);
    y << YAML::EndMap;
  }
  y << YAML::EndSeq << YAML::EndMap << YAML::EndSeq;
}

std::string header(const MonitoringOptions& o) {
  const Windows w = windows_of(o);
  return fmt::format(
      "# Generated by `jetgate init --kubernetes` (docs/metrics.md): the alerts and recording\n"
      "# rules over jetgate's node_exporter textfiles. Watched values and which way is worse\n"
      "# come from jetgate's probe registry; thresholds: a drop of more than {:.0f}%, a rise in\n"
      "# CPU per wait of more than {} of a core, baseline window {} ({} runs), own past {},\n"
      "# silent after {}.\n",
      o.thresholds.drop_fraction * 100, number(o.thresholds.cpu_rise), w.window,
      o.thresholds.baseline_runs, w.lookback, promql_duration(o.silent_after_seconds));
}

// Grafana's unit id for one of jetgate's base units (core/units.hpp).
std::string grafana_unit(const std::string& base) {
  const auto* b = units::base_named(base);
  return std::string(b ? b->grafana_unit : "none");
}

using ojson = nlohmann::ordered_json;

ojson datasource() {
  return {{"type", "prometheus"}, {"uid", "${datasource}"}};
}

ojson target(const std::string& ref, const std::string& expr, const std::string& legend,
             bool instant) {
  ojson t = {{"refId", ref},           {"datasource", datasource()}, {"expr", expr},
             {"legendFormat", legend}, {"range", !instant},          {"instant", instant}};
  if (instant) t["format"] = "table";
  return t;
}

ojson panel(int id, const std::string& type, const std::string& title,
            const std::string& description, int x, int y, int w, int h, ojson targets,
            const std::string& unit = "none") {
  return {{"id", id},
          {"type", type},
          {"title", title},
          {"description", description},
          {"datasource", datasource()},
          {"gridPos", {{"h", h}, {"w", w}, {"x", x}, {"y", y}}},
          {"targets", std::move(targets)},
          {"fieldConfig", {{"defaults", {{"unit", unit}}}, {"overrides", ojson::array()}}},
          {"options", ojson::object()}};
}

ojson row(int id, const std::string& title, int y) {
  return {{"id", id},
          {"type", "row"},
          {"title", title},
          {"collapsed", false},
          {"gridPos", {{"h", 1}, {"w", 24}, {"x", 0}, {"y", y}}},
          {"panels", ojson::array()}};
}

}  // namespace

std::string promql_duration(std::int64_t s) {
  if (s > 0 && s % 86400 == 0) return fmt::format("{}d", s / 86400);
  if (s > 0 && s % 3600 == 0) return fmt::format("{}h", s / 3600);
  if (s > 0 && s % 60 == 0) return fmt::format("{}m", s / 60);
  return fmt::format("{}s", std::max<std::int64_t>(1, s));
}

std::string render_prometheus_rules(const MonitoringOptions& o) {
  YAML::Emitter y;
  y << YAML::BeginMap << YAML::Key << "groups" << YAML::Value;
  emit_groups(y, o);
  y << YAML::EndMap;
  return header(o) + y.c_str() + "\n";
}

std::string render_prometheus_rule_object(const MonitoringOptions& o) {
  YAML::Emitter y;
  y << YAML::BeginMap;
  y << YAML::Key << "apiVersion" << YAML::Value << YAML::DoubleQuoted << "monitoring.coreos.com/v1";
  y << YAML::Key << "kind" << YAML::Value << YAML::DoubleQuoted << "PrometheusRule";
  y << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << "jetgate";
  y << YAML::Key << "namespace" << YAML::Value << YAML::DoubleQuoted << o.name_space;
  y << YAML::Key << "labels" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "app.kubernetes.io/name" << YAML::Value << YAML::DoubleQuoted << "jetgate";
  y << YAML::Key << "app.kubernetes.io/component" << YAML::Value << YAML::DoubleQuoted
    << "monitoring";
  y << YAML::Key << "app.kubernetes.io/managed-by" << YAML::Value << YAML::DoubleQuoted
    << "jetgate-init";
  y << YAML::EndMap << YAML::EndMap;
  y << YAML::Key << "spec" << YAML::Value << YAML::BeginMap << YAML::Key << "groups" << YAML::Value;
  emit_groups(y, o);
  y << YAML::EndMap << YAML::EndMap;
  return header(o) + y.c_str() + "\n";
}

std::string render_grafana_dashboard(const MonitoringOptions& o) {
  const Windows w = windows_of(o);
  const std::string silent = "time() - jetgate:node:last_evidence_timestamp_seconds > " + w.silent;
  ojson panels = ojson::array();
  int id = 0, y = 0;
  panels.push_back(row(++id, "Fleet", y++));
  auto stat = [&](int x, const std::string& title, const std::string& what,
                  const std::string& expr) {
    ojson p = panel(++id, "stat", title, what, x, y, 6, 4,
                    ojson::array({target("A", expr, title, true)}));
    p["options"] = {
        {"reduceOptions", {{"calcs", {"lastNotNull"}}, {"fields", ""}, {"values", false}}},
        {"colorMode", "background"},
        {"graphMode", "none"}};
    panels.push_back(std::move(p));
  };
  stat(0, "Nodes reporting", "Nodes with a jetgate textfile now.",
       "count(max by (node) (jetgate_evidence_timestamp_seconds)) or vector(0)");
  stat(6, "Silent nodes",
       "Nodes whose newest evidence is older than " + promql_duration(o.silent_after_seconds) +
           " (JetgateNodeSilent).",
       "count(" + silent + ") or vector(0)");
  stat(12, "Failing gates", "Gates whose latest run failed, per node.",
       "count(jetgate_gate_status{status=\"FAIL\"} == 1) or vector(0)");
  stat(18, "History findings", "What `jetgate history regressions --prometheus` found.",
       "sum(jetgate_history_regressions) or vector(0)");
  y += 4;
  panels.push_back(
      panel(++id, "table", "Failing and silent nodes",
            "A: the gates whose latest run failed; B: the nodes silent for longer than the limit "
            "(value: seconds since their newest evidence).",
            0, y, 12, 8,
            ojson::array({target("A", "jetgate_gate_status{status=\"FAIL\"} == 1", "", true),
                          target("B", silent, "", true)})));
  panels.push_back(panel(
      ++id, "table", "Regressions",
      "A: `jetgate history regressions`; B: values dropped against the node's own past; C: "
      "nodes below their platform's siblings; D: CPU per wait that rose.",
      12, y, 12, 8,
      ojson::array(
          {target("A", "jetgate_history_regression == 1", "", true),
           target(
               "B",
               "count by (node, platform, gate, producer, probe) (jetgate:watched_value:dropped)",
               "", true),
           target("C",
                  "count by (node, platform, gate, producer, probe) "
                  "(jetgate:watched_value:below_peers)",
                  "", true),
           target("D",
                  "count by (node, platform, gate, producer, probe) (jetgate:watched_value:rose)",
                  "", true)})));
  y += 8;
  panels.push_back(row(++id, "Node $node", y++));
  {
    ojson p =
        panel(++id, "state-timeline", "Gate status over time",
              "1 (PASS) or 0 (FAIL, NOT_RUN) per gate of the node's `run` textfile.", 0, y, 24, 5,
              ojson::array({target("A",
                                   "max by (gate) (jetgate_gate_status{node=\"$node\", "
                                   "status=\"PASS\"})",
                                   "{{gate}}", false)}));
    p["fieldConfig"]["defaults"]["mappings"] =
        ojson::array({{{"type", "value"},
                       {"options",
                        {{"0", {{"text", "FAIL"}, {"color", "red"}, {"index", 0}}},
                         {"1", {{"text", "PASS"}, {"color", "green"}, {"index", 1}}}}}}});
    panels.push_back(std::move(p));
  }
  y += 5;
  panels.push_back(panel(++id, "timeseries", "Evidence age",
                         "Seconds since the node's newest evidence, per producer and gate; "
                         "silent past " +
                             promql_duration(o.silent_after_seconds) + ".",
                         0, y, 12, 7,
                         ojson::array({target("A",
                                              "time() - jetgate_evidence_timestamp_seconds"
                                              "{node=\"$node\"}",
                                              "{{producer}} {{gate}}", false)}),
                         "s"));
  panels.push_back(
      panel(++id, "timeseries", "Waits by polling",
            "1 where a scheduling mode waited for the GPU by polling.", 12, y, 12, 7,
            ojson::array({target("A", "jetgate_sync_wait{node=\"$node\", wait=\"busy_polling\"}",
                                 "{{sched_mode}}", false)})));
  y += 7;
  int x = 0;
  for (const auto& g : watch_groups()) {
    std::string metrics;
    for (const auto& m : g.metrics) metrics += (metrics.empty() ? "" : ", ") + m;
    panels.push_back(
        panel(++id, "timeseries",
              fmt::format("{} ({} is worse)", g.family, g.watch == "drop" ? "lower" : "higher"),
              "Watched values: " + metrics + "; dashed: the node's own best median (the baseline).",
              x, y, 12, 8,
              ojson::array({target("A", selector(g, ", node=\"$node\""), "{{metric}}", false),
                            target("B",
                                   fmt::format("jetgate:watched_value:own_best{{node=\"$node\", "
                                               "watch=\"{}\", unit=\"{}\"}}",
                                               g.watch, g.base),
                                   "baseline {{metric}}", false)}),
              grafana_unit(g.base)));
    x = x == 0 ? 12 : 0;
    if (x == 0) y += 8;
  }
  ojson node_var = {
      {"name", "node"},
      {"label", "node"},
      {"type", "query"},
      {"datasource", datasource()},
      {"query",
       {{"query", "label_values(jetgate_evidence_timestamp_seconds, node)"}, {"refId", "node"}}},
      {"refresh", 2},
      {"sort", 1},
      {"multi", false},
      {"includeAll", false},
      {"hide", 0}};
  ojson ds_var = {{"name", "datasource"},  {"label", "Prometheus"}, {"type", "datasource"},
                  {"query", "prometheus"}, {"refresh", 1},          {"hide", 0}};
  ojson d = {{"uid", "jetgate-fleet"},
             {"title", "jetgate fleet"},
             {"description",
              "GPU nodes validated by jetgate: failing and silent nodes, regressions, and each "
              "node's gate status and watched values (docs/metrics.md)."},
             {"tags", {"jetgate", "gpu"}},
             {"timezone", "utc"},
             {"editable", true},
             {"graphTooltip", 1},
             {"schemaVersion", 39},
             {"version", 1},
             {"refresh", "5m"},
             {"time", {{"from", "now-30d"}, {"to", "now"}}},
             {"timepicker", ojson::object()},
             {"fiscalYearStartMonth", 0},
             {"liveNow", false},
             {"weekStart", ""},
             {"links", ojson::array()},
             {"annotations", {{"list", ojson::array()}}},
             {"templating", {{"list", {ds_var, node_var}}}},
             {"panels", std::move(panels)}};
  return d.dump(2) + "\n";
}

std::vector<MonitoringFile> render_monitoring_files(const MonitoringOptions& o) {
  return {{"jetgate-rules.yaml", render_prometheus_rules(o)},
          {"jetgate-prometheusrule.yaml", render_prometheus_rule_object(o)},
          {"jetgate-dashboard.json", render_grafana_dashboard(o)}};
}

std::vector<InitFile> render_kubernetes_monitoring_files(const KubernetesOptions& k) {
  MonitoringOptions o;
  o.name_space = k.name_space;
  o.run_interval_seconds = static_cast<std::int64_t>(k.interval_minutes) * 60;
  const auto policy = nlohmann::json::parse(render_kubernetes_policy(k), nullptr, false);
  if (policy.is_object() && policy.contains("maximum_evidence_age_days") &&
      policy["maximum_evidence_age_days"].is_number_integer())
    o.silent_after_seconds = policy["maximum_evidence_age_days"].get<std::int64_t>() * 86400;
  std::vector<InitFile> out;
  for (auto& f : render_monitoring_files(o))
    out.push_back({k.dir + "/monitoring/" + f.name, std::move(f.text)});
  return out;
}

}  // namespace jetgate::init
