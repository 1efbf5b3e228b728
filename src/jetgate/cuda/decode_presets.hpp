// SPDX-License-Identifier: Apache-2.0
// The models the decode probe can run: real architectures with random
// weights (no download), their memory layout on the GPU and what one token
// reads. Host-side only; decode_model.hpp holds what the kernels share.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "jetgate/cuda/decode_model.hpp"

namespace jetgate::cuda::decode {

// Llama 3's "llama3" rotary frequency scaling (Hugging Face rope_scaling).
struct Llama3RopeScaling {
  double factor = 0;
  double low_freq_factor = 0;
  double high_freq_factor = 0;
  double original_max_position = 0;
};

struct ModelShape {
  std::string name;
  std::uint32_t hidden = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, intermediate = 0,
                vocab = 0;
  bool tied_embeddings = false;
  bool qkv_bias = false;
  float rms_eps = 0;
  double rope_theta = 0;
  std::optional<Llama3RopeScaling> rope_scaling;
  // Matrices (q/k/v, o, gate/up, down, embedding, LM head) in 4-bit groups
  // (decode_model.hpp, kQ4Group); norms, biases, activations and the KV cache
  // stay in the model's 16-bit type. The CPU reference and the byte counts
  // know them; the GPU kernels do not yet (Runner::create says so).
  bool q4_weights = false;
  std::string source;  // the public config.json the numbers come from
};

// qwen2.5-0.5b (the default), qwen2.5-1.5b, llama-3.2-1b, tinyllama-1.1b,
// tiny (a small model with every feature, for tests), and 4-bit weight
// versions of qwen2.5-0.5b, llama-3.2-1b and tiny (name + "-q4").
const std::vector<ModelShape>& presets();
const ModelShape* find_preset(const std::string& name);
std::string preset_names();  // "qwen2.5-0.5b, qwen2.5-1.5b, ..."
inline constexpr const char* kDefaultPreset = "qwen2.5-0.5b";

// The same model with only its first `layers` layers (the correctness cut).
ModelShape cut_layers(const ModelShape& m, std::uint32_t layers);

// Why the kernels cannot run this shape ("" when they can).
std::string unsupported_reason(const ModelShape& m, std::uint32_t max_ctx);

// "fp16" / "bf16" <-> kDTypeF16 / kDTypeBf16.
std::optional<std::uint32_t> parse_dtype(const std::string& s);
const char* dtype_name(std::uint32_t dtype);

// Power-of-two scale of a tensor's uniform weights: keeps activations near
// unit size through the layers, like a real initialisation.
float weight_scale(const ModelShape& m, std::uint32_t kind);

// Rotary inverse frequencies (head_dim / 2 of them), Llama 3 scaling applied.
std::vector<double> rope_inv_freq(const ModelShape& m);
// cos and sin of pos * inv_freq for pos < max_ctx: [max_ctx][head_dim / 2].
void rope_tables(const ModelShape& m, std::uint32_t max_ctx, std::vector<float>* cos_table,
                 std::vector<float>* sin_table);

// Where each tensor lies in the one weight buffer, in the order a token
// reads them (layer by layer, then the final norm and the LM head), every
// tensor 256-byte aligned.
struct WeightLayout {
  std::uint64_t layer_stride = 0;
  std::uint64_t attn_norm = 0, qkv_w = 0, qkv_b = 0, o_w = 0, mlp_norm = 0, gateup_w = 0,
                down_w = 0;  // within a layer
  std::uint64_t final_norm = 0, embed = 0, lm_head = 0;
  std::uint64_t total_bytes = 0;
};
WeightLayout weight_layout(const ModelShape& m);

// Bytes a tensor of `elements` weights occupies: 2 each, or for a matrix of
// a 4-bit model 9/16 (half a byte plus a 2-byte scale per 32).
std::uint64_t tensor_bytes(const ModelShape& m, std::uint64_t elements, bool matrix);

// Bytes one token reads from the weights: every layer, the final norm, the
// LM head matrix and one embedding row.
std::uint64_t weight_bytes_per_token(const ModelShape& m);
// Bytes of K and V one cached position holds, all layers together.
std::uint64_t kv_bytes_per_position(const ModelShape& m);
// Device memory the runner allocates for a context of max_ctx positions.
std::uint64_t device_bytes_needed(const ModelShape& m, std::uint32_t max_ctx);

}  // namespace jetgate::cuda::decode
