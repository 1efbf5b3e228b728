// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/os_release.hpp"

#include <cctype>

#include "jetgate/facts/text.hpp"

namespace jetgate::facts {
namespace {

bool valid_key(std::string_view k) {
  if (k.empty() || k.size() > 64) return false;
  for (char c : k)
    if (!(std::isupper(static_cast<unsigned char>(c)) ||
          std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return true;
}

std::string unquote(std::string_view v) {
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) {
    char q = v.front();
    v = v.substr(1, v.size() - 2);
    std::string out;
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (q == '"' && v[i] == '\\' && i + 1 < v.size()) ++i;
      out += v[i];
    }
    return out;
  }
  return std::string(v);
}

}  // namespace

std::map<std::string, std::string> parse_os_release(std::string_view text) {
  std::map<std::string, std::string> out;
  for (auto raw : split_lines(text)) {
    auto line = trim(raw);
    if (line.empty() || line.front() == '#') continue;
    auto eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    auto key = line.substr(0, eq);
    if (!valid_key(key)) continue;
    auto value = unquote(trim(line.substr(eq + 1)));
    if (!is_printable_text(value) || value.size() > 256) continue;
    out[std::string(key)] = value;
  }
  return out;
}

}  // namespace jetgate::facts
