// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/text_escape.hpp"

#include "jetgate/core/utf8.hpp"

namespace jetgate::report {
namespace {

std::string_view trim_spaces(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

bool is_markdown_whitespace(const Utf8Unit& u) {
  return u.valid && (u.code_point == '\t' || u.code_point == '\n' || u.code_point == '\r');
}

// `prose`: also escape what starts a link, an image, a code span or emphasis.
std::string escape_markdown(std::string_view text, bool prose) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const Utf8Unit u = decode_utf8(text, i);
    const std::string_view raw = text.substr(i, u.length);
    i += u.length;
    if (is_markdown_whitespace(u)) {
      out += ' ';  // Markdown folds whitespace; a newline would end the row
      continue;
    }
    if (needs_visible_form(u)) {
      append_visible_form(out, raw, u);
      continue;
    }
    if (u.length > 1) {
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
        if (prose) out += '\\';
        out += raw[0];
        break;
      default:
        out += raw[0];
    }
  }
  return std::string(trim_spaces(out));
}

}  // namespace

std::string markdown_cell(std::string_view text) {
  return escape_markdown(text, false);
}
std::string markdown_inline(std::string_view text) {
  return escape_markdown(text, true);
}

}  // namespace jetgate::report
