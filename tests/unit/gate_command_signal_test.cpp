// SPDX-License-Identifier: Apache-2.0
// SIGINT/SIGTERM to `jetgate run` end the gate's whole command (its process
// group), and jetgate still writes evidence that says the run was
// interrupted; a jetgate killed outright leaves "not_run, unfinished"
// evidence, never an older green file (issue 11, classes 1 and 7).
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>

#include "gate_command_support.hpp"
#include "jetgate/evidence/evidence.hpp"

namespace jetgate {
namespace {

using namespace std::chrono_literals;
using test::GateRepo;

// The command starts a grandchild (sleep) and waits: both must go.
const char* kSlowScript = "sleep 300 & echo $! > sleeper.pid; echo $$ > shell.pid; wait";

struct SlowRun {
  GateRepo repo;
  std::unique_ptr<test::BackgroundJetgate> jetgate;
  pid_t sleeper = -1, shell = -1;

  SlowRun() {
    repo.add_shell_gate("slow", kSlowScript);
    jetgate = std::make_unique<test::BackgroundJetgate>(repo.run_args("slow", repo.t.path("ev")),
                                                        std::vector<std::string>{repo.ceiling()});
  }
  bool started() {
    if (!test::wait_for_file(repo.t.path("sleeper.pid")) ||
        !test::wait_for_file(repo.t.path("shell.pid")))
      return false;
    sleeper = test::read_pid(repo.t.path("sleeper.pid"));
    shell = test::read_pid(repo.t.path("shell.pid"));
    return sleeper > 0 && shell > 0;
  }
  ~SlowRun() {
    // Never leave a sleeper behind, whatever the test found.
    for (pid_t p : {sleeper, shell})
      if (p > 0 && test::process_alive(p)) ::kill(p, SIGKILL);
  }
};

void expect_interrupted_run(int sig, const std::string& name) {
  SlowRun run;
  ASSERT_TRUE(run.started()) << run.jetgate->err();
  ASSERT_EQ(::kill(run.jetgate->pid, sig), 0);
  int code = run.jetgate->wait(30s);
  EXPECT_EQ(code, 1) << run.jetgate->out() << run.jetgate->err();
  EXPECT_TRUE(test::wait_until_gone(run.shell, 5s)) << "the command was orphaned";
  EXPECT_TRUE(test::wait_until_gone(run.sleeper, 5s)) << "the command's child was orphaned";
  auto e = evidence::read_evidence(run.repo.t.path("ev/slow.json"));
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->status, evidence::GateStatus::failed);
  EXPECT_EQ(e->extra.value("interrupted", nlohmann::json()), name);
  EXPECT_NE(e->reason.find("interrupted: jetgate received " + name), std::string::npos)
      << e->reason;
  EXPECT_NE(run.jetgate->out().find("slow: failed\n"), std::string::npos) << run.jetgate->out();
  EXPECT_NE(run.jetgate->out().find("  FAIL    run jetgate: interrupted: jetgate received " + name),
            std::string::npos)
      << run.jetgate->out();
}

TEST(GateCommandSignalTest, SigtermStopsTheCommandsGroupAndEvidenceSaysInterrupted) {
  expect_interrupted_run(SIGTERM, "SIGTERM");
}

TEST(GateCommandSignalTest, SigintStopsTheCommandsGroupAndEvidenceSaysInterrupted) {
  expect_interrupted_run(SIGINT, "SIGINT");
}

TEST(GateCommandSignalTest, KilledRunNeverLeavesOlderGreenEvidence) {
  SlowRun run;
  // Green evidence from an earlier run of the same gate (and commit: "local").
  nlohmann::json green = {
      {"schema_version", 1},
      {"gate", "slow"},
      {"status", "passed"},
      {"generated_at", "2026-01-01T00:00:00Z"},
      {"git_sha", "local"},
      {"reason", "ok"},
      {"exit_code", 0},
      {"counts", {{"tests", 1}, {"failures", 0}, {"errors", 0}, {"skipped", 0}}}};
  run.repo.t.write("ev/slow.json", green.dump());
  ASSERT_TRUE(run.started()) << run.jetgate->err();
  ASSERT_EQ(::kill(run.jetgate->pid, SIGKILL), 0);
  EXPECT_EQ(run.jetgate->wait(10s), 128 + SIGKILL);
  auto e = evidence::read_evidence(run.repo.t.path("ev/slow.json"));
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->status, evidence::GateStatus::not_run) << e->reason;
  EXPECT_EQ(e->extra.value("interrupted", nlohmann::json()), "unfinished");
  // SIGKILL cannot be caught: the command's group is ours to end here.
  if (run.shell > 0) ::kill(-run.shell, SIGKILL);
}

}  // namespace
}  // namespace jetgate
