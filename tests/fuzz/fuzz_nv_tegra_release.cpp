// SPDX-License-Identifier: Apache-2.0
// /etc/nv_tegra_release: the L4T release line; and the L4T series an OE4T
// kernel release names (/proc/sys/kernel/osrelease).
#include "fuzz_input.hpp"
#include "jetgate/facts/l4t.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = jetgate::fuzz::text(data, size);
  (void)jetgate::facts::parse_nv_tegra_release(text);
  (void)jetgate::facts::l4t_series_from_kernel_release(text);
  return 0;
}
