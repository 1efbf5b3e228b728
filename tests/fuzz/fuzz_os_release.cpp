// SPDX-License-Identifier: Apache-2.0
// /etc/os-release and /usr/lib/os-release.
#include "fuzz_input.hpp"
#include "jetgate/facts/os_release.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)jetgate::facts::parse_os_release(jetgate::fuzz::text(data, size));
  return 0;
}
