// SPDX-License-Identifier: Apache-2.0
#include "jetgate/evidence/gate_log.hpp"

#include <fmt/format.h>
#include <sodium.h>

#include "jetgate/evidence/gate_id.hpp"

namespace jetgate::evidence {
namespace {

std::string hex(const unsigned char* bytes, std::size_t n) {
  std::string out;
  out.reserve(n * 2);
  for (std::size_t i = 0; i < n; ++i) out += fmt::format("{:02x}", bytes[i]);
  return out;
}

void init_sodium() {
  // Idempotent and thread-safe; hashing needs no random source, but
  // libsodium asks to be initialised before any other call.
  [[maybe_unused]] static const int once = sodium_init();
}

}  // namespace

struct GateLog::Hash {
  crypto_hash_sha256_state state;
};

nlohmann::json to_json(const GateLogRecord& r) {
  return {{"file", r.file},
          {"sha256", r.sha256},
          {"bytes", r.bytes},
          {"discarded_bytes", r.discarded_bytes}};
}

std::string sha256_hex(std::string_view data) {
  init_sodium();
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(data.data()), data.size());
  return hex(digest, sizeof digest);
}

GateLog::GateLog(fs::AtomicFile file, std::string name)
    : file_(std::move(file)), name_(std::move(name)), hash_(std::make_unique<Hash>()) {
  crypto_hash_sha256_init(&hash_->state);
}

GateLog::GateLog(GateLog&&) noexcept = default;
GateLog::~GateLog() = default;

Result<GateLog> GateLog::create(const std::string& dir, const std::string& gate) {
  auto handle = fs::DirHandle::open(dir);
  if (!handle) return handle.error();
  return create(*handle, gate);
}

Result<GateLog> GateLog::create(const fs::DirHandle& dir, const std::string& gate) {
  if (auto st = validate_gate_id(gate, "gate"); !st) return st.error();
  init_sodium();
  auto file = fs::AtomicFile::create(dir, gate + ".log");
  if (!file) return file.error();
  return GateLog(std::move(*file), gate + ".log");
}

void GateLog::write_hashed(std::string_view data) {
  if (error_ || data.empty()) return;
  if (auto st = file_.write(data); !st) {
    error_ = st.error();
    return;
  }
  crypto_hash_sha256_update(&hash_->state, reinterpret_cast<const unsigned char*>(data.data()),
                            data.size());
  bytes_ += data.size();
}

void GateLog::append(std::string_view chunk) {
  const std::uint64_t room = bytes_ < kMaxGateLogBytes ? kMaxGateLogBytes - bytes_ : 0;
  if (chunk.size() > room) {
    discarded_ += chunk.size() - room;
    chunk = chunk.substr(0, static_cast<std::size_t>(room));
  }
  write_hashed(chunk);
}

Result<GateLogRecord> GateLog::finish() {
  if (discarded_ > 0)
    write_hashed(fmt::format(
        "\n[jetgate: the log is cut at {} bytes; {} more bytes of output were not saved]\n",
        kMaxGateLogBytes, discarded_));
  if (error_) return *error_;
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256_final(&hash_->state, digest);
  auto path = file_.commit();
  if (!path) return path.error();
  return GateLogRecord{name_, hex(digest, sizeof digest), bytes_, discarded_};
}

}  // namespace jetgate::evidence
