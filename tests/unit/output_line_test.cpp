// SPDX-License-Identifier: Apache-2.0
// No line jetgate writes can start a GitHub Actions workflow command, and no
// control reaches a terminal (issue 21, class 2): report/output_line, and the
// built binary under GITHUB_ACTIONS=true with hostile evidence, JUnit, test
// output and arguments.
#include "jetgate/report/output_line.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>

#include "gate_command_support.hpp"
#include "jetgate/report/annotations.hpp"

namespace jetgate {
namespace {

using report::OutputLineRules;
using report::safe_output_line;
using report::starts_workflow_command;

const OutputLineRules kGithub{true, true};
const OutputLineRules kTerminal{false, true};

TEST(OutputLine, WorkflowCommandsAreNeutralised) {
  for (const char* line :
       {"::error::forged", "  ::add-mask::secret", "\t::stop-commands::tok",
        "::set-output name=x::y", "\xc2\xa0::warning::nbsp first",
        "\xe3\x80\x80::notice::ideographic space", "x ##[error]v1 form", "##[set-env name=A]b"}) {
    SCOPED_TRACE(line);
    ASSERT_TRUE(starts_workflow_command(line));
    std::string safe = safe_output_line(line, kGithub);
    EXPECT_FALSE(starts_workflow_command(safe)) << safe;
  }
  EXPECT_EQ(safe_output_line("::error::x", kGithub), "\\u003a:error::x");
  EXPECT_EQ(safe_output_line("a ##[b]", kGithub), "a ##\\u005bb]");
  // Lines that are not commands pass as they are.
  for (const char* line : {"jetgate check: 2 violation(s)", "a :: b", "# heading", "[unit] ok"})
    EXPECT_EQ(safe_output_line(line, kGithub), line);
}

TEST(OutputLine, CarriageReturnsAndEscapesNeverPass) {
  // The runner also ends a line at CR; a terminal moves the cursor.
  EXPECT_EQ(safe_output_line("ok\r::error::x", kGithub), "ok\\x0d::error::x");
  EXPECT_EQ(safe_output_line("\x1b[2Jred", kTerminal), "\\x1b[2Jred");
  EXPECT_EQ(safe_output_line("gate-\xe2\x80\xae"
                             "ko",
                             kTerminal),
            "gate-\\u202eko");
  EXPECT_EQ(safe_output_line("tab\tkept", kTerminal), "tab\tkept");
  // Piped to a file outside Actions, bytes are the document's own.
  EXPECT_EQ(safe_output_line("\x1b[1m", OutputLineRules{}), "\x1b[1m");
}

TEST(OutputLine, AnnotationDataHasNoControls) {
  std::string a = report::github_annotation("error", "bad\r\n::add-mask::x \x1b[31m", "f,:", "t");
  EXPECT_EQ(a, "::error file=f%2C%3A,title=t::bad%0D%0A::add-mask::x \\x1b[31m");
}

// The property: for random outside strings, no line of the output starts a
// workflow command, and none holds CR or ESC. Fixed seed: failures repeat.
TEST(OutputLine, RandomStringsNeverStartAWorkflowCommand) {
  const std::vector<std::string> atoms = {":",
                                          "::",
                                          "#",
                                          "##[",
                                          "[",
                                          "]",
                                          " ",
                                          "\t",
                                          "\r",
                                          "\n",
                                          "\x1b",
                                          "a",
                                          "error",
                                          "add-mask",
                                          "stop-commands",
                                          "\xc2\xa0",
                                          "\xe2\x80\xae",
                                          "\xff",
                                          "%0A",
                                          "="};
  std::mt19937 rng(2121);
  std::uniform_int_distribution<std::size_t> pick(0, atoms.size() - 1), len(1, 16);
  for (int i = 0; i < 20000; ++i) {
    std::string s;
    for (std::size_t n = len(rng); n > 0; --n) s += atoms[pick(rng)];
    std::istringstream lines(s);
    for (std::string line; std::getline(lines, line);) {
      std::string safe = safe_output_line(line, kGithub);
      ASSERT_FALSE(starts_workflow_command(safe)) << testing::PrintToString(s);
      ASSERT_EQ(safe.find_first_of("\r\n\x1b"), std::string::npos) << testing::PrintToString(s);
    }
  }
}

// Every line of out and err: only jetgate's own annotations may be commands.
void expect_no_forged_command(const std::string& text) {
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_EQ(line.find('\r'), std::string::npos) << line;
    EXPECT_EQ(line.find('\x1b'), std::string::npos) << line;
    if (!starts_workflow_command(line)) continue;
    bool ours = line.rfind("::error file=", 0) == 0 || line.rfind("::warning file=", 0) == 0 ||
                line.rfind("::error title=", 0) == 0 || line.rfind("::warning title=", 0) == 0;
    EXPECT_TRUE(ours) << "a forged workflow command: " << line;
    EXPECT_EQ(line.find("##["), std::string::npos) << line;
  }
}

const std::string kSha = "3f6c2a1b9d8e7f60514233c4b5a69788f0e1d2c3";
const std::string kHostile =
    "x\n::error::forged\n::add-mask::secret\r::stop-commands::t\n  ##[error]v1 \x1b]0;title\x07";

TEST(OutputLine, CheckUnderGithubActionsPrintsNoForgedCommand) {
  test::GateRepo repo;
  repo.add_shell_gate("unit", "true");
  nlohmann::json e = {{"schema_version", 1},
                      {"gate", "unit"},
                      {"status", "failed"},
                      {"generated_at", "2026-11-29T16:23:05Z"},
                      {"git_sha", kSha},
                      {"reason", kHostile},
                      {"exit_code", 1},
                      {"counts", {{"tests", 1}, {"failures", 1}, {"errors", 0}, {"skipped", 0}}}};
  repo.t.write("ev/unit.json", e.dump());
  repo.t.write("ev/x\n::error::name.json", e.dump());
  auto r = test::run_jetgate({"check", "--policy", repo.policy(), "--evidence-dir",
                              repo.t.path("ev"), "--candidate-sha", kSha, "--today", "2026-11-29"},
                             {"GITHUB_ACTIONS=true"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("forged"), std::string::npos) << r.out;  // shown, as text
  expect_no_forged_command(r.out);
  expect_no_forged_command(r.err);
  // A usage error echoes its argument.
  auto u = test::run_jetgate({"check", "--policy", repo.policy(), "--require-gate", kHostile},
                             {"GITHUB_ACTIONS=true"});
  EXPECT_EQ(u.exit_code, 2) << u.err;
  expect_no_forged_command(u.out);
  expect_no_forged_command(u.err);
  auto bad = test::run_jetgate({"summary", "--no-such-option" + kHostile}, {"GITHUB_ACTIONS=true"});
  EXPECT_EQ(bad.exit_code, 2);
  expect_no_forged_command(bad.out);
  expect_no_forged_command(bad.err);
}

// A gate whose test code prints workflow commands and controls, and names a
// test case after one.
void add_hostile_gate(test::GateRepo& repo) {
  repo.add_shell_gate(
      "unit",
      "printf '::error::from the tests\\n##[error]v1\\n\\033[2J\\r::add-mask::x\\n'; "
      "printf '%s' '<testsuite tests=\"1\" failures=\"1\"><testcase name=\"a&#10;::error::junit\">"
      "<failure message=\"m&#13;::add-mask::y\"/></testcase></testsuite>' > report.xml");
}

TEST(OutputLine, RunUnderGithubActionsPassesNoCommandFromTheTests) {
  test::GateRepo repo;
  add_hostile_gate(repo);
  auto r = repo.run("unit", {"GITHUB_ACTIONS=true"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("from the tests"), std::string::npos) << r.err;
  expect_no_forged_command(r.out);
  expect_no_forged_command(r.err);
}

// The runner reads jetgate's output through `docker run`, sudo (which drops
// GITHUB_ACTIONS), ssh to a board: no line starts a workflow command whatever
// the environment says, and on a pipe no control passes either.
TEST(OutputLine, NoForgedCommandWithoutGithubActionsEither) {
  test::GateRepo repo;
  add_hostile_gate(repo);
  for (const char* env : {"GITHUB_ACTIONS=false", "GITHUB_ACTIONS="}) {
    SCOPED_TRACE(env);
    auto r = repo.run("unit", {env});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.err.find("from the tests"), std::string::npos) << r.err;
    for (const std::string* text : {&r.out, &r.err}) {
      std::istringstream lines(*text);
      for (std::string line; std::getline(lines, line);)
        EXPECT_FALSE(starts_workflow_command(line)) << line;
    }
  }
  // Through a pipe (docker run without a terminal, `| tee log`) the controls
  // take their visible form too.
  const std::string piped = repo.t.path("piped.txt");
  std::string command = test::jetgate_command();  // the emulator's wrapper under qemu
  for (const auto& a : repo.run_args("unit", repo.t.path("ev"))) command += " '" + a + "'";
  ASSERT_EQ(std::system(("env GITHUB_ACTIONS=false " + repo.ceiling() + " " + command +
                         " 2>&1 | cat > '" + piped + "'")
                            .c_str()),
            0);
  const std::string text = test::read_file(piped);
  EXPECT_NE(text.find("from the tests"), std::string::npos) << text;
  expect_no_forged_command(text);
}

// CLI11's usage errors quote the argument as given: one line, its controls
// (LF, ESC, BEL, bidi) in visible form, even into a file outside Actions.
TEST(OutputLine, UsageErrorsShowTheArgumentAsOneInertLine) {
  const std::string hostile = "x\x1b]0;TITLE\x07\x1b[2J\xe2\x80\xae\n::error::P";
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"summary", "--evidence-dir", "/tmp", "--format", hostile},
           {hostile},
           {"summary", "--evidence-dir", "/tmp", "--no-such-option" + hostile}}) {
    auto r = test::run_jetgate(args, {"GITHUB_ACTIONS=false"});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find('\x07'), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("\xe2\x80\xae"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("\\x1b"), std::string::npos) << r.err;
    std::istringstream lines(r.err);
    for (std::string line; std::getline(lines, line);) {
      EXPECT_FALSE(starts_workflow_command(line)) << line;
      EXPECT_NE(line.rfind("::", 0), 0u) << line;
    }
    // The message and the pointer to --help: the LF in the argument made no line.
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 2) << r.err;
  }
}

}  // namespace
}  // namespace jetgate
