// SPDX-License-Identifier: Apache-2.0
#include "jetgate/core/pattern.hpp"

#include <cstdio>
#include <cstdlib>

namespace jetgate {

RE2::Options pattern_options(Pattern::Case c) {
  RE2::Options o;
  o.set_encoding(RE2::Options::EncodingLatin1);
  o.set_log_errors(false);
  o.set_case_sensitive(c == Pattern::Case::sensitive);
  return o;
}

std::optional<std::string> Pattern::compile_error(const char* pattern, Case c) {
  RE2 re(pattern, pattern_options(c));
  if (re.ok()) return std::nullopt;
  return re.error();
}

Pattern::Pattern(const char* pattern, Case c)
    : pattern_(pattern), re_(pattern, pattern_options(c)) {
  if (!re_.ok()) {
    std::fprintf(stderr, "jetgate: internal error: the pattern %s does not compile: %s\n", pattern,
                 re_.error().c_str());
    std::abort();
  }
}

std::optional<PatternMatch> Pattern::match(std::string_view text, std::size_t from,
                                           RE2::Anchor anchor) const {
  if (from > text.size()) return std::nullopt;
  std::vector<re2::StringPiece> pieces(static_cast<std::size_t>(re_.NumberOfCapturingGroups()) + 1);
  if (!re_.Match(re2::StringPiece(text.data(), text.size()), from, text.size(), anchor,
                 pieces.data(), static_cast<int>(pieces.size())))
    return std::nullopt;
  std::vector<std::string_view> groups;
  groups.reserve(pieces.size());
  for (const auto& p : pieces)
    groups.push_back(p.data() ? std::string_view(p.data(), p.size()) : std::string_view{});
  return PatternMatch(text, std::move(groups));
}

std::optional<PatternMatch> Pattern::full_match(std::string_view text) const {
  return match(text, 0, RE2::ANCHOR_BOTH);
}

bool Pattern::full_matches(std::string_view text) const {
  return re_.Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), RE2::ANCHOR_BOTH,
                   nullptr, 0);
}

std::optional<PatternMatch> Pattern::search(std::string_view text, std::size_t from) const {
  return match(text, from, RE2::UNANCHORED);
}

bool Pattern::found_in(std::string_view text) const {
  return re_.Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), RE2::UNANCHORED,
                   nullptr, 0);
}

std::vector<PatternMatch> Pattern::all(std::string_view text) const {
  std::vector<PatternMatch> out;
  std::size_t from = 0;
  while (from <= text.size()) {
    auto m = search(text, from);
    if (!m) break;
    from = m->length() == 0 ? m->position() + 1 : m->end();
    out.push_back(std::move(*m));
  }
  return out;
}

}  // namespace jetgate
