// SPDX-License-Identifier: Apache-2.0
// Kernels of the launch probe. extern "C" so the driver finds them by name.
#include <cstdint>

// out[i] = i * 3 + 7: a known result the host can verify element by element.
extern "C" __global__ void jetgate_iota_affine(std::uint32_t* out, std::uint64_t n) {
  std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  if (i < n) out[i] = static_cast<std::uint32_t>(i * 3u + 7u);
}
