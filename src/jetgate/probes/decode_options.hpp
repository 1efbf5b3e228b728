// SPDX-License-Identifier: Apache-2.0
// What `jetgate probe --decode` runs: which model, in which type, for how
// many tokens, launched how. Part of CudaOptions.
#pragma once

#include <cstdint>
#include <string>

namespace jetgate::probes {

struct DecodeOptions {
  std::string model = "qwen2.5-0.5b";  // a preset (cuda/decode_presets.hpp)
  std::string dtype = "fp16";          // "fp16" or "bf16"
  unsigned tokens = 128;               // timed tokens per sync mode
  unsigned warmup = 16;                // untimed tokens before them
  unsigned burst = 32;                 // back-to-back tokens without a per-token wait
  std::string launch;                  // "persistent", "graph"; "" = jetgate's choice
  unsigned blocks_per_sm = 1;
  unsigned prefetch_window_mib = 0;  // weights streamed into L2 ahead of use (capped at L2 / 2)
  bool self_check = true;            // the tiny model against the CPU reference first
};

}  // namespace jetgate::probes
