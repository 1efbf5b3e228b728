// SPDX-License-Identifier: Apache-2.0
#include "jetgate/core/document_keys.hpp"

#include <stdexcept>
#include <string_view>

namespace jetgate::keys {

const std::vector<NamedKey>& all_keys() {
#define JETGATE_LIST_KEY(name, pointer) NamedKey{#name, pointer},
  static const std::vector<NamedKey> keys = {
      JETGATE_DOCUMENT_KEYS(JETGATE_LIST_KEY) NamedKey{"kDeviceName", "/gpu/devices/N/name"},
      NamedKey{"kDeviceMemoryBytes", "/gpu/devices/N/total_memory_bytes"},
      NamedKey{"kDeviceCapability", "/gpu/devices/N/compute_capability"}};
#undef JETGATE_LIST_KEY
  return keys;
}

Pointer relative(const Pointer& key, const Pointer& parent) {
  const std::string k = key.to_string(), p = parent.to_string();
  if (k.size() <= p.size() || k.compare(0, p.size(), p) != 0 || k[p.size()] != '/')
    throw std::logic_error(k + " does not lie below " + p);
  return Pointer(k.substr(p.size()));
}

const nlohmann::json* find(const nlohmann::json& doc, const Pointer& p) {
  // contains() walks without throwing; a step through a non-object (an array
  // index that is not a number, a string) simply is not there.
  try {
    if (!doc.contains(p)) return nullptr;
    const auto& v = doc.at(p);
    return v.is_null() ? nullptr : &v;
  } catch (const nlohmann::json::exception&) {
    return nullptr;
  }
}

const nlohmann::json* find(const nlohmann::json& doc, const char* pointer) {
  // Walked in place: no pointer object is built (the loader of a fleet's
  // evidence asks this a few dozen times per file). A pointer with escapes
  // ("~0", "~1") or one that is not a pointer takes the general way; one
  // that is not a pointer at all names nothing.
  std::string_view rest(pointer);
  if (rest.find('~') != std::string_view::npos || (!rest.empty() && rest.front() != '/')) {
    try {
      return find(doc, Pointer(pointer));
    } catch (const nlohmann::json::exception&) {
      return nullptr;  // not a pointer: names nothing
    }
  }
  const nlohmann::json* at = &doc;
  while (!rest.empty()) {
    rest.remove_prefix(1);  // the '/'
    std::string_view token = rest.substr(0, rest.find('/'));
    rest.remove_prefix(token.size());
    if (at->is_object()) {
      const auto& members = at->get_ref<const nlohmann::json::object_t&>();
      auto it = members.find(token);
      if (it == members.end()) return nullptr;
      at = &it->second;
    } else if (at->is_array()) {
      // An index as RFC 6901 writes it: digits, no leading zero.
      if (token.empty() || token.size() > 9 || (token.size() > 1 && token[0] == '0'))
        return nullptr;
      std::size_t index = 0;
      for (char c : token) {
        if (c < '0' || c > '9') return nullptr;
        index = index * 10 + static_cast<std::size_t>(c - '0');
      }
      const auto& items = at->get_ref<const nlohmann::json::array_t&>();
      if (index >= items.size()) return nullptr;
      at = &items[index];
    } else {
      return nullptr;
    }
  }
  return at->is_null() ? nullptr : at;
}

std::string string_at(const nlohmann::json& doc, const Pointer& p) {
  const auto* v = find(doc, p);
  return v && v->is_string() ? v->get<std::string>() : std::string();
}

std::optional<bool> bool_at(const nlohmann::json& doc, const Pointer& p) {
  const auto* v = find(doc, p);
  if (!v || !v->is_boolean()) return std::nullopt;
  return v->get<bool>();
}

}  // namespace jetgate::keys
