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
#include <random>
#include <string>

#include "history_fleet.hpp"
#include "jetgate/history/regressions.hpp"
#include "jetgate/policy/policy.hpp"
#include "jetgate/proc/child.hpp"
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

std::string fleet(const TempDir& t) {
  return test::write_fleet_month(t);
}

proc::ChildOutcome promtool(const std::string& text) {
  proc::ProcessSpec spec;
  spec.argv = {"promtool", "check", "metrics"};
  spec.stdin_text = text;
  proc::ChildLimits limits;
  limits.timeout = std::chrono::seconds(60);
  return proc::run_process(spec, limits);
}

TEST(HistoryRegressions, AMonthOfA200NodeFleetFindsExactlyThePlantedThree) {
  TempDir t;
  const auto start = std::chrono::steady_clock::now();
  const std::string dir = fleet(t);
  auto store = history::Store::open(t.path("h.db"), true);
  ASSERT_TRUE(store.ok());
  history::IngestOptions o;
  o.batch = 1000;
  auto in = history::ingest(*store, {dir}, o);
  ASSERT_TRUE(in.ok()) << in.error().message();
  EXPECT_EQ(in->added, static_cast<std::size_t>(kNodes * kDays));
  EXPECT_TRUE(in->bad.empty());
  auto runs = history::load_runs(*store);
  ASSERT_TRUE(runs.ok());
  const auto report = history::find_regressions(*runs);
  EXPECT_EQ(report.nodes, static_cast<std::size_t>(kNodes));
  EXPECT_EQ(report.runs, static_cast<std::size_t>(kNodes * kDays));
  std::map<std::string, history::Regression> by_node;
  for (const auto& r : report.found) {
    EXPECT_FALSE(by_node.count(r.node)) << "two findings for " << r.node << ": " << r.metric;
    by_node[r.node] = r;
  }
  ASSERT_EQ(report.found.size(), 3u) << [&] {
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

  // The export: promtool accepts it, and it names the three.
  const std::string prom = report::render_regressions_prometheus(report);
  auto lint = promtool(prom);
  EXPECT_EQ(lint.kind, proc::ChildOutcome::Kind::exited) << lint.describe();
  EXPECT_EQ(lint.exit_code, 0) << lint.output << lint.error_text << prom;
  EXPECT_NE(prom.find("jetgate_history_regressions 3\n"), std::string::npos) << prom;
  EXPECT_NE(prom.find("kind=\"wait_mode\"} 1\n"), std::string::npos) << prom;
  const auto seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // Its time is a figure, not a verdict (about 8 s at -O1, 200 s under ASan at -O0):
  // recorded in the JUnit report, never asserted.
  RecordProperty("seconds", std::to_string(seconds));
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
