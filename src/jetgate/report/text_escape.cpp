// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/text_escape.hpp"

#include "jetgate/core/utf8.hpp"

namespace jetgate::report {
namespace {

bool is_markdown_whitespace(const Utf8Unit& u) {
  return u.valid && (u.code_point == '\t' || u.code_point == '\n' || u.code_point == '\r');
}

bool is_ascii_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// What jetgate writes after "@" so that no "@name" or "a@b.c" becomes a
// mention or a mailto link: U+2060 WORD JOINER, written as an entity (the
// source stays ASCII; GitHub shows nothing). cmark-gfm's e-mail autolink and
// GitHub's mentions stop at it.
constexpr std::string_view kAtBreak = "&#8288;";

// One escaper for cells and prose; `cell` only changes nothing today but
// keeps the two names the callers read. Every ASCII character that can start
// an element is made inert:
//   always        \ ` * [ ] ~ $ |  (backslash-escaped), < > & (entities)
//   at the start  # + - = (a heading, a list, a setext line), and the . or )
//                 after leading digits (an ordered list)
//   "_" at a word's edge (emphasis; "launch_ms" stays), ':' before "//" and
//   '.' after "www" (GFM's URL autolinks), "@" before anything but a
//   space (e-mail autolinks and mentions: kAtBreak), and "#" or "GH-" before
//   a digit (GitHub's issue references, which would link an issue and leave
//   a "mentioned" entry in its timeline: kAtBreak after them too).
std::string escape_markdown(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  // Trimmed first: "at the start" means the first character shown.
  std::size_t begin = 0, end = text.size();
  while (begin < end &&
         (text[begin] == ' ' || text[begin] == '\t' || text[begin] == '\n' || text[begin] == '\r'))
    ++begin;
  while (end > begin && (text[end - 1] == ' ' || text[end - 1] == '\t' || text[end - 1] == '\n' ||
                         text[end - 1] == '\r'))
    --end;
  text = text.substr(begin, end - begin);
  std::size_t leading_digits = 0;
  while (leading_digits < text.size() && text[leading_digits] >= '0' && text[leading_digits] <= '9')
    ++leading_digits;
  for (std::size_t i = 0; i < text.size();) {
    const Utf8Unit u = decode_utf8(text, i);
    const std::string_view raw = text.substr(i, u.length);
    const std::size_t at = i;
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
    const char c = raw[0];
    const char prev = at > 0 ? text[at - 1] : ' ';
    const char next = at + 1 < text.size() ? text[at + 1] : ' ';
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '\\':
      case '`':
      case '*':
      case '[':
      case ']':
      case '~':
      case '$':
      case '|':
        out += '\\';
        out += c;
        break;
      case '#':
      case '+':
      case '-':
      case '=': {
        // A heading, a list item, a thematic break or a setext line starts so;
        // "-rc1" or "+cu130" do not.
        if (at == 0 && !is_ascii_alnum(next)) out += '\\';
        out += c;
        const bool issue_reference =
            next >= '0' && next <= '9' &&
            (c == '#' ||
             (c == '-' && at >= 2 && (text[at - 1] | 0x20) == 'h' && (text[at - 2] | 0x20) == 'g'));
        if (issue_reference) out += kAtBreak;
        break;
      }
      case '.':
      case ')': {
        // "1. " or "2)" at the end starts an ordered list; "36.4.3" does not.
        const bool list =
            at == leading_digits && at > 0 &&
            (at + 1 == text.size() || next == ' ' || next == '\t' || next == '\n' || next == '\r');
        const bool www = c == '.' && at >= 3 && (text[at - 1] | 0x20) == 'w' &&
                         (text[at - 2] | 0x20) == 'w' && (text[at - 3] | 0x20) == 'w';
        if (list || www) out += '\\';
        out += c;
        break;
      }
      case '_':
        if (!is_ascii_alnum(prev) || !is_ascii_alnum(next)) out += '\\';
        out += c;
        break;
      case ':':
        if (text.substr(at + 1, 2) == "//") out += '\\';
        out += c;
        break;
      case '@':
        out += c;
        if (at + 1 < text.size() && next != ' ') out += kAtBreak;
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace

std::string markdown_cell(std::string_view text) {
  return escape_markdown(text);
}
std::string markdown_inline(std::string_view text) {
  return escape_markdown(text);
}

}  // namespace jetgate::report
