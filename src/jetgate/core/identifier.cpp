// SPDX-License-Identifier: Apache-2.0
#include "jetgate/core/identifier.hpp"

#include <algorithm>

namespace jetgate {

bool same_identifier(std::string_view a, std::string_view b) {
  return a.size() == b.size() && a == b;
}

bool first_field_is(std::string_view text, std::string_view id, std::string_view separators) {
  if (id.empty()) return false;
  return same_identifier(text.substr(0, text.find_first_of(separators)), id);
}

bool node_path_matches(std::string_view pattern, std::string_view path) {
  if (pattern.empty() || pattern.back() != '*') return same_identifier(pattern, path);
  auto prefix = pattern.substr(0, pattern.size() - 1);
  if (path.size() <= prefix.size() || !same_identifier(path.substr(0, prefix.size()), prefix))
    return false;
  auto rest = path.substr(prefix.size());
  return std::all_of(rest.begin(), rest.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace jetgate
