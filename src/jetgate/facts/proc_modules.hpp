// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace jetgate::facts {

struct KernelModule {
  std::string name;
  long long size = 0;
  int refcount = 0;
  std::vector<std::string> used_by;
  std::string state;   // "Live", "Loading", "Unloading"
  std::string taints;  // "(O)", "(OE)", "" ...
};

// /proc/modules: "nvgpu 2760704 22 - Live 0x0000000000000000 (O)". Lines that
// do not have at least name, size, refcount, users and state are skipped.
std::vector<KernelModule> parse_proc_modules(std::string_view text);

}  // namespace jetgate::facts
