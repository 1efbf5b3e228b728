// SPDX-License-Identifier: Apache-2.0
// The byte encodings signed evidence uses, all through libsodium: standard
// base64 with padding (what DSSE and in-toto write), lowercase hex, and the
// key id (lowercase hex SHA-256 of the raw 32-byte Ed25519 public key). The
// decoder is strict: only the canonical encoding of some bytes is accepted,
// so an envelope has exactly one spelling and a re-encoded one is a change.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace jetgate::trust {

// libsodium asks to be initialised before any other call; every entry point
// of this folder calls it (it is idempotent and thread-safe).
void init_sodium();

std::string to_base64(std::string_view bytes);
// nullopt unless text is exactly to_base64(bytes) of some bytes: no
// whitespace, no URL-safe alphabet, padding present and bits after the last
// byte zero.
std::optional<std::string> from_base64(std::string_view text);

std::string to_hex(std::string_view bytes);

// Lowercase hex SHA-256 of the raw public key (32 bytes): 64 characters.
std::string key_id_of(std::string_view raw_public_key);

// 64 lowercase hex digits.
bool is_key_id(std::string_view text);

// A secret key for content_tag, fresh from the system's random source.
using ContentTagKey = std::array<unsigned char, 16>;
ContentTagKey new_content_tag_key();
// SipHash-2-4 of bytes under key: whoever does not know the key cannot make
// other bytes with the same tag. What the loader of evidence keeps of each
// file's bytes, so that a second read proves it got the bytes it judged.
std::uint64_t content_tag(const ContentTagKey& key, std::string_view bytes);

}  // namespace jetgate::trust
