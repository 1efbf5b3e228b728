// Device-tree string lists (/proc/device-tree/compatible, nvidia,boardids): NUL-separated.
#include "fuzz_input.hpp"
#include "jetgate/facts/device_tree.hpp"
#include "jetgate/facts/text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto bytes = jetgate::fuzz::text(data, size);
  const auto compatible = jetgate::facts::split_nul_list(bytes);
  (void)jetgate::facts::module_part_number(compatible, bytes);
  return 0;
}
