// SPDX-License-Identifier: Apache-2.0
// Can a torch build run kernels on this GPU? From torch.cuda.get_arch_list()
// and the device's compute capability, by CUDA's compatibility rules (CUDA C++
// Programming Guide, "Binary Compatibility" and "PTX Compatibility"):
// - sm_XY (SASS) runs on X.Z for Z >= Y, on desktop GPUs only; on Tegra
//   (Jetson) only on X.Y itself ("Binary compatibility is supported only for
//   the desktop. It is not supported for Tegra.");
// - compute_XY (PTX) is JIT-compiled by the driver for any capability >= X.Y;
// - the arch-specific suffix "a" (sm_90a) runs on X.Y only; the family suffix
//   "f" (sm_100f) on X.Z for Z >= Y.
// The list says what is allowed; whether a kernel really runs (a driver too
// old for the PTX, a wheel that lies) is for the kernel checks to say.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jetgate::probes {

struct ComputeCapability {
  int major = 0;
  int minor = 0;
};

// "8.7" -> {8, 7}; nullopt for anything else.
std::optional<ComputeCapability> parse_capability(std::string_view text);

// The capabilities of Jetson GPUs: 5.3 (TX1, Nano), 6.2 (TX2), 7.2 (Xavier),
// 8.7 (Orin), 10.1 and 11.0 (Thor before and since CUDA 13).
bool is_tegra_capability(ComputeCapability c);

enum class ArchMatch {
  sass,     // a cubin for this GPU
  ptx,      // only PTX that the driver must JIT-compile
  none,     // nothing in the list can run here
  unknown,  // no usable list (empty, or no sm_/compute_ entries)
};
const char* to_string(ArchMatch m);  // "sass", "ptx", "none", "unknown"

struct ArchCoverage {
  ArchMatch match = ArchMatch::unknown;
  std::string entry;  // the entry that covers the GPU: "sm_87", "compute_80"
  std::string
      tegra_miss;  // none on Tegra: an sm_ entry of the same major that only desktop GPUs run
};

ArchCoverage arch_coverage(const std::vector<std::string>& arch_list, ComputeCapability device,
                           bool tegra);

}  // namespace jetgate::probes
