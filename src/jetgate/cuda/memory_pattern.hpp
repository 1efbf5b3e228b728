// SPDX-License-Identifier: Apache-2.0
// The word the memory probe writes at index i: one definition shared by the
// GPU kernels (kernels/memory.cu) and the host-side spot checks
// (probes/memory.cpp), so the two can never disagree.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define JETGATE_HOST_DEVICE __host__ __device__ __forceinline__
#else
#define JETGATE_HOST_DEVICE inline
#endif

namespace jetgate::cuda {

// A cheap mix so that neighbouring words, address bits and stuck bits all
// show up as mismatches.
JETGATE_HOST_DEVICE std::uint32_t memory_pattern(std::uint64_t i, std::uint32_t seed) {
  std::uint32_t x =
      static_cast<std::uint32_t>(i) ^ static_cast<std::uint32_t>(i >> 32) * 0x9E3779B9u;
  x ^= seed;
  x *= 0x85EBCA6Bu;
  x ^= x >> 13;
  x *= 0xC2B2AE35u;
  x ^= x >> 16;
  return x;
}

}  // namespace jetgate::cuda
