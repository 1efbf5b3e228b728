// SPDX-License-Identifier: Apache-2.0
// The gate's command may only touch its report inside the repository
// (issue 11, class 7): a policy that names a report elsewhere, by an absolute
// path, "..", or a symbolic link, made jetgate delete that file before the run.
#include <gtest/gtest.h>

#include <filesystem>

#include "gate_command_support.hpp"

namespace jetgate {
namespace {

namespace fsys = std::filesystem;
using test::GateRepo;

// The command would leave ran.txt behind: refused gates must not run it.
const std::string kRanScript =
    "echo ran > ran.txt; printf '%s' '" + test::kPassingJunit + "' > report.xml";

struct Refused {
  test::CliRun run;
  bool victim_kept = false, command_ran = false;
};

Refused run_refused(GateRepo& repo, const std::string& junit, const std::string& victim,
                    const std::string& cwd = "") {
  repo.add_shell_gate("confined", kRanScript, junit);
  if (!cwd.empty()) repo.gates.back()["command"]["cwd"] = cwd;
  Refused r;
  r.run = repo.run("confined");
  r.victim_kept = test::read_file(victim) == "keep me";
  r.command_ran = fsys::exists(repo.t.path("ran.txt")) || fsys::exists(fsys::path(cwd) / "ran.txt");
  return r;
}

TEST(GateCommandPathsTest, AbsoluteReportPathOutsideTheRepositoryIsRefusedAndNotDeleted) {
  GateRepo repo;
  test::TempDir outside;
  std::string victim = outside.write("precious.xml", "keep me");
  auto r = run_refused(repo, victim, victim);
  EXPECT_TRUE(r.victim_kept) << "the policy made jetgate delete " << victim;
  EXPECT_EQ(r.run.exit_code, 2) << r.run.out << r.run.err;
  EXPECT_FALSE(r.command_ran);
  EXPECT_NE(r.run.err.find("command.junit"), std::string::npos) << r.run.err;
  EXPECT_NE(r.run.err.find("is an absolute path"), std::string::npos) << r.run.err;
  EXPECT_FALSE(fsys::exists(repo.t.path("ev/confined.json")));  // nothing written either
}

TEST(GateCommandPathsTest, DotDotOutOfTheRepositoryIsRefusedAndNotDeleted) {
  GateRepo repo;
  std::string victim =
      repo.t.write("../" + fsys::path(repo.t.dir()).filename().string() + "-victim.xml", "keep me");
  auto r = run_refused(repo, "../" + fsys::path(victim).filename().string(), victim);
  fsys::remove(victim);
  EXPECT_TRUE(r.victim_kept);
  EXPECT_EQ(r.run.exit_code, 2) << r.run.out << r.run.err;
  EXPECT_FALSE(r.command_ran);
  EXPECT_NE(r.run.err.find("contains \"..\""), std::string::npos) << r.run.err;
}

TEST(GateCommandPathsTest, SymlinkedDirectoryLeadingOutIsRefusedAndNotDeleted) {
  GateRepo repo;
  test::TempDir outside;
  std::string victim = outside.write("precious.xml", "keep me");
  fsys::create_directory_symlink(outside.dir(), repo.t.path("out"));
  auto r = run_refused(repo, "out/precious.xml", victim);
  EXPECT_TRUE(r.victim_kept);
  EXPECT_EQ(r.run.exit_code, 2) << r.run.out << r.run.err;
  EXPECT_FALSE(r.command_ran);
  EXPECT_NE(r.run.err.find("outside the repository"), std::string::npos) << r.run.err;
}

TEST(GateCommandPathsTest, ReportThatIsASymlinkIsRefused) {
  GateRepo repo;
  test::TempDir outside;
  std::string victim = outside.write("precious.xml", "keep me");
  fsys::create_symlink(victim, repo.t.path("report.xml"));
  auto r = run_refused(repo, "report.xml", victim);
  EXPECT_TRUE(r.victim_kept);
  EXPECT_EQ(r.run.exit_code, 2) << r.run.out << r.run.err;
  EXPECT_FALSE(r.command_ran);
  EXPECT_NE(r.run.err.find("is a symbolic link"), std::string::npos) << r.run.err;
}

TEST(GateCommandPathsTest, WorkingDirectoryOutsideTheRepositoryIsRefused) {
  GateRepo repo;
  test::TempDir outside;
  std::string victim = outside.write("report.xml", "keep me");
  auto r = run_refused(repo, "report.xml", victim, outside.dir());
  EXPECT_TRUE(r.victim_kept);
  EXPECT_EQ(r.run.exit_code, 2) << r.run.out << r.run.err;
  EXPECT_FALSE(r.command_ran);
  EXPECT_NE(r.run.err.find("command.cwd"), std::string::npos) << r.run.err;
}

TEST(GateCommandPathsTest, ReportReplacedByALinkDuringTheRunIsNotRead) {
  GateRepo repo;
  test::TempDir outside;
  std::string green = outside.write("green.xml", test::kPassingJunit);
  repo.add_shell_gate("planted", "ln -s '" + green + "' report.xml");
  auto r = repo.run("planted");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("planted: failed"), std::string::npos) << r.out;
}

TEST(GateCommandPathsTest, LinksThatStayInsideTheRepositoryAreFine) {
  GateRepo repo;
  fsys::create_directories(repo.t.path("build/reports"));
  fsys::create_directory_symlink("build/reports", repo.t.path("out"));
  repo.add_shell_gate("inside", "printf '%s' '" + test::kPassingJunit + "' > out/report.xml",
                      "out/report.xml");
  auto r = repo.run("inside");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

}  // namespace
}  // namespace jetgate
