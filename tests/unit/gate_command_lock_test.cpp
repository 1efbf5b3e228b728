// SPDX-License-Identifier: Apache-2.0
// Two `jetgate run` of the same gate at once: the second is refused before it
// runs anything, and never replaces the first one's evidence (issue 11, class 7).
#include <gtest/gtest.h>

#include <filesystem>

#include "gate_command_support.hpp"
#include "jetgate/evidence/evidence.hpp"

namespace jetgate {
namespace {

using namespace std::chrono_literals;

TEST(GateCommandLockTest, SecondRunOfTheSameGateIsRefusedWhileTheFirstRuns) {
  test::GateRepo repo;
  // Each run of the command appends to runs.txt, then waits for "release".
  repo.add_shell_gate(
      "locked", "echo run >> runs.txt; while [ ! -e release ]; do sleep 0.05; done; printf '%s' '" +
                    test::kPassingJunit + "' > report.xml");
  repo.add_shell_gate("other", "printf '%s' '" + test::kPassingJunit + "' > other.xml",
                      "other.xml");
  const auto args = repo.run_args("locked", repo.t.path("ev"));
  test::BackgroundJetgate first(args, {repo.ceiling()});
  ASSERT_TRUE(test::wait_for_file(repo.t.path("runs.txt"))) << first.err();

  test::BackgroundJetgate second(args, {repo.ceiling()});
  int second_code = second.wait(20s);
  // Another gate in the same directory is not held up.
  auto other = repo.run("other");
  repo.t.write("release", "go");
  EXPECT_EQ(first.wait(30s), 0) << first.out() << first.err();

  EXPECT_EQ(second_code, 2) << second.out() << second.err();
  EXPECT_NE(second.err().find("another `jetgate run locked` (pid " + std::to_string(first.pid) +
                              ") is running"),
            std::string::npos)
      << second.err();
  EXPECT_EQ(test::read_file(repo.t.path("runs.txt")), "run\n");  // the second never ran its command
  EXPECT_EQ(other.exit_code, 0) << other.out << other.err;
  auto e = evidence::read_evidence(repo.t.path("ev/locked.json"));
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->status, evidence::GateStatus::passed) << e->reason;

  // The lock goes with the run: the next one is not refused.
  std::filesystem::remove(repo.t.path("runs.txt"));
  auto again = repo.run("locked");
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
}

}  // namespace
}  // namespace jetgate
