// What the device tree says about a Tegra board: SoC, module part number,
// module name and the GPU's CUDA architecture.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jetgate::facts {

// The SoC named by a compatible list: the last "nvidia,tegraNNN" entry
// ("tegra234"), else nullopt.
std::optional<std::string> soc_from_compatible(const std::vector<std::string>& compatible);

// The module part number ("p3701-0005") from the compatible list and the
// nvidia,boardids property (may be empty). Carrier+module entries
// ("nvidia,p3737-0000+p3701-0005") name the module last.
std::optional<std::string> module_part_number(const std::vector<std::string>& compatible,
                                              std::string_view boardids);

// A human name for a module part number, or nullopt when jetgate does not know it.
std::optional<std::string> module_name(std::string_view part_number);

// The GPU's compute capability for a Tegra SoC ("tegra234" -> "8.7").
std::optional<std::string> cuda_arch_for_soc(std::string_view soc);

}  // namespace jetgate::facts
