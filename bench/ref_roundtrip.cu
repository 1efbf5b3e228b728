// SPDX-License-Identifier: Apache-2.0
// The reference for the sync_path probe: a minimal CUDA C loop doing the same
// round trip (tiny kernel + stream synchronize) under one scheduling mode.
// Usage: ref_roundtrip spin|yield|blocking_sync [round_trips]
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

__global__ void tiny(unsigned* counter) {
  if (threadIdx.x == 0) *counter += 1;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "spin";
  const int n = argc > 2 ? std::atoi(argv[2]) : 2000;
  unsigned flags = cudaDeviceScheduleSpin;
  if (std::strcmp(mode, "yield") == 0) flags = cudaDeviceScheduleYield;
  if (std::strcmp(mode, "blocking_sync") == 0) flags = cudaDeviceScheduleBlockingSync;
  if (cudaSetDeviceFlags(flags) != cudaSuccess) return 1;
  unsigned* counter = nullptr;
  cudaStream_t s;
  if (cudaMalloc(&counter, 4) != cudaSuccess) return 1;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  std::vector<double> us;
  for (int i = 0; i < 200 + n; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    tiny<<<1, 32, 0, s>>>(counter);
    cudaStreamSynchronize(s);
    auto t1 = std::chrono::steady_clock::now();
    if (i >= 200) us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  if (cudaGetLastError() != cudaSuccess) return 1;
  std::sort(us.begin(), us.end());
  auto pct = [&](double p) { return us[static_cast<size_t>(p / 100.0 * (us.size() - 1))]; };
  std::printf("{\"mode\": \"%s\", \"median_us\": %.3f, \"p99_us\": %.3f}\n", mode, pct(50),
              pct(99));
  return 0;
}
