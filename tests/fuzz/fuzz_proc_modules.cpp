// SPDX-License-Identifier: Apache-2.0
// /proc/modules.
#include "fuzz_input.hpp"
#include "jetgate/facts/proc_modules.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)jetgate::facts::parse_proc_modules(jetgate::fuzz::text(data, size));
  return 0;
}
