// SPDX-License-Identifier: Apache-2.0
// Ed25519 keys for signed evidence (docs/trust.md). A runner signs with a
// secret key file that only its user can read; a policy trusts public keys
// by key id (the lowercase hex SHA-256 of the raw 32-byte public key).
//
// Secret key file (JSON, mode 0600, never in the repository):
//   {"format": "jetgate-ed25519-secret-key", "key_id": HEX, "seed": BASE64}
// where seed is the 32-byte Ed25519 seed (RFC 8032's private key).
// Public key file (FILE.pub.json), ready to paste into "trusted_keys":
//   {"key_id": HEX, "public_key": BASE64 (32 bytes), "owner": TEXT}
#pragma once

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "jetgate/core/result.hpp"
#include "jetgate/evidence/dates.hpp"

namespace jetgate::trust {

inline constexpr const char* kSecretKeyFormat = "jetgate-ed25519-secret-key";
inline constexpr const char* kPublicKeySuffix = ".pub.json";

// A key a policy trusts (one "trusted_keys" entry).
struct TrustedKey {
  std::string key_id;
  std::string public_key;                 // raw, 32 bytes
  std::string owner;                      // the runner or person it belongs to
  std::optional<evidence::Date> expires;  // last day its signatures count
};

class SigningKey;
Result<SigningKey> load_signing_key(const std::string& path);

// The secret half, loaded for signing; the secret bytes are wiped when it goes.
class SigningKey {
 public:
  static SigningKey from_seed(const std::array<unsigned char, 32>& seed);
  SigningKey(const SigningKey& other) = default;
  SigningKey& operator=(const SigningKey& other) = default;
  ~SigningKey();

  const std::string& key_id() const { return key_id_; }
  std::string public_key() const;                    // raw, 32 bytes
  std::string sign(std::string_view message) const;  // detached Ed25519 signature, 64 bytes
  // The uid that owns the key file it was loaded from (load_signing_key).
  std::optional<unsigned> file_owner() const { return file_owner_; }

 private:
  friend Result<SigningKey> load_signing_key(const std::string& path);
  std::optional<unsigned> file_owner_;
  SigningKey() = default;
  std::array<unsigned char, 64> secret_{};  // libsodium's form: seed then public key
  std::array<unsigned char, 32> public_{};
  std::string key_id_;
};

// The raw 32 bytes of a base64 public key, or nullopt.
std::optional<std::string> decode_public_key(std::string_view base64);

// Reads a secret key file. Refused (an Error with the fix) when the file can
// be read or written by group or others, is not a regular file (a FIFO is
// refused without waiting for a writer), or does not hold a consistent key.
Result<SigningKey> load_signing_key(const std::string& path);

struct WrittenKeyPair {  // NOLINT(bugprone-exception-escape): see .clang-tidy
  std::string secret_path, public_path;
  std::string key_id;
  nlohmann::json public_entry;  // what FILE.pub.json holds
};

// Generates a key pair: PATH (created 0600 with O_EXCL, never widened first)
// and PATH.pub.json. Refuses when either exists, unless force.
Result<WrittenKeyPair> write_key_pair(const std::string& path, const std::string& owner,
                                      bool force);

}  // namespace jetgate::trust
