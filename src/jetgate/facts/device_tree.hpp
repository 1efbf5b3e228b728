// SPDX-License-Identifier: Apache-2.0
// What the device tree (and the module EEPROM) says about a Tegra board: SoC,
// module part number, carrier, and the GPU's CUDA architecture.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jetgate::facts {

// The SoC named by a compatible list: the last "nvidia,tegraNNN" entry
// ("tegra234"), else nullopt.
std::optional<std::string> soc_from_compatible(const std::vector<std::string>& compatible);

// A module part number and where it was found. Only parts the module table
// knows as modules (or of a known module family) are reported: a carrier or
// developer-kit number never is.
struct ModuleFinding {
  std::string part_number;             // "p3767-0005"
  std::string source;                  // "compatible", "boardids", "dtsfilename", "eeprom"
  std::optional<std::string> carrier;  // "p3768-0000" when named next to the module
  std::optional<std::string> variant;  // "super" in "p3768-0000+p3767-0005-super"
};

// From the compatible list: the module half of a carrier+module entry
// ("nvidia,p3737-0000+p3701-0005"), else a module entry, else the module a
// developer-kit entry ships with ("nvidia,p3450-0000" -> p3448-0000).
// Unknown future modules in the carrier+module form are still reported.
std::optional<ModuleFinding> module_from_compatible(const std::vector<std::string>& compatible);

// From nvidia,boardids or /chosen/ids: "3448:0000:400", "3489:0000:A0",
// "3767-0000-301 3768-0000-ES1".
std::optional<ModuleFinding> module_from_board_ids(std::string_view ids);

// From nvidia,dtsfilename, the device-tree source the kernel was built from
// (TX1 and older releases name nothing else): ".../tegra210-jetson-tx1-p2597-2180-a01-devkit.dts"
// -> p2180-1000, ".../tegra186-quill-p3310-1000-c03-00-base.dts" -> p3310-1000.
std::optional<ModuleFinding> module_from_dtsfilename(std::string_view path);

// The 699-level part number from the module EEPROM, as NVIDIA's Jetson EEPROM
// layout stores it and as the UEFI bootloader copies it to /chosen/nvidia,sku:
// "699-13767-0000-301 G.1" -> board "3767", SKU "0000", P-number "p3767-0000".
struct EepromPartNumber {
  std::string part_number;  // the 699-level part number as written, e.g. "699-13767-0000-301 G.1"
  std::string board_id;     // "3767"
  std::string sku;          // "0000"
  std::string p_number() const { return "p" + board_id + "-" + sku; }
};
std::optional<EepromPartNumber> parse_699_part_number(std::string_view text);
// The raw module EEPROM (at24 sysfs file): the part number lives at byte 20,
// 29 bytes long, NUL-padded (NVIDIA "Jetson Module EEPROM Layout").
std::optional<EepromPartNumber> part_number_from_eeprom(std::string_view bytes);

// A human name for a module part number, or nullopt when jetgate does not know it.
std::optional<std::string> module_name(std::string_view part_number);
// The marketing memory size of a module in GB, or nullopt.
std::optional<int> module_memory_gb(std::string_view part_number);
// A human name for a carrier or developer-kit part number, or nullopt.
std::optional<std::string> carrier_name(std::string_view part_number);

// The GPU's compute capability for a Tegra SoC ("tegra234" -> "8.7").
std::optional<std::string> cuda_arch_for_soc(std::string_view soc);

}  // namespace jetgate::facts
