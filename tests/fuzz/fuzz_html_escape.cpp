// SPDX-License-Identifier: Apache-2.0
// The HTML escaper (report/history_html): whatever the input, no character that can
// open a tag, end an attribute or start a character reference leaves it raw (every "&"
// starts one of the five references it writes), the output is valid UTF-8 and holds no
// control, bidi or zero-width character. A violation aborts, so libFuzzer keeps the input.
#include <cstdlib>
#include <string_view>

#include "fuzz_input.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/report/history_html.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view in = jetgate::fuzz::text(data, size);
  const std::string out = jetgate::report::html_escape(in);
  if (out.find_first_of("<>\"'") != std::string::npos) std::abort();
  for (std::size_t p = out.find('&'); p != std::string::npos; p = out.find('&', p + 1)) {
    const std::string_view rest = std::string_view(out).substr(p);
    bool known = false;
    for (std::string_view ref : {"&amp;", "&lt;", "&gt;", "&quot;", "&#39;"})
      known = known || rest.substr(0, ref.size()) == ref;
    if (!known) std::abort();
  }
  if (!jetgate::is_valid_utf8(out)) std::abort();
  for (std::size_t pos = 0; pos < out.size();) {
    const jetgate::Utf8Unit u = jetgate::decode_utf8(out, pos);
    if (jetgate::needs_visible_form(u)) std::abort();
    pos += u.length;
  }
  return 0;
}
