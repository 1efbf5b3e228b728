// SPDX-License-Identifier: Apache-2.0
// /etc/nv_tegra_release: the L4T release line.
#include "fuzz_input.hpp"
#include "jetgate/facts/l4t.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)jetgate::facts::parse_nv_tegra_release(jetgate::fuzz::text(data, size));
  return 0;
}
