#include "jetgate/report/text_escape.hpp"

#include <fmt/format.h>

#include <cstdint>

namespace jetgate::report {
namespace {

enum class Target { terminal, cell, inline_text };

std::uint8_t byte_at(std::string_view s, std::size_t i) {
  return static_cast<std::uint8_t>(s[i]);
}

bool is_continuation(std::uint8_t b) {
  return (b & 0xC0) == 0x80;
}

void append_visible(std::string& out, const Utf8Unit& u, Target target) {
  if (!u.valid || u.code_point < 0x20 || u.code_point == 0x7F) {
    bool whitespace =
        u.valid && (u.code_point == '\t' || u.code_point == '\n' || u.code_point == '\r');
    // Markdown folds whitespace anyway; a terminal gets "\x0a" so a newline cannot forge a line.
    if (whitespace && (target != Target::terminal || u.code_point == '\t'))
      out += ' ';
    else
      out += fmt::format("\\x{:02x}", static_cast<unsigned>(u.code_point));
    return;
  }
  out += fmt::format("\\u{:04x}", static_cast<unsigned>(u.code_point));
}

bool needs_visible_form(const Utf8Unit& u) {
  if (!u.valid) return true;
  char32_t cp = u.code_point;
  return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || is_invisible_control(cp);
}

std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

std::string escape(std::string_view text, Target target) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    Utf8Unit u = decode_utf8(text, i);
    std::string_view raw = text.substr(i, u.length);
    i += u.length;
    if (needs_visible_form(u)) {
      append_visible(out, u, target);
      continue;
    }
    if (target == Target::terminal || u.length > 1) {
      out += raw;
      continue;
    }
    switch (raw[0]) {
      case '\\':
        out += "\\\\";
        break;
      case '|':
        out += "\\|";
        break;
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '[':
      case ']':
      case '`':
      case '*':
        if (target == Target::inline_text) out += '\\';
        out += raw[0];
        break;
      default:
        out += raw[0];
    }
  }
  if (target == Target::terminal) return out;
  return std::string(trim_spaces(out));
}

}  // namespace

Utf8Unit decode_utf8(std::string_view s, std::size_t pos) {
  std::uint8_t b0 = byte_at(s, pos);
  Utf8Unit invalid{b0, 1, false};
  if (b0 < 0x80) return {b0, 1, true};
  // Lead byte -> sequence length, payload bits and the smallest code point
  // that needs that length (anything smaller is an overlong form).
  struct Lead {
    std::uint8_t mask, value, payload;
    std::size_t length;
    char32_t min;
  };
  static constexpr Lead kLeads[] = {
      {0xE0, 0xC0, 0x1F, 2, 0x80}, {0xF0, 0xE0, 0x0F, 3, 0x800}, {0xF8, 0xF0, 0x07, 4, 0x10000}};
  const Lead* lead = nullptr;
  for (const auto& l : kLeads)
    if ((b0 & l.mask) == l.value) lead = &l;
  if (!lead) return invalid;
  std::size_t length = lead->length;
  char32_t cp = b0 & lead->payload, min = lead->min;
  if (pos + length > s.size()) return invalid;
  for (std::size_t k = 1; k < length; ++k) {
    std::uint8_t b = byte_at(s, pos + k);
    if (!is_continuation(b)) return invalid;
    cp = (cp << 6) | (b & 0x3Fu);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return invalid;
  return {cp, length, true};
}

bool is_invisible_control(char32_t cp) {
  return cp == 0x061C || (cp >= 0x200B && cp <= 0x200F) || (cp >= 0x2028 && cp <= 0x202E) ||
         (cp >= 0x2060 && cp <= 0x2064) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0xFEFF ||
         (cp >= 0xFFF9 && cp <= 0xFFFB);
}

std::string terminal_text(std::string_view text) {
  return escape(text, Target::terminal);
}
std::string markdown_cell(std::string_view text) {
  return escape(text, Target::cell);
}
std::string markdown_inline(std::string_view text) {
  return escape(text, Target::inline_text);
}

}  // namespace jetgate::report
