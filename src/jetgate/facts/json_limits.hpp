// Bounds on JSON that comes from outside: nlohmann's DOM copies and some of
// jetgate's walks recurse per nesting level, so a hostile document nested
// 200 000 levels deep must be refused before it is parsed.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace jetgate::facts {

struct TextPosition {
  std::size_t offset = 0;  // byte offset, 0-based
  std::size_t line = 1, column = 1;
  std::string describe() const;  // "line 3, column 7 (byte 41)"
};

// Where the text first opens an array or object deeper than max_depth
// (brackets inside strings do not count), or nullopt when it never does.
// Linear in the text and never recursive.
std::optional<TextPosition> json_nesting_exceeds(std::string_view text, int max_depth);

}  // namespace jetgate::facts
