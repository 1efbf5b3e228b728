// SPDX-License-Identifier: Apache-2.0
#include "jetgate/evidence/utf8_json.hpp"

#include <utility>

#include "jetgate/core/utf8.hpp"

namespace jetgate::evidence {

std::vector<std::string> repair_utf8(nlohmann::json& root) {
  std::vector<std::string> repaired;
  // An explicit stack: documents built from outside input may be deep.
  std::vector<std::pair<nlohmann::json*, nlohmann::json::json_pointer>> todo{
      {&root, nlohmann::json::json_pointer()}};
  while (!todo.empty()) {
    auto [node, where] = std::move(todo.back());
    todo.pop_back();
    if (node->is_string()) {
      auto& s = node->get_ref<std::string&>();
      if (!is_valid_utf8(s)) {
        s = to_valid_utf8(s);
        repaired.push_back(where.to_string());
      }
    } else if (node->is_array()) {
      for (std::size_t i = 0; i < node->size(); ++i) todo.push_back({&(*node)[i], where / i});
    } else if (node->is_object()) {
      std::vector<std::string> bad_keys;
      for (auto it = node->begin(); it != node->end(); ++it)
        if (!is_valid_utf8(it.key())) bad_keys.push_back(it.key());
      for (const auto& key : bad_keys) {
        std::string fixed = to_valid_utf8(key);
        while (node->contains(fixed)) fixed += kReplacementCharacter;
        (*node)[fixed] = std::move((*node)[key]);
        node->erase(key);
        repaired.push_back((where / fixed).to_string());
      }
      for (auto it = node->begin(); it != node->end(); ++it)
        todo.push_back({&it.value(), where / it.key()});
    }
  }
  return repaired;
}

}  // namespace jetgate::evidence
