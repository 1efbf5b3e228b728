// Text that came from outside (gate ids, reasons, file names, recorded facts)
// made safe for the three places jetgate shows it: a terminal, a Markdown
// table cell and Markdown prose. Such text may hold bytes that are not UTF-8,
// control characters (an ANSI escape can rewrite the terminal), bidi
// overrides (U+202E shows "gate-ok" where "ko-etag" is written) or "|" and
// "<!--" that would add a table column or close the README block. Every
// report that shows outside text calls one of these; none of them throws.
//
// One visible form for what cannot be shown as it is:
//   a byte that is not part of valid UTF-8      -> \xNN   (e.g. \xff)
//   C0 controls and DEL (tab and newlines too)  -> \xNN   (Markdown: tab, CR, LF -> space)
//   C1 controls, bidi and zero-width characters -> \uNNNN (e.g. \u202e)
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace jetgate::report {

struct Utf8Unit {
  char32_t code_point = 0;  // the decoded code point; the byte's value when !valid
  std::size_t length = 1;   // bytes consumed (1 for an invalid byte)
  bool valid = false;
};

// Decodes the UTF-8 sequence starting at s[pos] (pos < s.size()). Overlong
// forms, surrogates, code points above U+10FFFF and truncated sequences are
// invalid: one byte is consumed, so a string cut mid-character decodes.
Utf8Unit decode_utf8(std::string_view s, std::size_t pos);

// Characters that change how the text around them is shown without being
// seen: bidi marks, embeddings, overrides and isolates (U+061C, U+200E,
// U+200F, U+202A-U+202E, U+2066-U+2069), zero-width characters (U+200B-U+200D,
// U+2060-U+2064, U+FEFF), the line and paragraph separators (U+2028, U+2029)
// and interlinear annotations (U+FFF9-U+FFFB).
bool is_invisible_control(char32_t cp);

// For a terminal line: escapes as above; everything else is kept as it is.
std::string terminal_text(std::string_view text);

// For one cell of a Markdown table: escapes as above, and "\" -> "\\",
// "|" -> "\|", "&" -> "&amp;", "<" -> "&lt;", ">" -> "&gt;"; trimmed of
// spaces. No text can add a column, a row, HTML or close a comment.
std::string markdown_cell(std::string_view text);

// For Markdown prose (a list item, a heading, a paragraph): the cell's
// escapes plus "[", "]", "`" and "*" backslash-escaped, so no text can start
// a link, an image, a code span or emphasis that swallows what follows.
// "_" is kept: it is in tokens, paths and ids, and GitHub does not emphasise
// inside words.
std::string markdown_inline(std::string_view text);

}  // namespace jetgate::report
