// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/module_table.hpp"

#include <nlohmann/json.hpp>

#include "jetgate/core/embedded.hpp"
#include "jetgate/core/pattern.hpp"

namespace jetgate::facts {
namespace {

std::optional<std::string> optional_string(const nlohmann::json& j) {
  return j.is_string() ? std::optional<std::string>(j.get<std::string>()) : std::nullopt;
}

Result<JetsonPart> parse_part_row(const nlohmann::json& row, std::size_t index) {
  static const Pattern part_form(R"(p\d{4}-\d{4})");
  const std::string where = "parts[" + std::to_string(index) + "]";
  if (!row.is_array() || row.size() != 7 || !row[0].is_string() || !row[1].is_string() ||
      !row[2].is_string() || !(row[3].is_null() || row[3].is_number_integer()) ||
      !(row[4].is_null() || row[4].is_string()) || !(row[5].is_null() || row[5].is_string()) ||
      !row[6].is_string())
    return make_error("expected [part, kind, name, memory_gb, soc, module, source]", where);
  JetsonPart p;
  p.part = row[0].get<std::string>();
  if (!part_form.full_matches(p.part))
    return make_error("part \"" + p.part + "\" is not pNNNN-NNNN", where);
  auto kind = row[1].get<std::string>();
  if (kind == "module")
    p.kind = PartKind::module;
  else if (kind == "carrier")
    p.kind = PartKind::carrier;
  else if (kind == "devkit")
    p.kind = PartKind::devkit;
  else
    return make_error("unknown kind \"" + kind + "\"", where);
  p.name = row[2].get<std::string>();
  if (row[3].is_number_integer()) p.memory_gb = row[3].get<int>();
  p.soc = optional_string(row[4]);
  p.module = optional_string(row[5]);
  p.source = row[6].get<std::string>();
  if (p.name.empty() || p.source.empty()) return make_error("name and source are required", where);
  if (p.kind == PartKind::module && !p.soc) return make_error("a module needs its SoC", where);
  return p;
}

}  // namespace

Result<ModuleTable> ModuleTable::parse(std::string_view json_text) {
  auto doc = nlohmann::json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("parts") || !doc["parts"].is_array())
    return make_error("not a JSON object with a \"parts\" list", "data/jetson-modules.json");
  ModuleTable table;
  for (std::size_t i = 0; i < doc["parts"].size(); ++i) {
    auto row = parse_part_row(doc["parts"][i], i);
    if (!row.ok()) return row.error();
    if (table.find(row->part))
      return make_error(row->part + " is listed twice", "data/jetson-modules.json");
    table.parts_.push_back(std::move(row).value());
  }
  for (const auto& p : table.parts_) {
    if (!p.module) continue;
    const auto* m = table.find(*p.module);
    if (!m || m->kind != PartKind::module)
      return make_error(
          p.part + " ships with " + *p.module + ", which is not a module in the table",
          "data/jetson-modules.json");
  }
  return table;
}

const JetsonPart* ModuleTable::find(std::string_view part) const {
  for (const auto& p : parts_)
    if (p.part == part) return &p;
  return nullptr;
}

bool ModuleTable::is_module_family(std::string_view part) const {
  if (part.size() < 5) return false;
  for (const auto& p : parts_)
    if (p.kind == PartKind::module && p.part.compare(0, 5, part.substr(0, 5)) == 0) return true;
  return false;
}

std::optional<std::string> ModuleTable::only_carrier_of_family(std::string_view part) const {
  if (part.size() < 5) return std::nullopt;
  std::optional<std::string> found;
  for (const auto& p : parts_) {
    if (p.kind == PartKind::module || p.part.compare(0, 5, part.substr(0, 5)) != 0) continue;
    if (found) return std::nullopt;
    found = p.part;
  }
  return found;
}

std::optional<std::string> ModuleTable::only_module_of_board(std::string_view board_id) const {
  std::optional<std::string> found;
  for (const auto& p : parts_) {
    if (p.kind != PartKind::module || p.part.compare(1, 4, board_id) != 0) continue;
    if (found) return std::nullopt;  // several SKUs: the board id alone does not say which
    found = p.part;
  }
  return found;
}

const Result<ModuleTable>& builtin_module_table() {
  static const Result<ModuleTable> table = [] {
    auto text = embedded_file("jetson-modules.json");
    if (!text) return Result<ModuleTable>(make_error("not embedded", "data/jetson-modules.json"));
    return ModuleTable::parse(*text);
  }();
  return table;
}

}  // namespace jetgate::facts
