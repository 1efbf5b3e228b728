// SPDX-License-Identifier: Apache-2.0
// An output is never one of the command's own inputs (fs/command_files.hpp): the
// identity is the directory entry a path leads to, not its text, and every command
// checks its outputs before any work starts.
#include "jetgate/fs/command_files.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace jetgate {
namespace {

using test::read_file;
using test::run_jetgate;
using test::TempDir;

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

TEST(CommandFiles, AnInputNamedAnyWayIsRefusedAsAnOutput) {
  TempDir t;
  auto db = t.write("d/fleet.db", "x");
  std::filesystem::create_directories(t.path("other"));
  std::filesystem::create_directory_symlink(t.path("d"), t.path("link-to-d"));
  fs::CommandFiles files;
  files.add_input(db, "the database");
  for (const std::string& same :
       {db, t.path("d/./fleet.db"), t.path("other/../d/fleet.db"), t.path("link-to-d/fleet.db")}) {
    auto st = files.check_output("--html", same);
    ASSERT_FALSE(st.ok()) << same;
    EXPECT_TRUE(has(st.error().message(), "the database")) << st.error().message();
    EXPECT_TRUE(has(st.error().message(), "--html")) << st.error().message();
  }
  // Near misses: another name in the same directory, the same name elsewhere.
  EXPECT_TRUE(files.check_output("--html", t.path("d/fleet.db.html")).ok());
  EXPECT_TRUE(files.check_output("--prometheus", t.path("other/fleet.db")).ok());
}

TEST(CommandFiles, AnInputReachedThroughALinkIsItsTargetAndTheLinkMayBeReplaced) {
  TempDir t;
  auto policy = t.write("real/policy.json", "{}");
  std::filesystem::create_symlink(policy, t.path("policy-link.json"));
  fs::CommandFiles files;
  files.add_input(t.path("policy-link.json"), "the policy");
  // Writing the target would destroy what the command read through the link ...
  EXPECT_FALSE(files.check_output("--prometheus", policy).ok());
  // ... while the link itself is replaced by the rename and its target is left alone.
  EXPECT_TRUE(files.check_output("--junit", t.path("policy-link.json")).ok());
}

TEST(CommandFiles, AnInputThatDoesNotExistYetIsStillProtected) {
  TempDir t;
  fs::CommandFiles files;
  files.add_input(t.path("new.db"), "the database");  // `history ingest` creates it
  EXPECT_FALSE(files.check_output("--html", t.path("new.db")).ok());
  EXPECT_TRUE(files.check_output("--html", t.path("new.db2")).ok());
}

TEST(CommandFiles, FilesOfAnInputDirectorysKindsAreRefusedOthersAccepted) {
  TempDir t;
  std::filesystem::create_directories(t.path("ev/sub"));
  fs::CommandFiles flat, deep;
  flat.add_input_dir(t.path("ev"), "the evidence directory", {".json", ".log"});
  deep.add_input_dir(t.path("ev"), "the evidence directory", {".json"}, /*recursive=*/true);
  EXPECT_FALSE(flat.check_output("--nfd-features", t.path("ev/unit.json")).ok());
  EXPECT_FALSE(flat.check_output("--junit", t.path("ev/gate.log")).ok());
  EXPECT_FALSE(deep.check_output("--db", t.path("ev/sub/x.json")).ok());
  // Near misses: another suffix, the bare suffix (a hidden file the readers skip),
  // a subdirectory of a directory read flat, a sibling directory.
  EXPECT_TRUE(flat.check_output("--prometheus", t.path("ev/jetgate.prom")).ok());
  EXPECT_TRUE(flat.check_output("--junit", t.path("ev/x.jsonl")).ok());
  EXPECT_TRUE(flat.check_output("--junit", t.path("ev/.json")).ok());
  EXPECT_TRUE(flat.check_output("--html", t.path("ev/sub/x.json")).ok());
  EXPECT_TRUE(deep.check_output("--db", t.path("ev/sub/fleet.db")).ok());
  std::filesystem::create_directories(t.path("ev2"));
  EXPECT_TRUE(deep.check_output("--db", t.path("ev2/x.json")).ok());
}

TEST(CommandFiles, TwoOptionsNamingOneFileAreRefusedAndAnEmptyOptionIsNotChecked) {
  TempDir t;
  fs::CommandFiles files;
  EXPECT_TRUE(files.check_output("--junit", t.path("out.txt")).ok());
  auto second = files.check_output("--prometheus", t.path("./out.txt"));
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(has(second.error().message(), "--junit")) << second.error().message();
  EXPECT_TRUE(files.check_output("--nfd-features", "").ok());
  EXPECT_TRUE(files.check_output("--html", "").ok());
}

// The commands: each refusal is a usage error (2) before any work, and the input's
// bytes are unchanged.
TEST(CommandFilesCli, HistoryNeverWritesItsOutputOverTheDatabase) {
  TempDir t;
  t.write("ev/a.json", "{}");
  const std::string db = t.path("fleet.db");
  auto ingest = run_jetgate({"history", "ingest", t.path("ev"), "--db", db, "--quiet"});
  ASSERT_EQ(ingest.exit_code, 0) << ingest.err;
  const std::string before = read_file(db);
  auto html = run_jetgate({"history", "report", "--db", db, "--html", db});
  EXPECT_EQ(html.exit_code, 2) << html.err;
  EXPECT_TRUE(has(html.err, "the database")) << html.err;
  auto prom = run_jetgate({"history", "regressions", "--db", db, "--prometheus", db});
  EXPECT_EQ(prom.exit_code, 2) << prom.err;
  EXPECT_EQ(read_file(db), before);
  auto into = run_jetgate({"history", "ingest", t.path("ev"), "--db", t.path("ev/fleet.json")});
  EXPECT_EQ(into.exit_code, 2) << into.err;
  EXPECT_FALSE(std::filesystem::exists(t.path("ev/fleet.json")));
}

TEST(CommandFilesCli, RunNeverReplacesItsPolicyOrItsOwnEvidence) {
  TempDir t;
  const std::string policy = t.write("ci/policy.json", R"({"schema_version": 1, "owner": "o",
      "cadence": "c", "maximum_evidence_age_days": 1, "gates": [{"id": "unit", "job": "j",
      "marker": "m", "runner": "r", "coverage_paths": ["p"]}]})");
  const std::string before = read_file(policy);
  std::filesystem::create_directories(t.path("ev"));
  auto over_policy = run_jetgate({"run", "unit", "--policy", policy, "--evidence-dir", t.path("ev"),
                                  "--prometheus", policy, "--quiet"});
  EXPECT_EQ(over_policy.exit_code, 2) << over_policy.err;
  EXPECT_TRUE(has(over_policy.err, "the policy")) << over_policy.err;
  EXPECT_EQ(read_file(policy), before);
  auto over_evidence =
      run_jetgate({"run", "unit", "--policy", policy, "--evidence-dir", t.path("ev"),
                   "--nfd-features", t.path("ev/unit.json"), "--quiet"});
  EXPECT_EQ(over_evidence.exit_code, 2) << over_evidence.err;
  EXPECT_TRUE(has(over_evidence.err, "evidence directory")) << over_evidence.err;
  EXPECT_FALSE(std::filesystem::exists(t.path("ev/unit.json")));
  auto twice = run_jetgate({"probe", "--junit", t.path("out"), "--prometheus", t.path("out")});
  EXPECT_EQ(twice.exit_code, 2) << twice.err;
  EXPECT_FALSE(std::filesystem::exists(t.path("out")));
}

TEST(CommandFilesCli, SupportAndCheckNeverWriteOverTheReadmeOrTheEvidence) {
  TempDir t;
  const std::string readme =
      t.write("README.md", "# x\n\n<!-- jetgate:support:begin -->\n<!-- jetgate:support:end -->\n");
  const std::string ev = t.path("ev");
  std::filesystem::copy(test::fixtures_dir() + "/claims/jetgate-orin", ev);
  const std::string evidence = ev + "/cuda-runtime.json";
  const std::string before = read_file(evidence);
  auto badge = run_jetgate({"support", "--evidence-dir", ev, "--readme", readme, "--badge", readme,
                            "--today", "2026-11-29"});
  EXPECT_EQ(badge.exit_code, 2) << badge.err;
  EXPECT_TRUE(has(badge.err, "the README")) << badge.err;
  auto badge_ev =
      run_jetgate({"support", "--evidence-dir", ev, "--badge", evidence, "--today", "2026-11-29"});
  EXPECT_EQ(badge_ev.exit_code, 2) << badge_ev.err;
  const std::string policy = t.write("policy.json", R"({"schema_version": 1, "owner": "o",
      "cadence": "c", "maximum_evidence_age_days": 14, "gates": [{"id": "cuda-runtime",
      "job": "j", "marker": "m", "runner": "r", "coverage_paths": ["p"]}]})");
  auto junit = run_jetgate({"check", "--policy", policy, "--evidence-dir", ev, "--candidate-sha",
                            std::string(40, 'a'), "--junit", evidence});
  EXPECT_EQ(junit.exit_code, 2) << junit.err;
  auto junit_policy = run_jetgate({"check", "--policy", policy, "--junit", policy});
  EXPECT_EQ(junit_policy.exit_code, 2) << junit_policy.err;
  EXPECT_EQ(read_file(evidence), before);
  // The same outputs elsewhere are written.
  auto fine = run_jetgate(
      {"support", "--evidence-dir", ev, "--badge", t.path("badge.json"), "--today", "2026-11-29"});
  EXPECT_EQ(fine.exit_code, 0) << fine.err;
  EXPECT_TRUE(std::filesystem::exists(t.path("badge.json")));
}

}  // namespace
}  // namespace jetgate
