// SPDX-License-Identifier: Apache-2.0
// Kernels of the decode probe: batch-1 greedy decoding of a Llama/Qwen2-style
// decoder. Every phase of a token is a block-level function over a slice of
// the work; the same functions run either one phase per kernel (replayed from
// a CUDA graph) or all in one persistent kernel with grid barriers between
// them (launched cooperatively, one token per launch). Batch-1 decoding reads
// every weight once per token, so the work is a chain of matrix-vector
// products bound by memory bandwidth: each warp streams two weight rows with
// 16-byte loads, several in flight per lane, against an fp32 vector held in
// shared memory; accumulation is fp32 throughout. Nothing here needs more
// than sm_53 (fp16 conversions); no Hopper-only instruction is used.
#include <cuda_fp16.h>

#include <cstdint>

#include "../decode_model.hpp"

namespace jetgate::cuda::decode::gpu {

using u16 = std::uint16_t;
using u32 = std::uint32_t;
using u64 = std::uint64_t;

constexpr u32 kWarps = kBlockThreads / 32;
constexpr u32 kMaxTasks = 128;  // K-sliced row pairs per block (partials in shared memory)
constexpr u32 kRedFloats = 2 * kMaxTasks + 32;

struct F16 {
  static constexpr u32 id = kDTypeF16;
  __device__ static __forceinline__ void unpack(u32 w, float& lo, float& hi) {
    __half2 h;
    static_assert(sizeof h == sizeof w, "half2 is 32 bits");
    __builtin_memcpy(&h, &w, sizeof w);
    const float2 f = __half22float2(h);
    lo = f.x;
    hi = f.y;
  }
  __device__ static __forceinline__ float load(const u16* p) { return f16_to_float(*p); }
};

struct Bf16 {
  static constexpr u32 id = kDTypeBf16;
  __device__ static __forceinline__ void unpack(u32 w, float& lo, float& hi) {
    lo = __uint_as_float(w << 16);
    hi = __uint_as_float(w & 0xFFFF0000u);
  }
  __device__ static __forceinline__ float load(const u16* p) { return bf16_to_float(*p); }
};

// Eight weights against eight activations; one chain per call, several calls
// in flight per lane.
template <class T>
__device__ __forceinline__ float dot8(const uint4& w, const float4& a, const float4& b) {
  float w0, w1, w2, w3, w4, w5, w6, w7;
  T::unpack(w.x, w0, w1);
  T::unpack(w.y, w2, w3);
  T::unpack(w.z, w4, w5);
  T::unpack(w.w, w6, w7);
  float s = w0 * a.x;
  s = fmaf(w1, a.y, s);
  s = fmaf(w2, a.z, s);
  s = fmaf(w3, a.w, s);
  s = fmaf(w4, b.x, s);
  s = fmaf(w5, b.y, s);
  s = fmaf(w6, b.z, s);
  s = fmaf(w7, b.w, s);
  return s;
}

// acc[k] += p * w[k] for the eight values of one 16-byte word.
template <class T>
__device__ __forceinline__ void accumulate8(const uint4& w, float p, float (&acc)[8]) {
  float f[8];
  T::unpack(w.x, f[0], f[1]);
  T::unpack(w.y, f[2], f[3]);
  T::unpack(w.z, f[4], f[5]);
  T::unpack(w.w, f[6], f[7]);
#pragma unroll
  for (u32 k = 0; k < 8; ++k) acc[k] = fmaf(p, f[k], acc[k]);
}

__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, o);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xFFFFFFFFu, v, o));
  return v;
}

// Every thread gets the same total, summed in the same order.
__device__ float block_sum(float v, float* red) {
  v = warp_sum(v);
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = v;
  __syncthreads();
  float t = 0;
  for (u32 w = 0; w < kWarps; ++w) t += red[w];
  __syncthreads();
  return t;
}

__device__ float block_max(float v, float* red) {
  v = warp_max(v);
  if (threadIdx.x % 32 == 0) red[threadIdx.x / 32] = v;
  __syncthreads();
  float t = red[0];
  for (u32 w = 1; w < kWarps; ++w) t = fmaxf(t, red[w]);
  __syncthreads();
  return t;
}

// (orderable logit bits << 32) | ~id: the largest key is the largest logit,
// the lowest id among equal ones (what argmax on the CPU returns).
__device__ __forceinline__ unsigned long long argmax_key(float v, u32 id) {
  const u32 b = __float_as_uint(v);
  const u32 ordered = (b & 0x80000000u) ? ~b : (b | 0x80000000u);
  return (static_cast<unsigned long long>(ordered) << 32) | (0xFFFFFFFFu - id);
}

// Data written by other blocks of the same launch must bypass L1 (not
// coherent across SMs): activations, the KV cache and the state go through
// L2 (ld.global.cg). Weights never change and take the read-only path.
__device__ __forceinline__ float ld_shared_l2(const float* p) {
  return __ldcg(p);
}

struct Model {
  const Params& p;
  const unsigned char* w;
  State* st;
  float* x;
  float* q;
  float* attn;
  float* act;
  float* logits;
  __device__ explicit Model(const Params& params)
      : p(params),
        w(reinterpret_cast<const unsigned char*>(params.weights)),
        st(reinterpret_cast<State*>(params.state)),
        x(reinterpret_cast<float*>(params.x)),
        q(reinterpret_cast<float*>(params.q)),
        attn(reinterpret_cast<float*>(params.attn)),
        act(reinterpret_cast<float*>(params.act)),
        logits(reinterpret_cast<float*>(params.logits)) {}
  __device__ const u16* layer_tensor(u32 layer, u64 offset) const {
    return reinterpret_cast<const u16*>(w + layer * p.layer_stride + offset);
  }
  __device__ const u16* tensor(u64 offset) const {
    return reinterpret_cast<const u16*>(w + offset);
  }
  __device__ u16* kv(u64 base, u32 layer, u32 kv_head, u32 pos) const {
    return reinterpret_cast<u16*>(base) +
           ((static_cast<u64>(layer) * p.kv_heads + kv_head) * p.max_ctx + pos) * p.head_dim;
  }
};

// This block's share [begin, end) of n work items.
struct Range {
  u32 begin, end;
};
__device__ __forceinline__ Range block_share(u32 n, u32 block, u32 blocks) {
  return {static_cast<u32>(static_cast<u64>(n) * block / blocks),
          static_cast<u32>(static_cast<u64>(n) * (block + 1) / blocks)};
}

// How many slices of K each row pair is cut into: only when the block has
// fewer pairs than warps, so that idle warps take a share of the row
// (partials reduced through shared memory). Whole rows otherwise: long tasks
// keep more loads in flight per warp.
__device__ u32 choose_slices(u32 pairs, u32 vecs) {
  if (pairs >= kWarps) return 1;
  u32 ns = kWarps / pairs;
  const u32 max_slices = vecs / 32 > 1 ? vecs / 32 : 1;  // a slice spans at least a warp-wide chunk
  if (ns > max_slices) ns = max_slices;
  if (pairs * ns > kMaxTasks) ns = kMaxTasks / pairs;
  return ns > 0 ? ns : 1;
}

// What happens to each finished row pair: one switch instead of one
// matvec instantiation per phase.
struct Epilogue {
  enum Kind : u32 { kQkv, kResidual, kSwiglu, kLogits } kind;
  const Model& m;
  u32 layer = 0;
  u32 pos = 0;
  unsigned long long best = 0;  // kLogits: this thread's argmax key so far

  template <class T>
  __device__ void apply(u32 pair, float s0, float s1) {
    switch (kind) {
      case kQkv:
        qkv<T>(pair, s0, s1);
        break;
      case kResidual:
        m.x[2 * pair] = ld_shared_l2(m.x + 2 * pair) + s0;
        m.x[2 * pair + 1] = ld_shared_l2(m.x + 2 * pair + 1) + s1;
        break;
      case kSwiglu:
        m.act[pair] = s0 / (1.0f + expf(-s0)) * s1;
        break;
      case kLogits: {
        m.logits[2 * pair] = s0;
        m.logits[2 * pair + 1] = s1;
        const unsigned long long k0 = argmax_key(s0, 2 * pair);
        const unsigned long long k1 = argmax_key(s1, 2 * pair + 1);
        const unsigned long long k = k0 > k1 ? k0 : k1;
        if (k > best) best = k;
        break;
      }
    }
  }

  // Bias, rotary embedding, and the store of q (float) or k/v (cache type).
  template <class T>
  __device__ void qkv(u32 pair, float s0, float s1) {
    const Params& p = m.p;
    const u32 qdim = p.heads * p.head_dim;
    const u32 kdim = p.kv_heads * p.head_dim;
    const u32 half = p.head_dim / 2;
    const QkvRows rows = qkv_pair_rows(pair, p.heads, p.kv_heads, p.head_dim);
    if (p.qkv_bias) {
      const u16* bias = m.layer_tensor(layer, p.off_qkv_b);
      s0 += T::load(bias + rows.first);
      s1 += T::load(bias + rows.second);
    }
    if (rows.first >= qdim + kdim) {
      const u32 o = rows.first - qdim - kdim;
      u16* v = m.kv(p.v_cache, layer, o / p.head_dim, pos);
      v[o % p.head_dim] = to_dtype(s0, T::id);
      v[o % p.head_dim + 1] = to_dtype(s1, T::id);
      return;
    }
    const u32 i = rows.first % p.head_dim;
    const u64 at = static_cast<u64>(pos) * half + i;
    const float c = __ldg(reinterpret_cast<const float*>(p.rope_cos) + at);
    const float sn = __ldg(reinterpret_cast<const float*>(p.rope_sin) + at);
    const float o0 = s0 * c - s1 * sn;
    const float o1 = s1 * c + s0 * sn;
    if (rows.first < qdim) {
      m.q[rows.first] = o0;
      m.q[rows.second] = o1;
    } else {
      u16* k = m.kv(p.k_cache, layer, (rows.first - qdim) / p.head_dim, pos);
      k[i] = to_dtype(o0, T::id);
      k[i + half] = to_dtype(o1, T::id);
    }
  }
};

// xs = gamma * (x / rms(x)), as Hugging Face's Llama/Qwen2 RMSNorm does.
// The first kNormRegs strides of gamma are read together with x, so their
// DRAM latency overlaps the L2 reads and the block sum instead of following
// them; the arithmetic (and so every bit) is the same as one pass after the
// other.
constexpr u32 kNormRegs = 4;

template <class T>
__device__ void load_normed(const float* x, const u16* gamma, u32 n, float eps, float* xs,
                            float* red) {
  float g[kNormRegs];
#pragma unroll
  for (u32 j = 0; j < kNormRegs; ++j) {
    const u32 i = threadIdx.x + j * blockDim.x;
    g[j] = i < n ? T::load(gamma + i) : 0.f;
  }
  float ss = 0.f;
  float v[kNormRegs];
#pragma unroll
  for (u32 j = 0; j < kNormRegs; ++j) {
    const u32 i = threadIdx.x + j * blockDim.x;
    v[j] = i < n ? ld_shared_l2(x + i) : 0.f;
  }
#pragma unroll
  for (u32 j = 0; j < kNormRegs; ++j) {
    const u32 i = threadIdx.x + j * blockDim.x;
    if (i < n) xs[i] = v[j];
    ss += v[j] * v[j];
  }
  for (u32 i = threadIdx.x + kNormRegs * blockDim.x; i < n; i += blockDim.x) {
    const float t = ld_shared_l2(x + i);
    xs[i] = t;
    ss += t * t;
  }
  ss = block_sum(ss, red);
  const float scale = rsqrtf(ss / static_cast<float>(n) + eps);
#pragma unroll
  for (u32 j = 0; j < kNormRegs; ++j) {
    const u32 i = threadIdx.x + j * blockDim.x;
    if (i < n) xs[i] = g[j] * (v[j] * scale);
  }
  for (u32 i = threadIdx.x + kNormRegs * blockDim.x; i < n; i += blockDim.x)
    xs[i] = T::load(gamma + i) * (xs[i] * scale);
  __syncthreads();
}

// Eight loads in flight per thread, then their stores: a long vector (the
// down projection's input) costs one L2 round trip per eight strides, not one
// per stride.
__device__ void load_plain(const float* src, u32 n, float* xs) {
  constexpr u32 kBatch = 8;
  u32 i = threadIdx.x;
  for (; i + (kBatch - 1) * blockDim.x < n; i += kBatch * blockDim.x) {
    float v[kBatch];
#pragma unroll
    for (u32 j = 0; j < kBatch; ++j) v[j] = ld_shared_l2(src + i + j * blockDim.x);
#pragma unroll
    for (u32 j = 0; j < kBatch; ++j) xs[i + j * blockDim.x] = v[j];
  }
  for (; i < n; i += blockDim.x) xs[i] = ld_shared_l2(src + i);
  __syncthreads();
}

// The grid barrier a phase of the persistent kernel waits at before it reads
// what other blocks wrote: `target` arrivals on `counter` (none: nullptr, the
// per-phase kernels, whose launch boundaries are the barriers).
struct Wait {
  unsigned* counter;
  u32 target;
};
__device__ void grid_wait(const Wait& w);

// The vector a projection multiplies: src (K floats, written by other blocks)
// copied into shared memory, RMS-normalised with gamma when gamma is set.
struct Input {
  const float* src;
  const u16* gamma;  // nullptr: no norm
  float eps;
};

// Weights are read once per token and not again before the next one:
// cache-streaming loads (evict-first in L2), so the stream does not evict
// what every phase needs again (code, activations, the KV cache).
__device__ __forceinline__ uint4 ld_weight(const uint4* p) {
  return __ldcs(p);
}

// One step of a warp's task: four 16-byte words of each of the two rows per
// lane, all issued before the first is used; the guard predicates the ragged
// end of the row.
__device__ __forceinline__ void load_chunk(const uint4* r0, const uint4* r1, u32 base, u32 ve,
                                           uint4 (&w0)[4], uint4 (&w1)[4]) {
#pragma unroll
  for (u32 u = 0; u < 4; ++u) {
    const u32 v = base + 32 * u;
    if (v < ve) {
      w0[u] = ld_weight(r0 + v);
      w1[u] = ld_weight(r1 + v);
    }
  }
}

// y[2i], y[2i+1] = rows 2i, 2i+1 of W (K columns, row-major) times the input
// vector, for the row pairs [begin, end); epi.apply(pair, y0, y1) is called
// once per pair by one thread. Each warp issues its first weight loads before
// the block fills the input vector, so DRAM latency overlaps the norm. Must be
// reached by every thread of the block. Not inlined: one copy per type keeps
// ptxas time (and the fatbin build) short.
template <class T>
__device__ __noinline__ void matvec_pairs(const u16* W, u32 K, const Input& in, float* xs, Range r,
                                          float* red, Epilogue& epi, const Wait& wait) {
  const u32 pairs = r.end - r.begin;
  if (pairs == 0) {
    grid_wait(wait);
    return;
  }
  const u32 vecs = K / 8;
  const u32 ns = choose_slices(pairs, vecs);
  const u32 tasks = pairs * ns;
  const u32 warp = threadIdx.x / 32;
  const u32 lane = threadIdx.x % 32;
  const float4* x4 = reinterpret_cast<const float4*>(xs);
  uint4 w0[4], w1[4];
  bool preloaded = false;
  if ((epi.m.p.bench_flags & kBenchWaitFirst) != 0) grid_wait(wait);
  if (warp < tasks) {
    const uint4* r0 =
        reinterpret_cast<const uint4*>(W + static_cast<u64>(2 * (r.begin + warp / ns)) * K);
    const u32 s = warp % ns;
    load_chunk(r0, r0 + vecs, s * vecs / ns + lane, (s + 1) * vecs / ns, w0, w1);
    preloaded = true;
  }
  // The weights depend on no other block: their first loads are in flight
  // while the block waits at the barrier (kBenchWaitFirst: after it).
  grid_wait(wait);
  if (in.gamma != nullptr)
    load_normed<T>(in.src, in.gamma, K, in.eps, xs, red);
  else
    load_plain(in.src, K, xs);
  for (u32 t = warp; t < tasks; t += kWarps) {
    const u32 g = t / ns;
    const u32 s = t % ns;
    const u32 pair = r.begin + g;
    const uint4* r0 = reinterpret_cast<const uint4*>(W + static_cast<u64>(2 * pair) * K);
    const uint4* r1 = r0 + vecs;
    const u32 vb = s * vecs / ns;
    const u32 ve = (s + 1) * vecs / ns;
    float a0 = 0.f, a1 = 0.f;
    for (u32 base = vb + lane; base < ve; base += 128) {
      if (!preloaded) load_chunk(r0, r1, base, ve, w0, w1);
      preloaded = false;
#pragma unroll
      for (u32 u = 0; u < 4; ++u) {
        const u32 v = base + 32 * u;
        if (v < ve) {
          const float4 xa = x4[2 * v];
          const float4 xb = x4[2 * v + 1];
          a0 += dot8<T>(w0[u], xa, xb);
          a1 += dot8<T>(w1[u], xa, xb);
        }
      }
    }
    // The next task's first loads go out before this one's reduction and
    // epilogue, so the warp keeps DRAM busy between tasks.
    preloaded = false;
    if (t + kWarps < tasks) {
      const u32 tn = t + kWarps;
      const uint4* n0 =
          reinterpret_cast<const uint4*>(W + static_cast<u64>(2 * (r.begin + tn / ns)) * K);
      const u32 sn = tn % ns;
      load_chunk(n0, n0 + vecs, sn * vecs / ns + lane, (sn + 1) * vecs / ns, w0, w1);
      preloaded = true;
    }
    a0 = warp_sum(a0);
    a1 = warp_sum(a1);
    if (lane == 0) {
      if (ns == 1) {
        epi.apply<T>(pair, a0, a1);
      } else {
        red[32 + 2 * t] = a0;
        red[32 + 2 * t + 1] = a1;
      }
    }
  }
  if (ns > 1) {
    __syncthreads();
    for (u32 g = threadIdx.x; g < pairs; g += blockDim.x) {
      float s0 = 0.f, s1 = 0.f;
      for (u32 s = 0; s < ns; ++s) {
        s0 += red[32 + 2 * (g * ns + s)];
        s1 += red[32 + 2 * (g * ns + s) + 1];
      }
      epi.apply<T>(r.begin + g, s0, s1);
    }
    __syncthreads();
  }
}

template <class T>
__device__ __noinline__ void phase_qkv(const Model& m, u32 layer, u32 pos, float* xs, float* red,
                                       Wait w) {
  const Params& p = m.p;
  const u32 rows = (p.heads + 2 * p.kv_heads) * p.head_dim;
  const Input in{m.x, m.layer_tensor(layer, p.off_attn_norm), p.rms_eps};
  Epilogue e{Epilogue::kQkv, m, layer, pos};
  matvec_pairs<T>(m.layer_tensor(layer, p.off_qkv_w), p.hidden, in, xs,
                  block_share(rows / 2, blockIdx.x, gridDim.x), red, e, w);
}

// One query head per block at a time: scores over the whole cache in shared
// memory, softmax, then the weighted sum of V with lanes over head_dim.
template <class T>
__device__ __noinline__ void phase_attention(const Model& m, u32 layer, u32 pos, float* smem,
                                             Wait w) {
  grid_wait(w);
  const Params& p = m.p;
  const u32 D = p.head_dim;
  const u32 ctx = pos + 1;
  const u32 group = p.heads / p.kv_heads;
  const u32 vecs = D / 8;
  float* red = smem;                        // 32
  float* qs = smem + 32;                    // kMaxHeadDim
  float* scores = qs + kMaxHeadDim;         // max_ctx
  float* part = scores + p.max_ctx;         // blockDim.x * 8
  float* part2 = part + kBlockThreads * 8;  // blockDim.x
  for (u32 h = blockIdx.x; h < p.heads; h += gridDim.x) {
    const u32 kvh = h / group;
    for (u32 d = threadIdx.x; d < D; d += blockDim.x)
      qs[d] = ld_shared_l2(m.q + static_cast<u64>(h) * D + d) * p.attn_scale;
    __syncthreads();
    const uint4* kbase = reinterpret_cast<const uint4*>(m.kv(p.k_cache, layer, kvh, 0));
    const uint4* vbase = reinterpret_cast<const uint4*>(m.kv(p.v_cache, layer, kvh, 0));
    const float4* q4 = reinterpret_cast<const float4*>(qs);
    float local_max = __int_as_float(0xFF800000);  // -inf
    for (u32 t = threadIdx.x; t < ctx; t += blockDim.x) {
      const uint4* kr = kbase + static_cast<u64>(t) * vecs;
      float s = 0.f;
#pragma unroll 8
      for (u32 v = 0; v < vecs; ++v) s += dot8<T>(__ldcg(kr + v), q4[2 * v], q4[2 * v + 1]);
      scores[t] = s;
      local_max = fmaxf(local_max, s);
    }
    const float mx = block_max(local_max, red);
    float local_sum = 0.f;
    for (u32 t = threadIdx.x; t < ctx; t += blockDim.x) {
      const float e = expf(scores[t] - mx);
      scores[t] = e;
      local_sum += e;
    }
    const float sum = block_sum(local_sum, red);  // its barrier also publishes scores
    const u32 groups = blockDim.x / vecs;
    const u32 g = threadIdx.x / vecs;
    const u32 v = threadIdx.x % vecs;
    float acc[8] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f};
    u32 t = g;
    // Four positions per step, their loads issued together.
    for (; t + 3 * groups < ctx; t += 4 * groups) {
      uint4 w[4];
#pragma unroll
      for (u32 u = 0; u < 4; ++u)
        w[u] = __ldcg(vbase + static_cast<u64>(t + u * groups) * vecs + v);
#pragma unroll
      for (u32 u = 0; u < 4; ++u) accumulate8<T>(w[u], scores[t + u * groups], acc);
    }
    for (; t < ctx; t += groups)
      accumulate8<T>(__ldcg(vbase + static_cast<u64>(t) * vecs + v), scores[t], acc);
#pragma unroll
    for (u32 k = 0; k < 8; ++k) part[g * D + v * 8 + k] = acc[k];
    __syncthreads();
    // Sum the groups in two steps: chunks of groups per thread, then chunks.
    const u32 chunks = blockDim.x / D;
    const u32 per = (groups + chunks - 1) / chunks;
    {
      const u32 d = threadIdx.x % D;
      const u32 c = threadIdx.x / D;
      float o = 0.f;
      for (u32 gg = c * per; gg < groups && gg < (c + 1) * per; ++gg) o += part[gg * D + d];
      part2[c * D + d] = o;
    }
    __syncthreads();
    for (u32 d = threadIdx.x; d < D; d += blockDim.x) {
      float o = 0.f;
      for (u32 c = 0; c < chunks; ++c) o += part2[c * D + d];
      m.attn[static_cast<u64>(h) * D + d] = o / sum;
    }
    __syncthreads();
  }
}

template <class T>
__device__ __noinline__ void phase_out_proj(const Model& m, u32 layer, float* xs, float* red,
                                            Wait w) {
  const Params& p = m.p;
  const u32 in = p.heads * p.head_dim;
  Epilogue e{Epilogue::kResidual, m, layer};
  matvec_pairs<T>(m.layer_tensor(layer, p.off_o_w), in, Input{m.attn, nullptr, 0.f}, xs,
                  block_share(p.hidden / 2, blockIdx.x, gridDim.x), red, e, w);
}

template <class T>
__device__ __noinline__ void phase_gate_up(const Model& m, u32 layer, float* xs, float* red,
                                           Wait w) {
  const Params& p = m.p;
  const Input in{m.x, m.layer_tensor(layer, p.off_mlp_norm), p.rms_eps};
  Epilogue e{Epilogue::kSwiglu, m, layer};
  matvec_pairs<T>(m.layer_tensor(layer, p.off_gateup_w), p.hidden, in, xs,
                  block_share(p.intermediate, blockIdx.x, gridDim.x), red, e, w);
}

template <class T>
__device__ __noinline__ void phase_down(const Model& m, u32 layer, float* xs, float* red, Wait w) {
  const Params& p = m.p;
  Epilogue e{Epilogue::kResidual, m, layer};
  matvec_pairs<T>(m.layer_tensor(layer, p.off_down_w), p.intermediate, Input{m.act, nullptr, 0.f},
                  xs, block_share(p.hidden / 2, blockIdx.x, gridDim.x), red, e, w);
}

template <class T>
__device__ __noinline__ void phase_lm_head(const Model& m, u32 pos, float* xs, float* red,
                                           unsigned long long* red64, Wait w) {
  const Params& p = m.p;
  const Input in{m.x, m.tensor(p.off_final_norm), p.rms_eps};
  Epilogue e{Epilogue::kLogits, m, 0, pos};
  matvec_pairs<T>(m.tensor(p.off_lm_head), p.hidden, in, xs,
                  block_share(p.vocab / 2, blockIdx.x, gridDim.x), red, e, w);
  unsigned long long best = e.best;
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned long long other = __shfl_xor_sync(0xFFFFFFFFu, best, o);
    if (other > best) best = other;
  }
  if (threadIdx.x % 32 == 0) red64[threadIdx.x / 32] = best;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (u32 w = 1; w < kWarps; ++w)
      if (red64[w] > best) best = red64[w];
    if (best != 0) atomicMax(&m.st->argmax[pos & 1], best);
  }
  __syncthreads();
}

// One block: the argmax becomes the next input (its embedding row), the id is
// recorded for the host, the other parity's argmax cell is cleared for the
// next token and the position advances.
template <class T>
__device__ void phase_finish(const Model& m, u32 pos) {
  const Params& p = m.p;
  const unsigned long long packed = __ldcg(&m.st->argmax[pos & 1]);
  const u32 token = 0xFFFFFFFFu - static_cast<u32>(packed & 0xFFFFFFFFull);
  const u32 row = token < p.vocab ? token : 0;  // an invalid id is reported, never read
  const u16* e = m.tensor(p.off_embed) + static_cast<u64>(row) * p.hidden;
  for (u32 i = threadIdx.x; i < p.hidden; i += blockDim.x) m.x[i] = T::load(e + i);
  if (threadIdx.x == 0) {
    m.st->last_token = token;
    if (pos < p.max_ctx) reinterpret_cast<u32*>(p.tokens)[pos] = token;
    m.st->argmax[(pos + 1) & 1] = 0;
    m.st->pos = pos + 1;
  }
}

// Where phase `phase` of `layer` starts reading in the weight buffer, which
// holds the weights in the order a token reads them. Attention reads none:
// it counts as the start of the output projection.
__device__ u64 phase_weights(const Params& p, u32 layer, u32 phase) {
  const u64 base = static_cast<u64>(layer) * p.layer_stride;
  switch (phase) {
    case kPhaseQkv:
      return base + p.off_attn_norm;
    case kPhaseAttention:
    case kPhaseOutProj:
      return base + p.off_o_w;
    case kPhaseGateUp:
      return base + p.off_mlp_norm;
    case kPhaseDown:
      return base + p.off_down_w;
    default:
      return p.off_final_norm;
  }
}

// Rolling L2 prefetch: DRAM streams the weights up to prefetch_window bytes
// ahead of the phase that consumes them, so it keeps working through grid
// barriers, small phases and latency. Each phase's blocks prefetch, together,
// what the window gained since the previous phase (fire and forget).
__device__ void prefetch_window(const Params& p, u32 layer, u32 phase) {
  if (p.prefetch_window == 0 || phase > kPhaseLmHead) return;
  const u64 start = phase_weights(p, layer, phase);
  u64 lo = start;
  if (layer > 0 || phase > kPhaseQkv) {
    const u32 prev_layer =
        phase == kPhaseQkv ? layer - 1 : (phase == kPhaseLmHead ? p.layers - 1 : layer);
    const u32 prev_phase = phase == kPhaseQkv || phase == kPhaseLmHead ? kPhaseDown : phase - 1;
    lo = phase_weights(p, prev_layer, prev_phase) + p.prefetch_window;
  }
  if (lo < start) lo = start;  // a window shorter than the last phase: that part is read already
  const u64 hi =
      start + p.prefetch_window < p.prefetch_end ? start + p.prefetch_window : p.prefetch_end;
  if (lo >= hi) return;
  const u64 lines = (hi - lo + 127) / 128;
  const u64 first = lo / 128 + lines * blockIdx.x / gridDim.x;
  const u64 last = lo / 128 + lines * (blockIdx.x + 1) / gridDim.x;
  const char* w = reinterpret_cast<const char*>(p.weights);
  for (u64 line = first + threadIdx.x; line < last; line += blockDim.x)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(w + line * 128));
}

// Asks L2 for the 128-byte lines of [base, base + bytes), at most cap bytes
// of them, spread over the block's threads (fire and forget).
__device__ void prefetch_lines(const unsigned char* base, u64 bytes, u64 cap) {
  if (bytes > cap) bytes = cap;
  if (bytes == 0) return;
  const u64 first = reinterpret_cast<u64>(base) / 128;
  const u64 last = (reinterpret_cast<u64>(base) + bytes - 1) / 128;
  for (u64 line = first + threadIdx.x; line <= last; line += blockDim.x)
    asm volatile("prefetch.global.L2 [%0];" ::"l"(line * 128));
}

// What weight phase `i` of a token reads: layer i / 4, then qkv, out, gate/up
// and down; i == 4 * layers is the LM head. Its matrix (rows stored one
// after the other, this block's share one contiguous range), its K and the
// row pairs it is cut into, the norm's gamma and the bias read with it.
struct PhaseMatrix {
  const unsigned char* w;
  u32 k, pairs;
  const unsigned char* gamma;
  const unsigned char* bias;
  u32 bias_bytes;
};

__device__ PhaseMatrix phase_matrix(const Model& m, u32 i) {
  const Params& p = m.p;
  const unsigned char* base = m.w + static_cast<u64>(i / 4) * p.layer_stride;
  const u32 qdim = p.heads * p.head_dim;
  const u32 qkv_rows = (p.heads + 2 * p.kv_heads) * p.head_dim;
  if (i >= 4 * p.layers)
    return {m.w + p.off_lm_head, p.hidden, p.vocab / 2, m.w + p.off_final_norm, nullptr, 0};
  switch (i % 4) {
    case 0:
      return {base + p.off_qkv_w,
              p.hidden,
              qkv_rows / 2,
              base + p.off_attn_norm,
              p.qkv_bias ? base + p.off_qkv_b : nullptr,
              p.qkv_bias ? qkv_rows * 2 : 0};
    case 1:
      return {base + p.off_o_w, qdim, p.hidden / 2, nullptr, nullptr, 0};
    case 2:
      return {base + p.off_gateup_w, p.hidden, p.intermediate, base + p.off_mlp_norm, nullptr, 0};
    default:
      return {base + p.off_down_w, p.intermediate, p.hidden / 2, nullptr, nullptr, 0};
  }
}

// Between arriving at a barrier and waiting there, a block asks L2 for what
// it reads first after it: its own rows of weight phase i (up to prefetch_share bytes), the norm
// weights and the bias. DRAM then streams through the barrier, and the phase
// after it starts on L2 hits instead of DRAM round trips.
__device__ void prefetch_share(const Model& m, u32 i, u32 pos) {
  const Params& p = m.p;
  if (p.prefetch_share == 0 || i > 4 * p.layers) return;
  const PhaseMatrix pm = phase_matrix(m, i);
  const Range r = block_share(pm.pairs, blockIdx.x, gridDim.x);
  const u64 row_bytes = static_cast<u64>(pm.k) * 2;
  prefetch_lines(pm.w + 2 * r.begin * row_bytes, 2 * (r.end - r.begin) * row_bytes,
                 p.prefetch_share);
  if (pm.gamma != nullptr) prefetch_lines(pm.gamma, static_cast<u64>(p.hidden) * 2, ~0ull);
  if (pm.bias != nullptr) prefetch_lines(pm.bias, pm.bias_bytes, ~0ull);
  if (i % 4 == 0 && i < 4 * p.layers && pos < p.max_ctx) {  // qkv: the rotary row of pos
    const u64 row = static_cast<u64>(pos) * (p.head_dim / 2) * sizeof(float);
    prefetch_lines(reinterpret_cast<const unsigned char*>(p.rope_cos) + row, p.head_dim * 2, ~0ull);
    prefetch_lines(reinterpret_cast<const unsigned char*>(p.rope_sin) + row, p.head_dim * 2, ~0ull);
  }
}

// Grid barrier of the persistent kernel, in two halves: a counter per token
// parity that only grows (the previous token's is cleared at the start), so
// arriving is one fire-and-forget release add and waiting is polling with
// acquire loads. Between the halves a block may issue what does not depend on
// the other blocks (the next phase's weights): the release in grid_arrive
// covers only what came before it, so those loads neither delay the arrival
// nor wait for it.
__device__ void grid_arrive(unsigned* counter, u32& passed) {
  __syncthreads();
  ++passed;
  if (threadIdx.x == 0) {
#if __CUDA_ARCH__ >= 700
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(counter) : "memory");
#else
    __threadfence();
    atomicAdd(counter, 1u);
#endif
  }
}

__device__ void grid_wait(const Wait& w) {
  if (w.counter == nullptr) return;
  unsigned* counter = w.counter;
  if (threadIdx.x == 0) {
    const u32 target = w.target * gridDim.x;
#if __CUDA_ARCH__ >= 700
    u32 seen;
    do {
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(seen) : "l"(counter) : "memory");
    } while (seen < target);
#else
    while (*static_cast<volatile unsigned*>(counter) < target) {
    }
    __threadfence();
#endif
  }
  __syncthreads();
}

struct Shared {
  float* xs;
  float* red;
  unsigned long long* red64;
};

template <class T>
__device__ void run_phase(const Model& m, u32 phase, u32 layer, u32 pos, const Shared& s,
                          const Wait& w) {
  prefetch_window(m.p, layer, phase);
  switch (phase) {
    case kPhaseQkv:
      phase_qkv<T>(m, layer, pos, s.xs, s.red, w);
      break;
    case kPhaseAttention:
      phase_attention<T>(m, layer, pos, s.xs, w);
      break;
    case kPhaseOutProj:
      phase_out_proj<T>(m, layer, s.xs, s.red, w);
      break;
    case kPhaseGateUp:
      phase_gate_up<T>(m, layer, s.xs, s.red, w);
      break;
    case kPhaseDown:
      phase_down<T>(m, layer, s.xs, s.red, w);
      break;
    case kPhaseLmHead:
      phase_lm_head<T>(m, pos, s.xs, s.red, s.red64, w);
      break;
    case kPhaseFinish:
      if (blockIdx.x == 0) {
        grid_wait(w);
        phase_finish<T>(m, pos);
      }
      break;
    default:
      break;
  }
}

// Records the GPU clock (ns) in slot `slot` of the bench's phase table.
__device__ __forceinline__ void stamp(const Params& p, u32 slot) {
  if (p.phase_times == 0 || blockIdx.x != 0 || threadIdx.x != 0) return;
  u64 t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  reinterpret_cast<u64*>(p.phase_times)[slot] = t;
}

template <class T>
__device__ void run_token(const Model& m, const Shared& s) {
  const u32 pos = __ldcg(&m.st->pos);
  unsigned* counter = &m.st->barrier[pos & 1];
  // The other parity's counter served the previous token, whose launch has
  // ended; the next token starts from zero.
  if (blockIdx.x == 0 && threadIdx.x == 0) m.st->barrier[(pos + 1) & 1] = 0;
  u32 passed = 0;
  const bool barriers_only = (m.p.bench_flags & kBenchBarriersOnly) != 0;
  const u32 ahead = m.p.prefetch_ahead > 1 ? 2 : 1;
  stamp(m.p, 0);
  // The first weight phases: the previous token's last phase asked for them
  // too, unless this is the first token.
  for (u32 i = 0; i < ahead; ++i) prefetch_share(m, i, pos);
  // Each phase waits for the arrivals of the one before it inside itself,
  // after its first weight loads are issued (Wait), and arrives when done.
  for (u32 layer = 0; layer < m.p.layers; ++layer) {
    for (u32 phase = kPhaseQkv; phase <= kPhaseDown; ++phase) {
      const Wait w{counter, passed};
      if (barriers_only)
        grid_wait(w);
      else
        run_phase<T>(m, phase, layer, pos, s, w);
      // Weight phase index of the phase after this one (qkv and attention
      // are both followed by out), then `ahead` - 1 further; attention's
      // successor was asked for at the end of qkv, so it asks for the one
      // after.
      const u32 next = 4 * layer + (phase == kPhaseQkv ? 1u : phase);
      grid_arrive(counter, passed);
      stamp(m.p, passed);
      prefetch_share(m, next + ahead - 1 + (phase == kPhaseAttention ? 1 : 0), pos);
    }
  }
  run_phase<T>(m, kPhaseLmHead, 0, pos, s, Wait{counter, passed});
  grid_arrive(counter, passed);
  stamp(m.p, passed);
  // The next token's first weights stream while this one finishes.
  for (u32 i = 0; i < ahead; ++i) prefetch_share(m, i, pos + 1);
  run_phase<T>(m, kPhaseFinish, 0, pos, s, Wait{counter, passed});
}

// Where the 8 elements starting at physical element e come from: the
// logical (Hugging Face) tensor and the index of the first of them. Rows and
// the q/k/v boundaries are multiples of 8, so a group never straddles.
struct Source {
  u32 kind;
  u64 index;
};

__device__ Source logical_source(const Params& p, u32 kind, u64 e, u32 cols) {
  const u64 row = e / cols;
  const u32 col = static_cast<u32>(e % cols);
  const u32 qdim = p.heads * p.head_dim;
  const u32 kdim = p.kv_heads * p.head_dim;
  if (kind == kWq || kind == kBq) {
    // The fused [q; k; v] weight (rows stored in rotary pairs) or its bias
    // (one row in logical order).
    u32 o = col;
    if (kind == kWq) {
      const QkvRows pr = qkv_pair_rows(static_cast<u32>(row / 2), p.heads, p.kv_heads, p.head_dim);
      o = (row & 1) ? pr.second : pr.first;
    }
    u32 sub = 0;
    if (o >= qdim + kdim) {
      sub = 2;
      o -= qdim + kdim;
    } else if (o >= qdim) {
      sub = 1;
      o -= qdim;
    }
    return {kind + sub, kind == kWq ? static_cast<u64>(o) * cols + col : o};
  }
  if (kind == kWgate)
    return {(row & 1) ? static_cast<u32>(kWup) : static_cast<u32>(kWgate), (row / 2) * cols + col};
  return {kind, e};
}

// Writes one tensor in its physical layout, 8 elements per thread and step,
// each the generator's value for the logical element it holds.
template <class T>
__device__ void init_tensor(const Params& p, u32 seed, u32 kind, u32 layer, u64 offset, u64 rows,
                            u32 cols, float scale) {
  uint4* dst = reinterpret_cast<uint4*>(p.weights + offset);
  const u64 groups = rows * cols / 8;
  for (u64 gi = blockIdx.x * static_cast<u64>(blockDim.x) + threadIdx.x; gi < groups;
       gi += static_cast<u64>(gridDim.x) * blockDim.x) {
    const Source src = logical_source(p, kind, gi * 8, cols);
    u32 packed[4];
#pragma unroll
    for (u32 j = 0; j < 4; ++j) {
      const u16 lo = to_dtype(weight_value(seed, src.kind, layer, src.index + 2 * j, scale), T::id);
      const u16 hi =
          to_dtype(weight_value(seed, src.kind, layer, src.index + 2 * j + 1, scale), T::id);
      packed[j] = static_cast<u32>(lo) | (static_cast<u32>(hi) << 16);
    }
    dst[gi] = make_uint4(packed[0], packed[1], packed[2], packed[3]);
  }
}

}  // namespace jetgate::cuda::decode::gpu

namespace {
namespace dg = jetgate::cuda::decode::gpu;
namespace dm = jetgate::cuda::decode;
}  // namespace

// One token in one launch: every phase of every layer, grid barriers between
// them. Must be launched cooperatively (all blocks resident).
extern "C" __global__ void __launch_bounds__(dm::kBlockThreads, 1)
    jetgate_decode_token(dm::Params p) {
  __shared__ __align__(16) float xs[dm::kSharedFloats];
  __shared__ float red[dg::kRedFloats];
  __shared__ unsigned long long red64[dg::kWarps];
  const dg::Model m(p);
  const dg::Shared s{xs, red, red64};
  if (p.dtype == dm::kDTypeBf16)
    dg::run_token<dg::Bf16>(m, s);
  else
    dg::run_token<dg::F16>(m, s);
}

// One phase of one layer (kernel boundaries are the barriers): the graph of
// a token holds one launch per phase.
extern "C" __global__ void __launch_bounds__(dm::kBlockThreads, 1)
    jetgate_decode_phase(dm::Params p, std::uint32_t phase, std::uint32_t layer) {
  __shared__ __align__(16) float xs[dm::kSharedFloats];
  __shared__ float red[dg::kRedFloats];
  __shared__ unsigned long long red64[dg::kWarps];
  const dg::Model m(p);
  const dg::Shared s{xs, red, red64};
  const std::uint32_t pos = __ldcg(&m.st->pos);
  if (p.dtype == dm::kDTypeBf16)
    dg::run_phase<dg::Bf16>(m, phase, layer, pos, s, dg::Wait{nullptr, 0});
  else
    dg::run_phase<dg::F16>(m, phase, layer, pos, s, dg::Wait{nullptr, 0});
}

// Starts a sequence: position 0, the embedding of `token` as the input.
extern "C" __global__ void jetgate_decode_begin(dm::Params p, std::uint32_t token) {
  const dg::Model m(p);
  const std::uint16_t* e = m.tensor(p.off_embed) + static_cast<std::uint64_t>(token) * p.hidden;
  for (std::uint32_t i = threadIdx.x; i < p.hidden; i += blockDim.x)
    m.x[i] = dm::from_dtype(e[i], p.dtype);
  if (threadIdx.x == 0) {
    m.st->pos = 0;
    m.st->last_token = token;
    m.st->barrier[0] = 0;
    m.st->barrier[1] = 0;
    m.st->argmax[0] = 0;
    m.st->argmax[1] = 0;
  }
}

extern "C" __global__ void jetgate_decode_init(dm::Params p, std::uint32_t seed, std::uint32_t kind,
                                               std::uint32_t layer, std::uint64_t offset,
                                               std::uint64_t rows, std::uint32_t cols,
                                               float scale) {
  if (p.dtype == dm::kDTypeBf16)
    dg::init_tensor<dg::Bf16>(p, seed, kind, layer, offset, rows, cols, scale);
  else
    dg::init_tensor<dg::F16>(p, seed, kind, layer, offset, rows, cols, scale);
}
