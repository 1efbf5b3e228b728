// SPDX-License-Identifier: Apache-2.0
#include "jetgate/trust/encoding.hpp"

#include <sodium.h>

#include <vector>

namespace jetgate::trust {

void init_sodium() {
  [[maybe_unused]] static const int once = sodium_init();
}

std::string to_base64(std::string_view bytes) {
  init_sodium();
  constexpr int variant = sodium_base64_VARIANT_ORIGINAL;
  std::vector<char> out(sodium_base64_ENCODED_LEN(bytes.size(), variant));
  sodium_bin2base64(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                    bytes.size(), variant);
  return std::string(out.data());
}

std::optional<std::string> from_base64(std::string_view text) {
  init_sodium();
  std::string bin(text.size() / 4 * 3 + 3, '\0');
  std::size_t bin_len = 0;
  const char* end = nullptr;
  if (sodium_base642bin(reinterpret_cast<unsigned char*>(bin.data()), bin.size(), text.data(),
                        text.size(), nullptr, &bin_len, &end, sodium_base64_VARIANT_ORIGINAL) != 0)
    return std::nullopt;
  if (end != text.data() + text.size()) return std::nullopt;  // trailing bytes
  bin.resize(bin_len);
  // One spelling per byte string: whatever libsodium tolerates beyond the
  // canonical form (non-zero trailing bits) would let an envelope change
  // without changing what it says.
  if (to_base64(bin) != text) return std::nullopt;
  return bin;
}

std::string to_hex(std::string_view bytes) {
  init_sodium();
  std::vector<char> out(bytes.size() * 2 + 1);
  sodium_bin2hex(out.data(), out.size(), reinterpret_cast<const unsigned char*>(bytes.data()),
                 bytes.size());
  return std::string(out.data());
}

std::string key_id_of(std::string_view raw_public_key) {
  init_sodium();
  unsigned char digest[crypto_hash_sha256_BYTES];
  crypto_hash_sha256(digest, reinterpret_cast<const unsigned char*>(raw_public_key.data()),
                     raw_public_key.size());
  return to_hex(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

bool is_key_id(std::string_view text) {
  if (text.size() != std::size_t{2} * crypto_hash_sha256_BYTES) return false;
  for (char c : text)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

ContentTagKey new_content_tag_key() {
  init_sodium();
  ContentTagKey key{};
  static_assert(sizeof(key) == crypto_shorthash_KEYBYTES);
  randombytes_buf(key.data(), key.size());
  return key;
}

std::uint64_t content_tag(const ContentTagKey& key, std::string_view bytes) {
  unsigned char out[crypto_shorthash_BYTES];
  static_assert(sizeof(out) == sizeof(std::uint64_t));
  crypto_shorthash(out, reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(),
                   key.data());
  std::uint64_t tag = 0;
  for (unsigned char b : out) tag = (tag << 8) | b;
  return tag;
}

}  // namespace jetgate::trust
