// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/gpu_stack.hpp"

#include <algorithm>

#include "jetgate/core/document_keys.hpp"
#include "jetgate/core/embedded.hpp"
#include "jetgate/facts/container_images.hpp"

namespace jetgate::facts {
namespace {

constexpr const char* kFile = "data/gpu-stack.json";

bool all_strings(const nlohmann::json& j) {
  return j.is_array() &&
         std::all_of(j.begin(), j.end(), [](const nlohmann::json& e) { return e.is_string(); });
}

Result<GpuStack> parse_stack(const nlohmann::json& row, std::size_t index) {
  const std::string where = std::string(kFile) + " stacks[" + std::to_string(index) + "]";
  if (!row.is_object()) return make_error("not an object", where);
  for (const char* k : {"id", "name", "nvhost_ctrl", "sync_file_extract", "source"})
    if (!row.contains(k) || !row[k].is_string() || row[k].get<std::string>().empty())
      return make_error(std::string("\"") + k + "\" must be a non-empty string", where);
  for (const char* k : {"socs", "polling_causes"})
    if (!row.contains(k) || !all_strings(row[k]))
      return make_error(std::string("\"") + k + "\" must be a list of strings", where);
  GpuStack s;
  s.id = row["id"].get<std::string>();
  s.name = row["name"].get<std::string>();
  s.source = row["source"].get<std::string>();
  s.socs = row["socs"].get<std::vector<std::string>>();
  s.polling_causes = row["polling_causes"].get<std::vector<std::string>>();
  const auto& l4t = row.value("l4t", nlohmann::json());
  if (l4t.is_array() && l4t.size() == 2 && l4t[0].is_number_integer() &&
      l4t[1].is_number_integer() && l4t[0].get<int>() <= l4t[1].get<int>()) {
    s.l4t_low = l4t[0].get<int>();
    s.l4t_high = l4t[1].get<int>();
  } else if (!l4t.is_null()) {
    return make_error("\"l4t\" must be [low, high] or null", where);
  }
  const auto& sel = row.value("selected_by", nlohmann::json());
  if (sel.is_string())
    s.selected_by = sel.get<std::string>();
  else if (!sel.is_null())
    return make_error("\"selected_by\" must be a module name or null", where);
  if (!s.l4t_low && !s.selected_by)
    return make_error("a row without an L4T range needs \"selected_by\"", where);
  auto part = row["nvhost_ctrl"].get<std::string>();
  if (part != "part" && part != "not_part")
    return make_error("\"nvhost_ctrl\" is \"part\" or \"not_part\"", where);
  s.nvhost_ctrl_part = part == "part";
  auto sfe = row["sync_file_extract"].get<std::string>();
  if (sfe == "absent")
    s.sync_file_extract = SyncFileExtract::absent;
  else if (sfe == "optional")
    s.sync_file_extract = SyncFileExtract::optional;
  else if (sfe == "n/a")
    s.sync_file_extract = SyncFileExtract::not_applicable;
  else
    return make_error("\"sync_file_extract\" is absent, optional or n/a", where);
  if (!row.contains("modules") || !row["modules"].is_array())
    return make_error("\"modules\" must be a list", where);
  for (const auto& m : row["modules"]) {
    if (!m.is_array() || m.size() != 3 || !m[0].is_string() || !m[1].is_boolean() ||
        !m[2].is_string() || m[0].get<std::string>().empty())
      return make_error("a module is [name, needed_for_cuda, provides]", where);
    s.modules.push_back({m[0].get<std::string>(), m[1].get<bool>(), m[2].get<std::string>()});
  }
  if (!row.contains("nodes") || !row["nodes"].is_array())
    return make_error("\"nodes\" must be a list", where);
  for (const auto& n : row["nodes"]) {
    if (!n.is_array() || n.size() != 4 || !n[0].is_string() || !n[1].is_boolean() ||
        !n[2].is_string() || !(n[3].is_null() || n[3].is_string()))
      return make_error("a node is [path, cuda_opens, provides, module]", where);
    StackNode node{n[0].get<std::string>(), n[1].get<bool>(), n[2].get<std::string>(),
                   std::nullopt};
    if (n[3].is_string()) node.module = n[3].get<std::string>();
    if (node.path.rfind("/dev/", 0) != 0)
      return make_error("node \"" + node.path + "\" is not under /dev", where);
    auto star = node.path.find('*');
    if (star != std::string::npos && star != node.path.size() - 1)
      return make_error("node \"" + node.path + "\": '*' may only end a path", where);
    s.nodes.push_back(std::move(node));
  }
  return s;
}

// The /platform object's keys these functions read.
keys::Pointer platform_key(const keys::Pointer& key) {
  return keys::relative(key, keys::kPlatform);
}

bool module_loaded(const nlohmann::json& platform, const std::string& name) {
  const auto* modules = keys::find(platform, platform_key(keys::kTegraDriverModules));
  if (!modules || !modules->is_array()) return false;
  return std::any_of(modules->begin(), modules->end(), [&](const nlohmann::json& m) {
    return m.is_object() && m.value("name", "") == name;
  });
}

}  // namespace

Result<GpuStackTable> GpuStackTable::parse(std::string_view json_text) {
  auto doc = nlohmann::json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("stacks") ||
      !doc["stacks"].is_array() || !doc.contains("cuinit_errors") ||
      !doc["cuinit_errors"].is_array())
    return make_error("not a JSON object with \"stacks\" and \"cuinit_errors\" lists", kFile);
  GpuStackTable t;
  for (std::size_t i = 0; i < doc["stacks"].size(); ++i) {
    auto s = parse_stack(doc["stacks"][i], i);
    if (!s.ok()) return s.error();
    if (t.find(s->id)) return make_error(s->id + " is listed twice", kFile);
    t.stacks_.push_back(std::move(s).value());
  }
  for (std::size_t i = 0; i < doc["cuinit_errors"].size(); ++i) {
    const auto& r = doc["cuinit_errors"][i];
    const std::string where = std::string(kFile) + " cuinit_errors[" + std::to_string(i) + "]";
    if (!r.is_array() || r.size() != 5 || !r[0].is_number_integer() || !r[1].is_string() ||
        r[1].get<std::string>().rfind("CUDA_ERROR_", 0) != 0 || !all_strings(r[2]) ||
        !r[3].is_string() || !r[4].is_string())
      return make_error("expected [code, CUDA_ERROR_NAME, [stack ids], cause, source]", where);
    CuinitCause c{r[0].get<int>(), r[1].get<std::string>(), r[2].get<std::vector<std::string>>(),
                  r[3].get<std::string>(), r[4].get<std::string>()};
    for (const auto& id : c.stacks)
      if (id != "*" && !t.find(id)) return make_error("no stack \"" + id + "\"", where);
    t.cuinit_.push_back(std::move(c));
  }
  return t;
}

const GpuStack* GpuStackTable::find(std::string_view id) const {
  for (const auto& s : stacks_)
    if (s.id == id) return &s;
  return nullptr;
}

std::vector<const CuinitCause*> GpuStackTable::cuinit_causes(std::string_view error,
                                                             const GpuStack* stack) const {
  // "cuInit failed: CUDA_ERROR_NOT_SUPPORTED: operation not supported" (cuda/driver.cpp).
  constexpr std::string_view kHead = "cuInit failed: ";
  if (error.substr(0, kHead.size()) != kHead) return {};
  auto rest = error.substr(kHead.size());
  auto name = rest.substr(0, rest.find(':'));
  for (const auto& c : cuinit_)
    if (c.name == name) return cuinit_causes(c.code, stack);
  return {};
}

std::vector<const CuinitCause*> GpuStackTable::cuinit_causes(int code,
                                                             const GpuStack* stack) const {
  std::vector<const CuinitCause*> out;
  for (const auto& c : cuinit_) {
    if (c.code != code) continue;
    bool applies = std::any_of(c.stacks.begin(), c.stacks.end(), [&](const std::string& id) {
      return id == "*" || (stack != nullptr && id == stack->id);
    });
    if (applies) out.push_back(&c);
  }
  return out;
}

const Result<GpuStackTable>& builtin_gpu_stack_table() {
  static const Result<GpuStackTable> table = [] {
    auto text = embedded_file("gpu-stack.json");
    if (!text) return Result<GpuStackTable>(make_error("not embedded", kFile));
    return GpuStackTable::parse(*text);
  }();
  return table;
}

const GpuStack* select_gpu_stack(const nlohmann::json& platform,
                                 const std::vector<std::string>& installed) {
  const auto& table = builtin_gpu_stack_table();
  if (!table.ok()) return nullptr;
  // The row collect_module_provenance chose, with the installed modules it read.
  if (const auto* chosen = keys::find(platform, platform_key(keys::kTegraDriverStack));
      chosen && chosen->is_object() && chosen->contains("id") && (*chosen)["id"].is_string())
    return table->find((*chosen)["id"].get<std::string>());
  bool tegra = keys::bool_at(platform, platform_key(keys::kIsTegra)).value_or(false);
  std::string soc = keys::string_at(platform, platform_key(keys::kSoc));
  std::string l4t = keys::string_at(platform, platform_key(keys::kL4t));
  int major = l4t.empty() ? 0 : l4t_major(l4t);
  auto present = [&](const std::string& m) {
    return module_loaded(platform, m) ||
           std::find(installed.begin(), installed.end(), m) != installed.end();
  };
  for (const auto& s : table->stacks()) {
    if (!tegra) {
      if (s.socs.empty() && s.selected_by && module_loaded(platform, *s.selected_by)) return &s;
      continue;
    }
    if (std::find(s.socs.begin(), s.socs.end(), soc) == s.socs.end()) continue;
    if (s.l4t_low) {
      if (major >= *s.l4t_low && major <= *s.l4t_high) return &s;
    } else if (major == 0 && s.selected_by && present(*s.selected_by)) {
      return &s;
    }
  }
  return nullptr;
}

const char* to_string(SyncFileExtract s) {
  switch (s) {
    case SyncFileExtract::absent:
      return "absent";
    case SyncFileExtract::optional:
      return "optional";
    case SyncFileExtract::not_applicable:
      break;
  }
  return "n/a";
}

nlohmann::json stack_json(const GpuStack& s) {
  return {{"id", s.id},
          {"name", s.name},
          {"nvhost_ctrl", s.nvhost_ctrl_part ? "part" : "not_part"},
          {"sync_file_extract", to_string(s.sync_file_extract)},
          {"source", s.source}};
}

}  // namespace jetgate::facts
