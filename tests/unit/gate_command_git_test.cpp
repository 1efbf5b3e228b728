// SPDX-License-Identifier: Apache-2.0
// The commit a gate's evidence names is the one tested (issue 11, class 7):
// a command that commits moves HEAD and fails the gate; uncommitted changes
// to tracked files are recorded as "dirty".
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "gate_command_support.hpp"
#include "jetgate/evidence/evidence.hpp"

namespace jetgate {
namespace {

bool have_git() {
  return std::system("git --version >/dev/null 2>&1") == 0;
}

std::string shell_output(const std::string& cmd) {
  std::string out;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    ::pclose(p);
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// A real repository with one commit; the gate writes a passing report.
struct GitRepo : test::GateRepo {
  std::string head;
  GitRepo() : test::GateRepo(false) {
    t.write("README", "hello\n");
    git("init -q && git config user.email t@example.org && git config user.name t && git add "
        "README && "
        "git commit -q -m first");
    head = shell_output("cd '" + t.dir() + "' && git rev-parse HEAD");
  }
  void git(const std::string& args) const {
    ASSERT_EQ(std::system(("cd '" + t.dir() + "' && " + ceiling() + " git " + args).c_str()), 0)
        << args;
  }
  nlohmann::json evidence(const std::string& gate) const {
    auto e = evidence::read_evidence(t.path("ev/" + gate + ".json"));
    EXPECT_TRUE(e.ok()) << e.error().message();
    return e.ok() ? evidence::to_json(*e) : nlohmann::json();
  }
};

const std::string kWriteReport = "printf '%s' '" + test::kPassingJunit + "' > report.xml";

TEST(GateCommandGitTest, CommandThatCommitsFailsAndTheEvidenceNamesTheTestedCommit) {
  if (!have_git()) GTEST_SKIP() << "git is not installed";
  GitRepo repo;
  ASSERT_EQ(repo.head.size(), 40u);
  repo.add_shell_gate("commits", kWriteReport + "; git commit -q --allow-empty -m untested");
  auto r = repo.run("commits");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto j = repo.evidence("commits");
  EXPECT_EQ(j["status"], "failed");
  EXPECT_NE(j["reason"].get<std::string>().find("HEAD moved during the run (from " + repo.head),
            std::string::npos)
      << j["reason"];
  EXPECT_EQ(j["git"]["head_before"], repo.head);
  EXPECT_NE(j["git"]["head_after"], repo.head);
  if (!std::getenv("GITHUB_SHA") && !std::getenv("CI_COMMIT_SHA")) {
    EXPECT_EQ(j["git_sha"], repo.head);
  }
}

TEST(GateCommandGitTest, UncommittedChangesToTrackedFilesAreRecordedAsDirty) {
  if (!have_git()) GTEST_SKIP() << "git is not installed";
  GitRepo repo;
  repo.add_shell_gate("g", kWriteReport);
  repo.policy();  // untracked files (the policy, the report, ev/) do not make a checkout dirty

  auto clean = repo.run("g");
  EXPECT_EQ(clean.exit_code, 0) << clean.out << clean.err;
  EXPECT_EQ(repo.evidence("g")["dirty"], false);

  repo.t.write("README", "changed\n");
  auto dirty = repo.run("g");
  EXPECT_EQ(dirty.exit_code, 0) << dirty.out
                                << dirty.err;  // the gate's verdict; claims refuse dirty evidence
  EXPECT_EQ(repo.evidence("g")["dirty"], true);
  EXPECT_NE(dirty.err.find("uncommitted changes"), std::string::npos) << dirty.err;

  repo.git("add README");  // staged but not committed is still not the commit
  repo.run("g");
  EXPECT_EQ(repo.evidence("g")["dirty"], true);

  // A command that changes tracked files makes the run dirty as well.
  repo.git("commit -q -m second");
  repo.gates.clear();
  repo.add_shell_gate("g", kWriteReport + "; echo more >> README");
  repo.run("g");
  EXPECT_EQ(repo.evidence("g")["dirty"], true);
}

TEST(GateCommandGitTest, OutsideGitDirtyIsNull) {
  test::GateRepo repo;  // a .git directory git does not accept
  repo.add_shell_gate("g", kWriteReport);
  auto r = repo.run("g");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto e = evidence::read_evidence(repo.t.path("ev/g.json"));
  ASSERT_TRUE(e.ok());
  ASSERT_TRUE(e->extra.contains("dirty"));
  EXPECT_TRUE(e->extra["dirty"].is_null());
}

}  // namespace
}  // namespace jetgate
