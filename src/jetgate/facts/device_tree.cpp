#include "jetgate/facts/device_tree.hpp"

#include <array>
#include <regex>

#include "jetgate/facts/text.hpp"

namespace jetgate::facts {
namespace {

std::string_view strip_vendor(std::string_view entry) {
  auto comma = entry.find(',');
  return comma == std::string_view::npos ? entry : entry.substr(comma + 1);
}

// Module (not carrier board) part-number families, oldest first.
constexpr std::array<std::string_view, 10> kModuleFamilies{
    "p2180", "p3310", "p3489", "p3636", "p2888", "p3668", "p3448", "p3701", "p3767", "p3834"};

bool is_module_family(std::string_view part) {
  for (auto f : kModuleFamilies)
    if (part.substr(0, 5) == f) return true;
  return false;
}

std::vector<std::string> part_numbers_in(std::string_view s) {
  static const std::regex part(R"(p(\d{4})-(\d{4}))");
  std::vector<std::string> out;
  std::string str(s);
  for (auto it = std::sregex_iterator(str.begin(), str.end(), part); it != std::sregex_iterator();
       ++it)
    out.push_back(it->str());
  return out;
}

}  // namespace

std::optional<std::string> soc_from_compatible(const std::vector<std::string>& compatible) {
  static const std::regex tegra(R"(^nvidia,(tegra\d{2,4})$)");
  std::optional<std::string> soc;
  for (const auto& entry : compatible) {
    std::smatch m;
    if (std::regex_match(entry, m, tegra)) soc = m[1].str();
  }
  return soc;
}

std::optional<std::string> module_part_number(const std::vector<std::string>& compatible,
                                              std::string_view boardids) {
  std::vector<std::string> loose;
  for (const auto& entry : compatible) {
    auto name = strip_vendor(entry);
    auto parts = part_numbers_in(name);
    if (parts.empty()) continue;
    // "p3737-0000+p3701-0005": carrier first, module last.
    if (name.find('+') != std::string_view::npos && parts.size() >= 2) return parts.back();
    loose.insert(loose.end(), parts.begin(), parts.end());
  }
  for (const auto& p : loose)
    if (is_module_family(p)) return p;
  // nvidia,boardids: "3448:0000:400" or "3701-0005-500 3737-0000-500" style entries.
  static const std::regex id(R"((?:^|[^0-9])(\d{4})[:-](\d{4})(?:[^0-9]|$))");
  std::string ids(boardids);
  for (auto it = std::sregex_iterator(ids.begin(), ids.end(), id); it != std::sregex_iterator(); ++it) {
    std::string p = "p" + (*it)[1].str() + "-" + (*it)[2].str();
    if (is_module_family(p)) return p;
  }
  if (loose.size() == 1) return loose.front();
  return std::nullopt;
}

std::optional<std::string> module_name(std::string_view part_number) {
  struct Row {
    std::string_view part, name;
  };
  // From NVIDIA's module data sheets and Jetson Linux adaptation guides.
  static constexpr std::array<Row, 30> table{{
      {"p3834-0008", "Jetson T5000"},
      {"p3701-0000", "Jetson AGX Orin 32GB (Developer Kit module)"},
      {"p3701-0004", "Jetson AGX Orin 32GB"},
      {"p3701-0005", "Jetson AGX Orin 64GB"},
      {"p3701-0008", "Jetson AGX Orin Industrial 64GB"},
      {"p3767-0000", "Jetson Orin NX 16GB"},
      {"p3767-0001", "Jetson Orin NX 8GB"},
      {"p3767-0003", "Jetson Orin Nano 8GB"},
      {"p3767-0004", "Jetson Orin Nano 4GB"},
      {"p3767-0005", "Jetson Orin Nano 8GB"},
      {"p3668-0000", "Jetson Xavier NX 8GB (Developer Kit module)"},
      {"p3668-0001", "Jetson Xavier NX 8GB"},
      {"p3668-0003", "Jetson Xavier NX 16GB"},
      {"p2888-0001", "Jetson AGX Xavier 16GB"},
      {"p2888-0003", "Jetson AGX Xavier 32GB"},
      {"p2888-0004", "Jetson AGX Xavier 32GB"},
      {"p2888-0005", "Jetson AGX Xavier 64GB"},
      {"p2888-0006", "Jetson AGX Xavier 8GB"},
      {"p2888-0008", "Jetson AGX Xavier Industrial 32GB"},
      {"p3448-0000", "Jetson Nano 4GB"},
      {"p3448-0002", "Jetson Nano 4GB (eMMC)"},
      {"p3448-0003", "Jetson Nano 2GB"},
      {"p3450-0000", "Jetson Nano (Developer Kit)"},
      {"p3541-0000", "Jetson Nano 2GB (Developer Kit)"},
      {"p3636-0001", "Jetson TX2 NX"},
      {"p3489-0000", "Jetson TX2i"},
      {"p3489-0888", "Jetson TX2 4GB"},
      {"p3310-1000", "Jetson TX2"},
      {"p2180-1000", "Jetson TX1"},
      {"p2771-0000", "Jetson TX2 (Developer Kit)"},
  }};
  for (const auto& row : table)
    if (row.part == part_number) return std::string(row.name);
  return std::nullopt;
}

std::optional<std::string> cuda_arch_for_soc(std::string_view soc) {
  struct Row {
    std::string_view soc, arch;
  };
  static constexpr std::array<Row, 5> table{{{"tegra264", "11.0"},
                                             {"tegra234", "8.7"},
                                             {"tegra194", "7.2"},
                                             {"tegra186", "6.2"},
                                             {"tegra210", "5.3"}}};
  for (const auto& row : table)
    if (row.soc == soc) return std::string(row.arch);
  return std::nullopt;
}

}  // namespace jetgate::facts
