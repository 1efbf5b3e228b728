// SPDX-License-Identifier: Apache-2.0
// One verdict per board and lane: evidence records the node and lane that
// made it; every board and lane is judged on its own and the worst decides;
// the next step names the failing board's evidence directory; two runs that
// share the command's JUnit report never read each other's.
#include <gtest/gtest.h>

#include <deque>
#include <filesystem>
#include <string>
#include <vector>

#include "claims_test_helpers.hpp"
#include "gate_command_support.hpp"
#include "jetgate/claims/gate_decision.hpp"
#include "jetgate/gate/gate_runner.hpp"

namespace jetgate::claims {
namespace {

using namespace std::chrono_literals;

JudgeRules rules_today() {
  JudgeRules r;
  r.today = *evidence::parse_iso_date("2026-11-29");
  return r;
}

nlohmann::json on_lane(const char* ts, const char* node, const char* kind, const char* status) {
  nlohmann::json patch = {{"status", status}};
  if (node) patch["lane"] = {{"node", node}, {"kind", kind}};
  if (std::string(status) == "failed")
    patch["counts"] = {{"tests", 12}, {"failures", 1}, {"errors", 0}, {"skipped", 0}};
  return test::orin_evidence_json(ts, patch);
}

GateEntry decide(const std::vector<LoadedEvidence>& files) {
  // The entry points into its set, so each set lives as long as the test binary.
  static std::deque<EvidenceSet> kept;
  return decide_gate(kept.emplace_back(judge_set(files, rules_today())), "jetson-cuda-runtime");
}

std::string lane_of_loaded(const LoadedEvidence& le) {
  return lane_of(le.file, le.evidence.extra);
}

TEST(BoardLane, TwoIdenticalBoardsAreJudgedEachOnItsOwn) {
  // Board b fails first, board a passes later: the newest-per-platform rule
  // alone would say green.
  std::vector<LoadedEvidence> files = {
      test::loaded("ev/jetson-cuda-runtime.json",
                   on_lane("2026-11-29T08:00:00Z", "orin-b", "native", "failed")),
      test::loaded("ev2/jetson-cuda-runtime.json",
                   on_lane("2026-11-29T09:00:00Z", "orin-a", "native", "passed"))};
  auto g = decide(files);
  EXPECT_EQ(g.verdict.state, GateState::failed);
  EXPECT_EQ(g.file, "ev/jetson-cuda-runtime.json");
  // The same board's newer pass does replace its own older failure.
  files.push_back(test::loaded("ev3/jetson-cuda-runtime.json",
                               on_lane("2026-11-29T10:00:00Z", "orin-b", "native", "passed")));
  EXPECT_EQ(decide(files).verdict.state, GateState::fresh_green);
}

TEST(BoardLane, TheContainerLaneOfABoardIsItsOwnLane) {
  std::vector<LoadedEvidence> files = {
      test::loaded("c/jetson-cuda-runtime.json",
                   on_lane("2026-11-29T08:00:00Z", "orin-a", "container", "failed")),
      test::loaded("n/jetson-cuda-runtime.json",
                   on_lane("2026-11-29T09:00:00Z", "orin-a", "native", "passed"))};
  auto g = decide(files);
  EXPECT_EQ(g.verdict.state, GateState::failed);
  EXPECT_EQ(g.file, "c/jetson-cuda-runtime.json");
  EXPECT_EQ(lane_of_loaded(files[0]), "node orin-a (container)");
}

TEST(BoardLane, WithoutANodeTheDirectoryTellsLanesApart) {
  std::vector<LoadedEvidence> files = {
      test::loaded("conditional-evidence/agx-orin-container/jetson-cuda-runtime.json",
                   on_lane("2026-11-29T08:00:00Z", nullptr, nullptr, "failed")),
      test::loaded("conditional-evidence/agx-orin/jetson-cuda-runtime.json",
                   on_lane("2026-11-29T09:00:00Z", nullptr, nullptr, "passed"))};
  EXPECT_EQ(decide(files).verdict.state, GateState::failed);
  EXPECT_EQ(lane_of_loaded(files[1]), "directory conditional-evidence/agx-orin (native)");
  // One directory, one lane: the newest of it decides.
  std::vector<LoadedEvidence> one = {
      test::loaded("a.json", on_lane("2026-11-29T08:00:00Z", nullptr, nullptr, "failed")),
      test::loaded("b.json", on_lane("2026-11-29T09:00:00Z", nullptr, nullptr, "passed"))};
  EXPECT_EQ(decide(one).verdict.state, GateState::fresh_green);
}

TEST(BoardLaneCli, CheckNamesTheFailingBoardsEvidenceDirectory) {
  test::TempDir t;
  t.write("policy.json", R"({"schema_version": 1, "owner": "o", "cadence": "c",
    "evidence_retention_days": 9, "maximum_evidence_age_days": 9,
    "gates": [{"id": "jetson-cuda-runtime", "job": "j", "marker": "jetson", "runner": "r",
               "prerequisites": [], "expected_cost": "low", "coverage_paths": ["src/main.py"]}]})");
  t.write("good/jetson-cuda-runtime.json",
          on_lane("2026-11-29T09:00:00Z", "orin-a", "native", "passed").dump());
  t.write("bad/jetson-cuda-runtime.json",
          on_lane("2026-11-29T08:00:00Z", "orin-b", "native", "failed").dump());
  t.write("empty/.keep", "");
  t.write("src/main.py", "");  // the gate's coverage path
  auto r = test::run_jetgate({"check", "--policy", t.path("policy.json"), "--repo-root", t.dir(),
                              "--evidence-dir", t.path("good"), "--evidence-dir", t.path("bad"),
                              "--evidence-dir", t.path("empty"), "--candidate-sha",
                              "3f1c2a9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39", "--today", "2026-11-29",
                              "--json"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto doc = nlohmann::json::parse(r.out);
  bool named_bad = false, named_empty = false;
  for (const auto& v : doc["violations"]) {
    std::string line = v["line"];
    if (v["gate"] == "jetson-cuda-runtime") {
      EXPECT_NE(line.find("--evidence-dir " + t.path("bad")), std::string::npos) << line;
      named_bad = true;
    }
    if (line.find(t.path("empty")) != std::string::npos &&
        line.find("holds no evidence") != std::string::npos)
      named_empty = true;
  }
  EXPECT_TRUE(named_bad) << r.out;
  EXPECT_TRUE(named_empty) << r.out;
}

TEST(BoardLaneCli, RunRecordsTheNodeAndLane) {
  test::GateRepo repo;
  repo.add_shell_gate("unit", "printf '%s' '" + test::kPassingJunit + "' > report.xml");
  auto by_option = test::run_jetgate(
      [&] {
        auto a = repo.run_args("unit", repo.t.path("ev"));
        a.insert(a.end(), {"--node", "orin-lab-3"});
        return a;
      }(),
      {repo.ceiling()});
  ASSERT_NE(by_option.exit_code, 2) << by_option.err;
  auto e = nlohmann::json::parse(test::read_file(repo.t.path("ev/unit.json")));
  EXPECT_EQ(e["lane"]["node"], "orin-lab-3");
  EXPECT_TRUE(e["lane"]["kind"] == "native" || e["lane"]["kind"] == "container");
  auto by_env = repo.run("unit", {"RUNNER_NAME=gh-runner-7"});
  ASSERT_NE(by_env.exit_code, 2) << by_env.err;
  e = nlohmann::json::parse(test::read_file(repo.t.path("ev/unit.json")));
  EXPECT_EQ(e["lane"]["node"], "gh-runner-7");
  auto bad = test::run_jetgate(
      [&] {
        auto a = repo.run_args("unit", repo.t.path("ev"));
        a.insert(a.end(), {"--node", "evil\x1b[31m"});
        return a;
      }(),
      {repo.ceiling()});
  EXPECT_EQ(bad.exit_code, 2) << bad.out << bad.err;
  EXPECT_NE(bad.err.find("--node"), std::string::npos) << bad.err;
}

// The names of the report lock files (*.jetgate.lock) anywhere under DIR.
std::vector<std::string> locks_under(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.size() > 13 && name.compare(name.size() - 13, 13, ".jetgate.lock") == 0)
      names.push_back(name);
  }
  return names;
}

// Two runs of one gate into different evidence directories share the
// command's JUnit report: while one runs, the other is refused.
TEST(BoardLaneCli, TwoRunsNeverReadEachOthersJunitReport) {
  test::GateRepo repo;
  repo.add_shell_gate("unit", "echo started > started; sleep 2; printf '%s' '" +
                                  test::kPassingJunit + "' > report.xml");
  test::BackgroundJetgate first(repo.run_args("unit", repo.t.path("ev-a")), {repo.ceiling()});
  ASSERT_TRUE(test::wait_for_file(repo.t.path("started")));
  const auto seen_while_running = locks_under(repo.t.dir());
  auto second = test::run_jetgate(repo.run_args("unit", repo.t.path("ev-b")), {repo.ceiling()});
  EXPECT_EQ(second.exit_code, 2) << second.out << second.err;
  EXPECT_NE(second.err.find("writes this JUnit report"), std::string::npos) << second.err;
  EXPECT_FALSE(std::filesystem::exists(repo.t.path("ev-b/unit.json")));
  EXPECT_GE(first.wait(60s), 0);
  // Once the first is done, the second runs.
  auto again = test::run_jetgate(repo.run_args("unit", repo.t.path("ev-b")), {repo.ceiling()});
  EXPECT_NE(again.exit_code, 2) << again.err;
  // The report's lock file existed while a run held it, and none is left in the checkout.
  EXPECT_EQ(locks_under(repo.t.dir()), std::vector<std::string>{}) << "left behind";
  EXPECT_EQ(seen_while_running, std::vector<std::string>{".report.xml.jetgate.lock"});
}

}  // namespace
}  // namespace jetgate::claims
