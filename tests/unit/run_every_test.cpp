// SPDX-License-Identifier: Apache-2.0
// `jetgate run GATE --every DURATION`: the DaemonSet's validator is one jetgate
// process, no shell (issue 40). A failing run never ends it; each run's
// evidence is kept dated under EVIDENCE_DIR/runs and only the last --keep stay;
// SIGTERM stops the running command and jetgate exits 0 well inside a pod's
// default grace period (30 s); arguments that cannot work stop it at once.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <thread>

#include "gate_command_support.hpp"
#include "jetgate/evidence/evidence.hpp"

namespace jetgate {
namespace {

using namespace std::chrono_literals;
using test::GateRepo;
namespace stdfs = std::filesystem;

std::vector<std::string> every_args(const GateRepo& repo, const std::string& gate,
                                    std::vector<std::string> more) {
  auto args = repo.run_args(gate, repo.t.path("ev"));
  args.push_back("--quiet");
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::size_t lines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (stdfs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

bool wait_for(const std::function<bool()>& done, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return done();
}

TEST(RunEvery, AFailingRunNeverEndsTheLoopAndOnlyTheLastKeepRunsStay) {
  GateRepo repo;
  // Fails every time (no JUnit report, exit 3); counts its runs.
  repo.add_shell_gate("unit", "echo run >> count.txt; exit 3");
  stdfs::create_directories(repo.t.path("ev/runs/keepme"));
  // Near-misses of a run stamp: never removed by pruning.
  stdfs::create_directories(repo.t.path("ev/runs/20000101T000000Zx"));
  stdfs::create_directories(repo.t.path("ev/runs/2000010T1000000Z"));
  stdfs::create_directories(repo.t.path("m"));
  test::BackgroundJetgate j(every_args(repo, "unit",
                                       {"--every", "1s", "--jitter", "0s", "--keep", "2",
                                        "--prometheus", repo.t.path("m/unit.prom")}),
                            {repo.ceiling()});
  ASSERT_TRUE(wait_for([&] { return lines(test::read_file(repo.t.path("count.txt"))) >= 4; }, 30s))
      << j.err();
  EXPECT_TRUE(test::process_alive(j.pid)) << "a failed run ended the loop: " << j.err();
  ASSERT_EQ(::kill(j.pid, SIGTERM), 0);
  EXPECT_EQ(j.wait(20s), 0) << j.err();
  EXPECT_NE(j.err().find("run 1 exited 1 (failed)"), std::string::npos) << j.err();
  EXPECT_NE(j.err().find("run 3 exited 1 (failed)"), std::string::npos) << j.err();
  EXPECT_NE(j.err().find("stopped by SIGTERM"), std::string::npos) << j.err();

  auto names = entries(repo.t.path("ev/runs"));
  std::vector<std::string> stamps;
  for (const auto& n : names)
    if (n != "keepme" && n != "20000101T000000Zx" && n != "2000010T1000000Z") stamps.push_back(n);
  ASSERT_EQ(stamps.size(), 2u) << "kept: " << ::testing::PrintToString(names);
  for (const auto& s : stamps) {
    EXPECT_EQ(s.size(), 16u) << s;
    auto e = evidence::read_evidence(repo.t.path("ev/runs/" + s + "/unit.json"));
    ASSERT_TRUE(e.ok()) << s << ": " << e.error().message();
    EXPECT_EQ(e->gate, "unit");
    EXPECT_EQ(e->status, evidence::GateStatus::failed);
  }
  EXPECT_TRUE(stdfs::is_directory(repo.t.path("ev/runs/keepme")));
  EXPECT_TRUE(stdfs::is_directory(repo.t.path("ev/runs/20000101T000000Zx")));
  EXPECT_TRUE(stdfs::is_directory(repo.t.path("ev/runs/2000010T1000000Z")));
  // Every complete run rewrote the textfile.
  EXPECT_NE(test::read_file(repo.t.path("m/unit.prom")).find("jetgate_gate_status"),
            std::string::npos);
}

TEST(RunEvery, SigtermStopsTheRunningCommandWellInsideAPodsGracePeriod) {
  GateRepo repo;
  repo.add_shell_gate("slow", "sleep 300 & echo $! > sleeper.pid; wait");
  test::BackgroundJetgate j(every_args(repo, "slow",
                                       {"--every", "6h", "--prometheus", repo.t.path("unit.prom"),
                                        "--nfd-features", repo.t.path("labels")}),
                            {repo.ceiling()});
  ASSERT_TRUE(test::wait_for_file(repo.t.path("sleeper.pid"))) << j.err();
  const pid_t sleeper = test::read_pid(repo.t.path("sleeper.pid"));
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(::kill(j.pid, SIGTERM), 0);
  const int code = j.wait(30s);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(code, 0) << j.err();
  // The command's grace is 5 s; a pod gets 30 s before SIGKILL.
  EXPECT_LT(took, 15s) << std::chrono::duration_cast<std::chrono::milliseconds>(took).count();
  EXPECT_TRUE(test::wait_until_gone(sleeper, 5s)) << "the command's child was orphaned";
  if (sleeper > 0 && test::process_alive(sleeper)) ::kill(sleeper, SIGKILL);
  auto e = evidence::read_evidence(repo.t.path("ev/slow.json"));
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->extra.value("interrupted", nlohmann::json()), "SIGTERM");
  // The cut-short run's evidence says so, but it is not kept for the history (runs/ holds
  // complete runs only: a drain is no failure of the node) and publishes no labels or
  // metrics.
  EXPECT_TRUE(entries(repo.t.path("ev/runs")).empty());
  EXPECT_NE(j.err().find("run 1 was cut short by SIGTERM"), std::string::npos) << j.err();
  EXPECT_FALSE(stdfs::exists(repo.t.path("unit.prom")));
  EXPECT_FALSE(stdfs::exists(repo.t.path("labels")));
  EXPECT_NE(j.err().find("the run was cut short"), std::string::npos) << j.err();
}

// SIGTERM while a CUDA probe's child runs (a kernel that never returns): the probe says it
// was stopped and measured nothing, not that the GPU hung, and no run is kept for history.
TEST(RunEvery, SigtermDuringAProbeIsNotAGpuFault) {
  GateRepo repo(/*fake_git=*/false);
  repo.gates.push_back(
      {{"id", "gpu"},
       {"probes", nlohmann::json::array({{{"probe", "launch"}, {"status", "PASS"}}})}});
  const std::string mark = repo.t.path("launched");
  test::BackgroundJetgate j(
      every_args(repo, "gpu", {"--every", "6h", "--repo-root", repo.t.dir()}),
      {repo.ceiling(), std::string("JETGATE_CUDA_DRIVER=") + JETGATE_FAKE_CUDA,
       "FAKE_CUDA_MODE=launch_hangs", "FAKE_CUDA_MARK=" + mark});
  ASSERT_TRUE(test::wait_for_file(mark)) << j.err();
  ASSERT_EQ(::kill(j.pid, SIGTERM), 0);
  EXPECT_EQ(j.wait(30s), 0) << j.err();
  auto e = evidence::read_evidence(repo.t.path("ev/gpu.json"));
  ASSERT_TRUE(e.ok()) << e.error().message();
  const std::string reason = e->extra["probes"]["launch"].value("reason", "");
  EXPECT_NE(reason.find("not measured"), std::string::npos) << reason;
  EXPECT_EQ(reason.find("hung or crashed"), std::string::npos) << reason;
  EXPECT_TRUE(entries(repo.t.path("ev/runs")).empty());
}

TEST(RunEvery, SigtermBetweenRunsEndsAtOnce) {
  GateRepo repo;
  repo.add_shell_gate("unit", "printf '%s' '" + test::kPassingJunit + "' > report.xml");
  test::BackgroundJetgate j(every_args(repo, "unit", {"--every", "1h"}), {repo.ceiling()});
  ASSERT_TRUE(wait_for([&] { return j.err().find("next run in") != std::string::npos; }, 30s))
      << j.err();
  EXPECT_NE(j.err().find("run 1 exited 0 (passed)"), std::string::npos) << j.err();
  // The default jitter is a tenth of the period.
  EXPECT_NE(j.err().find("every 1h (jitter 6m)"), std::string::npos) << j.err();
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(::kill(j.pid, SIGTERM), 0);
  EXPECT_EQ(j.wait(10s), 0) << j.err();
  EXPECT_LT(std::chrono::steady_clock::now() - start, 3s);
  EXPECT_NE(j.err().find("stopped by SIGTERM between runs"), std::string::npos) << j.err();
}

TEST(RunEvery, ArgumentsThatCannotWorkStopItAtTheStart) {
  GateRepo repo;
  repo.add_shell_gate("unit", "echo ran > ran.txt; exit 0");
  const std::vector<std::vector<std::string>> bad = {
      {"--every", "0s"},
      {"--every", "5"},
      {"--every", "5x"},
      {"--every", "1h1h"},
      {"--every", "1m1h"},
      {"--every", "-1h"},
      {"--every", "367d"},
      {"--every", "9999999999s"},
      {"--every", "1h", "--jitter", "2h"},
      {"--every", "1h", "--jitter", "often"},
      {"--every", "1h", "--keep", "0"},
      {"--every", "1h", "--dry-run"},
      {"--jitter", "1m"},
      {"--keep", "3"},
  };
  for (const auto& b : bad) {
    auto r = test::run_jetgate(every_args(repo, "unit", b), {repo.ceiling()});
    EXPECT_EQ(r.exit_code, 2) << ::testing::PrintToString(b) << r.err;
    EXPECT_FALSE(stdfs::exists(repo.t.path("ran.txt"))) << ::testing::PrintToString(b);
  }
  auto no_gate = test::run_jetgate(
      {"run", "nope", "--policy", repo.policy(), "--every", "1h", "--quiet"}, {repo.ceiling()});
  EXPECT_EQ(no_gate.exit_code, 2) << no_gate.err;
  EXPECT_NE(no_gate.err.find("no gate \"nope\""), std::string::npos) << no_gate.err;
}

// A node validator (--host-root) is judged as a node: no git warning for a gate without a
// command, and a driver that did not load is explained as the pod's injection.
TEST(NodeValidator, NoGitWarningAndAMissingDriverNamesThePodsInjection) {
  GateRepo repo(/*fake_git=*/false);
  repo.gates.push_back(
      {{"id", "node"},
       {"probes", nlohmann::json::array({{{"probe", "launch"}, {"status", "PASS"}}})}});
  const std::vector<std::string> env = {repo.ceiling(),
                                        "JETGATE_CUDA_DRIVER=/nonexistent/libcuda.so.1"};
  // --repo-root: the scratch directory, not a checkout found above it (ctest's scratch
  // directories are inside the build tree, which a fresh clone has inside a checkout).
  auto pod = test::run_jetgate(
      {"run", "node", "--policy", repo.policy(), "--evidence-dir", repo.t.path("ev"), "--quiet",
       "--host-root", "/", "--repo-root", repo.t.dir()},
      env);
  EXPECT_EQ(pod.exit_code, 1) << pod.err;
  EXPECT_EQ(pod.err.find("git"), std::string::npos) << pod.err;
  EXPECT_NE(pod.err.find("CDI annotation"), std::string::npos) << pod.err;
  EXPECT_NE(pod.err.find("nvidia.com/gpu resource"), std::string::npos) << pod.err;
  // The same gate run as a CI lane (no --host-root): git's warning stays; the pod advice
  // comes only where the lane itself runs in a container (/platform/container/detected:
  // a CI job in a Docker container has /.dockerenv), as does its note in the evidence.
  auto lane =
      test::run_jetgate({"run", "node", "--policy", repo.policy(), "--evidence-dir",
                         repo.t.path("ev2"), "--quiet", "--json", "--repo-root", repo.t.dir()},
                        env);
  EXPECT_EQ(lane.exit_code, 1) << lane.err;
  EXPECT_NE(lane.err.find("git"), std::string::npos) << lane.err;
  const auto doc = nlohmann::json::parse(lane.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << lane.out;
  const bool contained = doc["platform"]["container"].value("detected", false);
  EXPECT_EQ(lane.err.find("CDI annotation") != std::string::npos, contained) << lane.err;
  EXPECT_EQ(doc.value("notes", nlohmann::json::array()).dump().find("runtimeClassName") !=
                std::string::npos,
            contained)
      << doc.value("notes", nlohmann::json::array()).dump();
}

}  // namespace
}  // namespace jetgate
