// SPDX-License-Identifier: Apache-2.0
// Hostile JUnit reports through `jetgate run` (issue 11, class 1): a failing
// case deep in nested suites fails the gate, and bytes that are not UTF-8
// neither crash jetgate nor leave an older green evidence file in place.
#include <gtest/gtest.h>

#include "gate_command_support.hpp"
#include "jetgate/evidence/evidence.hpp"

namespace jetgate {
namespace {

void write_green_evidence(const test::GateRepo& repo, const std::string& gate) {
  nlohmann::json green = {
      {"schema_version", 1},
      {"gate", gate},
      {"status", "passed"},
      {"generated_at", "2026-01-01T00:00:00Z"},
      {"git_sha", "local"},
      {"reason", "ok"},
      {"exit_code", 0},
      {"counts", {{"tests", 1}, {"failures", 0}, {"errors", 0}, {"skipped", 0}}}};
  repo.t.write("ev/" + gate + ".json", green.dump());
}

TEST(GateCommandJunitTest, FailingCaseDeepInNestedSuitesFailsTheGate) {
  test::GateRepo repo;
  std::string deep = "<testsuites><testsuite><testcase name=\"ok\"/>";
  for (int i = 0; i < 100; ++i) deep += "<testsuite>";
  deep += "<testcase name=\"deep\"><failure/></testcase>";
  for (int i = 0; i < 100; ++i) deep += "</testsuite>";
  deep += "</testsuite></testsuites>";
  repo.t.write("deep.xml", deep);
  repo.add_shell_gate("deep", "cp deep.xml report.xml");
  auto r = repo.run("deep");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("1 test(s) failed"), std::string::npos) << r.out;
}

TEST(GateCommandJunitTest, BytesThatAreNotUtf8FailTheGateWithoutCrashing) {
  test::GateRepo repo;
  write_green_evidence(repo, "junk");
  repo.add_shell_gate("junk",
                      "printf '<testsuite tests=\"1\" "
                      "failures=\"\\377\\376\"><testcase/></testsuite>' > report.xml");
  auto r = repo.run("junk");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto e = evidence::read_evidence(repo.t.path("ev/junk.json"));
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->status, evidence::GateStatus::failed);
  EXPECT_NE(e->reason.find("failures=\"\xEF\xBF\xBD\xEF\xBF\xBD\""), std::string::npos)
      << e->reason;
  EXPECT_NE(r.out.find("junk: failed\n  FAIL    command /bin/sh: JUnit report"), std::string::npos)
      << r.out;
}

TEST(GateCommandJunitTest, ReportThatCannotBeReadNeverLeavesOlderGreenEvidence) {
  test::GateRepo repo;
  write_green_evidence(repo, "truncated");
  repo.add_shell_gate("truncated",
                      "printf '<testsuites><testsuite tests=\"1\"><testcase' > report.xml");
  auto r = repo.run("truncated");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto e = evidence::read_evidence(repo.t.path("ev/truncated.json"));
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->status, evidence::GateStatus::failed);
  EXPECT_NE(e->reason.find("not well-formed XML"), std::string::npos) << e->reason;
}

}  // namespace
}  // namespace jetgate
