// SPDX-License-Identifier: Apache-2.0
// jetgate-root.json, the sidecar of a recorded root: written into a scratch root
// that only holds it, then read the way `probe --root` reads it.
#include "fuzz_input.hpp"
#include "jetgate/facts/platform.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const jetgate::fuzz::ScratchRoot root;
  root.write("jetgate-root.json", data, size);
  auto fs = jetgate::fs::RootFs::open(root.dir());
  if (fs.ok()) (void)jetgate::facts::collect_platform(*fs, {});
  return 0;
}
