// SPDX-License-Identifier: Apache-2.0
// The pieces behind the gate's command: path confinement, live lines, the
// log and its SHA-256, the evidence directory and its lock, UTF-8 repair,
// and an interrupt reaching run_gate.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <optional>

#include "jetgate/core/utf8.hpp"
#include "jetgate/evidence/evidence_dir.hpp"
#include "jetgate/evidence/gate_log.hpp"
#include "jetgate/evidence/utf8_json.hpp"
#include "jetgate/fs/atomic_write.hpp"
#include "jetgate/gate/command_run.hpp"
#include "jetgate/gate/live_output.hpp"
#include "test_support.hpp"

namespace jetgate {
namespace {

namespace fsys = std::filesystem;

policy::CommandSpec spec(const std::string& junit, std::optional<std::string> cwd = std::nullopt) {
  policy::CommandSpec s;
  s.argv = {"true"};
  s.junit = junit;
  s.cwd = std::move(cwd);
  return s;
}

TEST(GateCommandUnitsTest, ConfinementRefusesEveryWayOut) {
  test::TempDir repo, outside;
  fsys::create_directories(repo.path("sub/dir"));
  fsys::create_directory_symlink(outside.dir(), repo.path("out"));
  fsys::create_directory_symlink("sub", repo.path("in"));
  fsys::create_symlink(repo.path("nowhere/at/all"), repo.path("dangling"));
  outside.write("r.xml", "x");
  fsys::create_symlink(outside.path("r.xml"), repo.path("link.xml"));
  fsys::create_directories(repo.path("adir.xml"));
  struct Case {
    policy::CommandSpec spec;
    std::string expect;  // empty: accepted
  } cases[] = {
      {spec("report.xml"), ""},
      {spec("out/../report.xml"), "contains \"..\""},
      {spec("new/deeper/report.xml"), ""},
      {spec("in/dir/report.xml"), ""},
      {spec("r.xml", "sub/dir"), ""},
      {spec("/etc/passwd"), "is an absolute path"},
      {spec("../x.xml"), "contains \"..\""},
      {spec("out/r.xml"), "outside the repository"},
      {spec("out/new/r.xml"), "outside the repository"},
      {spec("dangling/r.xml"), "cannot be resolved"},
      {spec("link.xml"), "is a symbolic link"},
      {spec("adir.xml"), "not a regular file"},
      {spec("sub/"), "names a directory"},
      {spec(""), "is empty"},
      {spec("r.xml", "/tmp"), "command.cwd \"/tmp\" is an absolute path"},
      {spec("r.xml", "out"), "command.cwd \"out\" resolves to"},
      {spec("r.xml", "sub/.."), "contains \"..\""},
      {spec("r.xml", "missing"), "command.cwd \"missing\" cannot be used"},
  };
  for (const auto& c : cases) {
    auto r = gate::confine_command_paths(c.spec, repo.dir());
    if (c.expect.empty()) {
      EXPECT_TRUE(r.ok()) << c.spec.junit << ": " << r.error().message();
      if (r.ok()) {
        EXPECT_EQ(r->junit.rfind(fsys::canonical(repo.dir()).string(), 0), 0u) << r->junit;
      }
    } else {
      ASSERT_FALSE(r.ok()) << c.spec.junit << " in " << c.spec.cwd.value_or(".");
      EXPECT_NE(r.error().message().find(c.expect), std::string::npos) << r.error().message();
    }
  }
}

TEST(GateCommandUnitsTest, LiveLinesSplitsEscapesAndBoundsLines) {
  std::vector<std::string> lines;
  gate::LiveLines live([&](std::string_view l) { lines.emplace_back(l); });
  live.feed("one\ntw");
  live.feed("o\r\nthree\x1b[0m");
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two"}));
  live.flush();
  EXPECT_EQ(lines.back(), "three\\x1b[0m");
  lines.clear();
  live.feed(std::string(gate::LiveLines::kMaxLineBytes * 2 + 10, 'x'));
  EXPECT_EQ(lines.size(), 2u);  // a line without a newline is not held forever
  live.feed("\n");
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines.back(), std::string(10, 'x'));
}

TEST(GateCommandUnitsTest, GateLogHashesWhatItSavesAndRenamesOverALink) {
  // FIPS 180-2 test vector.
  EXPECT_EQ(evidence::sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  test::TempDir t, outside;
  std::string target = outside.write("victim", "keep me");
  fsys::create_symlink(target, t.path("g.log"));
  auto log = evidence::GateLog::create(t.dir(), "g");
  ASSERT_TRUE(log.ok()) << log.error().message();
  log->append("a");
  log->append("bc");
  auto rec = log->finish();
  ASSERT_TRUE(rec.ok()) << rec.error().message();
  EXPECT_EQ(rec->sha256, evidence::sha256_hex("abc"));
  EXPECT_EQ(rec->bytes, 3u);
  EXPECT_EQ(rec->file, "g.log");
  EXPECT_FALSE(fsys::is_symlink(t.path("g.log")));
  EXPECT_EQ(test::read_file(t.path("g.log")), "abc");
  EXPECT_EQ(test::read_file(target), "keep me");  // replaced the link, not written through it
}

TEST(GateCommandUnitsTest, AbandonedAtomicFileLeavesNothing) {
  test::TempDir t;
  {
    auto f = fs::AtomicFile::create(t.dir(), "x.json");
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE(f->write("partial").ok());
  }
  EXPECT_TRUE(fsys::is_empty(t.dir()));
}

TEST(GateCommandUnitsTest, EvidenceDirectoryIsCheckedAndLockedPerGate) {
  test::TempDir t;
  EXPECT_FALSE(evidence::prepare_evidence_dir("").ok());
  EXPECT_FALSE(evidence::prepare_evidence_dir(t.path("a/b")).ok());
  EXPECT_FALSE(evidence::prepare_evidence_dir(t.write("file", "x")).ok());
  ASSERT_TRUE(evidence::prepare_evidence_dir(t.path("ev")).ok());
  EXPECT_TRUE(fsys::is_directory(t.path("ev")));
  auto first = evidence::RunLock::acquire(t.path("ev"), "g");
  ASSERT_TRUE(first.ok()) << first.error().message();
  std::optional<evidence::RunLock> held(std::move(*first));
  auto second = evidence::RunLock::acquire(t.path("ev"), "g");
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.error().message().find("(pid " + std::to_string(::getpid()) + ")"),
            std::string::npos)
      << second.error().message();
  // The refused one closed what it opened and removed nothing: the holder's file stays
  // and is still held.
  EXPECT_TRUE(fsys::exists(t.path("ev/.g.lock")));
  EXPECT_FALSE(evidence::RunLock::acquire(t.path("ev"), "g").ok());
  EXPECT_TRUE(evidence::RunLock::acquire(t.path("ev"), "other").ok());
  EXPECT_FALSE(fsys::exists(t.path("ev/.other.lock"))) << "removed as it was released";
  {
    // A run that opened the file before the holder let go ends up with the removed
    // file; the next run locks a new one at the path, and a third is refused.
    const int early = ::open(t.path("ev/.g.lock").c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(early, 0);
    held.reset();
    EXPECT_FALSE(fsys::exists(t.path("ev/.g.lock")));
    EXPECT_EQ(::flock(early, LOCK_EX | LOCK_NB), 0) << "the removed file is free";
    auto next = evidence::RunLock::acquire(t.path("ev"), "g");
    ASSERT_TRUE(next.ok()) << next.error().message();
    EXPECT_FALSE(evidence::RunLock::acquire(t.path("ev"), "g").ok());
    ::close(early);
  }
  EXPECT_FALSE(fsys::exists(t.path("ev/.g.lock")));
  // A lock file a killed run left behind is taken over.
  t.write("ev/.g.lock", "12345\n");
  {
    auto taken = evidence::RunLock::acquire(t.path("ev"), "g");
    ASSERT_TRUE(taken.ok()) << taken.error().message();
    EXPECT_EQ(test::read_file(t.path("ev/.g.lock")), std::to_string(::getpid()) + "\n");
  }
  EXPECT_FALSE(fsys::exists(t.path("ev/.g.lock")));
  // A planted link is not followed.
  fsys::create_symlink(t.path("elsewhere"), t.path("ev/.linked.lock"));
  EXPECT_FALSE(evidence::RunLock::acquire(t.path("ev"), "linked").ok());
  EXPECT_FALSE(fsys::exists(t.path("elsewhere")));
}

TEST(GateCommandUnitsTest, RepairUtf8NamesEveryPlace) {
  nlohmann::json j = {{"ok", "fine"},
                      {"reason", std::string("bad \xff")},
                      {"list", {"x", std::string("\xc3")}},
                      {std::string("k\xfe"), 1}};
  auto where = evidence::repair_utf8(j);
  std::sort(where.begin(), where.end());
  EXPECT_EQ(where, (std::vector<std::string>{"/k\xEF\xBF\xBD", "/list/1", "/reason"}));
  EXPECT_NO_THROW((void)j.dump());
  EXPECT_EQ(j["reason"], "bad \xEF\xBF\xBD");
}

}  // namespace
}  // namespace jetgate
