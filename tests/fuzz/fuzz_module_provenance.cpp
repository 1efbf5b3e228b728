// SPDX-License-Identifier: Apache-2.0
// Kernel module provenance: modules.dep, /sys/module/NAME/taint, the kernel
// log lines about a module, and module file names.
#include "fuzz_input.hpp"
#include "jetgate/facts/module_provenance.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto text = jetgate::fuzz::text(data, size);
  (void)jetgate::facts::parse_modules_dep(text);
  (void)jetgate::facts::parse_module_taint(text);
  (void)jetgate::facts::module_load_failures(text, "tegra_drm");
  (void)jetgate::facts::module_name_of_path(text);
  return 0;
}
