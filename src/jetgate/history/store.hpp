// SPDX-License-Identifier: Apache-2.0
// The fleet's history of evidence: an embedded SQLite database (docs/history.md).
// One row per evidence file, keyed by the SHA-256 of its bytes, so ingesting a file
// twice adds nothing; with it every probe value in its base unit
// (evidence/probe_values.hpp), every probe's status and the sync path's wait per
// scheduling mode. Several processes may ingest into one database at once (WAL
// journal, a busy timeout, one transaction per batch of files), and a process killed
// at any point leaves every committed batch and nothing of the batch it was writing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "jetgate/core/result.hpp"

struct sqlite3;

namespace jetgate::history {

// PRAGMA user_version of the databases this jetgate writes. A database with a higher
// one was written by a newer jetgate and is refused, never changed.
inline constexpr int kSchemaVersion = 1;

// The verdict stored for a node validator's run: `run --host-root` in a pod (the evidence
// has /host_mount) with no checkout git could vouch for. Such a run backs no support
// claim ("not shown clean" is about claims), so reports judge its node by the gate's
// status alone (docs/history.md).
inline constexpr const char* kNodeValidatorVerdict = "node_validator";

class Store {
 public:
  // Opens (create: creating it when absent) the database at PATH and its schema, to
  // write it (`ingest`). A database jetgate does not write is refused unchanged.
  static Result<Store> open(const std::string& path, bool create);
  // Opens an existing database to read it only (`show`, `regressions`, `report`):
  // nothing in the file or beside it is written, and no writer waits behind it.
  static Result<Store> open_read_only(const std::string& path);
  Store(Store&&) noexcept;
  Store& operator=(Store&&) noexcept;
  ~Store();
  sqlite3* handle() const { return db_.get(); }
  const std::string& path() const { return path_; }

 private:
  struct Close {
    void operator()(sqlite3* db) const;
  };
  Store(std::unique_ptr<sqlite3, Close> db, std::string path);
  static Result<std::unique_ptr<sqlite3, Close>> open_checked(const std::string& path, int flags,
                                                              bool& empty);
  std::unique_ptr<sqlite3, Close> db_;
  std::string path_;
};

struct BadFile {
  std::string file;
  std::string why;  // one line: what is wrong with it
};

struct IngestReport {
  std::size_t files = 0;     // evidence files found under the directories
  std::size_t added = 0;     // new rows
  std::size_t already = 0;   // their digest was stored already (this or another process)
  std::vector<BadFile> bad;  // not ingested, with the reason; never fatal
};

struct IngestOptions {
  std::size_t batch = 256;  // files per transaction
  // The ingest's own time (Unix seconds; default: the clock now). Evidence dated more
  // than a day after it, or before jetgate evidence could exist (2025), is a BadFile:
  // a board whose clock was ahead or never set (a Jetson without a real-time clock
  // before NTP) would otherwise sort its run last or first for good and hide the rest.
  std::optional<std::int64_t> now;
};

// Every *.json file under each directory (recursively, symbolic links not followed;
// GATE.dsse.json envelopes are not evidence), and every path below them that could not
// be listed or read, with why. A directory named that is missing or not a directory is
// an Error. `ingest` lists first, so an unusable directory leaves no database behind.
struct EvidenceFiles {
  std::vector<std::string> files;
  std::vector<BadFile> skipped;
};
Result<EvidenceFiles> find_evidence_files(const std::vector<std::string>& dirs);

// Stores the files found; a file that is not usable evidence, and every path the walk
// skipped, is a BadFile (never fatal).
Result<IngestReport> ingest(const Store& store, const EvidenceFiles& found,
                            const IngestOptions& options = {});
// find_evidence_files, then the above.
Result<IngestReport> ingest(const Store& store, const std::vector<std::string>& dirs,
                            const IngestOptions& options = {});

// One ingested evidence file.
struct Run {
  std::int64_t id = 0;
  std::string digest, file, node, gate, platform, timestamp;
  std::int64_t unix_time = 0;
  std::string status;  // the gate's status as recorded: "passed", "failed", "not_run"
  // claims' verdict as of the run's own day, no policy ("fresh_green", ...), or
  // kNodeValidatorVerdict.
  std::string verdict;
  // (probe, metric) -> value in its base unit, and the base unit.
  std::map<std::pair<std::string, std::string>, std::pair<double, std::string>> values;
  std::map<std::string, std::string> probe_status;                        // probe -> "PASS", ...
  std::map<std::pair<std::string, std::string>, std::string> sync_waits;  // (probe, mode) -> wait
};

// Every run, ordered by node, gate, time, file.
Result<std::vector<Run>> load_runs(const Store& store);

struct Query {
  std::optional<std::string> node, gate, probe, metric;
};

struct Point {
  std::string node, gate, platform, probe, metric, unit, timestamp, status, verdict, file;
  std::int64_t unix_time = 0;
  double value = 0;
};

// Probe values matching every filter given, ordered by node, gate, probe, metric, time.
Result<std::vector<Point>> query(const Store& store, const Query& q);
nlohmann::json to_json(const std::vector<Point>& points);

// Rows in the database: files and metric values (for tests and `history ingest`).
struct Counts {
  std::int64_t files = 0, values = 0;
};
Result<Counts> counts(const Store& store);

}  // namespace jetgate::history
