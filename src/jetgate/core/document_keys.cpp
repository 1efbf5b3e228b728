// SPDX-License-Identifier: Apache-2.0
#include "jetgate/core/document_keys.hpp"

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
