// SPDX-License-Identifier: Apache-2.0
// Outputs are checked before anything runs (issue 11, class 10): an evidence
// directory that cannot be used is exit 2 in a second, not after a 30-minute
// test command whose result is then lost.
#include <gtest/gtest.h>

#include <filesystem>

#include "gate_command_support.hpp"

namespace jetgate {
namespace {

namespace fsys = std::filesystem;

TEST(GateCommandOutputsTest, UnusableEvidenceDirectoryIsRefusedBeforeTheCommandRuns) {
  test::GateRepo repo;
  repo.add_shell_gate(
      "g", "echo ran >> ran.txt; printf '%s' '" + test::kPassingJunit + "' > report.xml");
  std::string a_file = repo.t.write("a-file", "x");
  struct Case {
    std::string dir, expect;
  } cases[] = {
      {"", "empty path"},
      {repo.t.path("no/such/parent/ev"), "parent directory"},
      {a_file, "not a directory"},
      {"/proc/self/jetgate-evidence", "cannot"},
  };
  for (const auto& c : cases) {
    auto r = test::run_jetgate(repo.run_args("g", c.dir), {repo.ceiling()});
    EXPECT_EQ(r.exit_code, 2) << c.dir << ": " << r.out << r.err;
    EXPECT_FALSE(fsys::exists(repo.t.path("ran.txt"))) << c.dir << ": the command ran first";
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << c.dir << ": " << r.err;
    fsys::remove(repo.t.path("ran.txt"));
  }
  EXPECT_FALSE(fsys::exists(repo.t.path("no")));
  // One new level is created, as before.
  auto ok = test::run_jetgate(repo.run_args("g", repo.t.path("new-ev")), {repo.ceiling()});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
}

}  // namespace
}  // namespace jetgate
