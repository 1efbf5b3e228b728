// SPDX-License-Identifier: Apache-2.0
// The grammars of `jetgate init`'s values (init/init_grammar): whatever they
// accept holds no shell or expression syntax, no white space and no leading
// '-', so it cannot inject into the workflow's shell lines, ${{ }} or git's
// options. A violation aborts, so libFuzzer keeps the input.
#include <cstdlib>

#include "fuzz_input.hpp"
#include "jetgate/init/init_grammar.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace jetgate::init;
  std::string_view in = jetgate::fuzz::text(data, size);
  bool accepted = false;
  for (bool ok : {is_image_reference(in), is_git_ref_name(in), is_https_repository_url(in),
                  is_repository_relative_path(in)})
    accepted = accepted || ok;
  if (!accepted) return 0;
  if (in.empty() || in.front() == '-') std::abort();
  for (char c : in) {
    unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x21 || u > 0x7e) std::abort();  // ASCII without space or controls
    switch (c) {
      case '$':
      case '`':
      case '"':
      case '\'':
      case ';':
      case '|':
      case '&':
      case '<':
      case '>':
      case '(':
      case ')':
      case '{':
      case '}':
      case '\\':
      case '*':
      case '?':
      case '!':
      case ',':
        std::abort();
      default:
        break;
    }
  }
  return 0;
}
