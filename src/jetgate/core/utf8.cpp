// SPDX-License-Identifier: Apache-2.0
#include "jetgate/core/utf8.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace jetgate {

// Well-formed UTF-8 byte sequences, Table 3-7 of the Unicode Standard: the
// second byte's range depends on the first; the others are 80..BF.
Utf8Unit decode_utf8(std::string_view s, std::size_t pos) {
  auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(s[i]); };
  const std::uint8_t b0 = byte(pos);
  if (b0 < 0x80) return {b0, 1, true};
  std::size_t need = 0;
  std::uint8_t lo = 0x80, hi = 0xBF;
  char32_t cp = 0;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
    cp = b0 & 0x1Fu;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    cp = b0 & 0x0Fu;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;  // no UTF-16 surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    cp = b0 & 0x07u;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return {b0, 1, false};
  }
  std::size_t i = 1;
  for (; i <= need; ++i) {
    if (pos + i >= s.size()) return {b0, i, false};
    const std::uint8_t b = byte(pos + i);
    const std::uint8_t first_lo = i == 1 ? lo : 0x80, first_hi = i == 1 ? hi : 0xBF;
    if (b < first_lo || b > first_hi) return {b0, i, false};
    cp = (cp << 6) | (b & 0x3Fu);
  }
  return {cp, need + 1, true};
}

bool is_valid_utf8(std::string_view s) {
  for (std::size_t pos = 0; pos < s.size();) {
    auto d = decode_utf8(s, pos);
    if (!d.valid) return false;
    pos += d.length;
  }
  return true;
}

std::string to_valid_utf8(std::string_view s) {
  if (is_valid_utf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 8);
  for (std::size_t pos = 0; pos < s.size();) {
    auto d = decode_utf8(s, pos);
    if (d.valid)
      out.append(s.substr(pos, d.length));
    else
      out.append(kReplacementCharacter);
    pos += d.length;
  }
  return out;
}

bool is_invisible_control(char32_t cp) {
  return cp == 0x061C || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
         (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFEFF ||
         (cp >= 0xFFF9 && cp <= 0xFFFB);
}

bool needs_visible_form(const Utf8Unit& u) {
  if (!u.valid) return true;
  const char32_t cp = u.code_point;
  return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || is_invisible_control(cp);
}

void append_visible_form(std::string& out, std::string_view raw, const Utf8Unit& u) {
  if (!u.valid) {
    for (char c : raw) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
  } else if (u.code_point < 0x20 || u.code_point == 0x7F) {
    out += fmt::format("\\x{:02x}", static_cast<unsigned>(u.code_point));
  } else {
    out += fmt::format("\\u{:04x}", static_cast<unsigned>(u.code_point));
  }
}

std::string terminal_safe(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t pos = 0; pos < s.size();) {
    const Utf8Unit u = decode_utf8(s, pos);
    const std::string_view raw = s.substr(pos, u.length);
    pos += u.length;
    if (needs_visible_form(u) && !(u.valid && u.code_point == '\t'))
      append_visible_form(out, raw, u);
    else
      out += raw;
  }
  return out;
}

}  // namespace jetgate
