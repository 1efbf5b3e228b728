// SPDX-License-Identifier: Apache-2.0
// GATE.log: everything the gate's command wrote (stdout and stderr in one
// stream, byte for byte), saved next to GATE.json while it runs. It is
// written to a hidden temporary file and renamed into place when the run
// ends (atomic_write.hpp), so neither a crash nor a symbolic link at GATE.log
// can make jetgate write anywhere else; the evidence names it with its size
// and SHA-256 (libsodium), so a reader can tell that the log is the one the
// evidence was written with.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "jetgate/core/result.hpp"
#include "jetgate/fs/atomic_write.hpp"

namespace jetgate::evidence {

// A log larger than this is cut there (and says so): a runaway command must
// not fill the disk of a CI runner.
inline constexpr std::uint64_t kMaxGateLogBytes = std::uint64_t{256} << 20;

struct GateLogRecord {
  std::string file;                   // "GATE.log", relative to the evidence file's directory
  std::string sha256;                 // 64 lowercase hex digits, of the file's bytes
  std::uint64_t bytes = 0;            // the file's size
  std::uint64_t discarded_bytes = 0;  // output beyond kMaxGateLogBytes, not saved
};
nlohmann::json to_json(const GateLogRecord& r);

class GateLog {
 public:
  static Result<GateLog> create(const std::string& dir, const std::string& gate);
  static Result<GateLog> create(const fs::DirHandle& dir, const std::string& gate);
  GateLog(GateLog&&) noexcept;
  GateLog& operator=(GateLog&&) = delete;
  ~GateLog();

  // Saves (and hashes) the chunk; a write error is remembered for finish().
  void append(std::string_view chunk);
  // Renames the log into place.
  Result<GateLogRecord> finish();

 private:
  struct Hash;
  GateLog(fs::AtomicFile file, std::string name);
  void write_hashed(std::string_view data);
  fs::AtomicFile file_;
  std::string name_;
  std::unique_ptr<Hash> hash_;
  std::uint64_t bytes_ = 0, discarded_ = 0;
  std::optional<Error> error_;
};

// Hex SHA-256 of data (libsodium's crypto_hash_sha256).
std::string sha256_hex(std::string_view data);

}  // namespace jetgate::evidence
