// SPDX-License-Identifier: Apache-2.0
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

struct Utf8Unit {
  char32_t code_point = 0;  // the decoded code point; the first byte's value when !valid
  std::size_t length = 1;   // bytes consumed: the maximal ill-formed subpart when !valid
  bool valid = false;
};

// Decodes the UTF-8 sequence starting at s[pos] (pos < s.size()) by Table 3-7
// of the Unicode Standard: overlong forms, surrogates, code points above
// U+10FFFF and truncated sequences are invalid, and consume the maximal
// ill-formed subpart (section 3.9), so a string cut mid-character decodes.
Utf8Unit decode_utf8(std::string_view s, std::size_t pos);

bool is_valid_utf8(std::string_view s);

// s with each ill-formed sequence replaced by U+FFFD (one per maximal ill-formed
// subpart, as the Unicode Standard, section 3.9, recommends).
std::string to_valid_utf8(std::string_view s);

// Characters that change how the text around them is shown without being
// seen: bidi marks, embeddings, overrides and isolates (U+061C, U+200E,
// U+200F, U+202A-U+202E, U+2066-U+2069), zero-width characters (U+200B-U+200D,
// U+2060-U+2064, U+FEFF), the line and paragraph separators (U+2028, U+2029)
// and interlinear annotations (U+FFF9-U+FFFB).
bool is_invisible_control(char32_t cp);

// Whether a unit cannot be shown as it is: bytes that are not UTF-8, C0
// controls (tab included), DEL, C1 controls and the invisible controls above.
bool needs_visible_form(const Utf8Unit& u);

// The one visible form of such a unit (`raw` is its bytes), wherever jetgate
// shows outside text: each byte that is not UTF-8 and each C0 control or DEL
// as \xNN ("\xff", "\x1b", "\x0a"), every other character as \uNNNN ("\u202e").
void append_visible_form(std::string& out, std::string_view raw, const Utf8Unit& u);

// s as it may be written to a terminal: every unit that needs it in its
// visible form, except tab, which is kept. No text can move the cursor, forge
// a line or reorder what is shown (CVE-2021-42574, "Trojan Source").
std::string terminal_safe(std::string_view s);

}  // namespace jetgate
