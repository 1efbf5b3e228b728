// SPDX-License-Identifier: Apache-2.0
// The README support block protocol (docs/claims.md): the text between a line
// `<!-- jetgate:support:begin -->` and a line `<!-- jetgate:support:end -->`
// belongs to jetgate. `support --readme` replaces it; `support --verify`
// checks that it is exactly what the evidence generates today.
//
// A README is Markdown, and READMEs (jetgate's own docs among them) show the
// markers as examples: a marker counts only outside fenced code blocks
// (``` or ~~~, any length, indented or inside list items and block quotes)
// and indented by at most three spaces (four or a tab make an indented code
// block). A UTF-8 byte order mark before the first line is kept and skipped;
// the block is written with the line ending of the begin marker's line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "jetgate/claims/support_matrix.hpp"
#include "jetgate/core/result.hpp"

namespace jetgate::claims {

inline constexpr std::string_view kBeginMarker = "<!-- jetgate:support:begin -->";
inline constexpr std::string_view kEndMarker = "<!-- jetgate:support:end -->";

struct BlockSpan {
  std::size_t content_begin = 0;  // first byte after the begin marker's line
  std::size_t content_end = 0;    // first byte of the end marker's line
  int first_line = 0;             // 1-based line number of the first content line
  bool crlf = false;              // the begin marker's line ends in CRLF
};

// Finds the block. Each marker must be alone on its line (up to three spaces
// before it, any spaces after), outside code, exactly once, begin before end;
// anything else is an Error naming `where` and the lines involved (and the
// lines where a marker was seen inside code, which do not count).
Result<BlockSpan> find_support_block(std::string_view readme, const std::string& where);

// readme with the block's content replaced by `content` (LF line endings;
// written with CRLF when span.crlf); the marker lines and every byte outside
// stay as they were.
std::string replace_block(std::string_view readme, const BlockSpan& span, std::string_view content);

// The block's content verified against `generated`, what the evidence
// generates today (report::render_support_markdown): they must be the same
// text once line endings are normalised; claiming less is a difference too
// (the block is regenerated, not edited). Returns one line per difference,
// "README.md:LINE: what is wrong; what to do", saying for a claims row which
// claimed gate the evidence does not back and why. Empty: the block holds.
std::vector<std::string> verify_block(std::string_view content, std::string_view generated,
                                      int first_line, const std::string& where,
                                      const SupportMatrix& matrix);

}  // namespace jetgate::claims
