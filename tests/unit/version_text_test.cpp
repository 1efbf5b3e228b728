// SPDX-License-Identifier: Apache-2.0
// `jetgate --version` and /jetgate in evidence name the source commit
// (cmake/SourceCommit.cmake writes it at build time).
#include "jetgate/report/version_text.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

#include "jetgate/core/version.hpp"
#include "jetgate/evidence/probe_document.hpp"
#include "test_support.hpp"

namespace jetgate {
namespace {

constexpr const char* kCommit = "8b86802a0c4f3e1d2b5a69788f0e1d2c3b4a5968";

TEST(VersionText, GitCommitIsShortenedWithItsState) {
  EXPECT_EQ(report::commit_text({kCommit, CommitState::clean}), "git 8b86802, clean");
  EXPECT_EQ(report::commit_text({kCommit, CommitState::dirty}), "git 8b86802, dirty");
}

TEST(VersionText, PackagerCommitIsShownAsSet) {
  EXPECT_EQ(report::commit_text({"8b86802a0c", CommitState::packager}),
            "source 8b86802a0c, set by the packager");
}

TEST(VersionText, UnknownCommitSaysSo) {
  EXPECT_EQ(report::commit_text({"", CommitState::unknown}), "source commit unknown");
  EXPECT_EQ(report::commit_text({nullptr, CommitState::clean}), "source commit unknown");
  EXPECT_EQ(report::commit_text({"", CommitState::dirty}), "source commit unknown");
}

TEST(VersionText, StateNames) {
  EXPECT_STREQ(to_string(CommitState::clean), "clean");
  EXPECT_STREQ(to_string(CommitState::dirty), "dirty");
  EXPECT_STREQ(to_string(CommitState::packager), "packager");
  EXPECT_STREQ(to_string(CommitState::unknown), "unknown");
}

TEST(VersionText, FirstLineNamesVersionAndCommit) {
  auto text = report::version_text();
  auto first = text.substr(0, text.find('\n'));
  EXPECT_EQ(first, std::string("jetgate ") + version() + " (" +
                       report::commit_text(source_commit()) + ")");
  auto cli = test::run_jetgate({"--version"});
  EXPECT_EQ(cli.exit_code, 0);
  EXPECT_EQ(cli.out.substr(0, cli.out.find('\n')), first);
}

TEST(VersionText, EvidenceRecordsTheCommit) {
  auto identity = evidence::jetgate_identity();
  ASSERT_TRUE(identity.contains("commit")) << identity.dump();
  auto commit = source_commit();
  EXPECT_EQ(identity["commit"]["state"], to_string(commit.state));
  if (*commit.id == '\0')
    EXPECT_TRUE(identity["commit"]["id"].is_null());
  else
    EXPECT_EQ(identity["commit"]["id"], commit.id);
}

// Built from a git checkout (not from a tarball, nor with JETGATE_SOURCE_COMMIT set): the
// commit is this checkout's HEAD, in full.
TEST(VersionText, GitBuildRecordsHead) {
  auto commit = source_commit();
  if (commit.state != CommitState::clean && commit.state != CommitState::dirty)
    GTEST_SKIP() << "built without git (state " << to_string(commit.state) << ")";
  std::string cmd = "git -C '" + test::source_dir() + "' rev-parse HEAD 2>/dev/null";
  std::string head;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    std::array<char, 128> buf{};
    while (fgets(buf.data(), buf.size(), p) != nullptr) head += buf.data();
    pclose(p);
  }
  while (!head.empty() && (head.back() == '\n' || head.back() == '\r')) head.pop_back();
  ASSERT_EQ(head.size(), 40u) << "git rev-parse HEAD gave '" << head << "'";
  EXPECT_EQ(std::string(commit.id), head)
      << "the build's commit is not HEAD: rebuild (the source_commit target runs on each build)";
}

}  // namespace
}  // namespace jetgate
