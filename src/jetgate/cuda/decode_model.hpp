// SPDX-License-Identifier: Apache-2.0
// What the decode kernels (kernels/decode.cu) and the host (decode_runner.cpp,
// the CPU reference in probes/decode_reference.cpp) must agree on bit for bit:
// the kernel parameter block, the seeded weight generator, the rounding to
// fp16/bf16 and the order in which the weights lie in memory. One definition,
// compiled by nvcc and by the host compiler, so the GPU and the reference can
// never generate different models.
#pragma once

#include <cstdint>

#ifdef __CUDACC__
#define JETGATE_DECODE_HD __host__ __device__ __forceinline__
#else
#define JETGATE_DECODE_HD inline
#endif

namespace jetgate::cuda::decode {

enum : std::uint32_t { kDTypeF16 = 0, kDTypeBf16 = 1 };

// The tensors of the model; with the layer they form the generator's stream id.
enum TensorKind : std::uint32_t {
  kAttnNorm = 0,
  kWq,
  kWk,
  kWv,
  kBq,
  kBk,
  kBv,
  kWo,
  kMlpNorm,
  kWgate,
  kWup,
  kWdown,
  kEmbed,
  kFinalNorm,
  kLmHead,
};

// Stream id of a tensor: layer tensors count up from 0, model-wide ones sit
// above every layer.
JETGATE_DECODE_HD std::uint32_t tensor_stream(std::uint32_t kind, std::uint32_t layer) {
  return kind >= kEmbed ? 0xFFFF0000u + kind : layer * 16u + kind;
}

// splitmix64's finaliser over (seed, stream, index): independent streams per
// tensor, and any element can be generated alone, on the GPU or the CPU.
JETGATE_DECODE_HD std::uint32_t weight_hash(std::uint32_t seed, std::uint32_t stream,
                                            std::uint64_t index) {
  std::uint64_t z =
      index + ((static_cast<std::uint64_t>(stream) << 32) | seed) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<std::uint32_t>(z >> 32);
}

// Uniform in [-1, 1) with 24 significant bits: exact in float, so every
// compiler computes the same value (no rounding, fused or not).
JETGATE_DECODE_HD float unit_uniform(std::uint32_t h) {
  return static_cast<float>(h >> 8) * (1.0f / 8388608.0f) - 1.0f;
}

// The value of element `index` of a tensor before rounding to the model's
// type. Scales are powers of two (exact); norm weights sit in [0.75, 1.25).
JETGATE_DECODE_HD float weight_value(std::uint32_t seed, std::uint32_t kind, std::uint32_t layer,
                                     std::uint64_t index, float scale) {
  const float u = unit_uniform(weight_hash(seed, tensor_stream(kind, layer), index));
  if (kind == kAttnNorm || kind == kMlpNorm || kind == kFinalNorm) return 1.0f + 0.25f * u;
  return u * scale;
}

// --- fp16 / bf16 bits, round to nearest even, the same on host and device ---

JETGATE_DECODE_HD std::uint32_t float_bits(float f) {
#ifdef __CUDA_ARCH__
  return __float_as_uint(f);
#else
  std::uint32_t u;
  __builtin_memcpy(&u, &f, sizeof u);
  return u;
#endif
}

JETGATE_DECODE_HD float bits_float(std::uint32_t u) {
#ifdef __CUDA_ARCH__
  return __uint_as_float(u);
#else
  float f;
  __builtin_memcpy(&f, &u, sizeof f);
  return f;
#endif
}

JETGATE_DECODE_HD std::uint16_t float_to_bf16(float f) {
  const std::uint32_t u = float_bits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return static_cast<std::uint16_t>((u >> 16) | 0x40u);  // NaN
  return static_cast<std::uint16_t>((u + 0x7FFFu + ((u >> 16) & 1u)) >> 16);
}

JETGATE_DECODE_HD float bf16_to_float(std::uint16_t b) {
  return bits_float(static_cast<std::uint32_t>(b) << 16);
}

JETGATE_DECODE_HD std::uint16_t float_to_f16(float f) {
  const std::uint32_t u = float_bits(f);
  const std::uint32_t sign = (u >> 16) & 0x8000u;
  const std::uint32_t a = u & 0x7FFFFFFFu;
  if (a > 0x7F800000u) return static_cast<std::uint16_t>(sign | 0x7E00u);   // NaN
  if (a >= 0x477FF000u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // rounds to inf
  if (a < 0x38800000u) {                                                    // subnormal or 0
    if (a < 0x33000000u) return static_cast<std::uint16_t>(sign);           // below half of 2^-24
    const std::uint32_t shift = 126u - (a >> 23);                           // 14..24
    const std::uint32_t mant = (a & 0x7FFFFFu) | 0x800000u;
    std::uint32_t h = mant >> shift;
    const std::uint32_t rest = mant & ((1u << shift) - 1u);
    const std::uint32_t half = 1u << (shift - 1u);
    if (rest > half || (rest == half && (h & 1u))) ++h;
    return static_cast<std::uint16_t>(sign | h);
  }
  std::uint32_t h = ((a >> 13) - (112u << 10));  // rebias exponent 127 -> 15
  const std::uint32_t rest = a & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (h & 1u))) ++h;
  return static_cast<std::uint16_t>(sign | h);
}

JETGATE_DECODE_HD float f16_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = (h >> 10) & 0x1Fu;
  const std::uint32_t mant = h & 0x3FFu;
  if (exp == 0x1Fu) return bits_float(sign | 0x7F800000u | (mant << 13));
  if (exp != 0) return bits_float(sign | ((exp + 112u) << 23) | (mant << 13));
  if (mant == 0) return bits_float(sign);
  return (h & 0x8000u ? -1.0f : 1.0f) * static_cast<float>(mant) * (1.0f / 16777216.0f);
}

JETGATE_DECODE_HD std::uint16_t to_dtype(float f, std::uint32_t dtype) {
  return dtype == kDTypeBf16 ? float_to_bf16(f) : float_to_f16(f);
}

JETGATE_DECODE_HD float from_dtype(std::uint16_t b, std::uint32_t dtype) {
  return dtype == kDTypeBf16 ? bf16_to_float(b) : f16_to_float(b);
}

// --- 4-bit weights: groups of 32 along a row, one fp16 scale each ---
//
// The same arrangement as GGML's Q4_0 (the 4-bit format llama.cpp and Ollama
// ship, https://github.com/ggml-org/ggml/blob/master/src/ggml-common.h,
// block_q4_0: 32 weights, one fp16 scale, 18 bytes), quantized symmetrically
// here: scale = fp16(max |w| / 7), q = round(w / scale) clamped to [-8, 7],
// weight = q * scale (exact in float). 4.5 bits per weight.
inline constexpr std::uint32_t kQ4Group = 32;

// The scale of the group w[0..31] (fp16 bits).
JETGATE_DECODE_HD std::uint16_t q4_group_scale(const float* w) {
  float amax = 0.f;
  for (std::uint32_t i = 0; i < kQ4Group; ++i) {
    const float a = w[i] < 0.f ? -w[i] : w[i];
    amax = a > amax ? a : amax;
  }
  return float_to_f16(amax / 7.0f);
}

// w's 4-bit value under the scale (fp16 bits): round half away from zero,
// clamped; 0 under a zero scale.
JETGATE_DECODE_HD std::int32_t q4_quantize(float w, std::uint16_t scale_bits) {
  const float scale = f16_to_float(scale_bits);
  if (!(scale > 0.f)) return 0;
  const float r = w / scale;
  std::int32_t q = static_cast<std::int32_t>(r < 0.f ? r - 0.5f : r + 0.5f);
  q = q < -8 ? -8 : q;
  return q > 7 ? 7 : q;
}

JETGATE_DECODE_HD float q4_dequantize(std::int32_t q, std::uint16_t scale_bits) {
  return static_cast<float>(q) * f16_to_float(scale_bits);
}

// --- physical row order of the fused matrices ---
//
// Q, K and V are one matrix whose rows are stored in pairs, so that one warp
// computes both rows a rotary embedding mixes (dimension i and i + head_dim/2
// of a head); V's rows pair with their neighbour. Gate and up are one matrix
// whose row 2j is gate row j and row 2j+1 up row j, so SwiGLU needs no second
// pass. The CPU reference keeps Hugging Face's order; these functions map.

struct QkvRows {
  std::uint32_t first, second;  // rows of the logical [q; k; v] matrix
};

JETGATE_DECODE_HD QkvRows qkv_pair_rows(std::uint32_t pair, std::uint32_t heads,
                                        std::uint32_t kv_heads, std::uint32_t head_dim) {
  const std::uint32_t half = head_dim / 2;
  const std::uint32_t rope_pairs = (heads + kv_heads) * half;
  if (pair < rope_pairs) {
    const std::uint32_t first = (pair / half) * head_dim + pair % half;
    return {first, first + half};
  }
  const std::uint32_t first = (heads + kv_heads) * head_dim + 2 * (pair - rope_pairs);
  return {first, first + 1};
}

// The kernels' parameter block, passed by value. Device addresses are
// integers so the struct is the same for the host compiler and nvcc; offsets
// are bytes from `weights`.
struct Params {
  std::uint64_t weights;
  std::uint64_t k_cache, v_cache;    // [layer][kv_head][max_ctx][head_dim], model type
  std::uint64_t rope_cos, rope_sin;  // [max_ctx][head_dim / 2], float
  std::uint64_t x;                   // residual stream, float [hidden]
  std::uint64_t q;                   // float [heads * head_dim], after rotary embedding
  std::uint64_t attn;                // float [heads * head_dim]
  std::uint64_t act;                 // float [intermediate], SwiGLU output
  std::uint64_t logits;              // float [vocab]
  std::uint64_t state;               // State
  std::uint64_t tokens;              // uint32 [max_ctx], the generated ids
  std::uint64_t layer_stride;
  std::uint64_t off_attn_norm, off_qkv_w, off_qkv_b, off_o_w, off_mlp_norm, off_gateup_w,
      off_down_w;  // within a layer
  std::uint64_t off_final_norm, off_embed, off_lm_head;
  std::uint64_t prefetch_end;  // where the LM head's matrix ends: nothing after it is prefetched
  std::uint32_t hidden, layers, heads, kv_heads, head_dim, intermediate, vocab;
  std::uint32_t qkv_bias, max_ctx, dtype;
  float rms_eps, attn_scale;
  std::uint32_t prefetch_window;  // bytes DRAM streams ahead of consumption into L2; 0: none
  std::uint32_t bench_flags;      // kBench*: measurement aids, 0 in the probe
  // Bytes of its own share of the next matrix each block asks L2 to fetch
  // before it waits at a grid barrier (0: none), and how many weight phases
  // ahead (1 or 2) it looks.
  std::uint32_t prefetch_share;
  std::uint32_t prefetch_ahead;
  std::uint64_t phase_times;  // kBenchPhaseTimes: uint64 [layers * 5 + 2], else 0
};

// The persistent kernel runs only its grid barriers (and the LM head): what
// the barriers cost per token, measured by bench/decode_bench.cpp.
inline constexpr std::uint32_t kBenchBarriersOnly = 1;
// Block 0 records the GPU's nanosecond clock at the start of the token and
// after every grid barrier (Params::phase_times): where a token's time goes.
inline constexpr std::uint32_t kBenchPhaseTimes = 2;
// The per-block L2 prefetch of the next phase's rows between arriving at a
// barrier and waiting there (RunnerOptions::share_prefetch), on for this run.
inline constexpr std::uint32_t kBenchSharePrefetch = 4;
// The per-block prefetch looks two weight phases ahead instead of one.
inline constexpr std::uint32_t kBenchPrefetchTwoAhead = 8;
// The persistent kernel's phases wait at the grid barrier before issuing
// their first weight loads (the order before 2026-12-01), not after.
inline constexpr std::uint32_t kBenchWaitFirst = 16;
// Timestamps per token: one at the start, one after each barrier.
constexpr std::uint32_t phase_time_slots(std::uint32_t layers) {
  return layers * 5 + 2;
}

// Device-side bookkeeping between kernels and between tokens.
struct State {
  std::uint32_t pos;             // position of the token being fed in
  std::uint32_t last_token;      // the id the host copies back after every token
  std::uint32_t barrier[2];      // grid-barrier arrivals of the persistent kernel, by parity
  unsigned long long argmax[2];  // (ordered logit << 32 | ~id), by position parity
};

// The largest vector a block keeps in shared memory (floats): bounds the
// intermediate size and, with the attention scratch, the context.
inline constexpr std::uint32_t kSharedFloats = 9216;
inline constexpr std::uint32_t kBlockThreads = 512;
inline constexpr std::uint32_t kMaxHeadDim = 256;

// Phases of one layer, then the model-wide ones (the per-phase kernel's ids).
enum Phase : std::uint32_t {
  kPhaseQkv = 0,
  kPhaseAttention,
  kPhaseOutProj,
  kPhaseGateUp,
  kPhaseDown,
  kPhaseLmHead,
  kPhaseFinish,
};

}  // namespace jetgate::cuda::decode
