// SPDX-License-Identifier: Apache-2.0
// Device-tree strings and the module EEPROM: /proc/device-tree/compatible
// (NUL-separated), nvidia,boardids, nvidia,dtsfilename and the EEPROM's bytes.
#include "fuzz_input.hpp"
#include "jetgate/facts/device_tree.hpp"
#include "jetgate/facts/text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto bytes = jetgate::fuzz::text(data, size);
  const auto compatible = jetgate::facts::split_nul_list(bytes);
  (void)jetgate::facts::soc_from_compatible(compatible);
  if (auto m = jetgate::facts::module_from_compatible(compatible); m) {
    (void)jetgate::facts::module_name(m->part_number);
    (void)jetgate::facts::module_memory_gb(m->part_number);
    (void)jetgate::facts::carrier_name(m->part_number);
  }
  (void)jetgate::facts::module_from_board_ids(bytes);
  (void)jetgate::facts::module_from_dtsfilename(bytes);
  (void)jetgate::facts::parse_699_part_number(bytes);
  (void)jetgate::facts::part_number_from_eeprom(bytes);
  return 0;
}
