// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/utf8_guard.hpp"

#include "jetgate/core/utf8.hpp"
#include "jetgate/facts/text.hpp"

namespace jetgate::facts {
namespace {

std::string escape_pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

// The report is a few levels deep and built by jetgate, so recursion is bounded.
void walk(nlohmann::json& v, const std::string& at, std::vector<std::string>& changed) {
  if (v.is_string()) {
    auto& s = v.get_ref<std::string&>();
    if (!is_valid_utf8(s)) {
      s = to_valid_utf8(s);
      changed.push_back(at);
    }
  } else if (v.is_array()) {
    for (std::size_t i = 0; i < v.size(); ++i) walk(v[i], at + "/" + std::to_string(i), changed);
  } else if (v.is_object()) {
    std::vector<std::string> bad_keys;
    for (auto it = v.begin(); it != v.end(); ++it)
      if (!is_valid_utf8(it.key())) bad_keys.push_back(it.key());
    for (const auto& key : bad_keys) {
      auto fixed = to_valid_utf8(key);
      v[fixed] = std::move(v[key]);
      v.erase(key);
      changed.push_back(at + "/" + escape_pointer_token(fixed));
    }
    for (auto it = v.begin(); it != v.end(); ++it)
      walk(it.value(), at + "/" + escape_pointer_token(it.key()), changed);
  }
}

}  // namespace

std::vector<std::string> replace_invalid_utf8(nlohmann::json& value, const std::string& at) {
  std::vector<std::string> changed;
  walk(value, at, changed);
  return changed;
}

}  // namespace jetgate::facts
