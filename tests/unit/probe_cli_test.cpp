// SPDX-License-Identifier: Apache-2.0
// End-to-end tests of `jetgate probe` and the front: the built binary, its
// exit codes, what goes to stdout and what to stderr.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace jetgate {
namespace {

using nlohmann::json;
using test::run_jetgate;

std::string fixture_root(const std::string& name) {
  return test::fixtures_dir() + "/" + name + "/root";
}

TEST(ProbeCli, RecordedOrinAsJson) {
  auto r = run_jetgate({"probe", "--root", fixture_root("agx-orin-64gb-jp62"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["platform"]["tegra"]["l4t"], "36.4.3");
  EXPECT_EQ(doc["platform"]["tegra"]["jetpack"], "6.2");
  EXPECT_FALSE(doc.contains("gpu")) << "a recorded root has no live driver";
  EXPECT_FALSE(doc.contains("generated_at")) << "recorded roots give reproducible output";
}

TEST(ProbeCli, ReadableReportGroupsLikeJetsonRelease) {
  auto r = run_jetgate({"probe", "--root", fixture_root("agx-orin-64gb-jp62")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* heading : {"Hardware\n", "Platform\n", "Libraries\n", "GPU driver stack\n"})
    EXPECT_NE(r.out.find(heading), std::string::npos) << heading << " missing in\n" << r.out;
  EXPECT_NE(r.out.find("JetPack:"), std::string::npos);
  EXPECT_NE(r.out.find("[hidden: --show-serial]"), std::string::npos);
}

TEST(ProbeCli, SerialAndHostnameOnlyWhenAsked) {
  auto hidden = run_jetgate({"probe", "--root", fixture_root("agx-orin-64gb-jp62"), "--json"});
  auto shown = run_jetgate(
      {"probe", "--root", fixture_root("agx-orin-64gb-jp62"), "--json", "--show-serial"});
  ASSERT_EQ(hidden.exit_code, 0);
  ASSERT_EQ(shown.exit_code, 0);
  auto h = json::parse(hidden.out), s = json::parse(shown.out);
  EXPECT_FALSE(h["platform"]["tegra"].contains("serial_number"));
  EXPECT_FALSE(h["platform"].contains("hostname"));
  EXPECT_TRUE(s["platform"]["tegra"].contains("serial_number"));
  EXPECT_TRUE(s["platform"].contains("hostname"));
}

TEST(ProbeCli, MissingRootIsUsageErrorNamingIt) {
  auto r = run_jetgate({"probe", "--root", "/nonexistent/recorded-board"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("/nonexistent/recorded-board"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(ProbeCli, CudaCannotMeasureARecordedRoot) {
  auto r = run_jetgate({"probe", "--root", fixture_root("rpi5-arm64"), "--cuda"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--root"), std::string::npos) << r.err;
}

TEST(ProbeCli, WarningsGoToStderrAndIntoTheDocument) {
  test::TempDir t;
  t.write("etc/nv_tegra_release",
          "# R36 (release), GCID: 38968081, BOARD: generic\n");  // no revision: unreadable
  auto r = run_jetgate({"probe", "--root", t.dir(), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("nv_tegra_release"), std::string::npos) << r.err;
  auto doc = json::parse(r.out);
  EXPECT_FALSE(doc["warnings"].empty());
  EXPECT_TRUE(doc["platform"]["tegra"]["l4t"].is_null());
}

TEST(ProbeCli, LiveMachineWithoutDriverSaysSoAndSucceeds) {
  // CI machines have no GPU and no libcuda; pointing the loader at nothing
  // makes this hold on a GPU host too.
  auto r = run_jetgate({"probe"}, {"JETGATE_CUDA_DRIVER=/nonexistent/libcuda.so.1"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("no CUDA driver: "), std::string::npos) << r.out;
}

TEST(ProbeCli, LiveJsonHasGpuSection) {
  auto r = run_jetgate({"probe", "--json"}, {"JETGATE_CUDA_DRIVER=/nonexistent/libcuda.so.1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::parse(r.out);
  EXPECT_TRUE(doc.contains("gpu"));
  EXPECT_TRUE(doc["generated_at"].is_string());
  EXPECT_TRUE(doc["platform"]["arch"].is_string());
}

TEST(Cli, HelpAndVersion) {
  auto help = run_jetgate({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* cmd : {"probe", "run", "check", "support", "summary"})
    EXPECT_NE(help.out.find(cmd), std::string::npos) << cmd;
  auto sub = run_jetgate({"probe", "--help"});
  EXPECT_EQ(sub.exit_code, 0);
  EXPECT_NE(sub.out.find("--root"), std::string::npos);
  auto v = run_jetgate({"--version"});
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_NE(v.out.find("jetgate "), std::string::npos);
  EXPECT_NE(v.out.find("GPU kernels:"), std::string::npos);
}

TEST(Cli, UnknownSubcommandOrOptionIsUsageError) {
  auto r = run_jetgate({"probee"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(r.err.empty());
  auto o = run_jetgate({"probe", "--no-such-flag"});
  EXPECT_EQ(o.exit_code, 2);
  auto bad = run_jetgate({"probe", "--probe", "warp-drive"});
  EXPECT_EQ(bad.exit_code, 2);
}

TEST(Cli, NoArgumentsPrintsHelpAndIsUsageError) {
  auto r = run_jetgate({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("probe"), std::string::npos);
}

TEST(Recorder, RecordsThisMachineIntoARootJetgateReads) {
  test::TempDir t;
  std::string out = t.path("rec");
  std::string cmd =
      "bash " + test::source_dir() + "/scripts/jetgate-record-root.sh " + out + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  auto side = json::parse(test::read_file(out + "/root/jetgate-root.json"), nullptr, false);
  ASSERT_TRUE(side.is_object());
  EXPECT_TRUE(side["machine"].is_string());
  auto r = run_jetgate({"probe", "--root", out + "/root", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::parse(r.out);
  EXPECT_EQ(doc["platform"]["arch"], side["machine"]);
  EXPECT_TRUE(doc["platform"]["kernel"]["release"].is_string());
  EXPECT_EQ(doc["platform"]["tegra"]["is_tegra"], false);
}

}  // namespace
}  // namespace jetgate

namespace jetgate {
namespace {

// The project's own README holds to its rule: its support block claims
// nothing that evidence does not back (here: no evidence, so no claim).
TEST(Readme, SupportBlockClaimsNothingWithoutEvidence) {
  test::TempDir empty;
  auto r = test::run_jetgate({"support", "--evidence-dir", empty.dir(), "--readme",
                              test::source_dir() + "/README.md", "--verify"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
}

TEST(Readme, GivesTheTestCommandThatCiRuns) {
  std::string readme = test::read_file(test::source_dir() + "/README.md");
  std::string ci = test::read_file(test::source_dir() + "/.ci/run");
  EXPECT_NE(readme.find("bash scripts/test.sh"), std::string::npos);
  EXPECT_NE(ci.find("bash scripts/test.sh"), std::string::npos);
}

}  // namespace
}  // namespace jetgate
