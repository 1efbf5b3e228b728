// SPDX-License-Identifier: Apache-2.0
#include "jetgate/core/document_keys.hpp"

#include <stdexcept>

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
  return find(doc, Pointer(pointer));
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
