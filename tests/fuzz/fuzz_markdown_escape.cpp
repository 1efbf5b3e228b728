// SPDX-License-Identifier: Apache-2.0
// The Markdown escaper (report/text_escape): no raw '<', '|' or newline ever
// leaves it, every '[', ']', '`', '*' is escaped, and the README verifier's
// reading (claims::unescape_cell) gives back the text it was given. A
// violation aborts, so libFuzzer keeps the input.
#include <cstdlib>

#include "fuzz_input.hpp"
#include "jetgate/claims/support_table.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/report/text_escape.hpp"

namespace {

// Whether out[i] is preceded by an odd run of backslashes (is escaped).
bool escaped(const std::string& out, std::size_t i) {
  std::size_t n = 0;
  while (i > n && out[i - n - 1] == '\\') ++n;
  return n % 2 == 1;
}

// Text the round trip must keep exactly: valid UTF-8, nothing that takes a
// visible form or is folded (controls, tabs, newlines), no edge spaces.
bool plain(std::string_view s) {
  if (!jetgate::is_valid_utf8(s) || s.empty() || s.front() == ' ' || s.back() == ' ') return false;
  for (std::size_t pos = 0; pos < s.size();) {
    jetgate::Utf8Unit u = jetgate::decode_utf8(s, pos);
    if (jetgate::needs_visible_form(u)) return false;
    pos += u.length;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in = jetgate::fuzz::text(data, size);
  for (const std::string& out :
       {jetgate::report::markdown_cell(in), jetgate::report::markdown_inline(in)}) {
    if (out.find_first_of("<>\n\r") != std::string::npos) std::abort();
    for (std::size_t i = 0; i < out.size(); ++i) {
      char c = out[i];
      if ((c == '[' || c == ']' || c == '`' || c == '*' || c == '|' || c == '~' || c == '$') &&
          !escaped(out, i))
        std::abort();
    }
    if (plain(in) && jetgate::claims::unescape_cell(out) != in) std::abort();
  }
  return 0;
}
