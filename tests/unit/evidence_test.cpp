// SPDX-License-Identifier: Apache-2.0
#include "jetgate/evidence/evidence.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>
#include <vector>

#include "jetgate/evidence/dates.hpp"
#include "jetgate/evidence/gate_id.hpp"
#include "jetgate/evidence/git_sha.hpp"
#include "jetgate/fs/atomic_write.hpp"
#include "test_support.hpp"

namespace jetgate::evidence {
namespace {

const std::string kSha = "0123456789abcdef0123456789abcdef01234567";

Date d(const char* s) {
  return *parse_iso_date(s);
}

TEST(DatesTest, IsoDatesAreStrict) {
  EXPECT_TRUE(parse_iso_date("2026-11-29"));
  EXPECT_TRUE(parse_iso_date("2028-02-29"));
  for (const char* bad : {"2026-02-30", "2027-02-29", "2026-13-01", "2026-1-01", "26-11-29", "",
                          "2026-11-29T00:00:00Z", "2026/11/29", "+026-11-29", "2026-11-2x"})
    EXPECT_FALSE(parse_iso_date(bad)) << bad;
  EXPECT_EQ(to_string(d("2026-03-01")), "2026-03-01");
  EXPECT_EQ(days_between(d("2026-02-28"), d("2026-03-01")), 1);
  EXPECT_EQ(to_string(add_days(d("2026-12-31"), 1)), "2027-01-01");
}

TEST(DatesTest, TimestampsFromJetgateAndObliteratus) {
  EXPECT_EQ(utc_date_of_timestamp("2026-11-29T16:23:05Z"), d("2026-11-29"));
  EXPECT_EQ(utc_date_of_timestamp("2026-11-29T16:23:05.123456+00:00"), d("2026-11-29"));
  EXPECT_EQ(utc_date_of_timestamp("2026-11-30T01:00:00+02:00"), d("2026-11-29"));
  EXPECT_EQ(utc_date_of_timestamp("2026-11-29T23:30:00-01:00"), d("2026-11-30"));
  for (const char* bad :
       {"2026-11-29", "2026-11-29T16:23:05", "2026-11-29 16:23:05Z", "yesterday",
        "2026-11-29T25:00:00Z", "2026-11-29T16:23:05.Z", "2026-11-29T16:23:05+0100"})
    EXPECT_FALSE(utc_date_of_timestamp(bad)) << bad;
  auto now = utc_timestamp_now();
  EXPECT_EQ(now.size(), 20u);
  EXPECT_EQ(utc_date_of_timestamp(now), today_utc());
}

TEST(GateIdTest, OnlySafeIds) {
  for (const char* ok : {"cuda-runtime", "jetson-cuda-runtime", "a", "0gate", "x-"})
    EXPECT_TRUE(is_valid_gate_id(ok)) << ok;
  for (const char* bad : {"", "-x", "../etc", "a/b", "A", "gate.json", ".hidden", "a b", "é"})
    EXPECT_FALSE(is_valid_gate_id(bad)) << bad;
  EXPECT_TRUE(is_valid_gate_id(std::string(kMaxGateIdLength, 'a')));
  EXPECT_FALSE(is_valid_gate_id(std::string(kMaxGateIdLength + 1, 'a')));
  auto st = validate_gate_id("../x", "GATE");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message().find("GATE"), std::string::npos);
}

Evidence sample() {
  Evidence e;
  e.gate = "cuda-runtime";
  e.status = GateStatus::passed;
  e.generated_at = "2026-11-29T16:23:05Z";
  e.git_sha = kSha;
  e.reason = "4 probe(s) met every threshold";
  e.exit_code = 0;
  e.counts = {4, 0, 0, 0};
  e.extra["jetgate"] = {{"version", "0.1.0"}};
  return e;
}

TEST(EvidenceTest, RoundTripKeepsExtras) {
  test::TempDir t;
  auto path = write_evidence(t.dir(), sample());
  ASSERT_TRUE(path.ok()) << path.error().message();
  EXPECT_EQ(*path, t.path("cuda-runtime.json"));
  auto back = read_evidence(*path);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->gate, "cuda-runtime");
  EXPECT_EQ(back->status, GateStatus::passed);
  EXPECT_EQ(back->counts.tests, 4);
  EXPECT_EQ(back->exit_code, 0);
  EXPECT_EQ(back->extra["jetgate"]["version"], "0.1.0");
  EXPECT_FALSE(back->extra.contains("gate"));
}

// Never evidence jetgate's own readers refuse: the writer and every reader share one
// limit (kMaxEvidenceBytes). Just under it is written and read back; just over it is
// refused with the size and the limit, and nothing is written.
TEST(EvidenceTest, EvidenceOverTheReadersLimitIsNeverWritten) {
  test::TempDir t;
  auto e = sample();
  e.extra["platform"]["big"] = "";
  const std::size_t base = evidence_file_text(e).size();
  e.extra["platform"]["big"] = std::string(kMaxEvidenceBytes - base, 'x');
  ASSERT_EQ(evidence_file_text(e).size(), kMaxEvidenceBytes);
  auto path = write_evidence(t.dir(), e);
  ASSERT_TRUE(path.ok()) << path.error().message();
  auto back = read_evidence(*path);
  EXPECT_TRUE(back.ok()) << back.error().message();
  std::filesystem::remove(*path);

  e.extra["platform"]["big"] = std::string(kMaxEvidenceBytes - base + 1, 'x');
  auto over = write_evidence(t.dir(), e);
  ASSERT_FALSE(over.ok());
  const std::string msg = over.error().message();
  EXPECT_NE(msg.find(std::to_string(kMaxEvidenceBytes + 1) + " bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("over the 8388608 bytes"), std::string::npos) << msg;
  EXPECT_NE(msg.find("nothing was written"), std::string::npos) << msg;
  EXPECT_FALSE(std::filesystem::exists(t.path("cuda-runtime.json")));
  for (const auto& f : std::filesystem::directory_iterator(t.dir()))
    ADD_FAILURE() << "left behind: " << f.path();
}

TEST(EvidenceTest, ReadsObliteratusEvidence) {
  auto e = read_evidence(test::fixtures_dir() +
                         "/gates/obliteratus/evidence/model-download-runtime.json");
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->status, GateStatus::passed);
  EXPECT_EQ(e->counts.tests, 3);
  EXPECT_TRUE(e->extra.empty());
}

TEST(EvidenceTest, RejectsMalformedFieldsNamingThem) {
  auto base = to_json(sample());
  struct Case {
    const char* field;
    nlohmann::json value;
  } cases[] = {{"schema_version", 2},
               {"status", "green"},
               {"git_sha", "HEAD"},
               {"git_sha", std::string(40, 'A')},
               {"generated_at", "yesterday"},
               {"gate", 3},
               {"exit_code", "0"},
               {"counts", {{"tests", -1}}},
               {"counts", "4"},
               {"exit_code", 4294967296LL},
               {"exit_code", -2147483649LL},
               {"exit_code", 18446744073709551615ULL}};
  for (const auto& c : cases) {
    auto j = base;
    j[c.field] = c.value;
    auto r = evidence_from_json(j);
    ASSERT_FALSE(r.ok()) << c.field;
    EXPECT_NE(r.error().message().find(c.field), std::string::npos) << r.error().message();
  }
  auto j = base;
  j.erase("status");
  EXPECT_FALSE(evidence_from_json(j).ok());
  EXPECT_FALSE(evidence_from_json(nlohmann::json::array()).ok());
}

TEST(EvidenceTest, CorruptFilesAreErrorsNamingTheFile) {
  test::TempDir t;
  std::string good = to_json(sample()).dump();
  const std::string inputs[] = {"", good.substr(0, good.size() / 2),
                                "\x7f"
                                "ELF\x01\x02",
                                "[1,2", "null"};
  for (const auto& text : inputs) {
    auto path = t.write("cuda-runtime.json", text);
    auto r = read_evidence(path);
    ASSERT_FALSE(r.ok()) << text;
    EXPECT_NE(r.error().message().find("cuda-runtime.json"), std::string::npos)
        << r.error().message();
  }
  std::filesystem::create_directories(t.path("dir.json"));
  EXPECT_FALSE(read_evidence(t.path("dir.json")).ok());
}

TEST(EvidenceTest, WriteRefusesUnsafeGateIds) {
  test::TempDir t;
  auto e = sample();
  e.gate = "../escape";
  EXPECT_FALSE(write_evidence(t.dir(), e).ok());
  EXPECT_FALSE(std::filesystem::exists(t.path("../escape.json")));
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    out.push_back(entry.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(AtomicWriteTest, ReplacesWholeFileAndLeavesNoTemporaries) {
  test::TempDir t;
  ASSERT_TRUE(
      fs::write_file_atomically(t.path("sub/dir"), "a.json", std::string(100000, 'x')).ok());
  ASSERT_TRUE(fs::write_file_atomically(t.path("sub/dir"), "a.json", "short").ok());
  EXPECT_EQ(test::read_file(t.path("sub/dir/a.json")), "short");
  EXPECT_EQ(names_in(t.path("sub/dir")), std::vector<std::string>{"a.json"});
}

TEST(AtomicWriteTest, ConcurrentWritersOfDifferentGatesNeverClobber) {
  test::TempDir t;
  constexpr int kGates = 8, kRounds = 25;
  std::vector<std::thread> threads;
  for (int g = 0; g < kGates; ++g)
    threads.emplace_back([&, g] {
      for (int i = 0; i < kRounds; ++i) {
        auto e = sample();
        e.gate = "gate-" + std::to_string(g);
        e.reason =
            std::string(static_cast<std::size_t>(1000 * (i + 1)), static_cast<char>('a' + g));
        ASSERT_TRUE(write_evidence(t.dir(), e).ok());
      }
    });
  for (auto& th : threads) th.join();
  auto names = names_in(t.dir());
  ASSERT_EQ(names.size(), static_cast<std::size_t>(kGates));  // no temporaries left
  for (int g = 0; g < kGates; ++g) {
    auto e = read_evidence(t.path("gate-" + std::to_string(g) + ".json"));
    ASSERT_TRUE(e.ok()) << e.error().message();
    EXPECT_EQ(e->reason, std::string(1000 * kRounds, static_cast<char>('a' + g)));
  }
}

TEST(AtomicWriteTest, ConcurrentWritersOfOneFileLeaveAWholeDocument) {
  test::TempDir t;
  std::vector<std::thread> threads;
  for (int w = 0; w < 4; ++w)
    threads.emplace_back([&, w] {
      for (int i = 0; i < 20; ++i) {
        auto e = sample();
        e.reason = std::string(static_cast<std::size_t>(5000 + w * 7919), 'r');
        ASSERT_TRUE(write_evidence(t.dir(), e).ok());
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_TRUE(read_evidence(t.path("cuda-runtime.json")).ok());
  EXPECT_EQ(names_in(t.dir()).size(), 1u);
}

// The evidence is replaced by a rename, never rewritten in place: a reader that
// opened the old file keeps reading the whole old document, a symbolic link at
// the target is replaced (not written through to wherever it points) and a
// second hard link keeps the old contents.
TEST(AtomicWriteTest, AReaderOfTheOldFileKeepsReadingIt) {
  test::TempDir t;
  const std::string old_doc(64 * 1024, 'o');
  ASSERT_TRUE(fs::write_file_atomically(t.dir(), "GATE.json", old_doc).ok());
  std::ifstream reader(t.path("GATE.json"), std::ios::binary);
  ASSERT_TRUE(reader.good());
  ASSERT_TRUE(fs::write_file_atomically(t.dir(), "GATE.json", "new").ok());
  std::string seen((std::istreambuf_iterator<char>(reader)), std::istreambuf_iterator<char>());
  EXPECT_EQ(seen, old_doc);
  EXPECT_EQ(test::read_file(t.path("GATE.json")), "new");
}

TEST(AtomicWriteTest, ASymlinkAtTheTargetIsReplacedNotWrittenThrough) {
  test::TempDir t;
  const std::string victim = t.write("elsewhere/victim.txt", "precious");
  std::filesystem::create_directories(t.path("evidence"));
  std::filesystem::create_symlink(victim, t.path("evidence/GATE.json"));
  ASSERT_TRUE(fs::write_file_atomically(t.path("evidence"), "GATE.json", "{}").ok());
  EXPECT_EQ(test::read_file(victim), "precious");
  EXPECT_FALSE(std::filesystem::is_symlink(t.path("evidence/GATE.json")));
  EXPECT_EQ(test::read_file(t.path("evidence/GATE.json")), "{}");
}

TEST(AtomicWriteTest, ASecondHardLinkKeepsTheOldDocument) {
  test::TempDir t;
  ASSERT_TRUE(fs::write_file_atomically(t.dir(), "GATE.json", "old").ok());
  std::filesystem::create_hard_link(t.path("GATE.json"), t.path("copy.json"));
  ASSERT_TRUE(fs::write_file_atomically(t.dir(), "GATE.json", "new").ok());
  EXPECT_EQ(test::read_file(t.path("copy.json")), "old");
  EXPECT_EQ(test::read_file(t.path("GATE.json")), "new");
}

TEST(AtomicWriteTest, UnwritableDirectoryIsAnError) {
  auto r = fs::write_file_atomically("/proc/jetgate-cannot-write-here", "a.json", "x");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("/proc/jetgate-cannot-write-here"), std::string::npos);
}

TEST(GitShaTest, OrderAndValidation) {
  auto env = [](std::map<std::string, std::string> m) {
    return [m](const char* n) -> std::optional<std::string> {
      auto it = m.find(n);
      if (it == m.end()) return std::nullopt;
      return it->second;
    };
  };
  auto no_git = []() -> std::optional<std::string> { return std::nullopt; };
  auto git = []() -> std::optional<std::string> { return std::string(40, 'f') + "\n"; };
  EXPECT_EQ(
      resolve_git_sha(env({{"GITHUB_SHA", kSha}, {"CI_COMMIT_SHA", std::string(40, 'b')}}), git)
          .sha,
      kSha);
  EXPECT_EQ(resolve_git_sha(env({{"CI_COMMIT_SHA", std::string(40, 'b')}}), git).sha,
            std::string(40, 'b'));
  EXPECT_EQ(resolve_git_sha(env({}), git).sha, std::string(40, 'f'));
  EXPECT_EQ(resolve_git_sha(env({}), no_git).sha, "local");
  // An invalid CI variable is skipped (with a warning), not the end of the search.
  auto upper = resolve_git_sha(env({{"GITHUB_SHA", std::string(40, 'A')}}), git);
  EXPECT_EQ(upper.sha, std::string(40, 'f'));
  EXPECT_EQ(upper.source, "git rev-parse HEAD");
  ASSERT_EQ(upper.warnings.size(), 1u);
  EXPECT_NE(upper.warnings[0].find("GITHUB_SHA"), std::string::npos);
  auto to_gitlab =
      resolve_git_sha(env({{"GITHUB_SHA", "abc"}, {"CI_COMMIT_SHA", std::string(40, 'b')}}), git);
  EXPECT_EQ(to_gitlab.sha, std::string(40, 'b'));
  EXPECT_EQ(to_gitlab.source, "CI_COMMIT_SHA");
  EXPECT_EQ(to_gitlab.warnings.size(), 1u);
  auto nothing_valid = resolve_git_sha(env({{"GITHUB_SHA", "abc"}, {"CI_COMMIT_SHA", "HEAD"}}),
                                       [] { return std::optional<std::string>("garbage\n"); });
  EXPECT_EQ(nothing_valid.sha, "local");
  EXPECT_EQ(nothing_valid.warnings.size(), 3u);
  EXPECT_EQ(resolve_git_sha(env({{"GITHUB_SHA", "abc"}}), no_git).sha, "local");
  EXPECT_EQ(resolve_git_sha(env({}), [] { return std::optional<std::string>("garbage\n"); }).sha,
            "local");
}

// A commit is exactly 40 lowercase hex digits: a truncated or padded SHA, or
// another spelling of one, would let evidence name a commit nobody can check out.
TEST(GitShaTest, OnlyFortyLowercaseHexDigitsAreACommit) {
  EXPECT_TRUE(is_commit_sha(kSha));
  EXPECT_FALSE(is_commit_sha(kSha.substr(0, 39)));
  EXPECT_FALSE(is_commit_sha(kSha + "8"));
  EXPECT_FALSE(is_commit_sha(std::string(64, 'a')));  // a SHA-256 object name is not one
  EXPECT_FALSE(is_commit_sha(""));
  std::string upper = kSha;
  upper[0] = 'A';
  EXPECT_FALSE(is_commit_sha(upper));
  std::string not_hex = kSha;
  not_hex[39] = 'g';
  EXPECT_FALSE(is_commit_sha(not_hex));
  std::string nul = kSha;
  nul[20] = '\0';
  EXPECT_FALSE(is_commit_sha(nul));
  // Through the resolver: a 39-digit GITHUB_SHA is skipped with a warning.
  auto r = resolve_git_sha(
      [](const char* n) -> std::optional<std::string> {
        if (std::string(n) == "GITHUB_SHA") return kSha.substr(0, 39);
        return std::nullopt;
      },
      [] { return std::optional<std::string>(); });
  EXPECT_EQ(r.sha, "local");
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_NE(r.warnings[0].find("not 40 lowercase hex digits"), std::string::npos);
}

TEST(GitShaTest, LiveRepositoryGivesItsHead) {
  auto sha = resolve_git_sha_live(test::source_dir());
  if (std::getenv("GITHUB_SHA") || std::getenv("CI_COMMIT_SHA")) GTEST_SKIP() << "CI sets the SHA";
  EXPECT_TRUE(is_commit_sha(sha.sha)) << sha.sha;
  EXPECT_EQ(sha.source, "git rev-parse HEAD");
  EXPECT_EQ(resolve_git_sha_live("/").sha, "local");
}

}  // namespace
}  // namespace jetgate::evidence
