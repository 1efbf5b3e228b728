// The README support block protocol (docs/claims.md): the text between a line
// `<!-- jetgate:support:begin -->` and a line `<!-- jetgate:support:end -->`
// belongs to jetgate. `support --readme` replaces it; `support --verify`
// checks that it claims no more than fresh green evidence backs.
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
};

// Finds the block. Each marker must be alone on its line (surrounding spaces
// allowed), exactly once, begin before end; anything else is an Error naming
// `where` and the lines involved.
Result<BlockSpan> find_support_block(std::string_view readme, const std::string& where);

// readme with the block's content replaced by `content` (which should end in
// a newline); the marker lines and everything outside stay byte for byte.
std::string replace_block(std::string_view readme, const BlockSpan& span, std::string_view content);

// One line each: what the block claims beyond the matrix, as
// "README.md:LINE: what is wrong; what to do". Empty: the claim holds.
std::vector<std::string> verify_block(std::string_view content, int first_line, const std::string& where,
                                      const SupportMatrix& matrix);

}  // namespace jetgate::claims
