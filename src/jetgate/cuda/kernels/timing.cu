// SPDX-License-Identifier: Apache-2.0
// Kernels of the bandwidth and sync-path probes.
#include <cstdint>

__device__ __forceinline__ std::uint64_t jetgate_globaltimer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// Holds the stream for ns nanoseconds (one thread): work queued behind it
// starts together once the host has finished enqueueing (nvbandwidth's
// method), and a long one gives the host something to wait on.
extern "C" __global__ void jetgate_spin_ns(std::uint64_t ns) {
  std::uint64_t start = jetgate_globaltimer_ns();
  while (jetgate_globaltimer_ns() - start < ns) {
  }
}

// The smallest useful kernel: one store, so the launch cannot be elided.
extern "C" __global__ void jetgate_tiny(std::uint32_t* counter) {
  if (threadIdx.x == 0) *counter += 1;
}

// Device-to-device copy through the SMs, 16-byte words, four loads in flight
// per thread (as tensor copies in frameworks do).
extern "C" __global__ void jetgate_copy_u4(const uint4* __restrict__ src, uint4* __restrict__ dst,
                                           std::uint64_t n) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    uint4 a = src[i];
    uint4 b = src[i + stride];
    uint4 c = src[i + 2 * stride];
    uint4 d = src[i + 3 * stride];
    dst[i] = a;
    dst[i + stride] = b;
    dst[i + 2 * stride] = c;
    dst[i + 3 * stride] = d;
  }
  for (; i < n; i += stride) dst[i] = src[i];
}
