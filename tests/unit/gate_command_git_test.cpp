// SPDX-License-Identifier: Apache-2.0
// The commit a gate's evidence names is the one tested (issue 11, class 7):
// a command that commits moves HEAD and fails the gate; uncommitted changes
// to tracked files are recorded as "dirty".
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>

#include "gate_command_support.hpp"
#include "jetgate/evidence/evidence.hpp"
#include "jetgate/evidence/git_sha.hpp"

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
  // ...and says why and what to do, in the evidence and on stderr.
  EXPECT_NE(e->extra["git"]["problem"].get<std::string>().find("is not a git checkout"),
            std::string::npos)
      << e->extra["git"].dump();
  EXPECT_NE(r.err.find("cannot back a claim"), std::string::npos) << r.err;
}

// "detected dubious ownership": what the container lane meets when it runs as
// root over the runner user's checkout. Real git, a checkout owned by another
// user: the state is unknown, the reason names safe.directory, and the
// generated lane's GIT_CONFIG_COUNT/safe.directory makes git answer again.
TEST(GateCommandGitTest, ACheckoutOfAnotherOwnerIsExplainedAndSafeDirectoryFixesIt) {
  if (!have_git()) GTEST_SKIP() << "git is not installed";
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give the checkout to another user";
  GitRepo repo;
  ASSERT_EQ(std::system(("chown -R 65534:65534 '" + repo.t.dir() + "'").c_str()), 0);
  auto refused = evidence::read_git_state_live(repo.t.dir());
  EXPECT_FALSE(refused.dirty.has_value());
  EXPECT_NE(refused.problem.find("safe.directory"), std::string::npos) << refused.problem;
  EXPECT_NE(refused.problem.find("dubious ownership"), std::string::npos) << refused.problem;
  ::setenv("GIT_CONFIG_COUNT", "1", 1);
  ::setenv("GIT_CONFIG_KEY_0", "safe.directory", 1);
  ::setenv("GIT_CONFIG_VALUE_0", repo.t.dir().c_str(), 1);
  auto trusted = evidence::read_git_state_live(repo.t.dir());
  for (const char* v : {"GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0", "GIT_CONFIG_VALUE_0"})
    ::unsetenv(v);
  ASSERT_EQ(std::system(("chown -R 0:0 '" + repo.t.dir() + "'").c_str()), 0);
  EXPECT_EQ(trusted.dirty, std::optional<bool>(false)) << trusted.problem;
  EXPECT_TRUE(trusted.problem.empty()) << trusted.problem;
  EXPECT_EQ(trusted.head, std::optional<std::string>(repo.head));
}

TEST(GateCommandGitTest, EachWayGitCanFailSaysWhatToDo) {
  EXPECT_NE(evidence::git_problem("/src", 128,
                                  "fatal: detected dubious ownership in repository at '/src'\n"
                                  "To add an exception for this directory, call:\n")
                .find("git config --global --add safe.directory /src"),
            std::string::npos);
  EXPECT_NE(
      evidence::git_problem("/src", -1, "execvp: No such file or directory").find("install git"),
      std::string::npos);
  EXPECT_NE(evidence::git_problem("/tmp/x", 128,
                                  "fatal: not a git repository (or any of the parent "
                                  "directories): .git")
                .find("--repo-root"),
            std::string::npos);
  std::string other = evidence::git_problem("/src", 129, "error: unknown option");
  EXPECT_NE(other.find("exit status 129"), std::string::npos) << other;
  EXPECT_NE(other.find("unknown option"), std::string::npos) << other;
  // git's complaint is cut to one line of at most 200 characters.
  EXPECT_LT(evidence::git_problem("/src", 1, std::string(5000, 'x')).size(), 400u);
}

}  // namespace
}  // namespace jetgate
