// SPDX-License-Identifier: Apache-2.0
// Readers never write: `history show`, `regressions` and `report` open the database
// read-only, a database jetgate refuses keeps its bytes, an ingest of an unusable
// directory leaves no database behind, and a directory the walk cannot list is
// reported while the walk goes on. Errors name their cause.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "history_fleet.hpp"
#include "jetgate/history/store.hpp"
#include "test_support.hpp"

namespace jetgate {
namespace {

using test::read_file;
using test::run_jetgate;
using test::TempDir;

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

void sql(const std::string& db, const char* statement) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h, statement, nullptr, nullptr, nullptr), SQLITE_OK) << statement;
  sqlite3_close(h);
}

// Every file in dir with its size and a hash of its bytes: what a refused or read
// database leaves behind. A read-only reader of a database in WAL mode (as a newer
// jetgate left it) makes SQLite's shared-memory index and an empty log beside it, as
// any reader does (sqlite3 -readonly too); they hold nothing of the database and are
// not compared, but a log with frames in it would be.
std::vector<std::string> snapshot(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file()) {
      const std::string name = e.path().filename().string();
      if (name.size() > 4 && name.compare(name.size() - 4, 4, "-shm") == 0) continue;
      if (name.size() > 4 && name.compare(name.size() - 4, 4, "-wal") == 0 && e.file_size() == 0)
        continue;
      const std::string bytes = read_file(e.path());
      out.push_back(fmt::format("{} {} bytes {:016x}", e.path().filename().string(), bytes.size(),
                                std::hash<std::string>{}(bytes)));
    }
  std::sort(out.begin(), out.end());
  return out;
}

std::string evidence_dir(const TempDir& t, int nodes = 3, int days = 3) {
  std::mt19937_64 rng(7);
  for (int d = 0; d < days; ++d)
    for (int n = 0; n < nodes; ++n) {
      const std::string node = fmt::format("node-{:03d}", n);
      t.write(fmt::format("ev/{}/day-{:02d}/cuda-runtime.json", node, d),
              test::night_evidence(node, n, d, {}, rng));
    }
  return t.path("ev");
}

TEST(HistoryReaders, RefusedDatabasesKeepTheirBytesUnderEveryCommand) {
  TempDir t;
  const std::string ev = evidence_dir(t);
  std::filesystem::create_directories(t.path("newer"));
  std::filesystem::create_directories(t.path("foreign"));
  const std::string newer = t.path("newer/h.db"), foreign = t.path("foreign/app.db");
  ASSERT_EQ(run_jetgate({"history", "ingest", ev, "--db", newer, "--quiet"}).exit_code, 0);
  sql(newer, "PRAGMA user_version = 2");
  sql(foreign, "PRAGMA journal_mode=DELETE; CREATE TABLE notes(x); INSERT INTO notes VALUES(1)");
  for (const auto& [db, why] : {std::pair{newer, std::string("newer than the 1")},
                                std::pair{foreign, std::string("did not write")}}) {
    const auto dir = std::filesystem::path(db).parent_path().string();
    const auto before = snapshot(dir);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"history", "ingest", ev, "--db", db},
          {"history", "show", "--db", db},
          {"history", "regressions", "--db", db},
          {"history", "report", "--db", db, "--html", t.path("r.html")}}) {
      auto r = run_jetgate(args);
      EXPECT_EQ(r.exit_code, 2) << args[1] << " " << db << ": " << r.err;
      EXPECT_TRUE(has(r.err, why)) << r.err;
      EXPECT_EQ(snapshot(dir), before) << args[1] << " changed " << dir;
    }
  }
}

TEST(HistoryReaders, ReadersDoNotWaitBehindAWriterNorWriteBesideTheDatabase) {
  TempDir t;
  const std::string ev = evidence_dir(t);
  const std::string db = t.path("h.db");
  ASSERT_EQ(run_jetgate({"history", "ingest", ev, "--db", db, "--quiet"}).exit_code, 0);
  // Another process holds the write lock (an ingest in progress).
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &writer), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(writer, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  const auto start = std::chrono::steady_clock::now();
  auto show = run_jetgate({"history", "show", "--db", db, "--json"});
  auto regressions = run_jetgate({"history", "regressions", "--db", db, "--json"});
  const auto waited = std::chrono::steady_clock::now() - start;
  sqlite3_exec(writer, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(writer);
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(regressions.exit_code, 2) << regressions.err;
  // The busy timeout is a minute: a reader that took the write lock would still wait.
  EXPECT_LT(waited, std::chrono::seconds(20));
  // A reader of a database in the rollback journal mode (as another tool left it)
  // leaves it in that mode: nothing switched it to WAL.
  sql(db, "PRAGMA journal_mode=DELETE");
  const auto before = snapshot(t.dir());
  EXPECT_EQ(run_jetgate({"history", "show", "--db", db}).exit_code, 0);
  EXPECT_EQ(snapshot(t.dir()), before);
}

// A log with committed frames beside the database (a writer killed before it
// checkpointed, or a copy taken while one was open): a reader sees them but never
// checkpoints them into the file.
TEST(HistoryReaders, AReaderNeverCheckpointsALogIntoTheFile) {
  TempDir t;
  const std::string ev = evidence_dir(t, 2, 2);
  const std::string db = t.path("h.db");
  ASSERT_EQ(run_jetgate({"history", "ingest", ev, "--db", db, "--quiet"}).exit_code, 0);
  sqlite3* writer = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &writer), SQLITE_OK);
  ASSERT_EQ(
      sqlite3_exec(writer, "PRAGMA wal_autocheckpoint=0; UPDATE runs SET path = path || '.moved'",
                   nullptr, nullptr, nullptr),
      SQLITE_OK);
  // Copied while the writer still holds it open: the copy's log has the frames.
  std::filesystem::create_directories(t.path("copy"));
  for (const char* suffix : {"", "-wal"})
    std::filesystem::copy_file(db + suffix, t.path(std::string("copy/h.db") + suffix));
  sqlite3_close(writer);
  ASSERT_GT(std::filesystem::file_size(t.path("copy/h.db-wal")), 0u);
  const auto before = snapshot(t.path("copy"));
  auto show = run_jetgate({"history", "show", "--db", t.path("copy/h.db"), "--json"});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  EXPECT_TRUE(has(show.out, ".moved")) << "the reader sees the log's frames";
  EXPECT_EQ(snapshot(t.path("copy")), before);
}

TEST(HistoryReaders, AnIngestOfAnUnusableDirectoryLeavesNoDatabase) {
  TempDir t;
  t.write("a-file", "x");
  for (const std::string& dir : {t.path("missing"), t.path("a-file")}) {
    auto r = run_jetgate({"history", "ingest", dir, "--db", t.path("h.db")});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(has(r.err, "not a directory")) << r.err;
    EXPECT_FALSE(std::filesystem::exists(t.path("h.db"))) << dir;
  }
}

TEST(HistoryReaders, TheCauseIsNamedNotOneGenericMessage) {
  TempDir t;
  t.write("text.db", std::string(4096, 'x'));
  auto r = run_jetgate({"history", "show", "--db", t.path("text.db")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "not a SQLite database")) << r.err;
  EXPECT_FALSE(has(r.err, "ingest again")) << r.err;
  sql(t.path("empty.db"), "PRAGMA user_version = 0");
  auto empty = run_jetgate({"history", "regressions", "--db", t.path("empty.db")});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_TRUE(has(empty.err, "no history yet")) << empty.err;
}

// A subdirectory the user cannot list (as root nothing is unreadable, so the walk runs
// in a child that has dropped to nobody) is reported, and the files after it are found.
TEST(HistoryReaders, AnUnreadableSubdirectoryIsReportedAndTheWalkGoesOn) {
  TempDir t;
  const std::string ev = evidence_dir(t, 3, 2);  // node-000, node-001, node-002
  const std::string locked = ev + "/node-001";
  ::chmod(t.dir().c_str(), 0755);
  for (const auto& e : std::filesystem::recursive_directory_iterator(ev))
    ::chmod(e.path().c_str(), e.is_directory() ? 0755 : 0644);
  ::chmod(ev.c_str(), 0755);
  ::chmod(locked.c_str(), 0700);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(90);
    if (::geteuid() != 0) ::chmod(locked.c_str(), 0000);
    auto found = history::find_evidence_files({ev});
    if (!found) ::_exit(91);
    bool reported = false;
    for (const auto& s : found->skipped) reported = reported || s.file == locked;
    // 2 nights of node-000 and node-002 are found; node-001's 2 are not.
    ::_exit(!reported ? 92 : found->files.size() != 4 ? 93 : 0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ::chmod(locked.c_str(), 0755);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "90: cannot drop to nobody, 91: the walk failed, "
                                       "92: the locked directory was not reported, "
                                       "93: the files around it were not all found";
}

// Outside metadata is checked before it decides: one file dated 2099 (a clock ahead)
// would sort last for good and hide a failing node's later runs; one dated 1970 (a
// Jetson without a real-time clock, before NTP) would sort first and never be shown.
// Both are reported with the node and the run's status, and the rest are stored.
// A run cut short by SIGTERM (a drain, a rollout, a cancelled CI job) measured nothing:
// stored, it would be a failed run and `history regressions` would report the gate failing.
TEST(HistoryPlausibility, ARunCutShortIsReportedNotStoredAsAFailure) {
  TempDir t;
  std::mt19937_64 rng(5);
  test::NightPlan plan;
  auto whole = nlohmann::json::parse(test::night_evidence("node-a", 0, 0, plan, rng));
  t.write("ev/node-a/day-00.json", whole.dump(2));
  plan.failed = true;
  auto cut = nlohmann::json::parse(test::night_evidence("node-a", 0, 1, plan, rng));
  cut["interrupted"] = "SIGTERM";
  t.write("ev/node-a/day-01.json", cut.dump(2));
  // The same failed run without the mark is stored: the rule is the mark, not the status.
  auto failed = nlohmann::json::parse(test::night_evidence("node-a", 0, 2, plan, rng));
  failed["interrupted"] = nullptr;
  t.write("ev/node-a/day-02.json", failed.dump(2));
  auto store = history::Store::open(t.path("h.db"), true);
  ASSERT_TRUE(store.ok()) << store.error().message();
  history::IngestOptions options;
  options.now = 1793491200 + 10 * 86400;
  auto report = history::ingest(*store, {t.path("ev")}, options);
  ASSERT_TRUE(report.ok()) << report.error().message();
  EXPECT_EQ(report->added, 2u);
  ASSERT_EQ(report->bad.size(), 1u);
  EXPECT_TRUE(has(report->bad[0].why, "cut short by SIGTERM")) << report->bad[0].why;
  EXPECT_TRUE(has(report->bad[0].why, "\"node-a\"")) << report->bad[0].why;
  EXPECT_TRUE(has(report->bad[0].file, "day-01.json")) << report->bad[0].file;
}

TEST(HistoryPlausibility, RunsFromTheFutureOrBeforeJetgateAreReportedNotStored) {
  TempDir t;
  std::mt19937_64 rng(3);
  auto night = [&](const std::string& node, int day, const std::string& stamp, bool failed) {
    test::NightPlan plan;
    plan.failed = failed;
    auto doc = nlohmann::json::parse(test::night_evidence(node, 0, day, plan, rng));
    if (!stamp.empty()) doc["generated_at"] = stamp;
    t.write(fmt::format("ev/{}/day-{:02d}.json", node, day), doc.dump(2));
  };
  night("node-a", 0, "", false);
  night("node-a", 1, "2099-01-01T00:00:00Z", false);  // ahead
  night("node-b", 0, "1970-01-01T00:00:05Z", true);   // clock never set, and it failed
  night("node-b", 1, "", false);
  // The day after the planted month: 2026-11-01 + 10 days.
  const std::int64_t now = 1793491200 + 10 * 86400;
  const std::string db = t.path("h.db");
  auto store = history::Store::open(db, true);
  ASSERT_TRUE(store.ok()) << store.error().message();
  history::IngestOptions options;
  options.now = now;
  auto report = history::ingest(*store, {t.path("ev")}, options);
  ASSERT_TRUE(report.ok()) << report.error().message();
  EXPECT_EQ(report->added, 2u);
  ASSERT_EQ(report->bad.size(), 2u);
  std::string said;
  for (const auto& b : report->bad) said += b.why + "\n";
  EXPECT_TRUE(has(said, "after this ingest")) << said;
  EXPECT_TRUE(has(said, "before any jetgate evidence")) << said;
  EXPECT_TRUE(has(said, "\"node-b\" (failed)")) << said;
  // One file dated stamp, ingested alone: whether it was stored.
  auto stored_at = [&](const std::string& stamp) {
    TempDir u;
    auto doc = nlohmann::json::parse(test::night_evidence("node-c", 0, 0, {}, rng));
    doc["generated_at"] = stamp;
    u.write("ev/x.json", doc.dump());
    auto s2 = history::Store::open(u.path("h.db"), true);
    EXPECT_TRUE(s2.ok());
    auto r = history::ingest(*s2, {u.path("ev")}, options);
    EXPECT_TRUE(r.ok());
    return r.ok() && r->added == 1;
  };
  // Boundaries: a day ahead is a clock a little off (kept); a day and a second is not.
  for (const auto& [offset, stored] :
       {std::pair{std::int64_t{86400}, true}, std::pair{std::int64_t{86401}, false}}) {
    const std::time_t when = static_cast<std::time_t>(now + offset);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&when));
    EXPECT_EQ(stored_at(stamp), stored) << stamp;
  }
  // The first second jetgate evidence can carry is stored; the one before is not.
  EXPECT_TRUE(stored_at("2025-01-01T00:00:00Z"));
  EXPECT_FALSE(stored_at("2024-12-31T23:59:59Z"));
}

}  // namespace
}  // namespace jetgate
