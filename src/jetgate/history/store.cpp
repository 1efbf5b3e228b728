// SPDX-License-Identifier: Apache-2.0
#include "jetgate/history/store.hpp"

#include <fmt/format.h>
#include <sqlite3.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <system_error>
#include <thread>

#include "jetgate/claims/evidence_verdict.hpp"
#include "jetgate/claims/platform_key.hpp"
#include "jetgate/core/document_keys.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/evidence/dates.hpp"
#include "jetgate/evidence/evidence.hpp"
#include "jetgate/evidence/gate_log.hpp"
#include "jetgate/evidence/probe_values.hpp"
#include "jetgate/record/codec.hpp"
#include "jetgate/trust/envelope.hpp"

namespace jetgate::history {
namespace {

namespace stdfs = std::filesystem;

// Long enough for another process's batch of files to commit; short enough that a
// wedged writer is reported, not waited on forever.
constexpr int kBusyTimeoutMs = 60000;

constexpr const char* kFix = "check the path, or ingest again to make a new database";

constexpr const char* kSchema = R"sql(
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  digest TEXT NOT NULL UNIQUE,
  path TEXT NOT NULL,
  node TEXT NOT NULL,
  gate TEXT NOT NULL,
  platform TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  unix_time INTEGER NOT NULL,
  status TEXT NOT NULL,
  verdict TEXT NOT NULL
);
CREATE INDEX runs_by_series ON runs(node, gate, unix_time);
CREATE TABLE probe_values(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  probe TEXT NOT NULL,
  metric TEXT NOT NULL,
  value REAL NOT NULL,
  unit TEXT NOT NULL,
  PRIMARY KEY(run_id, probe, metric)
) WITHOUT ROWID;
CREATE INDEX probe_values_by_metric ON probe_values(probe, metric);
CREATE TABLE probe_status(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  probe TEXT NOT NULL,
  status TEXT NOT NULL,
  PRIMARY KEY(run_id, probe)
) WITHOUT ROWID;
CREATE TABLE sync_waits(
  run_id INTEGER NOT NULL REFERENCES runs(id),
  probe TEXT NOT NULL,
  mode TEXT NOT NULL,
  wait TEXT NOT NULL,
  PRIMARY KEY(run_id, probe, mode)
) WITHOUT ROWID;
)sql";

// What to do next, by what SQLite says went wrong (not one hint for every cause).
const char* hint_for(int code) {
  switch (code & 0xff) {
    case SQLITE_NOTADB:
      return "this file is not a SQLite database: name the history database, or a new file";
    case SQLITE_CORRUPT:
      return "the database is damaged: restore it from a backup, or ingest the evidence into a "
             "new one";
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return "another process holds the database: try again when it has finished";
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_CANTOPEN:
    case SQLITE_AUTH:
      return "check that the file and its directory exist and that this user may read (and, "
             "for ingest, write) them";
    case SQLITE_FULL:
    case SQLITE_IOERR:
      return "check the disk: it is full or failing";
    case SQLITE_NOMEM:
      return "free some memory and try again";
    default:
      return kFix;
  }
}

Error db_error(sqlite3* db, const std::string& what, const std::string& where) {
  if (!db) return make_error(what + ": out of memory", where, hint_for(SQLITE_NOMEM));
  return make_error(fmt::format("{}: {}", what, sqlite3_errmsg(db)), where,
                    hint_for(sqlite3_extended_errcode(db)));
}

// A prepared statement, finalized on every path.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) stmt_ = nullptr;
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  bool ok() const { return stmt_ != nullptr; }
  sqlite3_stmt* get() const { return stmt_; }
  void text(int i, const std::string& s) {
    sqlite3_bind_text(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
  }
  void integer(int i, std::int64_t v) { sqlite3_bind_int64(stmt_, i, v); }
  void real(int i, double v) { sqlite3_bind_double(stmt_, i, v); }
  int step() { return sqlite3_step(stmt_); }
  // Runs it once more with new bindings.
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  std::string column_text(int i) const {
    const auto* p = sqlite3_column_text(stmt_, i);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<std::size_t>(sqlite3_column_bytes(stmt_, i)))
             : std::string();
  }
  std::int64_t column_int(int i) const { return sqlite3_column_int64(stmt_, i); }
  double column_real(int i) const { return sqlite3_column_double(stmt_, i); }

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

bool busy(int rc) {
  return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
}

// SQLite returns SQLITE_BUSY without calling the busy handler where waiting could
// deadlock: changing the journal mode while another connection makes the database, or
// a lock upgrade. Such a statement is tried again, for as long as the busy timeout.
template <typename Step>
int retrying(Step&& step) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(kBusyTimeoutMs);
  int rc = step();
  while (busy(rc) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    rc = step();
  }
  return rc;
}

Status exec(sqlite3* db, const char* sql, const std::string& where) {
  char* message = nullptr;
  const int rc = retrying([&] {
    sqlite3_free(message);
    message = nullptr;
    return sqlite3_exec(db, sql, nullptr, nullptr, &message);
  });
  if (rc != SQLITE_OK) {
    std::string m = message ? message : sqlite3_errmsg(db);
    sqlite3_free(message);
    return make_error(fmt::format("{} failed: {}", sql, m), where, kFix);
  }
  return Ok{};
}

Result<std::int64_t> single_integer(sqlite3* db, const char* sql, const std::string& where) {
  Statement st(db, sql);
  if (!st.ok() || st.step() != SQLITE_ROW) return db_error(db, "cannot read the database", where);
  return st.column_int(0);
}

// Whether the database at db is one jetgate may use, by reading only: a newer
// jetgate's and another application's are refused before anything is written (the
// journal mode included), so a refused file keeps its bytes. empty: no table yet.
Status check_identity(sqlite3* db, const std::string& path, bool& empty) {
  // One statement, one snapshot: read apart, another process making the schema
  // between the two reads would look like another application's database.
  Statement st(db,
               "SELECT (SELECT user_version FROM pragma_user_version), "
               "(SELECT count(*) FROM sqlite_schema)");
  int rc = SQLITE_ERROR;
  if (st.ok())
    rc = retrying([&] {
      sqlite3_reset(st.get());
      return st.step();
    });
  if (rc != SQLITE_ROW) return db_error(db, "cannot read the database", path);
  const std::int64_t version = st.column_int(0), tables = st.column_int(1);
  if (version > kSchemaVersion)
    return make_error(
        fmt::format("the history database has schema version {}, newer than the {} this jetgate "
                    "reads (written by a newer jetgate)",
                    version, kSchemaVersion),
        path, "use the jetgate that wrote it, or ingest into a new database");
  if (version == 0 && tables > 0)
    return make_error(
        "a SQLite database that jetgate did not write (user_version 0, tables present)", path,
        "name a new file with --db");
  empty = version == 0;
  return Ok{};
}

// Creates the schema in an empty database, accepts this version, refuses others.
Status prepare_schema(sqlite3* db, const std::string& path) {
  if (auto st = exec(db, "BEGIN IMMEDIATE", path); !st) return st;
  auto fail = [&](Error e) -> Status {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return e;
  };
  // Again inside the transaction: another process may have made it meanwhile.
  bool empty = false;
  if (auto st = check_identity(db, path, empty); !st) return fail(st.error());
  if (empty) {
    if (auto st = exec(db, kSchema, path); !st) return fail(st.error());
    if (auto st = exec(db, fmt::format("PRAGMA user_version = {}", kSchemaVersion).c_str(), path);
        !st)
      return fail(st.error());
  }
  return exec(db, "COMMIT", path);
}

// One file, read and judged, ready to be written.
struct Parsed {
  std::string digest, file, node, gate, platform, timestamp, status, verdict;
  std::int64_t unix_time = 0;
  std::vector<evidence::ProbeReading> probes;
};

// 2025-01-01T00:00:00Z: no jetgate evidence is older. A clock the slack below ahead of
// the ingest is a clock that was wrong, not a time zone (timestamps carry theirs).
constexpr std::int64_t kEarliestEvidence = 1735689600;
constexpr std::int64_t kFutureSlack = 86400;

Result<Parsed> parse_file(const std::string& file, const std::string& text, std::string digest,
                          std::int64_t now) {
  auto e = evidence::evidence_from_text(text, file);
  if (!e) return e.error();
  Parsed p;
  p.digest = std::move(digest);
  p.file = file;
  p.gate = e->gate;
  // The members beyond OBLITERATUS' fields, read once: the node, the platform, the probes.
  const record::Record r = record::read(e->extra, record::Keep::known);
  p.node = r.head.lane_node.value_or("");
  if (p.node.empty())
    return make_error("records no node (/lane/node), so its history belongs to no node", file,
                      "run the gate with `jetgate run --node NAME` (RUNNER_NAME by default)");
  // A run cut short by a signal (a drain, a rollout, a cancelled job) measured nothing
  // about the node: stored, it would read as a failure of the gate.
  if (const nlohmann::json* cut = keys::find(e->extra, keys::kInterrupted); cut && !cut->is_null())
    return make_error(
        fmt::format("is a run of node {} cut short by {} (/interrupted): it measured "
                    "nothing, so it is not stored as a {} run",
                    quoted_text(p.node), cut->is_string() ? cut->get<std::string>() : "a signal",
                    evidence::to_string(e->status)),
        file,
        "nothing to do: the node's next complete run is stored (`jetgate run "
        "--every` keeps no cut-short run)");
  auto seconds = evidence::utc_seconds_of_timestamp(e->generated_at);
  auto day = evidence::utc_date_of_timestamp(e->generated_at);
  if (!seconds || !day)
    return make_error(
        fmt::format("generated_at {} is not a timestamp with a zone", quoted_text(e->generated_at)),
        file, "re-run the gate to write fresh evidence");
  // Said with the run's node and status: a failed run with a wrong clock is still news.
  const auto implausible = [&](const std::string& why, const std::string& hint) {
    return make_error(fmt::format("generated_at {} {}; the run of node {} ({}) is not stored, so "
                                  "that it cannot hide the node's other runs",
                                  quoted_text(e->generated_at), why, quoted_text(p.node),
                                  evidence::to_string(e->status)),
                      file, hint);
  };
  if (*seconds > now + kFutureSlack)
    return implausible(fmt::format("is {} day(s) after this ingest: the board's clock was ahead",
                                   (*seconds - now + 86399) / 86400),
                       "set the board's clock (NTP) and run the gate again");
  if (*seconds < kEarliestEvidence)
    return implausible(
        "is before any jetgate evidence (2025): the board's clock was not set "
        "(a Jetson without a real-time clock, before NTP)",
        "let the board's clock synchronise (NTP) before the gate runs, and run it "
        "again");
  p.timestamp = e->generated_at;
  p.unix_time = *seconds;
  auto key = claims::platform_key(r);
  p.platform = key.identified ? key.platform : "not recorded";
  p.status = evidence::to_string(e->status);
  // The verdict as of the run's own day: whether it was fresh green when it was made.
  claims::JudgeRules rules;
  rules.today = *day;
  const auto state = claims::judge_evidence(*e, rules).state;
  p.verdict = claims::to_string(state);
  // A node validator's run: the host read through its mount in a pod, no command of a
  // checkout to vouch for (gate::RunOptions::node_validator). Not a failed claim.
  if (state == claims::GateState::not_shown_clean) {
    const nlohmann::json* mount = keys::find(e->extra, keys::kHostMount);
    const nlohmann::json* command = keys::find(e->extra, keys::kCommand);
    if (mount && mount->is_object() && (!command || command->is_null()))
      p.verdict = kNodeValidatorVerdict;
  }
  p.probes = evidence::probe_readings(r);
  return p;
}

struct Writer {
  sqlite3* db;
  Statement run, value, status, wait;
  explicit Writer(sqlite3* d)
      : db(d),
        run(d,
            "INSERT OR IGNORE INTO runs(digest, path, node, gate, platform, timestamp, "
            "unix_time, status, verdict) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"),
        value(d,
              "INSERT OR REPLACE INTO probe_values(run_id, probe, metric, value, unit) "
              "VALUES(?1, ?2, ?3, ?4, ?5)"),
        status(d, "INSERT OR REPLACE INTO probe_status(run_id, probe, status) VALUES(?1, ?2, ?3)"),
        wait(d,
             "INSERT OR REPLACE INTO sync_waits(run_id, probe, mode, wait) VALUES(?1, ?2, ?3, "
             "?4)") {}
  bool ok() const { return run.ok() && value.ok() && status.ok() && wait.ok(); }

  // true: added; false: the digest was there (another process got it first).
  Result<bool> write(const Parsed& p) {
    run.reset();
    run.text(1, p.digest);
    run.text(2, p.file);
    run.text(3, p.node);
    run.text(4, p.gate);
    run.text(5, p.platform);
    run.text(6, p.timestamp);
    run.integer(7, p.unix_time);
    run.text(8, p.status);
    run.text(9, p.verdict);
    if (run.step() != SQLITE_DONE) return db_error(db, "cannot store a run", p.file);
    if (sqlite3_changes(db) == 0) return false;
    const std::int64_t id = sqlite3_last_insert_rowid(db);
    for (const auto& probe : p.probes) {
      if (!probe.status.empty()) {
        status.reset();
        status.integer(1, id);
        status.text(2, probe.id);
        status.text(3, probe.status);
        if (status.step() != SQLITE_DONE) return db_error(db, "cannot store a status", p.file);
      }
      for (const auto& v : probe.values) {
        value.reset();
        value.integer(1, id);
        value.text(2, probe.id);
        value.text(3, v.metric);
        value.real(4, v.value);
        value.text(5, v.base);
        if (value.step() != SQLITE_DONE) return db_error(db, "cannot store a value", p.file);
      }
      for (const auto& w : probe.waits) {
        wait.reset();
        wait.integer(1, id);
        wait.text(2, probe.id);
        wait.text(3, w.mode);
        wait.text(4, w.wait);
        if (wait.step() != SQLITE_DONE) return db_error(db, "cannot store a wait", p.file);
      }
    }
    return true;
  }
};

// Writes one batch in one transaction: all of it or, killed or failing, none.
Status write_batch(sqlite3* db, const std::vector<Parsed>& batch, const std::string& where,
                   IngestReport& report) {
  if (batch.empty()) return Ok{};
  if (auto st = exec(db, "BEGIN IMMEDIATE", where); !st) return st;
  Writer w(db);
  if (!w.ok()) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return db_error(db, "cannot prepare the statements", where);
  }
  std::size_t added = 0, already = 0;
  for (const auto& p : batch) {
    auto r = w.write(p);
    if (!r) {
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      return r.error();
    }
    ++(*r ? added : already);
  }
  if (auto st = exec(db, "COMMIT", where); !st) {
    sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    return st;
  }
  report.added += added;
  report.already += already;
  return Ok{};
}

// The evidence files under DIR, each directory listed on its own: one that cannot be
// listed is a skipped path with its reason, and the walk goes on (a recursive
// iterator ended the whole walk at the first, silently).
Status evidence_files_under(const std::string& dir, EvidenceFiles& out) {
  std::error_code ec;
  if (!stdfs::is_directory(dir, ec))
    return make_error(ec && ec != std::errc::no_such_file_or_directory
                          ? "cannot be read: " + ec.message()
                          : std::string("not a directory"),
                      dir, "pass folders that hold evidence files");
  std::vector<std::string> pending{dir}, files;
  while (!pending.empty()) {
    const std::string current = std::move(pending.back());
    pending.pop_back();
    stdfs::directory_iterator it(current, ec), end;
    if (ec) {
      out.skipped.push_back({current, "directory cannot be listed: " + ec.message()});
      continue;
    }
    for (; it != end; it.increment(ec)) {
      const auto& p = it->path();
      const auto type = it->symlink_status(ec).type();  // links are not followed
      if (ec) {
        out.skipped.push_back({p.string(), "cannot be read: " + ec.message()});
        ec.clear();
        continue;
      }
      if (type == stdfs::file_type::directory)
        pending.push_back(p.string());
      else if (type == stdfs::file_type::regular && p.extension() == ".json" &&
               !trust::is_envelope_name(p.filename().string()))
        files.push_back(p.string());
    }
    if (ec) out.skipped.push_back({current, "listing stopped: " + ec.message()});
    ec.clear();
  }
  std::sort(files.begin(), files.end());
  out.files.insert(out.files.end(), files.begin(), files.end());
  return Ok{};
}

}  // namespace

void Store::Close::operator()(sqlite3* db) const {
  sqlite3_close_v2(db);
}

Store::Store(std::unique_ptr<sqlite3, Close> db, std::string path)
    : db_(std::move(db)), path_(std::move(path)) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

namespace {

// Before SQLite opens it: PATH must hold a database file (or nothing, to create).
Status check_database_path(const std::string& path, bool create) {
  std::error_code ec;
  if (!create && !stdfs::is_regular_file(path, ec))
    return make_error("no history database here", path,
                      "make one with `jetgate history ingest DIR... --db FILE`");
  // What sits there must be a database file or nothing: SQLite would open a
  // device (/dev/null) or a FIFO and fail only when it writes, or block.
  const auto kind = stdfs::symlink_status(path, ec).type();
  if (!ec && kind != stdfs::file_type::regular && kind != stdfs::file_type::not_found)
    return make_error(kind == stdfs::file_type::symlink
                          ? "the database is a symbolic link; jetgate opens only a regular file"
                          : "the database is not a regular file (a directory, device, FIFO or "
                            "socket)",
                      path, "name a regular file (or a new one) with --db");
  return Ok{};
}

}  // namespace

// Opens the database at PATH with flags (and NOMUTEX, NOFOLLOW), with extended error
// codes and the busy timeout, and checks by reading only that jetgate may use it (empty:
// no schema yet). What open and open_read_only share.
Result<std::unique_ptr<sqlite3, Store::Close>> Store::open_checked(const std::string& path,
                                                                   int flags, bool& empty) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw,
                                 flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW, nullptr);
  std::unique_ptr<sqlite3, Close> db(raw);
  if (rc != SQLITE_OK) return db_error(raw, "cannot open the history database", path);
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, kBusyTimeoutMs);
  if (auto st = check_identity(raw, path, empty); !st) return st.error();
  return db;
}

Result<Store> Store::open_read_only(const std::string& path) {
  if (auto st = check_database_path(path, false); !st) return st.error();
  // Read-only: no lock a writer waits behind, no journal mode changed, no stray -wal
  // checkpointed into the file; what a reader opens keeps its bytes.
  bool empty = false;
  auto db = open_checked(path, SQLITE_OPEN_READONLY, empty);
  if (!db) return db.error();
  if (empty)
    return make_error("the database holds no history yet (no schema)", path,
                      "ingest evidence into it first: `jetgate history ingest DIR... --db FILE`");
  return Store(std::move(*db), path);
}

Result<Store> Store::open(const std::string& path, bool create) {
  if (auto st = check_database_path(path, create); !st) return st.error();
  // Refused before anything is written: a newer jetgate's or another application's
  // database is left as it was.
  bool empty = false;
  auto db = open_checked(path, SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0), empty);
  if (!db) return db.error();
  sqlite3* raw = db->get();
  // WAL: readers never block the writer, and a killed writer's uncommitted frames are
  // ignored on the next open. FULL: a committed batch survives a power cut too.
  {
    std::string mode;
    const int wal = retrying([&] {
      Statement st(raw, "PRAGMA journal_mode=WAL");
      if (!st.ok()) return sqlite3_errcode(raw);
      const int r = st.step();
      if (r == SQLITE_ROW) mode = st.column_text(0);
      return r;
    });
    if (wal != SQLITE_ROW)
      return db_error(raw, "not a SQLite database, or it cannot be written", path);
    if (mode != "wal")
      return make_error(
          "the database cannot use a write-ahead log (journal_mode " + quoted_text(mode) + ")",
          path, "put it on a local file system");
  }
  if (auto st = exec(raw, "PRAGMA synchronous=FULL", path); !st) return st.error();
  if (auto st = exec(raw, "PRAGMA foreign_keys=ON", path); !st) return st.error();
  if (auto st = prepare_schema(raw, path); !st) return st.error();
  return Store(std::move(*db), path);
}

Result<EvidenceFiles> find_evidence_files(const std::vector<std::string>& dirs) {
  EvidenceFiles found;
  for (const auto& dir : dirs)
    if (auto st = evidence_files_under(dir, found); !st) return st.error();
  return found;
}

Result<IngestReport> ingest(const Store& store, const std::vector<std::string>& dirs,
                            const IngestOptions& options) {
  auto found = find_evidence_files(dirs);
  if (!found) return found.error();
  return ingest(store, *found, options);
}

Result<IngestReport> ingest(const Store& store, const EvidenceFiles& found,
                            const IngestOptions& options) {
  IngestReport report;
  const auto& files = found.files;
  report.bad = found.skipped;
  report.files = files.size();
  sqlite3* db = store.handle();
  Statement known(db, "SELECT 1 FROM runs WHERE digest = ?1");
  if (!known.ok()) return db_error(db, "cannot read the database", store.path());
  std::vector<Parsed> batch;
  const std::size_t size = std::max<std::size_t>(1, options.batch);
  const std::int64_t now = options.now.value_or(static_cast<std::int64_t>(std::time(nullptr)));
  for (const auto& file : files) {
    auto text = evidence::read_evidence_text(file);
    if (!text) {
      report.bad.push_back({file, text.error().message()});
      continue;
    }
    std::string digest = evidence::sha256_hex(*text);
    known.reset();
    known.text(1, digest);
    const int rc = known.step();
    if (rc == SQLITE_ROW) {
      ++report.already;
      continue;
    }
    if (rc != SQLITE_DONE) return db_error(db, "cannot read the database", store.path());
    auto parsed = parse_file(file, *text, std::move(digest), now);
    if (!parsed) {
      report.bad.push_back({file, parsed.error().message()});
      continue;
    }
    batch.push_back(std::move(*parsed));
    if (batch.size() >= size) {
      known.reset();  // no read statement open while writing
      if (auto st = write_batch(db, batch, store.path(), report); !st) return st.error();
      batch.clear();
    }
  }
  known.reset();
  if (auto st = write_batch(db, batch, store.path(), report); !st) return st.error();
  return report;
}

Result<std::vector<Run>> load_runs(const Store& store) {
  sqlite3* db = store.handle();
  // One read transaction: every table as of one commit, whatever ingests run meanwhile.
  if (auto st = exec(db, "BEGIN", store.path()); !st) return st.error();
  auto done = [&] { sqlite3_exec(db, "COMMIT", nullptr, nullptr, nullptr); };
  std::vector<Run> runs;
  std::map<std::int64_t, std::size_t> index;
  {
    Statement st(db,
                 "SELECT id, digest, path, node, gate, platform, timestamp, unix_time, status, "
                 "verdict FROM runs ORDER BY node, gate, unix_time, path, id");
    if (!st.ok()) {
      done();
      return db_error(db, "cannot read the database", store.path());
    }
    int rc;
    while ((rc = st.step()) == SQLITE_ROW) {
      Run r;
      r.id = st.column_int(0);
      r.digest = st.column_text(1);
      r.file = st.column_text(2);
      r.node = st.column_text(3);
      r.gate = st.column_text(4);
      r.platform = st.column_text(5);
      r.timestamp = st.column_text(6);
      r.unix_time = st.column_int(7);
      r.status = st.column_text(8);
      r.verdict = st.column_text(9);
      index[r.id] = runs.size();
      runs.push_back(std::move(r));
    }
    if (rc != SQLITE_DONE) {
      done();
      return db_error(db, "cannot read the database", store.path());
    }
  }
  auto each = [&](const char* sql, auto&& f) -> Status {
    Statement st(db, sql);
    if (!st.ok()) return db_error(db, "cannot read the database", store.path());
    int rc;
    while ((rc = st.step()) == SQLITE_ROW) {
      auto it = index.find(st.column_int(0));
      if (it != index.end()) f(runs[it->second], st);
    }
    if (rc != SQLITE_DONE) return db_error(db, "cannot read the database", store.path());
    return Ok{};
  };
  Status st =
      each("SELECT run_id, probe, metric, value, unit FROM probe_values",
           [](Run& r, const Statement& s) {
             r.values[{s.column_text(1), s.column_text(2)}] = {s.column_real(3), s.column_text(4)};
           });
  if (st)
    st = each("SELECT run_id, probe, status FROM probe_status", [](Run& r, const Statement& s) {
      r.probe_status[s.column_text(1)] = s.column_text(2);
    });
  if (st)
    st = each("SELECT run_id, probe, mode, wait FROM sync_waits", [](Run& r, const Statement& s) {
      r.sync_waits[{s.column_text(1), s.column_text(2)}] = s.column_text(3);
    });
  done();
  if (!st) return st.error();
  return runs;
}

Result<std::vector<Point>> query(const Store& store, const Query& q) {
  sqlite3* db = store.handle();
  Statement st(db,
               "SELECT r.node, r.gate, r.platform, v.probe, v.metric, v.unit, r.timestamp, "
               "r.status, r.verdict, r.path, r.unix_time, v.value FROM probe_values v JOIN runs "
               "r ON r.id = v.run_id WHERE (?1 IS NULL OR r.node = ?1) AND (?2 IS NULL OR r.gate "
               "= ?2) AND (?3 IS NULL OR v.probe = ?3) AND (?4 IS NULL OR v.metric = ?4) ORDER BY "
               "r.node, r.gate, v.probe, v.metric, r.unix_time, r.path");
  if (!st.ok()) return db_error(db, "cannot read the database", store.path());
  int i = 1;
  for (const auto* f : {&q.node, &q.gate, &q.probe, &q.metric}) {
    if (*f) st.text(i, **f);
    ++i;
  }
  std::vector<Point> out;
  int rc;
  while ((rc = st.step()) == SQLITE_ROW) {
    Point p;
    p.node = st.column_text(0);
    p.gate = st.column_text(1);
    p.platform = st.column_text(2);
    p.probe = st.column_text(3);
    p.metric = st.column_text(4);
    p.unit = st.column_text(5);
    p.timestamp = st.column_text(6);
    p.status = st.column_text(7);
    p.verdict = st.column_text(8);
    p.file = st.column_text(9);
    p.unix_time = st.column_int(10);
    p.value = st.column_real(11);
    out.push_back(std::move(p));
  }
  if (rc != SQLITE_DONE) return db_error(db, "cannot read the database", store.path());
  return out;
}

nlohmann::json to_json(const std::vector<Point>& points) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& p : points)
    rows.push_back({{"node", p.node},
                    {"gate", p.gate},
                    {"platform", p.platform},
                    {"probe", p.probe},
                    {"metric", p.metric},
                    {"value", p.value},
                    {"unit", p.unit},
                    {"timestamp", p.timestamp},
                    {"unix_time", p.unix_time},
                    {"status", p.status},
                    {"verdict", p.verdict},
                    {"file", to_valid_utf8(p.file)}});
  return {{"schema_version", 1}, {"points", std::move(rows)}};
}

Result<Counts> counts(const Store& store) {
  Counts c;
  auto files = single_integer(store.handle(), "SELECT count(*) FROM runs", store.path());
  if (!files) return files.error();
  auto values = single_integer(store.handle(), "SELECT count(*) FROM probe_values", store.path());
  if (!values) return values.error();
  c.files = *files;
  c.values = *values;
  return c;
}

}  // namespace jetgate::history
