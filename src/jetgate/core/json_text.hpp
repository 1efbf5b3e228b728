// SPDX-License-Identifier: Apache-2.0
// Every JSON document jetgate reads from outside (policy, evidence, recorded
// roots, probe output) comes through here: nesting is bounded before the
// parser sees it (a 200k-deep file must be an error, not a stack overflow),
// errors name file:line:column, and integers are read without wrapping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "jetgate/core/result.hpp"

namespace jetgate {

// Deeper than any document jetgate writes (evidence nests about 8 levels).
inline constexpr std::size_t kMaxJsonDepth = 64;

// "line 3, column 17" for a byte offset into text (both 1-based).
std::string line_column(std::string_view text, std::size_t offset);

// Parses text; errors name SOURCE:LINE:COLUMN and what was expected there.
Result<nlohmann::json> parse_json_text(std::string_view text, const std::string& source,
                                       std::size_t max_depth = kMaxJsonDepth);

// The offset of the first number literal "-0" (an integer negative zero)
// outside strings, or nullopt. JSON parsers read it as the integer 0 and
// lose the sign; jetgate refuses it as it refuses -0.0. Cheap when there is
// none: only a "-0" followed by neither a digit, '.', 'e' nor 'E' (dates hold
// "-0" followed by a digit) leads to a scan outside strings.
std::optional<std::size_t> negative_integer_zero_at(std::string_view text);

// An integer in [lo, hi], or nullopt: floats, strings, and integers outside
// the range (including ones that do not fit 64 bits) never wrap into range.
std::optional<std::int64_t> integer_in_range(const nlohmann::json& v, std::int64_t lo,
                                             std::int64_t hi);

// The string, or null when it is empty: the documents jetgate writes say
// "unknown" with null, never with "".
nlohmann::json text_or_null(const std::string& text);

// JSON text that is always valid UTF-8: invalid bytes in strings become U+FFFD.
std::string dump_json(const nlohmann::json& j, int indent = -1);

// Outside text for a message: a double-quoted, ASCII-only JSON string
// (control characters, bidi overrides and invalid bytes escaped or
// replaced), cut to max_chars characters of input with "..." after it.
std::string quoted_text(std::string_view text, std::size_t max_chars = 80);

// Empty when v is a number jetgate reads; else why not ("not a number
// (NaN)", "infinite", "negative zero"). NaN, infinities and -0 are refused
// everywhere a number is read: on the command line (cli's plain_number
// check) and in JSON (parse_json_text refuses -0.0 and -0; JSON has no NaN
// or infinity).
std::string why_not_plain_number(double v);

}  // namespace jetgate
