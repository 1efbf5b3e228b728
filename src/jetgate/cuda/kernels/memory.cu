// SPDX-License-Identifier: Apache-2.0
// Kernels of the memory probe: write a position-dependent pattern, then count
// the words that differ on the device, so verifying tens of gigabytes never
// copies them back to the host.
#include <cstdint>

#include "../memory_pattern.hpp"

extern "C" __global__ void jetgate_fill_pattern(std::uint32_t* p, std::uint64_t n,
                                                std::uint32_t seed) {
  std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride)
    p[i] = jetgate::cuda::memory_pattern(i, seed);
}

extern "C" __global__ void jetgate_count_mismatches(const std::uint32_t* p, std::uint64_t n,
                                                    std::uint32_t seed,
                                                    unsigned long long* mismatches) {
  std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long local = 0;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride)
    local += p[i] != jetgate::cuda::memory_pattern(i, seed) ? 1u : 0u;
  if (local != 0) atomicAdd(mismatches, local);
}
