// SPDX-License-Identifier: Apache-2.0
// A kernel module file: its .modinfo keys (read by libkmod from a memory file) and the
// signature trailer scripts/sign-file.c appends (module_signature_of).
#include "fuzz_input.hpp"
#include "jetgate/facts/module_provenance.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto bytes = jetgate::fuzz::text(data, size);
  (void)jetgate::facts::module_signature_of(bytes);
  (void)jetgate::facts::read_module_info(bytes);
  return 0;
}
