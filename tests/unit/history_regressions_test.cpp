// SPDX-License-Identifier: Apache-2.0
// `jetgate history regressions` (src/jetgate/history/regressions.cpp, docs/history.md),
// the issue's "done when": a month (30 nights) of a 200-node fleet's evidence, made
// from a real evidence file with seeded noise (history_fleet.hpp), with three planted
// regressions: a bandwidth drop on one node, blocking sync falling back to polling on
// another, a gate that starts failing on a third. Exactly those three are found, each
// since its planted night, and none on the other 197. The Prometheus export is checked
// with promtool; the policy's "regressions" section is validated like the others.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <string>

#include "history_fleet.hpp"
#include "jetgate/history/regressions.hpp"
#include "jetgate/policy/policy.hpp"
#include "jetgate/proc/child.hpp"
#include "jetgate/report/history_text.hpp"
#include "jetgate/report/prometheus.hpp"
#include "test_support.hpp"

namespace jetgate {
namespace {

using test::TempDir;

using test::kDays;
using test::kDropDay;
using test::kDropNode;
using test::kFailDay;
using test::kFailNode;
using test::kNodes;
using test::kPollDay;
using test::kPollNode;

proc::ChildOutcome promtool(const std::string& text) {
  proc::ProcessSpec spec;
  spec.argv = {"promtool", "check", "metrics"};
  spec.stdin_text = text;
  proc::ChildLimits limits;
  limits.timeout = std::chrono::seconds(60);
  return proc::run_process(spec, limits);
}

// The generator fills a dumped template (history_fleet.hpp). Each night must be exactly
// the example document with that night's edits made to the parsed tree: checked here
// against those edits, for each kind of night.
TEST(HistoryRegressions, EachGeneratedNightIsTheExampleWithItsEdits) {
  for (int kind = 0; kind < 4; ++kind) {
    test::NightPlan plan;
    if (kind == 1) plan.bandwidth_factor = 0.7;
    if (kind == 2) plan.polling = true;
    if (kind == 3) plan.failed = true;
    std::mt19937_64 rng(99 + kind), again(99 + kind);
    const auto got = nlohmann::json::parse(test::night_evidence("node-042", 42, 7, plan, rng));

    nlohmann::json want = test::example_evidence();
    std::normal_distribution<double> run_noise(0, 0.01);
    std::mt19937_64 node_rng(42 * 7919 + 17);
    std::normal_distribution<double> node_noise(0, 0.02);
    const double level = 1 + node_noise(node_rng);
    want["lane"] = {{"node", "node-042"}, {"kind", "native"}};
    want["generated_at"] = "2026-11-08T02:42:01Z";
    auto& values = want["probes"]["bandwidth"]["values"];
    for (const char* k :
         {"d2d_gbps", "d2d_copy_engine_gbps", "d2d_sm_copy_gbps", "h2d_gbps", "d2h_gbps"}) {
      double f = level * (1 + run_noise(again));
      if (std::string(k).rfind("d2d", 0) == 0) f *= plan.bandwidth_factor;
      values[k]["value"] = values[k]["value"].get<double>() * f;
    }
    values["d2d_copy_engine_gbps"]["value"] = values["d2d_gbps"]["value"];
    values["d2d_fraction_of_peak"]["value"] = values["d2d_gbps"]["value"].get<double>() /
                                              values["theoretical_gbps"]["value"].get<double>();
    auto& sync = want["probes"]["sync_path"];
    std::uniform_real_distribution<double> small(0.0015, 0.004), busy(0.995, 1.002);
    const double blocking = plan.polling ? busy(again) : small(again);
    sync["values"]["sync_blocking_sync_cpu_fraction"]["value"] = blocking;
    sync["values"]["sync_spin_cpu_fraction"]["value"] = busy(again);
    sync["values"]["sync_yield_cpu_fraction"]["value"] = busy(again);
    for (auto& m : sync["details"]["modes"])
      if (m["mode"] == "blocking_sync") {
        m["wait_cpu_fraction"] = blocking;
        m["wait"] = plan.polling ? "busy-polling" : "interrupt-driven";
      }
    if (plan.polling) {
      sync["status"] = "WARN";
      sync["reason"] = "blocking sync burns CPU: polling fallback";
    }
    if (plan.failed) {
      want["status"] = "failed";
      want["counts"]["failures"] = 1;
      want["reason"] = "1 of 4 tests failed";
    }
    EXPECT_EQ(got, want) << "kind " << kind << ": " << nlohmann::json::diff(want, got).dump();
    EXPECT_EQ(rng(), again()) << "the generator draws what the edits draw, in order";
  }
}

TEST(HistoryRegressions, AMonthOfA200NodeFleetFindsExactlyThePlantedFive) {
  const auto start = std::chrono::steady_clock::now();
  // Generated and ingested once per test binary (history_fleet.hpp), by whichever of
  // the tests that read it runs first.
  const auto& month = test::shared_fleet_month();
  EXPECT_EQ(month.files, static_cast<std::size_t>(test::kFiles));
  EXPECT_EQ(month.added, static_cast<std::size_t>(test::kFiles));
  EXPECT_EQ(month.bad, 0u);
  auto store = history::Store::open(month.db, false);
  ASSERT_TRUE(store.ok()) << store.error().message();
  auto runs = history::load_runs(*store);
  ASSERT_TRUE(runs.ok());
  const auto report = history::find_regressions(*runs);
  EXPECT_EQ(report.nodes, static_cast<std::size_t>(kNodes));
  EXPECT_EQ(report.runs, static_cast<std::size_t>(test::kFiles));
  std::map<std::string, history::Regression> by_node;
  for (const auto& r : report.found) {
    EXPECT_FALSE(by_node.count(r.node)) << "two findings for " << r.node << ": " << r.metric;
    by_node[r.node] = r;
  }
  ASSERT_EQ(report.found.size(), 5u) << [&] {
    std::string s;
    for (const auto& r : report.found)
      s += r.node + " " + r.probe + "/" + r.metric + " " + r.baseline_source + " median " +
           std::to_string(r.baseline_median) + " mad " + std::to_string(r.baseline_mad) +
           " value " + std::to_string(r.value) + " since " + r.first_timestamp + " runs " +
           std::to_string(r.worse_runs) + "\n";
    return s;
  }();
  const auto day = [](int d) { return fmt::format("2026-11-{:02d}", d + 1); };

  const auto& drop = by_node.at(fmt::format("node-{:03d}", kDropNode));
  EXPECT_EQ(drop.kind, history::RegressionKind::drop);
  EXPECT_EQ(drop.probe, "bandwidth");
  EXPECT_EQ(drop.first_timestamp.substr(0, 10), day(kDropDay));
  EXPECT_NE(drop.first_file.find(day(kDropDay)), std::string::npos) << drop.first_file;
  EXPECT_EQ(drop.worse_runs, static_cast<std::size_t>(kDays - kDropDay));
  EXPECT_EQ(drop.baseline_source, "own");
  EXPECT_EQ(drop.baseline_runs, 7u);
  EXPECT_NEAR(drop.value / drop.baseline_median, 0.7, 0.04);
  EXPECT_EQ(drop.unit, drop.metric == "d2d_fraction_of_peak" ? "ratio" : "bytes_per_second");
  // d2d_gbps, d2d_copy_engine_gbps, d2d_sm_copy_gbps and d2d_fraction_of_peak: one finding.
  EXPECT_EQ(drop.also.size(), 3u);
  EXPECT_EQ(drop.metric.rfind("d2d_", 0), 0u) << drop.metric;

  const auto& poll = by_node.at(fmt::format("node-{:03d}", kPollNode));
  EXPECT_EQ(poll.kind, history::RegressionKind::wait_mode);
  EXPECT_EQ(poll.metric, "blocking_sync");
  EXPECT_EQ(poll.baseline_text, "interrupt_driven");
  EXPECT_EQ(poll.value_text, "busy_polling");
  EXPECT_EQ(poll.first_timestamp.substr(0, 10), day(kPollDay));
  EXPECT_TRUE(poll.numeric);  // with the CPU per wait that rose with it
  EXPECT_GT(poll.value, 0.9);
  EXPECT_LT(poll.baseline_median, 0.01);

  const auto& fail = by_node.at(fmt::format("node-{:03d}", kFailNode));
  EXPECT_EQ(fail.kind, history::RegressionKind::gate_failed);
  EXPECT_EQ(fail.gate, "cuda-runtime");
  EXPECT_EQ(fail.first_timestamp.substr(0, 10), day(kFailDay));
  EXPECT_EQ(fail.worse_runs, static_cast<std::size_t>(kDays - kFailDay));

  // Silent: node-120's last night was night 19; now is the newest run (night 29).
  const auto& silent = by_node.at(fmt::format("node-{:03d}", test::kSilentNode));
  EXPECT_EQ(silent.kind, history::RegressionKind::silent);
  EXPECT_EQ(silent.last_timestamp.substr(0, 10), day(test::kSilentDay - 1));
  EXPECT_EQ(silent.gate, "");
  EXPECT_GT(silent.age_seconds, 9 * 86400);
  EXPECT_LT(silent.age_seconds, 11 * 86400);
  EXPECT_EQ(report.silent(), 1u);
  EXPECT_EQ(report.last_seen.size(), static_cast<std::size_t>(kNodes));
  // Below its peers from its first night: node-063, 20% slower than its siblings.
  const auto& slow = by_node.at(fmt::format("node-{:03d}", test::kSlowNode));
  EXPECT_EQ(slow.kind, history::RegressionKind::below_peers);
  EXPECT_EQ(slow.probe, "bandwidth");
  EXPECT_EQ(slow.first_timestamp.substr(0, 10), day(0));
  EXPECT_EQ(slow.baseline_source, "fleet");
  EXPECT_EQ(slow.baseline_runs, static_cast<std::size_t>(kNodes - 1)) << "its peers: all but it";
  EXPECT_NEAR(slow.value / slow.baseline_median, test::kSlowFactor, 0.06);
  EXPECT_EQ(slow.also.size(), 3u);
  // As of night 15 (--now), node-120 is not silent yet and node-017 has not dropped.
  history::FindOptions then;
  then.now = report.now - 14 * 86400;
  const auto earlier = history::find_regressions(*runs, {}, then);
  std::set<std::string> earlier_nodes;
  for (const auto& r : earlier.found) earlier_nodes.insert(r.node);
  EXPECT_EQ(earlier_nodes, (std::set<std::string>{"node-063", "node-088"}));
  EXPECT_EQ(earlier.silent(), 0u);

  // People's units in text and Markdown (GB/s, %, the change in percent), base units in
  // JSON.
  const std::string text = report::render_regressions_text(report);
  EXPECT_NE(text.find(" GB/s (-3"), std::string::npos) << text;
  EXPECT_NE(text.find(" GB/s (MAD "), std::string::npos) << text;
  EXPECT_NE(text.find("CPU per wait 99."), std::string::npos) << text;
  EXPECT_NE(text.find("SILENT node-120"), std::string::npos) << text;
  EXPECT_NE(text.find("BELOW PEERS node-063"), std::string::npos) << text;
  EXPECT_EQ(text.find("bytes_per_second"), std::string::npos) << text;
  EXPECT_EQ(text.find("e+"), std::string::npos) << text;
  const auto j = history::to_json(report, {});
  for (const auto& f : j["regressions"])
    if (f["kind"] == "drop") {
      EXPECT_EQ(f["latest"]["unit"], "bytes_per_second") << f.dump();
    }

  // The export: promtool accepts it, and it names the five.
  const std::string prom = report::render_regressions_prometheus(report);
  auto lint = promtool(prom);
  EXPECT_EQ(lint.kind, proc::ChildOutcome::Kind::exited) << lint.describe();
  EXPECT_EQ(lint.exit_code, 0) << lint.output << lint.error_text << prom;
  EXPECT_NE(prom.find("jetgate_history_regressions 5\n"), std::string::npos) << prom;
  EXPECT_NE(prom.find("jetgate_history_silent_nodes 1\n"), std::string::npos) << prom;
  EXPECT_NE(prom.find("kind=\"silent\"} 1\n"), std::string::npos) << prom;
  EXPECT_NE(prom.find("kind=\"below_peers\"} 1\n"), std::string::npos) << prom;
  EXPECT_NE(prom.find("kind=\"wait_mode\"} 1\n"), std::string::npos) << prom;
  const auto seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Its times are figures, not verdicts: recorded in the JUnit report, never asserted.
  RecordProperty("seconds", std::to_string(seconds));
  RecordProperty("month_build_seconds", std::to_string(month.build_seconds));
}

TEST(HistoryRegressions, ANewNodeIsJudgedByItsPlatformsFleet) {
  TempDir t;
  std::mt19937_64 rng(7);
  for (int n = 0; n < 6; ++n)
    for (int d = 0; d < 8; ++d) {
      test::NightPlan plan;
      // node-005 joins on day 6, already slow.
      if (n == 5 && d < 6) continue;
      if (n == 5) plan.bandwidth_factor = 0.6;
      const std::string node = fmt::format("node-{:03d}", n);
      t.write(fmt::format("ev/{}/{}/cuda-runtime.json", d, node),
              test::night_evidence(node, n, d, plan, rng));
    }
  auto store = history::Store::open(t.path("h.db"), true);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(history::ingest(*store, {t.path("ev")}).ok());
  auto runs = history::load_runs(*store);
  ASSERT_TRUE(runs.ok());
  auto report = history::find_regressions(*runs);
  ASSERT_EQ(report.found.size(), 1u);
  EXPECT_EQ(report.found[0].node, "node-005");
  EXPECT_EQ(report.found[0].baseline_source, "fleet");
  EXPECT_EQ(report.found[0].baseline_runs, 5u);
  EXPECT_EQ(report.found[0].first_timestamp.substr(0, 10), "2026-11-07");
  // Thresholds decide: a drop of 40% is not one when 50% is asked for.
  policy::RegressionThresholds loose;
  loose.drop_fraction = 0.5;
  EXPECT_TRUE(history::find_regressions(*runs, loose).found.empty());
  // Nor before it is confirmed by three runs in a row (it has two).
  policy::RegressionThresholds confirm;
  confirm.confirm_runs = 3;
  EXPECT_TRUE(history::find_regressions(*runs, confirm).found.empty());
}

TEST(HistoryRegressions, CliExitStatusesTextAndPrometheusFile) {
  TempDir t;
  std::mt19937_64 rng(9);
  for (int n = 0; n < 4; ++n)
    for (int d = 0; d < 10; ++d) {
      test::NightPlan plan;
      plan.failed = n == 2 && d >= 8;
      const std::string node = fmt::format("node-{:03d}", n);
      t.write(fmt::format("ev/{}/{}/cuda-runtime.json", d, node),
              test::night_evidence(node, n, d, plan, rng));
    }
  const std::string db = t.path("h.db");
  ASSERT_EQ(test::run_jetgate({"history", "ingest", t.path("ev"), "--db", db}).exit_code, 0);
  auto r = test::run_jetgate(
      {"history", "regressions", "--db", db, "--prometheus", t.path("out/r.prom")});
  EXPECT_EQ(r.exit_code, 2) << "an output directory that does not exist is unusable";
  r = test::run_jetgate({"history", "regressions", "--db", db, "--prometheus", t.path("r.prom")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("REGRESSION node-002"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("since 2026-11-09T02:02:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ev/8/node-002/cuda-runtime.json"), std::string::npos) << r.out;
  const std::string prom = test::read_file(t.path("r.prom"));
  EXPECT_NE(prom.find("jetgate_history_regressions 1\n"), std::string::npos) << prom;
  EXPECT_EQ(promtool(prom).exit_code, 0);
  auto j = test::run_jetgate({"history", "regressions", "--db", db, "--json"});
  EXPECT_EQ(j.exit_code, 1);
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["regressions"].size(), 1u);
  EXPECT_EQ(doc["regressions"][0]["kind"], "gate_failed");
  auto md = test::run_jetgate({"history", "regressions", "--db", db, "--markdown"});
  EXPECT_EQ(md.exit_code, 1);
  EXPECT_NE(md.out.find("| node-002 |"), std::string::npos) << md.out;

  // Thresholds from the policy; a confirmation of 3 runs makes the 2 failed nights none.
  auto policy = nlohmann::json::parse(
      test::read_file(test::source_dir() + "/docs/examples/x86-cuda-policy.json"));
  policy["regressions"] = {{"confirm_runs", 3}};
  t.write("p.json", policy.dump());
  r = test::run_jetgate({"history", "regressions", "--db", db, "--policy", t.path("p.json")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("0 regression(s)"), std::string::npos) << r.out;
  policy["regressions"] = {{"confirm_run", 3}};
  t.write("p.json", policy.dump());
  r = test::run_jetgate({"history", "regressions", "--db", db, "--policy", t.path("p.json")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("did you mean \"confirm_runs\""), std::string::npos) << r.err;

  EXPECT_EQ(test::run_jetgate({"history", "regressions", "--db", t.path("none.db")}).exit_code, 2);
}

TEST(HistoryRegressions, ASilentNodeIsAFindingCountedToTheNewestRunOrNow) {
  TempDir t;
  std::mt19937_64 rng(11);
  for (int n = 0; n < 4; ++n)
    for (int d = 0; d < 10; ++d) {
      if (n == 3 && d > 3) continue;  // node-003's last night is night 3 (2026-11-04)
      const std::string node = fmt::format("node-{:03d}", n);
      t.write(fmt::format("ev/{}/{}/cuda-runtime.json", d, node),
              test::night_evidence(node, n, d, {}, rng));
    }
  const std::string db = t.path("h.db");
  ASSERT_EQ(test::run_jetgate({"history", "ingest", t.path("ev"), "--db", db}).exit_code, 0);
  auto r =
      test::run_jetgate({"history", "regressions", "--db", db, "--prometheus", t.path("r.prom")});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(
      r.out.find("SILENT node-003 (NVIDIA H200 (x86_64)): no evidence for 6.0 days, last seen "
                 "2026-11-04T"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("; 1 silent node(s)"), std::string::npos) << r.out;
  const std::string prom = test::read_file(t.path("r.prom"));
  EXPECT_NE(prom.find("jetgate_history_silent_nodes 1\n"), std::string::npos) << prom;
  EXPECT_NE(
      prom.find(
          "jetgate_history_node_silent{node=\"node-003\",platform=\"NVIDIA H200 (x86_64)\"} 1\n"),
      std::string::npos)
      << prom;
  EXPECT_EQ(promtool(prom).exit_code, 0);
  auto j = test::run_jetgate({"history", "regressions", "--db", db, "--json"});
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["silent"], 1);
  EXPECT_EQ(doc["silent_after_seconds"], 2 * 86400);
  ASSERT_EQ(doc["regressions"].size(), 1u);
  EXPECT_EQ(doc["regressions"][0]["kind"], "silent");
  EXPECT_EQ(doc["last_seen"].size(), 4u);
  // --now: as of 2026-11-05, two days after, no node is silent yet, and the later runs
  // are left out.
  r = test::run_jetgate(
      {"history", "regressions", "--db", db, "--now", "2026-11-05T12:00:00Z", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["silent"], 0);
  EXPECT_EQ(doc["runs"], 4 * 5 - 1);  // node-003 had no night 4
  // The policy's freshness rule is the limit: 14 days, so not silent.
  auto policy = nlohmann::json::parse(
      test::read_file(test::source_dir() + "/docs/examples/x86-cuda-policy.json"));
  policy["maximum_evidence_age_days"] = 14;
  t.write("p.json", policy.dump());
  r = test::run_jetgate({"history", "regressions", "--db", db, "--policy", t.path("p.json")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  r = test::run_jetgate({"history", "regressions", "--db", db, "--now", "yesterday"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--now"), std::string::npos) << r.err;
}

TEST(HistoryRegressions, PolicySectionIsValidatedWithDidYouMean) {
  auto parse = [](const std::string& section) {
    auto text = test::read_file(test::source_dir() + "/docs/examples/x86-cuda-policy.json");
    auto j = nlohmann::json::parse(text);
    j["regressions"] = nlohmann::json::parse(section);
    return policy::parse_policy(j.dump(), "p.json", ".");
  };
  auto ok = parse(R"({"baseline_runs": 10, "drop_fraction": 0.2, "cpu_rise": 0.1})");
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->issues.empty()) << ok->issues.front().line();
  EXPECT_EQ(ok->policy.regressions.baseline_runs, 10);
  EXPECT_DOUBLE_EQ(ok->policy.regressions.drop_fraction, 0.2);
  EXPECT_DOUBLE_EQ(ok->policy.regressions.mad_factor, 4.0);  // the default
  auto lines = [](const policy::LoadedPolicy& p) {
    std::string s;
    for (const auto& i : p.issues) s += i.line() + "\n";
    return s;
  };
  auto typo = parse(R"({"drop_fracton": 0.2})");
  ASSERT_TRUE(typo.ok());
  EXPECT_NE(lines(*typo).find("did you mean \"drop_fraction\""), std::string::npos) << lines(*typo);
  for (const char* bad :
       {R"({"baseline_runs": 0})", R"({"baseline_runs": 2.5})", R"({"drop_fraction": 1.5})",
        R"({"drop_fraction": "10%"})", R"({"mad_factor": -1})", R"({"min_baseline_runs": 9})",
        R"([1])", R"({"confirm_runs": 18446744073709551617})"}) {
    auto p = parse(bad);
    ASSERT_TRUE(p.ok());
    EXPECT_NE(lines(*p).find("regressions"), std::string::npos) << bad;
  }
  auto none = parse("{}");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->issues.empty());
}

}  // namespace
}  // namespace jetgate
