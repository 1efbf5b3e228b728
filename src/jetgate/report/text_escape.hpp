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

// For one cell of a Markdown table, or Markdown prose (a list item, a heading,
// a paragraph): escapes as above, and every ASCII character that could start
// an element (a link, an image, raw HTML, a code span, emphasis, a heading or
// list, a GFM autolink, a mention, math, a table column) made inert, so the
// text renders as itself: "\" "`" "*" "[" "]" "~" "$" "|" backslash-escaped,
// "&" "<" ">" as entities, "#" "+" "-" "=" escaped at the start, "_" at a
// word's edge, ":" before "//", "." after "www" and after leading digits, and
// a word joiner (&#8288;) after an "@" that precedes anything but a space.
// Trimmed of white space; tab, CR and LF become spaces. Tests render the
// results with cmark-gfm (tests/unit/markdown_render_test.cpp).
std::string markdown_cell(std::string_view text);
std::string markdown_inline(std::string_view text);

}  // namespace jetgate::report
