// SPDX-License-Identifier: Apache-2.0
// Every next step jetgate suggests is a command that runs as written: it
// carries the --policy and --evidence-dir the user gave, and a shell that
// pastes it gets a gate run, not a usage error.
#include "jetgate/claims/next_steps.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "test_support.hpp"

namespace jetgate::claims {
namespace {

// The text between the first pair of backticks: the command to paste.
std::string command_in(const std::string& next) {
  auto a = next.find('`');
  auto b = next.find('`', a + 1);
  if (a == std::string::npos || b == std::string::npos) return {};
  return next.substr(a + 1, b - a - 1);
}

// Runs a suggested `jetgate ...` line through /bin/sh, with the built binary first on PATH.
test::CliRun run_in_shell(const std::string& line, const std::string& cwd) {
  std::string bin_dir = std::filesystem::path(test::jetgate_command()).parent_path().string();
  std::string script =
      "cd " + shell_quote(cwd) + " && PATH=" + shell_quote(bin_dir) + ":\"$PATH\" " + line;
  test::TempDir out;
  std::string cmd =
      "/bin/sh -c " + shell_quote(script) + " >" + out.path("o") + " 2>" + out.path("e");
  int rc = std::system(cmd.c_str());
  test::CliRun r;
  r.exit_code = WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
  r.out = test::read_file(out.path("o"));
  r.err = test::read_file(out.path("e"));
  return r;
}

TEST(NextSteps, ShellQuotingKeepsEveryWordOneWord) {
  EXPECT_EQ(shell_quote("ci/policy.json"), "ci/policy.json");
  EXPECT_EQ(shell_quote("my dir/p.json"), "'my dir/p.json'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("$(rm -rf ~)"), "'$(rm -rf ~)'");
  EXPECT_EQ(shell_quote(""), "''");
}

// The tests below run `jetgate` by name through a shell; on a cross-built run that
// name is the emulator wrapper, which must start the very binary run_jetgate starts.
TEST(NextSteps, JetgateByNameInAShellIsTheBuiltBinary) {
  test::TempDir t;
  auto by_name = run_in_shell("jetgate --version", t.dir());
  auto direct = test::run_jetgate({"--version"});
  ASSERT_EQ(by_name.exit_code, 0) << by_name.err;
  ASSERT_EQ(direct.exit_code, 0) << direct.err;
  EXPECT_FALSE(direct.out.empty());
  EXPECT_EQ(by_name.out, direct.out);
  EXPECT_EQ(std::filesystem::path(test::jetgate_command()).filename(), "jetgate");
}

TEST(NextSteps, CommandsCarryThePolicyAndEvidenceDirGiven) {
  CommandContext ctx{"ci/my policy.json", {"out/evidence", "other"}};
  EXPECT_EQ(run_command("cuda-runtime", ctx),
            "jetgate run cuda-runtime --policy 'ci/my policy.json' --evidence-dir out/evidence");
  // Without a policy: only gates the built-in policy defines can be run as written.
  CommandContext none{"", {"ev"}};
  EXPECT_EQ(run_command("jetson-cuda-runtime", none),
            "jetgate run jetson-cuda-runtime --evidence-dir ev");
  EXPECT_EQ(run_command("my-own-gate", none), "");
  GateVerdict missing;
  missing.state = GateState::missing;
  EXPECT_EQ(next_step(missing, "my-own-gate", none),
            "run the gate with the policy that defines it on the target platform");
}

// A scratch project whose policy has a gate that runs here (a command that
// writes a JUnit report): each kind of suggestion must run it.
TEST(NextSteps, EverySuggestionRunsAsWrittenInAScratchProject) {
  test::TempDir t;
  std::filesystem::create_directories(t.path("proj/.git"));
  t.write("proj/ci/gate policy.json", R"J({"schema_version": 1, "owner": "o", "cadence": "c",
    "evidence_retention_days": 9, "maximum_evidence_age_days": 9,
    "gates": [{"id": "unit-tests", "command": {"argv": ["python3", "-c",
      "open('r.xml','w').write('<testsuite tests=\"1\" failures=\"0\" errors=\"0\" skipped=\"0\"><testcase name=\"t\"/></testsuite>')"],
      "junit": "r.xml"}}]})J");
  const std::string proj = t.path("proj");
  CommandContext ctx{"ci/gate policy.json", {"evidence dir"}};
  int ran = 0;
  for (GateState st :
       {GateState::failed, GateState::not_run, GateState::inconsistent, GateState::not_live,
        GateState::dirty, GateState::no_commit, GateState::other_commit, GateState::undated,
        GateState::future_dated, GateState::stale, GateState::missing, GateState::unreadable,
        GateState::untrusted, GateState::not_shown_clean, GateState::other_definition,
        GateState::requirements_unmet, GateState::incomplete}) {
    GateVerdict v;
    v.state = st;
    std::string next = next_step(v, "unit-tests", ctx);
    std::string cmd = command_in(next);
    ASSERT_FALSE(cmd.empty()) << to_string(st) << ": " << next;
    std::filesystem::remove_all(proj + "/evidence dir");
    auto r = run_in_shell(cmd, proj);
    EXPECT_NE(r.exit_code, 2) << to_string(st) << ": `" << cmd << "`\n" << r.out << r.err;
    EXPECT_TRUE(std::filesystem::exists(proj + "/evidence dir/unit-tests.json")) << cmd << "\n"
                                                                                 << r.err;
    ++ran;
  }
  EXPECT_EQ(ran, 17);
  // Without a policy the built-in gates are suggested as `jetgate run GATE --evidence-dir D`:
  // on a machine without a GPU that is a not_run (exit 2 by the gate's contract), with evidence
  // written.
  std::string cmd = command_in(next_step(GateVerdict{GateState::missing, "", {}, "", 0},
                                         "cuda-runtime", CommandContext{"", {"ev"}}));
  auto r = run_in_shell(cmd, proj);
  EXPECT_TRUE(std::filesystem::exists(proj + "/ev/cuda-runtime.json")) << cmd << "\n"
                                                                       << r.out << r.err;
  EXPECT_EQ(r.err.find("no gate"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace jetgate::claims
