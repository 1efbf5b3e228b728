// SPDX-License-Identifier: Apache-2.0
// /var/lib/dpkg/status.
#include "fuzz_input.hpp"
#include "jetgate/facts/l4t.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)jetgate::facts::parse_dpkg_status(jetgate::fuzz::text(data, size));
  return 0;
}
