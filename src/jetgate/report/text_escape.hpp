// SPDX-License-Identifier: Apache-2.0
// Text that came from outside (gate ids, reasons, file names, recorded facts)
// made safe for Markdown: a table cell and prose. (A terminal line is
// jetgate::terminal_safe in core/utf8, which owns the decoding and the visible
// forms both use.) Such text may hold bytes that are not UTF-8,
// control characters (an ANSI escape can rewrite the terminal), bidi
// overrides (U+202E shows "gate-ok" where "ko-etag" is written) or "|" and
// "<!--" that would add a table column or close the README block. Every
// report that shows outside text calls one of these; none of them throws.
//
// One visible form for what cannot be shown as it is (core/utf8's):
//   a byte that is not part of valid UTF-8      -> \xNN   (e.g. \xff)
//   C0 controls and DEL                         -> \xNN   (but tab, CR, LF -> space)
//   C1 controls, bidi and zero-width characters -> \uNNNN (e.g. \u202e)
#pragma once

#include <string>
#include <string_view>

namespace jetgate::report {

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
