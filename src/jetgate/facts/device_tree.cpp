// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/device_tree.hpp"

#include <array>
#include <cctype>

#include "jetgate/core/pattern.hpp"
#include "jetgate/facts/module_table.hpp"
#include "jetgate/facts/text.hpp"

namespace jetgate::facts {
namespace {

std::string_view strip_vendor(std::string_view entry) {
  auto comma = entry.find(',');
  return comma == std::string_view::npos ? entry : entry.substr(comma + 1);
}

const ModuleTable* table() {
  const auto& t = builtin_module_table();
  return t.ok() ? &t.value() : nullptr;
}

const JetsonPart* find_part(std::string_view part) {
  const auto* t = table();
  return t ? t->find(part) : nullptr;
}

bool is_module(std::string_view part) {
  const auto* t = table();
  if (!t) return false;
  const auto* p = t->find(part);
  if (p) return p->kind == PartKind::module;
  return t->is_module_family(part);  // an unknown SKU of a known module family
}

bool is_carrier_or_devkit(std::string_view part) {
  const auto* p = find_part(part);
  return p && p->kind != PartKind::module;
}

// One "pNNNN-NNNN[-suffix]" half of a compatible entry.
struct PartToken {
  std::string part;
  std::optional<std::string> variant;
};

std::optional<PartToken> part_token(std::string_view s) {
  static const Pattern form(R"(p(\d{4})-(\d{4})(?:-([a-z0-9]+))?)", Pattern::Case::insensitive);
  std::string_view str = trim(s);
  if (str.size() > 64) return std::nullopt;
  auto m = form.full_match(str);
  if (!m) return std::nullopt;
  PartToken t{"p" + m->str(1) + "-" + m->str(2), std::nullopt};
  // A revision ("b00", "a02", "500", "ES1") is not a variant; a word ("super") is.
  static const Pattern revision(R"([a-z]{0,2}\d+)", Pattern::Case::insensitive);
  if (m->matched(3) && !revision.full_matches(m->view(3))) t.variant = m->str(3);
  return t;
}

std::optional<ModuleFinding> devkit_module(std::string_view part, const std::string& source) {
  const auto* p = find_part(part);
  if (!p || p->kind != PartKind::devkit || !p->module) return std::nullopt;
  return ModuleFinding{*p->module, source, std::string(part), std::nullopt};
}

}  // namespace

std::optional<std::string> soc_from_compatible(const std::vector<std::string>& compatible) {
  static const Pattern tegra(R"(nvidia,(tegra\d{2,4}))");
  std::optional<std::string> soc;
  for (const auto& entry : compatible)
    if (auto m = tegra.full_match(entry)) soc = m->str(1);
  return soc;
}

std::optional<ModuleFinding> module_from_compatible(const std::vector<std::string>& compatible) {
  // Carrier+module entries first: they say which half is which.
  for (const auto& entry : compatible) {
    auto name = strip_vendor(entry);
    auto plus = name.find('+');
    if (plus == std::string_view::npos) continue;
    auto carrier = part_token(name.substr(0, plus));
    auto module = part_token(name.substr(plus + 1));
    if (!module || is_carrier_or_devkit(module->part)) continue;
    ModuleFinding f{module->part, "compatible", std::nullopt, module->variant};
    if (carrier) f.carrier = carrier->part;
    return f;
  }
  for (const auto& entry : compatible) {
    auto token = part_token(strip_vendor(entry));
    if (token && is_module(token->part))
      return ModuleFinding{token->part, "compatible", std::nullopt, token->variant};
  }
  for (const auto& entry : compatible) {
    auto token = part_token(strip_vendor(entry));
    if (!token) continue;
    if (auto f = devkit_module(token->part, "compatible")) return f;
  }
  return std::nullopt;
}

std::optional<ModuleFinding> module_from_board_ids(std::string_view ids) {
  static const Pattern id(R"((?:^|[^0-9])(\d{4})[:-](\d{4})(?:[^0-9]|$))");
  std::optional<std::string> carrier;
  std::optional<std::string> module;
  for (const auto& m : id.all(ids.substr(0, 4096))) {
    std::string p = "p" + m.str(1) + "-" + m.str(2);
    if (!module && is_module(p))
      module = p;
    else if (!carrier && is_carrier_or_devkit(p))
      carrier = p;
  }
  if (!module) return std::nullopt;
  return ModuleFinding{*module, "boardids", carrier, std::nullopt};
}

std::optional<ModuleFinding> module_from_dtsfilename(std::string_view path) {
  auto slash = path.rfind('/');
  std::string base(trim(slash == std::string_view::npos ? path : path.substr(slash + 1)));
  if (base.size() > 256) return std::nullopt;
  static const Pattern pair(R"(p(\d{4})-(\d{4}))");
  std::optional<std::string> carrier;
  std::optional<std::string> module;
  for (const auto& m : pair.all(base)) {
    std::string p = "p" + m.str(1) + "-" + m.str(2);
    const auto* t = table();
    if (!module && is_module(p)) {
      module = p;
      continue;
    }
    auto family_carrier = t ? t->only_carrier_of_family(p) : std::nullopt;
    if (is_carrier_or_devkit(p) || family_carrier) {
      if (!carrier) carrier = is_carrier_or_devkit(p) ? p : *family_carrier;
      // "p2597-2180": the TX1 file names the carrier's board id followed by
      // the module's board id (2180) instead of a second part number.
      if (!module && t)
        if (auto only = t->only_module_of_board(m.str(2))) module = only;
    }
  }
  if (!module) return std::nullopt;
  return ModuleFinding{*module, "dtsfilename", carrier, std::nullopt};
}

std::optional<EepromPartNumber> parse_699_part_number(std::string_view text) {
  static const Pattern form(R"(699-[0-9](\d{4})-(\d{4})-[0-9A-Za-z]{3}(?: [0-9A-Za-z.]{1,8})?)");
  std::string s(trim(text));
  while (!s.empty() && s.back() == '\0') s.pop_back();
  s = std::string(trim(s));
  if (s.size() > 64) return std::nullopt;
  auto m = form.full_match(s);
  if (!m) return std::nullopt;
  return EepromPartNumber{s, m->str(1), m->str(2)};
}

std::optional<EepromPartNumber> part_number_from_eeprom(std::string_view bytes) {
  constexpr std::size_t kOffset = 20, kLength = 29;
  if (bytes.size() < kOffset + kLength) return std::nullopt;
  auto field = bytes.substr(kOffset, kLength);
  auto nul = field.find('\0');
  if (nul != std::string_view::npos) field = field.substr(0, nul);
  if (!is_printable_text(field)) return std::nullopt;
  return parse_699_part_number(field);
}

std::optional<std::string> module_name(std::string_view part_number) {
  const auto* p = find_part(part_number);
  if (!p || p->kind != PartKind::module) return std::nullopt;
  return p->name;
}

std::optional<int> module_memory_gb(std::string_view part_number) {
  const auto* p = find_part(part_number);
  if (!p || p->kind != PartKind::module) return std::nullopt;
  return p->memory_gb;
}

std::optional<std::string> carrier_name(std::string_view part_number) {
  const auto* p = find_part(part_number);
  if (!p || p->kind == PartKind::module) return std::nullopt;
  return p->name;
}

std::optional<std::string> cuda_arch_for_soc(std::string_view soc) {
  struct Row {
    std::string_view soc, arch;
  };
  static constexpr std::array<Row, 6> table{{{"tegra264", "11.0"},
                                             {"tegra234", "8.7"},
                                             {"tegra194", "7.2"},
                                             {"tegra186", "6.2"},
                                             {"tegra210", "5.3"},
                                             {"tegra124", "3.2"}}};
  for (const auto& row : table)
    if (row.soc == soc) return std::string(row.arch);
  return std::nullopt;
}

}  // namespace jetgate::facts
