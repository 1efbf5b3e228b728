// SPDX-License-Identifier: Apache-2.0
// Batch-1 greedy decoding on the GPU with jetgate's kernels
// (kernels/decode.cu): allocates the model, fills it with seeded random
// weights on the GPU, and runs one token at a time, either as a CUDA graph
// of one kernel per phase or as one persistent cooperative kernel. Every
// token's id comes back to the host (as llama.cpp and Ollama do), so each
// token crosses the host-device sync path once.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "jetgate/core/result.hpp"
#include "jetgate/cuda/context.hpp"
#include "jetgate/cuda/decode_presets.hpp"

namespace jetgate::cuda::decode {

enum class LaunchMode { graph, persistent };
const char* to_string(LaunchMode m);  // "graph", "persistent"

struct RunnerOptions {
  std::uint32_t dtype = kDTypeF16;
  std::uint32_t seed = 0x5EED0003u;
  std::uint32_t max_ctx = 512;  // positions the KV cache holds
  LaunchMode launch = LaunchMode::persistent;
  std::uint32_t blocks_per_sm = 1;
  // Bytes of weights DRAM streams into L2 ahead of the phase that reads them
  // (capped at half the L2); 0: none.
  std::uint32_t prefetch_window = 0;
  // Persistent launch: at each grid barrier every block asks L2 for its own
  // rows of the next matrix (at most L2 / 2 over all blocks together). Off:
  // on the H200 it made tokens slower (bench/results/h200-2026-12-01).
  bool share_prefetch = false;
  std::uint32_t bench_flags = 0;  // kBench* (decode_model.hpp); 0 outside benchmarks
};

class Runner {
 public:
  // Falls back from persistent to graph (and says so in fallback_reason())
  // when the device cannot launch cooperatively or cannot keep a block per SM
  // resident.
  static Result<std::unique_ptr<Runner>> create(Context& ctx, const ModelShape& model,
                                                const RunnerOptions& options);
  ~Runner();
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  // Position 0, `token` as the first input.
  Status begin(std::uint32_t token);
  // One token: enqueue it, copy its id to the host, wait. Returns the id.
  Result<std::uint32_t> step();
  // One token without copying or waiting (for back-to-back bursts).
  Status enqueue();
  Status synchronize();
  // The logits of the last finished token (vocab floats).
  Result<std::vector<float>> logits();
  // kBenchPhaseTimes: the last token's clock readings (ns), one at its start
  // and one after each grid barrier (phase_time_slots(layers) of them).
  Result<std::vector<std::uint64_t>> phase_times();

  LaunchMode launch_mode() const { return launch_; }
  const std::string& fallback_reason() const { return fallback_reason_; }
  unsigned grid() const { return grid_; }
  CUstream stream() const { return stream_.get(); }
  CUdeviceptr weights() const { return weights_.get(); }
  std::uint64_t weight_buffer_bytes() const { return layout_.total_bytes; }
  double init_ms() const { return init_ms_; }

 private:
  Runner(Context& ctx, const ModelShape& model, const RunnerOptions& options);
  Status allocate();
  Status fill_weights();
  Status choose_launch(unsigned sms);
  Status capture_graph();
  Status launch_token();

  Context& ctx_;
  ModelShape model_;
  RunnerOptions options_;
  WeightLayout layout_;
  Params params_{};
  LaunchMode launch_ = LaunchMode::persistent;
  std::string fallback_reason_;
  unsigned grid_ = 0;
  double init_ms_ = 0;
  CUfunction token_kernel_ = nullptr;
  CUfunction phase_kernel_ = nullptr;
  CUgraphExec graph_ = nullptr;
  Owned<CUstream> stream_;
  Owned<CUdeviceptr> weights_, k_cache_, v_cache_, rope_cos_, rope_sin_, activations_, state_,
      tokens_, phase_times_;
  Owned<void*> host_token_;
};

}  // namespace jetgate::cuda::decode
