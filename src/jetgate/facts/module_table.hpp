// SPDX-License-Identifier: Apache-2.0
// Jetson part numbers (data/jetson-modules.json, compiled into the binary):
// modules with their marketing name and memory, carriers and developer kits.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jetgate/core/result.hpp"

namespace jetgate::facts {

enum class PartKind { module, carrier, devkit };

struct JetsonPart {
  std::string part;  // "p3767-0005"
  PartKind kind = PartKind::module;
  std::string name;                   // "Jetson Orin Nano 8GB (Developer Kit module)"
  std::optional<int> memory_gb;       // marketing size; nullopt when it varies
  std::optional<std::string> soc;     // "tegra234"
  std::optional<std::string> module;  // for a devkit: the module it ships with
  std::string source;
};

class ModuleTable {
 public:
  static Result<ModuleTable> parse(std::string_view json_text);

  const std::vector<JetsonPart>& parts() const { return parts_; }
  const JetsonPart* find(std::string_view part) const;
  // True when a module of this board family ("p3767") is in the table, so an
  // unknown SKU of a known family ("p3767-0009") is still a module.
  bool is_module_family(std::string_view part) const;
  // The carrier or developer kit of this board family ("p2597-2180" -> p2597-0000)
  // when the table has exactly one.
  std::optional<std::string> only_carrier_of_family(std::string_view part) const;
  // The single module SKU of a board id ("2180" -> p2180-1000), for device
  // tree file names that name the board id without its SKU.
  std::optional<std::string> only_module_of_board(std::string_view board_id) const;

 private:
  std::vector<JetsonPart> parts_;
};

const Result<ModuleTable>& builtin_module_table();

}  // namespace jetgate::facts
