// SPDX-License-Identifier: Apache-2.0
// The history store (src/jetgate/history/store.cpp, docs/history.md): ingesting is
// idempotent by content digest; bad files are counted with file and reason, never
// fatal; several processes ingesting overlapping directories at once end with the
// exact row count; an ingest SIGKILLed at random moments leaves a database that passes
// PRAGMA integrity_check and that a re-ingest completes to the exact set; a newer
// schema is refused. The evidence is made from a real evidence file (history_fleet.hpp).
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "history_fleet.hpp"
#include "jetgate/evidence/gate_log.hpp"
#include "jetgate/evidence/probe_document.hpp"
#include "jetgate/history/store.hpp"
#include "test_support.hpp"

namespace jetgate {
namespace {

using test::TempDir;

// DIR/NODE-DAY/cuda-runtime.json for `nodes` nodes and `days` nights.
std::vector<std::string> write_fleet(const TempDir& t, const std::string& dir, int nodes, int days,
                                     std::uint64_t seed = 1) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> digests;
  for (int d = 0; d < days; ++d)
    for (int n = 0; n < nodes; ++n) {
      const std::string node = fmt::format("node-{:03d}", n);
      const std::string text = test::night_evidence(node, n, d, {}, rng);
      t.write(fmt::format("{}/{}/day-{:02d}/cuda-runtime.json", dir, node, d), text);
      digests.push_back(evidence::sha256_hex(text));
    }
  return digests;
}

std::int64_t scalar(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  std::int64_t v = -1;
  if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK &&
      sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return v;
}

std::string text_of(const std::string& db, const std::string& sql) {
  sqlite3* h = nullptr;
  sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READWRITE, nullptr);
  sqlite3_stmt* st = nullptr;
  std::string out;
  if (sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) == SQLITE_OK)
    while (sqlite3_step(st) == SQLITE_ROW)
      if (const auto* t = sqlite3_column_text(st, 0)) out += reinterpret_cast<const char*>(t);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

std::string integrity(const std::string& db) {
  return text_of(db, "PRAGMA integrity_check");
}

TEST(HistoryStore, IngestIsIdempotentByDigest) {
  TempDir t;
  auto digests = write_fleet(t, "ev", 5, 4);
  const std::string db = t.path("h.db");
  auto store = history::Store::open(db, true);
  ASSERT_TRUE(store.ok()) << store.error().message();
  auto first = history::ingest(*store, {t.path("ev")});
  ASSERT_TRUE(first.ok()) << first.error().message();
  EXPECT_EQ(first->files, 20u);
  EXPECT_EQ(first->added, 20u);
  EXPECT_TRUE(first->bad.empty());
  auto again = history::ingest(*store, {t.path("ev"), t.path("ev")});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->added, 0u);
  EXPECT_EQ(again->already, 40u);
  // A copy of a file under another name is the same bytes: still one row.
  std::filesystem::copy_file(t.path("ev/node-000/day-00/cuda-runtime.json"),
                             t.write("copy/x/cuda-runtime.json", ""),
                             std::filesystem::copy_options::overwrite_existing);
  auto copy = history::ingest(*store, {t.path("copy")});
  ASSERT_TRUE(copy.ok());
  EXPECT_EQ(copy->added, 0u);
  EXPECT_EQ(copy->already, 1u);
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM runs"), 20);
  std::set<std::string> want(digests.begin(), digests.end());
  auto runs = history::load_runs(*store);
  ASSERT_TRUE(runs.ok());
  std::set<std::string> got;
  for (const auto& r : *runs) got.insert(r.digest);
  EXPECT_EQ(got, want);
  EXPECT_EQ(text_of(db, "PRAGMA journal_mode"), "wal");
  EXPECT_EQ(scalar(db, "PRAGMA user_version"), history::kSchemaVersion);
}

TEST(HistoryStore, StoresEveryProbeValueInBaseUnitsAndTheWaits) {
  TempDir t;
  t.write("ev/a/cuda-runtime.json", [] {
    auto e = test::example_evidence();
    e["lane"] = {{"node", "orin-7"}};
    return e.dump();
  }());
  auto store = history::Store::open(t.path("h.db"), true);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(history::ingest(*store, {t.path("ev")}).ok());
  auto runs = history::load_runs(*store);
  ASSERT_TRUE(runs.ok());
  ASSERT_EQ(runs->size(), 1u);
  const auto& r = runs->front();
  EXPECT_EQ(r.node, "orin-7");
  EXPECT_EQ(r.gate, "cuda-runtime");
  EXPECT_EQ(r.platform, "NVIDIA H200 (x86_64)");
  EXPECT_EQ(r.timestamp, "2026-11-29T17:49:38Z");
  EXPECT_EQ(r.unix_time, 1795974578);
  EXPECT_EQ(r.status, "passed");
  // The example records no "dirty": as of its day it was not shown clean.
  EXPECT_EQ(r.verdict, "not_shown_clean");
  const auto d2d = r.values.at({"bandwidth", "d2d_gbps"});
  EXPECT_DOUBLE_EQ(d2d.first, 4224.602148787174e9);
  EXPECT_EQ(d2d.second, "bytes_per_second");
  EXPECT_DOUBLE_EQ(r.values.at({"launch", "first_launch_us"}).first, 42.79e-6);
  EXPECT_EQ(r.values.at({"sync_path", "sync_blocking_sync_cpu_fraction"}).second, "ratio");
  EXPECT_EQ(r.sync_waits.at({"sync_path", "blocking_sync"}), "interrupt_driven");
  EXPECT_EQ(r.sync_waits.at({"sync_path", "spin"}), "busy_polling");
  EXPECT_EQ(r.probe_status.at("bandwidth"), "PASS");
  // Every value of every probe: 9 + 3 + 5 + 9 in the example.
  EXPECT_EQ(r.values.size(), 26u);
}

// A node validator's run (`run --host-root` in a pod: /host_mount, no command, no
// checkout) backs no claim: it is stored as node_validator, not not_shown_clean, so the
// fleet report judges the node by its status (issue 40). The same file without the host
// mount, or with a command, is still a claim that was not shown clean.
TEST(HistoryStore, ANodeValidatorsRunIsNotAClaimThatFailed) {
  TempDir t;
  auto write = [&](const std::string& node, bool mounted, bool command) {
    auto e = test::example_evidence();
    e["lane"] = {{"node", node}, {"kind", "container"}};
    if (mounted) e["host_mount"] = evidence::host_mount_json("/host", true, true, "", "none");
    if (command) e["command"] = {{"argv", {"make", "test"}}, {"exit_code", 0}};
    t.write("ev/" + node + "/cuda-runtime.json", e.dump());
  };
  write("validator", true, false);
  write("no-mount", false, false);
  write("with-command", true, true);
  auto store = history::Store::open(t.path("h.db"), true);
  ASSERT_TRUE(store.ok());
  auto ingested = history::ingest(*store, {t.path("ev")});
  ASSERT_TRUE(ingested.ok()) << ingested.error().message();
  ASSERT_TRUE(ingested->bad.empty()) << ingested->bad.front().why;
  auto runs = history::load_runs(*store);
  ASSERT_TRUE(runs.ok());
  std::map<std::string, std::string> verdict;
  for (const auto& r : *runs) verdict[r.node] = r.verdict;
  EXPECT_EQ(verdict["validator"], history::kNodeValidatorVerdict);
  EXPECT_EQ(verdict["no-mount"], "not_shown_clean");
  EXPECT_EQ(verdict["with-command"], "not_shown_clean");
}

TEST(HistoryStore, BadFilesAreCountedWithFileAndReasonNeverFatal) {
  TempDir t;
  auto good = test::example_evidence();
  good["lane"] = {{"node", "n1"}};
  t.write("ev/good/cuda-runtime.json", good.dump());
  const std::string text = good.dump();
  t.write("ev/truncated/cuda-runtime.json", text.substr(0, text.size() / 2));
  t.write("ev/notutf8/cuda-runtime.json",
          std::string("{\"gate\": \"cuda-runtime\", \"reason\": \"\xff\xfe\"}"));
  auto huge = good;
  huge["probes"]["bandwidth"]["values"]["d2d_gbps"]["value"] = 1.7e308;
  t.write("ev/huge/cuda-runtime.json", huge.dump());
  auto hugecount = good;
  hugecount["counts"]["tests"] = nlohmann::json::parse("18446744073709551615");
  hugecount["generated_at"] = "2026-11-30T00:00:00Z";
  t.write("ev/hugecount/cuda-runtime.json", hugecount.dump());
  auto bignum = text;
  bignum.replace(bignum.find("4224.602148787174"), 17, std::string(400, '9'));
  t.write("ev/bignum/cuda-runtime.json", bignum);
  auto nonode = test::example_evidence();
  t.write("ev/nonode/cuda-runtime.json", nonode.dump());
  auto undated = good;
  undated["generated_at"] = "yesterday";
  t.write("ev/undated/cuda-runtime.json", undated.dump());
  t.write("ev/empty/cuda-runtime.json", "");
  t.write("ev/array/cuda-runtime.json", "[1, 2, 3]");
  auto store = history::Store::open(t.path("h.db"), true);
  ASSERT_TRUE(store.ok());
  auto r = history::ingest(*store, {t.path("ev")});
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->files, 10u);
  std::map<std::string, std::string> why;
  for (const auto& b : r->bad) why[std::filesystem::path(b.file).parent_path().filename()] = b.why;
  for (const char* bad : {"truncated", "notutf8", "nonode", "undated", "empty", "array"})
    EXPECT_TRUE(why.count(bad)) << bad;
  EXPECT_NE(why["truncated"].find("truncated"), std::string::npos) << why["truncated"];
  EXPECT_NE(why["nonode"].find("/lane/node"), std::string::npos) << why["nonode"];
  EXPECT_NE(why["undated"].find("generated_at"), std::string::npos) << why["undated"];
  for (const auto& b : r->bad) EXPECT_NE(b.why.find(b.file), std::string::npos) << b.why;
  // The good file and whichever of the huge-number files the reader accepts are stored;
  // a value that is not a finite number is left out, never stored as inf.
  EXPECT_EQ(r->added + r->bad.size(), 10u);
  EXPECT_FALSE(why.count("good"));
  EXPECT_FALSE(why.count("huge")) << why["huge"];
  auto runs = history::load_runs(*store);
  ASSERT_TRUE(runs.ok());
  bool huge_seen = false;
  for (const auto& run : *runs)
    if (run.file.find("/huge/") != std::string::npos) {
      huge_seen = true;
      EXPECT_FALSE(run.values.count({"bandwidth", "d2d_gbps"}))
          << "1.7e308 GB/s is no finite value";
      EXPECT_TRUE(run.values.count({"bandwidth", "h2d_gbps"}));
    }
  EXPECT_TRUE(huge_seen);
  for (const auto& run : *runs)
    for (const auto& [k, v] : run.values) EXPECT_TRUE(std::isfinite(v.first)) << k.second;
}

TEST(HistoryStore, MissingDirectoryIsAnErrorNotAnEmptyIngest) {
  TempDir t;
  auto store = history::Store::open(t.path("h.db"), true);
  ASSERT_TRUE(store.ok());
  auto r = history::ingest(*store, {t.path("nowhere")});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("not a directory"), std::string::npos);
}

TEST(HistoryStore, RefusesANewerSchemaAndForeignDatabases) {
  TempDir t;
  {
    auto store = history::Store::open(t.path("h.db"), true);
    ASSERT_TRUE(store.ok());
  }
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(t.path("h.db").c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h, "PRAGMA user_version = 2", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(h);
  auto newer = history::Store::open(t.path("h.db"), false);
  ASSERT_FALSE(newer.ok());
  EXPECT_NE(newer.error().message().find("schema version 2, newer than the 1"), std::string::npos)
      << newer.error().message();
  EXPECT_EQ(scalar(t.path("h.db"), "PRAGMA user_version"), 2);  // left as it was

  ASSERT_EQ(sqlite3_open(t.path("other.db").c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h, "CREATE TABLE t(x)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(h);
  auto foreign = history::Store::open(t.path("other.db"), true);
  ASSERT_FALSE(foreign.ok());
  EXPECT_NE(foreign.error().message().find("did not write"), std::string::npos);

  t.write("text.db", "this is not a database, just text that is long enough to be read as one\n");
  EXPECT_FALSE(history::Store::open(t.path("text.db"), true).ok());
  EXPECT_FALSE(history::Store::open(t.path("absent.db"), false).ok());
}

// Several processes ingest overlapping directories into one database at once.
// A device, FIFO, directory or link where the database should be is refused
// before SQLite opens it: /dev/null ended in "COMMIT failed" after the work,
// and a FIFO could block.
TEST(HistoryStore, ADatabaseThatIsNotARegularFileIsRefusedBeforeOpening) {
  TempDir t;
  std::filesystem::create_directories(t.path("dir.db"));
  ASSERT_EQ(::mkfifo(t.path("fifo.db").c_str(), 0600), 0);
  {
    auto store = history::Store::open(t.path("real.db"), true);
    ASSERT_TRUE(store.ok()) << store.error().message();
  }
  std::filesystem::create_symlink(t.path("real.db"), t.path("link.db"));
  for (const std::string& path :
       {std::string("/dev/null"), t.path("dir.db"), t.path("fifo.db"), t.path("link.db")}) {
    for (bool create : {true, false}) {
      auto store = history::Store::open(path, create);
      ASSERT_FALSE(store.ok()) << path;
      if (create) {
        EXPECT_NE(store.error().message().find("regular file"), std::string::npos)
            << store.error().message();
      }
    }
  }
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode)) << "/dev/null is still a device";
  EXPECT_TRUE(history::Store::open(t.path("real.db"), false).ok());
}

TEST(HistoryStore, ConcurrentIngestsEndWithTheExactRowCount) {
  TempDir t;
  auto a = write_fleet(t, "a", 10, 6, 1);  // 60 files
  auto b = write_fleet(t, "b", 10, 6, 2);  // 60 other files
  const std::string db = t.path("h.db");
  std::vector<std::vector<std::string>> dirs = {{t.path("a")},
                                                {t.path("b")},
                                                {t.path("a"), t.path("b")},
                                                {t.path("b"), t.path("a")},
                                                {t.path("a")},
                                                {t.path("a"), t.path("b")}};
  std::vector<pid_t> children;
  for (const auto& d : dirs) {
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto store = history::Store::open(db, true);
      if (!store) {
        std::fprintf(stderr, "%s\n", store.error().message().c_str());
        _exit(3);
      }
      history::IngestOptions o;
      o.batch = 7;
      auto r = history::ingest(*store, d, o);
      if (!r) std::fprintf(stderr, "%s\n", r.error().message().c_str());
      _exit(r.ok() && r->bad.empty() ? 0 : 4);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "an ingest failed (3: open, 4: ingest)";
  }
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM runs"), 120);
  EXPECT_EQ(scalar(db, "SELECT count(DISTINCT digest) FROM runs"), 120);
  EXPECT_EQ(scalar(db, "SELECT count(*) FROM probe_values"), 120 * 26);
  EXPECT_EQ(integrity(db), "ok");
}

// An ingest killed at any moment loses nothing committed and corrupts nothing.
TEST(HistoryStore, SurvivesSigkillAtRandomMoments) {
  TempDir t;
  auto digests = write_fleet(t, "ev", 20, 10, 3);  // 200 files
  const std::string db = t.path("h.db");
  std::mt19937 rng(20261203);
  std::uniform_int_distribution<int> delay_us(0, 60000);
  int killed_mid_way = 0;
  for (int i = 0; i < 25; ++i) {
    // Every few rounds a fresh database, so the kill also lands while the schema is made.
    if (i % 5 == 0)
      for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto store = history::Store::open(db, true);
      if (!store) _exit(3);
      history::IngestOptions o;
      o.batch = 3;
      auto r = history::ingest(*store, {t.path("ev")}, o);
      _exit(r.ok() ? 0 : 4);
    }
    std::this_thread::sleep_for(std::chrono::microseconds(delay_us(rng)));
    kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status)) ++killed_mid_way;
    if (WIFEXITED(status)) {
      EXPECT_EQ(WEXITSTATUS(status), 0);
    }
    if (!std::filesystem::exists(db)) continue;
    EXPECT_EQ(integrity(db), "ok") << "round " << i;
    // No half-written run: every stored run has all its values.
    const auto runs = scalar(db, "SELECT count(*) FROM runs");
    if (runs >= 0) {
      EXPECT_EQ(scalar(db, "SELECT count(*) FROM probe_values"), runs * 26) << "round " << i;
    }
  }
  EXPECT_GT(killed_mid_way, 5) << "the kills should mostly land mid-ingest";
  RecordProperty("killed_mid_way", killed_mid_way);
  auto store = history::Store::open(db, true);
  ASSERT_TRUE(store.ok()) << store.error().message();
  auto r = history::ingest(*store, {t.path("ev")});
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_EQ(r->added + r->already, 200u);
  auto runs = history::load_runs(*store);
  ASSERT_TRUE(runs.ok());
  std::set<std::string> got;
  for (const auto& run : *runs) got.insert(run.digest);
  EXPECT_EQ(got, std::set<std::string>(digests.begin(), digests.end()));
  EXPECT_EQ(runs->size(), 200u);
  EXPECT_EQ(integrity(db), "ok");
}

TEST(HistoryStore, QueryFiltersByNodeGateProbeMetricInTimeOrder) {
  TempDir t;
  write_fleet(t, "ev", 3, 5);
  auto store = history::Store::open(t.path("h.db"), true);
  ASSERT_TRUE(store.ok());
  ASSERT_TRUE(history::ingest(*store, {t.path("ev")}).ok());
  history::Query q;
  q.node = "node-001";
  q.gate = "cuda-runtime";
  q.probe = "bandwidth";
  q.metric = "d2d_gbps";
  auto points = history::query(*store, q);
  ASSERT_TRUE(points.ok());
  ASSERT_EQ(points->size(), 5u);
  for (std::size_t i = 1; i < points->size(); ++i)
    EXPECT_LT((*points)[i - 1].unix_time, (*points)[i].unix_time);
  for (const auto& p : *points) {
    EXPECT_EQ(p.node, "node-001");
    EXPECT_EQ(p.unit, "bytes_per_second");
    EXPECT_GT(p.value, 3.5e12);
    EXPECT_LT(p.value, 5e12);
  }
  history::Query all_nodes;
  all_nodes.metric = "d2d_gbps";
  auto all = history::query(*store, all_nodes);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 15u);
}

// The command: ingest, show (text, JSON, Markdown with hostile names), exit statuses.
TEST(HistoryCli, IngestShowAndExitStatuses) {
  TempDir t;
  write_fleet(t, "ev", 2, 3);
  auto hostile = test::example_evidence();
  hostile["lane"] = {{"node", "evil|<!-- [x](http://e) \u202e"}};
  t.write("ev/hostile/cuda-runtime.json", hostile.dump());
  t.write("ev/broken/cuda-runtime.json", "{\"gate\": ");
  const std::string db = t.path("h.db");
  auto in = test::run_jetgate({"history", "ingest", t.path("ev"), "--db", db});
  EXPECT_EQ(in.exit_code, 0) << in.err;
  EXPECT_NE(in.out.find("8 evidence file(s): 7 added, 0 already stored, 1 bad"), std::string::npos)
      << in.out;
  EXPECT_NE(in.err.find("broken/cuda-runtime.json"), std::string::npos) << in.err;
  auto again = test::run_jetgate({"history", "ingest", t.path("ev"), "--db", db, "--json"});
  EXPECT_EQ(again.exit_code, 0);
  auto doc = nlohmann::json::parse(again.out);
  EXPECT_EQ(doc["added"], 0);
  EXPECT_EQ(doc["already"], 7);
  EXPECT_EQ(doc["database"]["runs"], 7);

  auto show = test::run_jetgate({"history", "show", "--db", db, "--node", "node-000", "--probe",
                                 "bandwidth", "--metric", "h2d_gbps", "--json"});
  EXPECT_EQ(show.exit_code, 0) << show.err;
  auto points = nlohmann::json::parse(show.out)["points"];
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[0]["unit"], "bytes_per_second");
  EXPECT_EQ(points[0]["timestamp"], "2026-11-01T02:00:00Z");

  auto md =
      test::run_jetgate({"history", "show", "--db", db, "--metric", "d2d_gbps", "--markdown"});
  EXPECT_EQ(md.exit_code, 0);
  EXPECT_EQ(md.out.find("<!--"), std::string::npos) << md.out;
  EXPECT_EQ(md.out.find("evil|"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("evil\\|"), std::string::npos) << md.out;
  auto text = test::run_jetgate({"history", "show", "--db", db, "--metric", "d2d_gbps"});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_EQ(text.out.find("\u202e"), std::string::npos);

  EXPECT_EQ(test::run_jetgate({"history", "show", "--db", t.path("absent.db")}).exit_code, 2);
  EXPECT_EQ(test::run_jetgate({"history", "ingest", t.path("nowhere"), "--db", db}).exit_code, 2);
  EXPECT_EQ(test::run_jetgate({"history"}).exit_code, 2);
  auto help = test::run_jetgate({"history", "regressions", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("since when"), std::string::npos);
}

}  // namespace
}  // namespace jetgate
