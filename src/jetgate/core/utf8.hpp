// Text that leaves jetgate (JSON, Markdown, the terminal) comes from outside:
// JUnit reports, file names, policy strings, a test command's output. JSON
// must be valid UTF-8 (nlohmann::json throws on anything else), and a
// terminal must never receive raw escape sequences or bidirectional overrides
// that could hide or reorder what it shows (CVE-2021-42574, "Trojan Source").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace jetgate {

inline constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";  // U+FFFD

bool is_valid_utf8(std::string_view s);

// s with each ill-formed sequence replaced by U+FFFD (one per maximal ill-formed
// subpart, as the Unicode Standard, section 3.9, recommends).
std::string to_valid_utf8(std::string_view s);

// s as it may be written to a terminal: valid UTF-8 (as above), with C0 and C1
// control characters, DEL, and the bidirectional and other invisible
// formatting characters (U+061C, U+200B-U+200F, U+202A-U+202E, U+2060-U+2069,
// U+FEFF) written as visible escapes: "\x1b", "\n", "\u202e". Tab is kept.
std::string terminal_safe(std::string_view s);

}  // namespace jetgate
