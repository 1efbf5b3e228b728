// SPDX-License-Identifier: Apache-2.0
// The gate's command is untrusted code (issue 21, class 1): nothing it starts
// outlives the run, setsid daemons included, not even when jetgate is killed
// with SIGKILL; the signing key's path never reaches it through the
// environment or jetgate's command line; and with command.user (jetgate as
// root) the tests run as a user that cannot read the key.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "gate_command_support.hpp"
#include "jetgate/evidence/evidence.hpp"
#include "jetgate/gate/command_run.hpp"

namespace jetgate {
namespace {

using namespace std::chrono_literals;
using test::GateRepo;

const std::string kSha = "3f6c2a1b9d8e7f60514233c4b5a69788f0e1d2c3";

std::string junit_line() {
  return "printf '%s' '" + test::kPassingJunit + "' > report.xml";
}

// Waits for FILE to hold a pid, from inside the command's script.
std::string wait_for(const std::string& file) {
  return "while [ ! -s " + file + " ]; do sleep 0.01; done; ";
}

void kill_if_alive(pid_t p) {
  if (p > 0 && test::process_alive(p)) ::kill(p, SIGKILL);
}

TEST(GateCommandContainment, ADaemonTheCommandLeftIsGoneBeforeTheEvidenceIsWritten) {
  GateRepo repo;
  // The daemon leaves the process group and the session (setsid) and would
  // rewrite the evidence once jetgate wrote it.
  repo.add_shell_gate(
      "unit",
      "setsid sh -c 'echo $$ > daemon.pid; while [ ! -s ev/unit.json ] || grep -q unfinished "
      "ev/unit.json; do sleep 0.01; done; sed -i s/failed/passed/ ev/unit.json; "
      "echo rewritten > rewrote' >/dev/null 2>&1 < /dev/null & " +
          wait_for("daemon.pid") +
          "printf '%s' '<testsuite tests=\"1\" failures=\"1\"><testcase name=\"t\"><failure/>"
          "</testcase></testsuite>' > report.xml");
  auto r = repo.run("unit");
  pid_t daemon = test::read_pid(repo.t.path("daemon.pid"));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_GT(daemon, 0);
  if (!test::child_subreaper_supported()) {
    // The emulator cannot contain the daemon; jetgate must say so (stderr and the evidence).
    EXPECT_NE(r.err.find("refused PR_SET_CHILD_SUBREAPER"), std::string::npos) << r.err;
    EXPECT_NE(test::read_file(repo.t.path("ev/unit.json")).find("refused PR_SET_CHILD_SUBREAPER"),
              std::string::npos);
    kill_if_alive(daemon);
    GTEST_SKIP() << "no child subreaper here (qemu-user): containment is tested natively";
  }
  EXPECT_FALSE(test::process_alive(daemon)) << "the setsid daemon outlived the run";
  std::this_thread::sleep_for(200ms);
  EXPECT_FALSE(std::filesystem::exists(repo.t.path("rewrote")));
  auto e = evidence::read_evidence(repo.t.path("ev/unit.json"));
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->status, evidence::GateStatus::failed);
  EXPECT_NE(test::read_file(repo.t.path("ev/unit.log"))
                .find("process(es) running; killed before the evidence was written"),
            std::string::npos)
      << test::read_file(repo.t.path("ev/unit.log"));
  kill_if_alive(daemon);
}

TEST(GateCommandContainment, ACommandThatEndsCleanlyLeavesNothingToReport) {
  GateRepo repo;
  repo.add_shell_gate("unit", junit_line());
  auto r = repo.run("unit");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(test::read_file(repo.t.path("ev/unit.log")).find("left"), std::string::npos);
}

TEST(GateCommandContainment, SigkillOfJetgateEndsTheWholeTreeDaemonsIncluded) {
  if (!test::child_subreaper_supported())
    GTEST_SKIP() << "no child subreaper here (qemu-user): containment is tested natively";
  GateRepo repo;
  repo.add_shell_gate("slow",
                      "setsid sleep 300 >/dev/null 2>&1 < /dev/null & echo $! > daemon.pid; "
                      "sleep 300 & echo $! > sleeper.pid; echo $$ > shell.pid; wait");
  test::BackgroundJetgate jetgate(repo.run_args("slow", repo.t.path("ev")), {repo.ceiling()});
  ASSERT_TRUE(test::wait_for_file(repo.t.path("daemon.pid")));
  ASSERT_TRUE(test::wait_for_file(repo.t.path("sleeper.pid")));
  ASSERT_TRUE(test::wait_for_file(repo.t.path("shell.pid")));
  pid_t daemon = test::read_pid(repo.t.path("daemon.pid"));
  pid_t sleeper = test::read_pid(repo.t.path("sleeper.pid"));
  pid_t shell = test::read_pid(repo.t.path("shell.pid"));
  ASSERT_TRUE(test::process_alive(daemon));
  ASSERT_EQ(::kill(jetgate.pid, SIGKILL), 0);
  EXPECT_EQ(jetgate.wait(10s), 128 + SIGKILL);
  EXPECT_TRUE(test::wait_until_gone(shell, 5s)) << "the command outlived jetgate";
  EXPECT_TRUE(test::wait_until_gone(sleeper, 5s)) << "the command's child outlived jetgate";
  EXPECT_TRUE(test::wait_until_gone(daemon, 5s)) << "the setsid daemon outlived jetgate";
  for (pid_t p : {daemon, sleeper, shell}) kill_if_alive(p);
}

TEST(GateCommandContainment, TheKeysPathReachesNeitherTheEnvironmentNorACommandLine) {
  GateRepo repo;
  // What test code can see of jetgate: its own environment, its parent's and
  // grandparent's command line and environment (the keeper, then jetgate).
  // Under qemu-user /proc shows the emulator's own argv and environment, which
  // jetgate cannot blank (docs/trust.md): only the environment is checked there.
  const std::string proc_out = test::under_emulator() ? "/dev/null" : "seen.txt";
  repo.add_shell_gate("unit",
                      "env > seen.txt; gp=$(awk '{print $4}' /proc/$PPID/stat); "
                      "for p in $PPID $gp; do tr '\\0' ' ' < /proc/$p/cmdline >> " +
                          proc_out + "; tr '\\0' ' ' < /proc/$p/environ >> " + proc_out +
                          " 2>/dev/null; done; " + junit_line());
  ASSERT_EQ(
      test::run_jetgate({"keygen", repo.t.path("secret-runner.key"), "--owner", "o"}).exit_code, 0);
  for (bool by_env : {false, true}) {
    SCOPED_TRACE(by_env ? "JETGATE_SIGNING_KEY" : "--sign-key");
    std::vector<std::string> args = repo.run_args("unit", repo.t.path("ev"));
    std::vector<std::string> env = {repo.ceiling(), "GITHUB_SHA=" + kSha};
    if (by_env)
      env.push_back("JETGATE_SIGNING_KEY=" + repo.t.path("secret-runner.key"));
    else
      args.insert(args.end(), {"--sign-key", repo.t.path("secret-runner.key")});
    std::filesystem::remove(repo.t.path("seen.txt"));
    auto r = test::run_jetgate(args, env);
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_TRUE(std::filesystem::exists(repo.t.path("ev/unit.dsse.json"))) << r.out;
    std::string seen = test::read_file(repo.t.path("seen.txt"));
    if (!test::under_emulator()) {  // it did read them
      EXPECT_NE(seen.find("--evidence-dir"), std::string::npos) << seen;
    }
    EXPECT_EQ(seen.find("secret-runner.key"), std::string::npos) << seen;
    EXPECT_EQ(seen.find("JETGATE_SIGNING_KEY=/"), std::string::npos) << seen;
  }
}

TEST(GateCommandContainment, CommandUserNeedsAnExistingUserThatDoesNotOwnTheKey) {
  policy::CommandSpec spec;
  spec.user = "no-such-user-jetgate";
  auto u = gate::command_user(spec, std::nullopt);
  ASSERT_FALSE(u.ok());
  EXPECT_NE(u.error().what.find("no-such-user-jetgate"), std::string::npos) << u.error().what;
  spec.user.reset();
  auto none = gate::command_user(spec, std::nullopt);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  if (::geteuid() != 0) {
    spec.user = "nobody";
    auto refused = gate::command_user(spec, std::nullopt);
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().what.find("not as root"), std::string::npos) << refused.error().what;
    return;
  }
  spec.user = "nobody";
  auto ok = gate::command_user(spec, 0u);
  ASSERT_TRUE(ok.ok()) << ok.error().what;
  ASSERT_TRUE(ok->has_value());
  EXPECT_EQ((*ok)->name, "nobody");
  auto owns_key = gate::command_user(spec, (*ok)->uid);
  ASSERT_FALSE(owns_key.ok());
  EXPECT_NE(owns_key.error().what.find("owns the signing key"), std::string::npos);
}

// As root: the tests run as nobody, and nobody cannot read root's key.
TEST(GateCommandContainment, CommandUserRunsTheTestsAsAUserThatCannotReadTheKey) {
  if (::geteuid() != 0) GTEST_SKIP() << "command.user needs jetgate to run as root";
  GateRepo repo;
  std::filesystem::create_directories(repo.t.path("keys"));
  ASSERT_EQ(test::run_jetgate({"keygen", repo.t.path("keys/runner.key"), "--owner", "o"}).exit_code,
            0);
  // The repository is the tests' to write; the key stays root's (0600).
  ::chmod(repo.t.dir().c_str(), 0777);
  repo.add_shell_gate("unit", "id -u > uid.txt; echo $HOME > home.txt; cat " +
                                  repo.t.path("keys/runner.key") + " > stolen.txt 2>/dev/null; " +
                                  junit_line());
  repo.gates[0]["command"]["user"] = "nobody";
  std::filesystem::create_directories(repo.t.path("ev"));
  auto r = test::run_jetgate({"run", "unit", "--policy", repo.policy(), "--evidence-dir",
                              repo.t.path("ev"), "--sign-key", repo.t.path("keys/runner.key")},
                             {repo.ceiling(), "GITHUB_SHA=" + kSha});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(test::read_file(repo.t.path("uid.txt")), "65534\n");
  EXPECT_EQ(test::read_file(repo.t.path("home.txt")), "/nonexistent\n");
  EXPECT_EQ(test::read_file(repo.t.path("stolen.txt")), "") << "nobody read root's key";
  EXPECT_TRUE(std::filesystem::exists(repo.t.path("ev/unit.dsse.json")));

  // A key that user owns is refused before anything runs.
  ASSERT_EQ(::chown(repo.t.path("keys/runner.key").c_str(), 65534, 65534), 0);
  std::filesystem::remove(repo.t.path("uid.txt"));
  r = test::run_jetgate({"run", "unit", "--policy", repo.policy(), "--evidence-dir",
                         repo.t.path("ev"), "--sign-key", repo.t.path("keys/runner.key")},
                        {repo.ceiling(), "GITHUB_SHA=" + kSha});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("owns the signing key"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(repo.t.path("uid.txt"))) << "the command ran";
}

// What `run` writes after the command ran (evidence, envelope, log, lock
// files, --junit, --prometheus, --nfd-features) lands in the directories
// named when the run began. The command moves them and leaves links to
// another directory in their place (as root with command.user, one it could
// not write itself): nothing is written, replaced or removed there.
TEST(GateCommandContainment, OutputDirectoriesTheCommandMovesStillReceiveTheOutputs) {
  GateRepo repo;
  std::filesystem::create_directories(repo.t.path("out"));
  std::filesystem::create_directories(repo.t.path("elsewhere"));
  const std::string planted = "not jetgate's\n";
  for (const char* name :
       {"unit.json", "unit.dsse.json", "unit.log", ".unit.lock", "check.xml", "node.prom", "nfd"})
    repo.t.write(std::string("elsewhere/") + name, planted);
  repo.add_shell_gate("unit", junit_line() +
                                  "; mv ev ev.moved && ln -s elsewhere ev && "
                                  "mv out out.moved && ln -s elsewhere out");
  ASSERT_EQ(test::run_jetgate({"keygen", repo.t.path("runner.key"), "--owner", "o"}).exit_code, 0);
  std::vector<std::string> args = repo.run_args("unit", repo.t.path("ev"));
  args.insert(args.end(), {"--sign-key", repo.t.path("runner.key"), "--junit",
                           repo.t.path("out/check.xml"), "--prometheus",
                           repo.t.path("out/node.prom"), "--nfd-features", repo.t.path("out/nfd")});
  auto r = test::run_jetgate(args, {repo.ceiling(), "GITHUB_SHA=" + kSha});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  for (const auto& entry : std::filesystem::directory_iterator(repo.t.path("elsewhere")))
    EXPECT_TRUE(test::read_file(entry.path().string()) == planted)
        << entry.path() << " was written through the link the command left";
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(repo.t.path("elsewhere")),
                          std::filesystem::directory_iterator()),
            7);
  auto e = evidence::read_evidence(repo.t.path("ev.moved/unit.json"));
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->status, evidence::GateStatus::passed);
  for (const char* made : {"ev.moved/unit.dsse.json", "ev.moved/unit.log", "out.moved/check.xml",
                           "out.moved/node.prom", "out.moved/nfd"})
    EXPECT_TRUE(std::filesystem::exists(repo.t.path(made))) << made;
  EXPECT_FALSE(std::filesystem::exists(repo.t.path("ev.moved/.unit.lock")))
      << "the lock file is removed from the directory it was made in";
}

}  // namespace
}  // namespace jetgate
