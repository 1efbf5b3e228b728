// SPDX-License-Identifier: Apache-2.0
// The Prometheus rules and the Grafana dashboard (init/init_monitoring.hpp): the
// shipped files are what init writes, promtool accepts the rules, and on the planted
// fleet month (history_fleet.hpp) every alert fires for exactly the nodes `history
// regressions` finds at the same time (`promtool test rules` over the month's series,
// as the textfiles of `run --prometheus` would have served them every 6 hours).
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "history_fleet.hpp"
#include "jetgate/evidence/dates.hpp"
#include "jetgate/history/regressions.hpp"
#include "jetgate/init/init_monitoring.hpp"
#include "jetgate/probes/watched.hpp"
#include "jetgate/proc/child.hpp"
#include "jetgate/report/prometheus.hpp"
#include "test_support.hpp"

namespace jetgate {
namespace {

using nlohmann::json;

proc::ChildOutcome run_tool(std::vector<std::string> argv, int seconds = 300) {
  proc::ProcessSpec spec;
  spec.argv = std::move(argv);
  proc::ChildLimits limits;
  limits.timeout = std::chrono::seconds(seconds);
  limits.max_output_bytes = 16u << 20;
  return proc::run_process(spec, limits);
}

std::string problems(const proc::ChildOutcome& o) {
  if (o.kind == proc::ChildOutcome::Kind::exited && o.exit_code == 0) return "";
  return o.describe() + "\n" + o.output + o.error_text +
         " (promtool: Debian's prometheus, scripts/install-deps.sh)";
}

TEST(Monitoring, ShippedFilesAreWhatInitWrites) {
  // `jetgate init --kubernetes --image IMAGE --interval-minutes 1440`: a nightly run.
  init::KubernetesOptions k;
  k.image = "registry.example/jetgate:1";
  k.interval_minutes = 1440;
  const auto files = init::render_kubernetes_monitoring_files(k);
  ASSERT_EQ(files.size(), 3u);
  for (const auto& f : files) {
    const std::string name = f.path.substr(f.path.rfind('/') + 1);
    EXPECT_EQ(test::read_file(test::source_dir() + "/" + init::kMonitoringDir + "/" + name), f.text)
        << "regenerate deploy/monitoring/ with the command in docs/metrics.md";
  }
}

TEST(Monitoring, PromtoolChecksTheRulesAndThePrometheusRule) {
  test::TempDir t;
  const init::MonitoringOptions o;
  t.write("rules.yaml", init::render_prometheus_rules(o));
  EXPECT_EQ(problems(run_tool({"promtool", "check", "rules", t.path("rules.yaml")})), "");
  // The PrometheusRule's spec is the same groups.
  auto obj = YAML::Load(init::render_prometheus_rule_object(o));
  EXPECT_EQ(obj["apiVersion"].as<std::string>(), "monitoring.coreos.com/v1");
  EXPECT_EQ(obj["kind"].as<std::string>(), "PrometheusRule");
  YAML::Emitter spec;
  spec << obj["spec"];
  t.write("spec.yaml", std::string(spec.c_str()) + "\n");
  EXPECT_EQ(problems(run_tool({"promtool", "check", "rules", t.path("spec.yaml")})), "");
  EXPECT_EQ(YAML::Dump(obj["spec"]["groups"]),
            YAML::Dump(YAML::Load(init::render_prometheus_rules(o))["groups"]));
  // Every watched metric of the registry is in the rules, in its base unit's family.
  const std::string rules = init::render_prometheus_rules(o);
  for (const auto& w : probes::watched_metrics())
    EXPECT_NE(rules.find(w.metric->name), std::string::npos) << w.metric->name;
  // A cluster that revalidates every 6 hours: a 42-hour baseline window, silent after
  // the cluster policy's 14 days.
  init::KubernetesOptions k;
  k.image = "registry.example/jetgate:1";
  k.interval_minutes = 360;
  const auto files = init::render_kubernetes_monitoring_files(k);
  ASSERT_EQ(files.size(), 3u);
  EXPECT_EQ(files[0].path, "deploy/kubernetes/monitoring/jetgate-rules.yaml");
  EXPECT_NE(files[0].text.find("[42h]"), std::string::npos);
  EXPECT_NE(files[0].text.find("> 1209600"), std::string::npos);
  t.write("k.yaml", files[0].text);
  EXPECT_EQ(problems(run_tool({"promtool", "check", "rules", t.path("k.yaml")})), "");
}

// ---- The planted month as Prometheus would have scraped it. ----

constexpr std::int64_t kStep = 6 * 3600;  // scrape and evaluation step of the test
std::int64_t month_start() {
  return *evidence::utc_seconds_of_timestamp("2026-11-01T00:00:00Z");
}
constexpr std::size_t kSteps = test::kDays * 4 + 4;

std::string number(double v) {
  return fmt::format("{:.9f}", v);
}

// name{labels} -> one value (or none) per step.
using Series = std::map<std::string, std::vector<std::optional<double>>>;

std::string labels_text(const std::vector<std::pair<std::string, std::string>>& l) {
  std::string out;
  for (const auto& [k, v] : l) out += (out.empty() ? "" : ", ") + k + "=\"" + v + "\"";
  return "{" + out + "}";
}

// The series the node's `run --prometheus` textfile serves at each step: a run's values
// from the first scrape after it until the next run; a node that stopped reporting is
// gone (node down) from a day after its last run.
Series month_series(const std::vector<history::Run>& runs) {
  Series s;
  const std::int64_t start = month_start();
  std::int64_t newest = 0;
  for (const auto& r : runs) newest = std::max(newest, r.unix_time);
  std::map<std::string, std::vector<const history::Run*>> by_node;
  for (const auto& r : runs) by_node[r.node].push_back(&r);
  auto step_of = [&](std::int64_t t) {
    return static_cast<std::size_t>(std::max<std::int64_t>(0, (t - start + kStep - 1) / kStep));
  };
  for (const auto& [node, rs] : by_node) {
    std::optional<double> last_success;
    for (std::size_t i = 0; i < rs.size(); ++i) {
      const auto& r = *rs[i];
      const std::size_t from = step_of(r.unix_time);
      std::size_t to = i + 1 < rs.size() ? step_of(rs[i + 1]->unix_time) : kSteps;
      if (i + 1 == rs.size() && newest - r.unix_time > 86400)
        to = std::min(kSteps, step_of(r.unix_time + 86400));
      if (r.status == "passed") last_success = static_cast<double>(r.unix_time - start);
      const std::vector<std::pair<std::string, std::string>> base{
          {"gate", r.gate}, {"node", node}, {"platform", r.platform}, {"producer", "run"}};
      std::map<std::string, double> now;
      // promtool's clock starts at Unix time 0: the month's start is its 0, and times
      // are counted from it (so time() minus a timestamp is the age it would be).
      now["jetgate_evidence_timestamp_seconds" + labels_text(base)] =
          static_cast<double>(r.unix_time - start);
      for (const char* st : {"PASS", "FAIL", "NOT_RUN"}) {
        auto l = base;
        l.emplace_back("status", st);
        const std::string want = r.status == "passed"   ? "PASS"
                                 : r.status == "failed" ? "FAIL"
                                                        : "NOT_RUN";
        now["jetgate_gate_status" + labels_text(l)] = want == st ? 1 : 0;
      }
      if (last_success)
        now["jetgate_gate_last_success_timestamp_seconds" + labels_text(base)] = *last_success;
      for (const auto& [pm, v] : r.values) {
        if (!probes::watched(pm.first, pm.second)) continue;
        auto l = base;
        l.emplace_back("probe", pm.first);
        l.emplace_back("metric", pm.second);
        now["jetgate_probe_" + v.second + labels_text(l)] = v.first;
      }
      for (const auto& [pm, wait] : r.sync_waits)
        for (const char* state : {"interrupt_driven", "busy_polling", "unclear"}) {
          auto l = base;
          l.emplace_back("probe", pm.first);
          l.emplace_back("sched_mode", pm.second);
          l.emplace_back("wait", state);
          now["jetgate_sync_wait" + labels_text(l)] = wait == state ? 1 : 0;
        }
      for (const auto& [name, v] : now) {
        auto& values = s[name];
        values.resize(kSteps);
        for (std::size_t k = from; k < to && k < kSteps; ++k) values[k] = v;
      }
    }
  }
  return s;
}

// promtool's series notation: runs of one value as "v+0xN" (N + 1 samples), gaps as "_".
std::string values_text(const std::vector<std::optional<double>>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j < v.size() && v[j] == v[i]) ++j;
    if (!out.empty()) out += ' ';
    if (!v[i]) {
      for (std::size_t k = i; k < j; ++k) out += k == i ? "_" : " _";
    } else {
      out += number(*v[i]);
      if (j - i > 1) out += fmt::format("+0x{}", j - i - 1);
    }
    i = j;
  }
  return out;
}

// What each finding of `history regressions` is as a firing alert (ALERTS' labels).
std::string alert_of(const history::Regression& g) {
  std::vector<std::pair<std::string, std::string>> l;
  auto series = [&](const char* name, const char* severity) {
    l = {{"alertname", name}, {"alertstate", "firing"}, {"gate", g.gate},
         {"node", g.node},    {"platform", g.platform}, {"probe", g.probe},
         {"producer", "run"}, {"severity", severity}};
  };
  switch (g.kind) {
    case history::RegressionKind::silent:
      l = {{"alertname", "JetgateNodeSilent"},
           {"alertstate", "firing"},
           {"node", g.node},
           {"severity", "critical"}};
      break;
    case history::RegressionKind::gate_failed:
      l = {{"alertname", "JetgateGateFailing"},
           {"alertstate", "firing"},
           {"gate", g.gate},
           {"node", g.node},
           {"platform", g.platform},
           {"producer", "run"},
           {"severity", "critical"},
           {"status", "FAIL"}};
      break;
    case history::RegressionKind::wait_mode:
      l = {{"alertname", "JetgateSyncWaitPolling"},
           {"alertstate", "firing"},
           {"gate", g.gate},
           {"node", g.node},
           {"platform", g.platform},
           {"probe", g.probe},
           {"producer", "run"},
           {"sched_mode", g.metric},
           {"severity", "warning"},
           {"wait", "busy_polling"}};
      break;
    case history::RegressionKind::drop:
      series("JetgateValueDropped", "warning");
      break;
    case history::RegressionKind::rise:
      series("JetgateCpuPerWaitRose", "warning");
      break;
    case history::RegressionKind::below_peers:
      series("JetgateBelowPeers", "warning");
      break;
  }
  return "ALERTS" + labels_text(l);
}

TEST(Monitoring, AlertsFireForExactlyWhatHistoryRegressionsFindsOnThePlantedMonth) {
  const auto started = std::chrono::steady_clock::now();
  const auto& month = test::shared_fleet_month();
  auto store = history::Store::open(month.db, false);
  ASSERT_TRUE(store.ok()) << store.error().message();
  auto runs = history::load_runs(*store);
  ASSERT_TRUE(runs.ok());

  // The month's end: exactly the five planted findings.
  {
    const auto end = history::find_regressions(*runs);
    std::set<std::pair<std::string, std::string>> got;
    for (const auto& g : end.found) got.insert({g.node, history::to_string(g.kind)});
    const std::set<std::pair<std::string, std::string>> planted{
        {fmt::format("node-{:03d}", test::kDropNode), "drop"},
        {fmt::format("node-{:03d}", test::kPollNode), "wait_mode"},
        {fmt::format("node-{:03d}", test::kFailNode), "gate_failed"},
        {fmt::format("node-{:03d}", test::kSilentNode), "silent"},
        {fmt::format("node-{:03d}", test::kSlowNode), "below_peers"}};
    EXPECT_EQ(got, planted);
  }

  test::TempDir t;
  t.write("rules.yaml", init::render_prometheus_rules({}));
  const Series series = month_series(*runs);
  std::string y = fmt::format(
      "rule_files:\n  - {}\nevaluation_interval: 6h\ntests:\n  - interval: 6h\n"
      "    input_series:\n",
      t.path("rules.yaml"));
  for (const auto& [name, values] : series)
    y += fmt::format("      - series: '{}'\n        values: '{}'\n", name, values_text(values));
  // The history's own export at the month's end, for JetgateHistoryRegression.
  const auto end = history::find_regressions(*runs);
  const std::int64_t end_step = (end.now - month_start()) / kStep + 1;
  std::size_t history_alerts = 0;
  const std::string prom = report::render_regressions_prometheus(end);
  for (std::size_t pos = 0; pos < prom.size();) {
    std::size_t eol = prom.find('\n', pos);
    const std::string line = prom.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.rfind("jetgate_history_regression{", 0) != 0) continue;
    std::string gaps;
    for (std::int64_t k = 0; k < end_step; ++k) gaps += "_ ";
    y += fmt::format("      - series: '{}'\n        values: '{}1+0x3'\n",
                     line.substr(0, line.rfind(' ')), gaps);
    ++history_alerts;
  }
  EXPECT_EQ(history_alerts, 5u);
  y += "    promql_expr_test:\n";
  // At these times (06:00 UTC, after the night's runs), what `history regressions --now`
  // finds and what fires must be the same set.
  std::vector<int> days{6, 13, 20, 23, 26, 29};
  std::size_t compared = 0;
  for (int d : days) {
    const std::int64_t at = month_start() + d * 86400 + 6 * 3600;
    history::FindOptions o;
    o.now = at;
    const auto found = history::find_regressions(*runs, {}, o);
    std::set<std::string> want;
    for (const auto& g : found.found) want.insert(alert_of(g));
    y += fmt::format(
        "      - expr: 'ALERTS{{alertname!=\"JetgateHistoryRegression\"}}'\n"
        "        eval_time: {}h\n        exp_samples:\n",
        (at - month_start()) / 3600);
    if (want.empty()) y.resize(y.size() - 1), y += " []\n";
    for (const auto& a : want)
      y += fmt::format("          - labels: '{}'\n            value: 1\n", a);
    compared += want.size();
  }
  // The history's regression metric fires its own alert, once per finding.
  y += fmt::format(
      "      - expr: 'count(ALERTS{{alertname=\"JetgateHistoryRegression\"}})'\n"
      "        eval_time: {}h\n        exp_samples:\n          - labels: '{{}}'\n"
      "            value: {}\n",
      (end_step * kStep) / 3600 + 6, history_alerts);
  EXPECT_GE(compared, 12u);
  t.write("month-test.yaml", y);
  auto o = run_tool({"promtool", "test", "rules", t.path("month-test.yaml")}, 900);
  EXPECT_EQ(problems(o), "") << "series and tests: " << t.path("month-test.yaml");
  RecordProperty("series", std::to_string(series.size()));
  RecordProperty(
      "seconds",
      std::to_string(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count()));
}

// Grafana's dashboard model as @grafana/schema publishes it (TypeScript types only; no
// JSON schema ships in the package): the structural rules a dashboard must keep.
std::vector<std::string> dashboard_problems(const json& d, std::vector<std::string>& exprs) {
  std::vector<std::string> bad;
  auto need = [&](bool ok, const std::string& what) {
    if (!ok) bad.push_back(what);
  };
  need(d.value("title", json()).is_string(), "title");
  need(d.value("uid", json()).is_string(), "uid");
  need(d.value("schemaVersion", json()).is_number_integer(), "schemaVersion");
  need(d["time"].is_object() && d["time"]["from"].is_string() && d["time"]["to"].is_string(),
       "time");
  std::set<std::string> vars;
  for (const auto& v : d["templating"]["list"]) {
    need(v["name"].is_string() && v["type"].is_string(), "a variable's name and type");
    vars.insert(v.value("name", ""));
  }
  need(vars.count("node") == 1, "a node variable");
  std::set<int> ids;
  for (const auto& p : d["panels"]) {
    const int id = p.value("id", -1);
    need(id >= 0 && ids.insert(id).second, "panel ids unique");
    need(p["type"].is_string(), "panel type");
    const auto& g = p["gridPos"];
    need(g["h"].is_number_integer() && g["w"].is_number_integer() && g["x"].is_number_integer() &&
             g["y"].is_number_integer() && g["x"].get<int>() + g["w"].get<int>() <= 24,
         "panel " + std::to_string(id) + " gridPos within 24 columns");
    if (p["type"] == "row") continue;
    need(p["datasource"]["uid"] == "${datasource}", "panel datasource is the variable");
    std::set<std::string> refs;
    for (const auto& t : p["targets"]) {
      need(refs.insert(t.value("refId", "")).second, "refIds unique in a panel");
      const std::string e = t.value("expr", "");
      need(!e.empty(), "a target's expr");
      for (std::size_t at = e.find('$'); at != std::string::npos; at = e.find('$', at + 1)) {
        std::size_t end = at + 1;
        while (end < e.size() &&
               (std::isalnum(static_cast<unsigned char>(e[end])) || e[end] == '_'))
          ++end;
        need(vars.count(e.substr(at + 1, end - at - 1)) == 1, "variable in " + e);
      }
      exprs.push_back(e);
    }
    need(!refs.empty(), "panel " + std::to_string(id) + " has a query");
  }
  return bad;
}

constexpr const char* kPrometheusScript = R"SH(dir=$1; ne=$2; pp=$3
prometheus-node-exporter --collector.disable-defaults --collector.textfile \
  --collector.textfile.directory="$dir/tf" --web.listen-address=127.0.0.1:$ne >"$dir/ne.log" 2>&1 &
nepid=$!
printf 'global: {scrape_interval: 1s, evaluation_interval: 1s}\nrule_files: ["%s/rules.yaml"]\nscrape_configs: [{job_name: node, static_configs: [{targets: ["127.0.0.1:%s"]}]}]\n' "$dir" "$ne" >"$dir/prometheus.yml"
prometheus --config.file="$dir/prometheus.yml" --storage.tsdb.path="$dir/data" \
  --web.listen-address=127.0.0.1:$pp >"$dir/prom.log" 2>&1 &
ppid=$!
ready=
for i in $(seq 300); do
  out=$(promtool query instant http://127.0.0.1:$pp 'jetgate:watched_value:median_window' 2>/dev/null)
  if [ -n "$out" ]; then ready=1; break; fi
  kill -0 $ppid 2>/dev/null && kill -0 $nepid 2>/dev/null || break
  sleep 0.2
done
if [ -z "$ready" ]; then kill $ppid $nepid 2>/dev/null; cat "$dir/prom.log" "$dir/ne.log"; exit 3; fi
sleep 2
status=0
while IFS= read -r q; do
  echo "=== $q"
  promtool query instant http://127.0.0.1:$pp "$q" || status=1
done <"$dir/queries.txt"
kill $ppid $nepid; wait
exit $status
)SH";

TEST(Monitoring, DashboardKeepsGrafanasModelAndEveryQueryRunsOnARealScrape) {
  const init::MonitoringOptions o;
  const json d = json::parse(init::render_grafana_dashboard(o));
  std::vector<std::string> exprs;
  EXPECT_EQ(dashboard_problems(d, exprs), std::vector<std::string>{});
  ASSERT_GE(exprs.size(), 12u);
  // Every watched family has its panel, in Grafana's unit for it.
  std::set<std::string> units;
  for (const auto& p : d["panels"])
    if (p.contains("fieldConfig")) units.insert(p["fieldConfig"]["defaults"].value("unit", ""));
  EXPECT_TRUE(units.count("Bps") && units.count("percentunit")) << d.dump();

  // A real node_exporter serving a `run` and a `probe` textfile of one node, a real
  // Prometheus scraping it every second with the rules loaded, and every panel's
  // query asked of it with promtool.
  test::TempDir t;
  json e = test::example_evidence();
  e["lane"] = {{"node", "node-a"}, {"kind", "native"}};
  report::PrometheusInput in;
  in.document = &e;
  in.node = "node-a";
  t.write("tf/jetgate-run.prom", report::render_prometheus_textfile(in));
  json probe = e;
  probe.erase("gate");
  in.document = &probe;
  t.write("tf/jetgate-probe.prom", report::render_prometheus_textfile(in));
  t.write("rules.yaml", init::render_prometheus_rules(o));
  std::string queries;
  for (auto q : exprs) {
    for (std::size_t at; (at = q.find("$node")) != std::string::npos;) q.replace(at, 5, "node-a");
    queries += q + "\n";
  }
  t.write("queries.txt", queries);
  std::mt19937 rng(std::random_device{}());
  proc::ChildOutcome r;
  for (int attempt = 0; attempt < 3; ++attempt) {
    const int port = 20000 + static_cast<int>(rng() % 40000);
    r = run_tool({"bash", "-c", kPrometheusScript, "dash", t.dir(), std::to_string(port),
                  std::to_string(port + 1)},
                 180);
    if (r.exit_code != 3) break;
  }
  ASSERT_EQ(problems(r), "") << r.output;
  // Each query answered; the ones about this node and the fleet answered with data.
  std::size_t answered = 0;
  for (std::size_t at = 0; (at = r.output.find("=== ", at)) != std::string::npos; ++at) ++answered;
  EXPECT_EQ(answered, exprs.size());
  EXPECT_NE(r.output.find("=== count(max by (node) (jetgate_evidence_timestamp_seconds)) or "
                          "vector(0)\n{} => 1 @"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("d2d_gbps"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("jetgate:watched_value:own_best{"), std::string::npos) << r.output;
  const std::string log = test::read_file(t.path("ne.log"));
  EXPECT_EQ(log.find("level=error"), std::string::npos) << log;
}

std::string node_modules() {
  const char* env = std::getenv("JETGATE_NODE_MODULES");
  return env && *env ? env : JETGATE_NODE_MODULES;
}

// tsc's verdict on a dashboard as Grafana's published model (@grafana/schema's
// Dashboard type: no JSON schema ships in the package, its TypeScript types are the
// published schema). A value mapping's type is an enum there: written as the enum.
proc::ChildOutcome typecheck(json d, const test::TempDir& t) {
  for (auto& p : d["panels"])
    if (p.contains("fieldConfig") && p["fieldConfig"]["defaults"].contains("mappings"))
      for (auto& m : p["fieldConfig"]["defaults"]["mappings"])
        if (m["type"] == "value") m["type"] = "@MappingType.ValueToText@";
  std::string body = d.dump(2);
  for (std::size_t at; (at = body.find("\"@MappingType.ValueToText@\"")) != std::string::npos;)
    body.replace(at, 27, "MappingType.ValueToText");
  const std::string types =
      node_modules() + "/@grafana/schema/dist/types/raw/dashboard/x/types.gen";
  t.write("check.ts", "import { Dashboard, MappingType } from '" + types +
                          "';\nconst d: Dashboard = " + body + ";\nexport default d;\n");
  return run_tool({"node", node_modules() + "/typescript/bin/tsc", "--noEmit", "--strict",
                   "--skipLibCheck", t.path("check.ts")},
                  180);
}

TEST(Monitoring, DashboardTypeChecksAsGrafanasPublishedDashboardModel) {
  test::TempDir t;
  const json d = json::parse(init::render_grafana_dashboard({}));
  auto o = typecheck(d, t);
  EXPECT_EQ(problems(o), "") << "(@grafana/schema and typescript in " << node_modules()
                             << ": scripts/install-deps.sh, or set JETGATE_NODE_MODULES)";
  // The check can fail: a panel whose position is a word, a variable's unknown key.
  json bad = d;
  bad["panels"][1]["gridPos"]["w"] = "wide";
  EXPECT_EQ(typecheck(bad, t).exit_code, 2);
  bad = d;
  bad["templating"]["list"][1]["definitionn"] = "x";
  EXPECT_EQ(typecheck(bad, t).exit_code, 2);
}

}  // namespace
}  // namespace jetgate
