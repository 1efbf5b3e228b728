// SPDX-License-Identifier: Apache-2.0
// CDI specs (/etc/cdi/*.yaml, /var/run/cdi/*.json), read in one pass over libyaml's events.
#include "fuzz_input.hpp"
#include "jetgate/facts/cdi.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)jetgate::facts::parse_cdi_spec(jetgate::fuzz::text(data, size));
  return 0;
}
