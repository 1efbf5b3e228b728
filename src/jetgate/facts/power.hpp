// SPDX-License-Identifier: Apache-2.0
// Power mode and clocks, which decide every speed figure on a Jetson: the
// nvpmodel configuration and status files, devfreq/sysfs clock files, and the
// advice a probe's reason cites when a figure is low.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jetgate::facts {

struct NvpmodelMode {
  int id = 0;
  std::string name;  // "MAXN", "15W", "MAXN_SUPER"
};

struct NvpmodelConfig {
  std::vector<NvpmodelMode> modes;  // in file order
  std::optional<int> default_id;    // "< PM_CONFIG DEFAULT=2 >"
  const NvpmodelMode* find(int id) const;
  // The mode that runs fastest: the one named MAXN (MAXN_SUPER on an Orin Nano
  // Super), else the highest wattage in a name ("25W" over "15W"). Not the
  // highest id: on an Orin Nano Super 0 is 15W and 2 is MAXN_SUPER.
  const NvpmodelMode* fastest() const;
};

// /etc/nvpmodel.conf: "< POWER_MODEL ID=0 NAME=MAXN >" blocks and the
// mandatory "< PM_CONFIG DEFAULT=n >". Comment lines (#) are skipped.
NvpmodelConfig parse_nvpmodel_conf(std::string_view text);

// /var/lib/nvpmodel/status, written by nvpmodel: "pmode:0002" (optionally
// followed by " fmode:quiet" on Xavier) -> 2.
std::optional<int> parse_nvpmodel_status(std::string_view text);

// A sysfs number ("1300500000\n") or nullopt when the file holds anything else.
std::optional<std::int64_t> parse_sysfs_integer(std::string_view text);
// devfreq available_frequencies ("114750000 216750000 ...") -> the highest, or nullopt.
std::optional<std::int64_t> highest_frequency(std::string_view text);

// The sentence a probe's reason cites when a speed figure is low, from the
// /platform object of the evidence (docs/evidence-schema.md, /platform/power):
// "power mode 15W, EMC at 2133 of 3199 MHz: run `sudo nvpmodel -m 0 && sudo jetson_clocks`".
// nullopt when the machine is not a Jetson, its power facts are unknown, or it
// already runs the fastest mode with jetson_clocks in effect.
std::optional<std::string> power_advice(const nlohmann::json& platform);

}  // namespace jetgate::facts
