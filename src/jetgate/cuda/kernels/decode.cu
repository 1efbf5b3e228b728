// SPDX-License-Identifier: Apache-2.0
// Kernels of the decode probe: batch-1 greedy decoding of a Llama/Qwen2-style
// decoder. Every phase of a token is a block-level function over a slice of
// the work; the same functions run either one phase per kernel (replayed from
// a CUDA graph) or all in one persistent kernel (launched cooperatively, one
// token per launch) where no grid-wide barrier separates them: each block
// waits only for the counter of the step it reads from, with its next weights
// already in flight (Hazy Research's "Look Ma, No Bubbles!" megakernel design,
// https://hazyresearch.stanford.edu/blog/2025-05-27-no-bubbles). The MLP is one
// step: gate/up, SwiGLU and the block's rows of the transposed down projection,
// summed across blocks by integer atomics. Batch-1 decoding reads
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

// Params::pending's fixed point: each block's float partial is rounded once
// to a multiple of 2^-32 and the integer sum is exact, whatever order the
// blocks' atomic adds land in.
__device__ __forceinline__ unsigned long long to_fixed(float v) {
  return static_cast<unsigned long long>(__float2ll_rn(v * kResidualFixedScale));
}
__device__ __forceinline__ float from_fixed(unsigned long long u) {
  return __ll2float_rn(static_cast<long long>(u)) * (1.0f / kResidualFixedScale);
}
__device__ __forceinline__ float ld_fixed(const unsigned long long* p) {
  return from_fixed(__ldcg(p));
}

struct Model {
  const Params& p;
  const unsigned char* w;
  State* st;
  float* q;
  unsigned long long* resid;
  float* logits;
  __device__ explicit Model(const Params& params)
      : p(params),
        w(reinterpret_cast<const unsigned char*>(params.weights)),
        st(reinterpret_cast<State*>(params.state)),
        q(reinterpret_cast<float*>(params.q)),
        resid(reinterpret_cast<unsigned long long*>(params.resid)),
        logits(reinterpret_cast<float*>(params.logits)) {}
  __device__ const u16* layer_tensor(u32 layer, u64 offset) const {
    return reinterpret_cast<const u16*>(w + layer * p.layer_stride + offset);
  }
  __device__ const u16* tensor(u64 offset) const {
    return reinterpret_cast<const u16*>(w + offset);
  }
  // The residual stream after step k (k = 2l: layer l's attention, 2l + 1:
  // its MLP; -1: the embedding) lies in buffer (k + 3) % 3 of Params::resid.
  __device__ unsigned long long* resid_after(int k) const {
    return resid + static_cast<u64>((k + 3) % 3) * p.hidden;
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
  enum Kind : u32 { kQkv, kSwiglu, kLogits } kind;
  const Model& m;
  u32 layer = 0;
  u32 pos = 0;
  unsigned long long best = 0;  // kLogits: this thread's argmax key so far
  float* act = nullptr;         // kSwiglu: the block's SwiGLU outputs (shared memory)
  u32 act_base = 0;             // kSwiglu: the pair that act[0] holds

  template <class T>
  __device__ void apply(u32 pair, float s0, float s1) {
    switch (kind) {
      case kQkv:
        qkv<T>(pair, s0, s1);
        break;
      case kSwiglu:
        act[pair - act_base] = s0 / (1.0f + expf(-s0)) * s1;
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
__device__ void load_normed(const unsigned long long* x, const u16* gamma, u32 n, float eps,
                            float* xs, float* red) {
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
    v[j] = i < n ? ld_fixed(x + i) : 0.f;
  }
#pragma unroll
  for (u32 j = 0; j < kNormRegs; ++j) {
    const u32 i = threadIdx.x + j * blockDim.x;
    if (i < n) xs[i] = v[j];
    ss += v[j] * v[j];
  }
  for (u32 i = threadIdx.x + kNormRegs * blockDim.x; i < n; i += blockDim.x) {
    const float t = ld_fixed(x + i);
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

// What a step of the persistent kernel waits for before it reads what other
// blocks wrote: `target` arrivals on `counter`, the step it reads from (none:
// nullptr, the per-phase kernels, whose launch boundaries order them).
struct Wait {
  unsigned* counter;
  u32 target;
};
__device__ void grid_wait(const Wait& w);

// The vector a projection multiplies: the residual stream src (K values in
// fixed point, written by other blocks) RMS-normalised with gamma into shared
// memory.
struct Input {
  const unsigned long long* src;
  const u16* gamma;
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
  load_normed<T>(in.src, in.gamma, K, in.eps, xs, red);
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

// Every block clears its share of a buffer a later step adds to, once every
// reader of what it held has finished (run_token says which).
__device__ void clear_share(unsigned long long* buf, u32 n) {
  const Range r = block_share(n, blockIdx.x, gridDim.x);
  for (u32 i = r.begin + threadIdx.x; i < r.end; i += blockDim.x) buf[i] = 0;
}

template <class T>
__device__ __noinline__ void phase_qkv(const Model& m, u32 layer, u32 pos, float* xs, float* red,
                                       Wait w) {
  const Params& p = m.p;
  const u32 rows = (p.heads + 2 * p.kv_heads) * p.head_dim;
  const Input in{m.resid_after(2 * static_cast<int>(layer) - 1),
                 m.layer_tensor(layer, p.off_attn_norm), p.rms_eps};
  Epilogue e{Epilogue::kQkv, m, layer, pos};
  matvec_pairs<T>(m.layer_tensor(layer, p.off_qkv_w), p.hidden, in, xs,
                  block_share(rows / 2, blockIdx.x, gridDim.x), red, e, w);
  // This layer's MLP adds to the buffer of step 2l + 1, which held step
  // 2l - 2: the previous MLP read it, and finished before this step began.
  clear_share(m.resid_after(2 * static_cast<int>(layer) + 1), p.hidden);
}

// Attention of query head h: scores over the whole cache in shared memory,
// softmax, then the weighted sum of V with lanes over head_dim; the head's
// output lands in smem[32, 32 + head_dim).
template <class T>
__device__ void attend(const Model& m, u32 layer, u32 pos, u32 h, float* smem) {
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
  {
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
      qs[d] = o / sum;  // q is read by now (the block sums since)
    }
    __syncthreads();
  }
}

__device__ void prefetch_lines(const unsigned char* base, u64 bytes, u64 cap);

// Bytes of its rows of a transposed matrix (output or down projection) a
// block asks L2 for before it waits: they depend on nothing, so DRAM streams
// them while the block waits, normalises and computes.
constexpr u64 kRowsPrefetchBytes = 96 * 1024;
// Column groups (8 hidden values each) a thread accumulates: one, so hidden
// is at most 8 * kBlockThreads (unsupported_reason); more accumulators spill
// registers in the hot loops.
constexpr u32 kMaxColGroups = 1;

// How a block's threads cover rows of hidden values: column group c (16
// bytes of a row) and row slice s, slices rows apart.
struct RowsLayout {
  u32 cols, slices, s, c0;
};
__device__ RowsLayout rows_layout(u32 hidden) {
  const u32 cols = hidden / 8;
  const u32 cols_p = cols < kBlockThreads ? cols : kBlockThreads;
  return {cols, kBlockThreads / cols_p, threadIdx.x / cols_p, threadIdx.x % cols_p};
}

// acc += sum over the n rows j of coef[j] * row j (rows of hidden values,
// one after the other): this thread's columns and rows.
template <class T>
__device__ void accumulate_rows(const u16* rows, u32 n, const float* coef, const RowsLayout& l,
                                float (&acc)[kMaxColGroups][8]) {
  if (l.s >= l.slices) return;
  const uint4* r4 = reinterpret_cast<const uint4*>(rows);
#pragma unroll
  for (u32 g = 0; g < kMaxColGroups; ++g) {
    const u32 c = l.c0 + g * kBlockThreads;
    if (c >= l.cols) break;
    u32 j = l.s;
    // Eight rows' words in flight per thread, then their products.
    for (; j + 7 * l.slices < n; j += 8 * l.slices) {
      uint4 w[8];
#pragma unroll
      for (u32 u = 0; u < 8; ++u)
        w[u] = ld_weight(r4 + static_cast<u64>(j + u * l.slices) * l.cols + c);
#pragma unroll
      for (u32 u = 0; u < 8; ++u) accumulate8<T>(w[u], coef[j + u * l.slices], acc[g]);
    }
    for (; j < n; j += l.slices)
      accumulate8<T>(ld_weight(r4 + static_cast<u64>(j) * l.cols + c), coef[j], acc[g]);
  }
}

// The block's partial sum of a step's output (the slices' accumulators
// through shared memory, slices * hidden <= 8 * kBlockThreads floats or
// hidden when one slice, summed in a fixed order) plus its share of carry
// (the residual stream before the step), added to out in fixed point: one
// atomic add per element, exact whatever order the blocks' adds land in.
__device__ void add_partials(const float (&acc)[kMaxColGroups][8], const RowsLayout& l, u32 hidden,
                             float* xs, unsigned long long* out, const unsigned long long* carry) {
  __syncthreads();
  if (l.s < l.slices) {
#pragma unroll
    for (u32 g = 0; g < kMaxColGroups; ++g) {
      const u32 c = l.c0 + g * kBlockThreads;
      if (c >= l.cols) break;
#pragma unroll
      for (u32 k = 0; k < 8; ++k) xs[l.s * hidden + c * 8 + k] = acc[g][k];
    }
  }
  __syncthreads();
  const Range own = block_share(hidden, blockIdx.x, gridDim.x);
  for (u32 i = threadIdx.x; i < hidden; i += blockDim.x) {
    float v = 0.f;
    for (u32 t = 0; t < l.slices; ++t) v += xs[t * hidden + i];
    unsigned long long u = to_fixed(v);
    if (i >= own.begin && i < own.end) u += __ldcg(carry + i);
    if (u != 0) atomicAdd(out + i, u);
  }
  __syncthreads();
}

// Attention and the output projection in one step. The projection is stored
// transposed ([heads * head_dim][hidden]); each block takes a share of its
// rows, computes the attention of the heads those rows belong to (a head is
// computed by every block whose rows it spans: cheap at the probe's context,
// and no block waits for another's head), and adds row d times output d to
// the residual stream. Waits only for q/k/v.
template <class T>
__device__ __noinline__ void phase_attn_out(const Model& m, u32 layer, u32 pos, float* smem,
                                            const Wait& w) {
  const Params& p = m.p;
  const u32 H = p.hidden;
  const u32 D = p.head_dim;
  const Range r = block_share(p.heads * D, blockIdx.x, gridDim.x);
  const u16* wo = m.layer_tensor(layer, p.off_o_w);
  prefetch_lines(reinterpret_cast<const unsigned char*>(wo + static_cast<u64>(r.begin) * H),
                 static_cast<u64>(r.end - r.begin) * H * 2, kRowsPrefetchBytes);
  grid_wait(w);
  const RowsLayout l = rows_layout(H);
  float acc[kMaxColGroups][8];
#pragma unroll
  for (u32 g = 0; g < kMaxColGroups; ++g)
#pragma unroll
    for (u32 k = 0; k < 8; ++k) acc[g][k] = 0.f;
  if (r.begin < r.end) {
    for (u32 h = r.begin / D; h * D < r.end; ++h) {
      __syncthreads();  // the previous head's output is read
      attend<T>(m, layer, pos, h, smem);
      const u32 lo = r.begin > h * D ? r.begin : h * D;
      const u32 hi = r.end < (h + 1) * D ? r.end : (h + 1) * D;
      accumulate_rows<T>(wo + static_cast<u64>(lo) * H, hi - lo, smem + 32 + (lo - h * D), l, acc);
    }
  }
  const int k = 2 * static_cast<int>(layer);
  add_partials(acc, l, H, smem, m.resid_after(k), m.resid_after(k - 1));
}

// The whole MLP of a layer in one step: the block computes its share of the
// gate/up rows (SwiGLU outputs j in [begin, end), kept in shared memory),
// multiplies them by the same rows j of the transposed down projection and
// adds the result to the residual stream. Nobody reads the SwiGLU outputs of
// another block, so the down projection waits for nothing.
template <class T>
__device__ __noinline__ void phase_mlp(const Model& m, u32 layer, float* xs, float* red,
                                       const Wait& wait) {
  const Params& p = m.p;
  const u32 H = p.hidden;
  const int k = 2 * static_cast<int>(layer) + 1;
  const Range r = block_share(p.intermediate, blockIdx.x, gridDim.x);
  const u16* down = m.layer_tensor(layer, p.off_down_w);
  prefetch_lines(reinterpret_cast<const unsigned char*>(down + static_cast<u64>(r.begin) * H),
                 static_cast<u64>(r.end - r.begin) * H * 2, kRowsPrefetchBytes);
  const u16* gateup = m.layer_tensor(layer, p.off_gateup_w);
  const Input in{m.resid_after(k - 1), m.layer_tensor(layer, p.off_mlp_norm), p.rms_eps};
  float* act = xs + H;
  const u32 room = kSharedFloats - H;  // SwiGLU outputs per chunk (>= 512: unsupported_reason)
  const RowsLayout l = rows_layout(H);
  float acc[kMaxColGroups][8];
#pragma unroll
  for (u32 g = 0; g < kMaxColGroups; ++g)
#pragma unroll
    for (u32 c = 0; c < 8; ++c) acc[g][c] = 0.f;
  if (r.begin == r.end) grid_wait(wait);  // no rows, but a share of the carry
  for (u32 b = r.begin; b < r.end; b += room) {
    const u32 e = r.end - b < room ? r.end : b + room;
    Epilogue epi{Epilogue::kSwiglu, m, layer};
    epi.act = act;
    epi.act_base = b;
    matvec_pairs<T>(gateup, H, in, xs, Range{b, e}, red, epi,
                    b == r.begin ? wait : Wait{nullptr, 0});
    __syncthreads();  // act complete
    accumulate_rows<T>(down + static_cast<u64>(b) * H, e - b, act, l, acc);
    __syncthreads();  // xs and act are overwritten next
  }
  add_partials(acc, l, H, xs, m.resid_after(k), m.resid_after(k - 1));
  // The next layer's attention adds to the buffer of step 2l + 2, which held
  // step 2l - 1: this layer's q/k/v and attention read it, and finished
  // before this step began.
  clear_share(m.resid_after(k + 1), H);
}

template <class T>
__device__ __noinline__ void phase_lm_head(const Model& m, u32 pos, float* xs, float* red,
                                           unsigned long long* red64, Wait w) {
  const Params& p = m.p;
  const Input in{m.resid_after(2 * static_cast<int>(p.layers) - 1), m.tensor(p.off_final_norm),
                 p.rms_eps};
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

// One block, after every block's LM head: the argmax becomes the next input
// (its embedding row, the residual stream before layer 0), the buffer layer
// 0's attention adds to is cleared, the id is recorded for the host, the
// other parity's argmax cell is cleared for the next token and the position
// advances.
template <class T>
__device__ void phase_finish(const Model& m, u32 pos) {
  const Params& p = m.p;
  const unsigned long long packed = __ldcg(&m.st->argmax[pos & 1]);
  const u32 token = 0xFFFFFFFFu - static_cast<u32>(packed & 0xFFFFFFFFull);
  const u32 row = token < p.vocab ? token : 0;  // an invalid id is reported, never read
  const u16* e = m.tensor(p.off_embed) + static_cast<u64>(row) * p.hidden;
  unsigned long long* in = m.resid_after(-1);
  unsigned long long* first = m.resid_after(0);
  for (u32 i = threadIdx.x; i < p.hidden; i += blockDim.x) {
    in[i] = to_fixed(T::load(e + i));  // exact: 16-bit values are multiples of 2^-24 (or 0)
    first[i] = 0;
  }
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
    case 1:  // stored transposed: rows of the attention outputs, two per pair
      return {base + p.off_o_w, p.hidden, qdim / 2, nullptr, nullptr, 0};
    case 2:
      return {base + p.off_gateup_w, p.hidden, p.intermediate, base + p.off_mlp_norm, nullptr, 0};
    default:  // stored transposed: rows j of the SwiGLU outputs, two per pair
      return {base + p.off_down_w, p.hidden, p.intermediate / 2, nullptr, nullptr, 0};
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

// A step's arrival: when every thread of the block is done with it, one
// fire-and-forget release add on the step's counter. What the block issues
// after it (the next step's weight loads) neither delays it nor waits for it.
__device__ void arrive(unsigned* counter) {
  __syncthreads();
  if (threadIdx.x == 0) {
#if __CUDA_ARCH__ >= 700
    asm volatile("red.release.gpu.global.add.u32 [%0], 1;" ::"l"(counter) : "memory");
#else
    __threadfence();
    atomicAdd(counter, 1u);
#endif
  }
}

// Polls with acquire loads until the counter reaches the target, then the
// whole block goes on.
__device__ void grid_wait(const Wait& w) {
  if (w.counter == nullptr) return;
  unsigned* counter = w.counter;
  if (threadIdx.x == 0) {
    const u32 target = w.target;
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
    case kPhaseOutProj:  // attention included
      phase_attn_out<T>(m, layer, pos, s.xs, w);
      break;
    case kPhaseGateUp:
      phase_mlp<T>(m, layer, s.xs, s.red, w);
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

// One token, with no grid-wide barrier: three steps per layer (q/k/v;
// attention with the output projection; the MLP with the down projection),
// each waiting only for the counter of the step whose output it reads, with
// the weights that depend on nothing already requested before it waits. The
// residual stream after step k lives in buffer k % 3 (fixed point): step k
// adds its partial sums there plus the stream before it, and the buffer of
// step k + 1 is cleared in step k - 1, whose wait guarantees every reader of
// its old content has finished. The LM head is spread over every block.
template <class T>
__device__ void run_token(const Model& m, const Shared& s) {
  const Params& p = m.p;
  const u32 pos = __ldcg(&m.st->pos);
  unsigned* c = m.st->sync[pos & 1];
  // The other parity's counters served the previous token, whose launch has
  // ended; the next token starts from zero.
  if (blockIdx.x == 0 && threadIdx.x < kSyncCounters) m.st->sync[(pos + 1) & 1][threadIdx.x] = 0;
  const bool sync_only = (p.bench_flags & kBenchBarriersOnly) != 0;
  const u32 grid = gridDim.x;
  const u32 ahead = p.prefetch_ahead > 1 ? 2 : 1;
  u32 slot = 0;
  stamp(p, slot++);
  for (u32 i = 0; i < ahead; ++i) prefetch_share(m, i, pos);
  for (u32 layer = 0; layer < p.layers; ++layer) {
    // q, k, v: the stream after the previous layer's MLP (layer 0: the
    // embedding, written before this launch).
    const Wait after_mlp{layer == 0 ? nullptr : &c[kSyncMlp], layer * grid};
    if (sync_only)
      grid_wait(after_mlp);
    else
      phase_qkv<T>(m, layer, pos, s.xs, s.red, after_mlp);
    arrive(&c[kSyncQkv]);
    stamp(p, slot++);
    prefetch_share(m, 4 * layer + ahead, pos);
    const Wait after_qkv{&c[kSyncQkv], (layer + 1) * grid};
    if (sync_only)
      grid_wait(after_qkv);
    else
      phase_attn_out<T>(m, layer, pos, s.xs, after_qkv);
    arrive(&c[kSyncOut]);
    stamp(p, slot++);
    stamp(p, slot++);  // the output projection's slot: inside the attention step
    prefetch_share(m, 4 * layer + 1 + ahead, pos);
    const Wait after_out{&c[kSyncOut], (layer + 1) * grid};
    if (sync_only)
      grid_wait(after_out);
    else
      phase_mlp<T>(m, layer, s.xs, s.red, after_out);
    arrive(&c[kSyncMlp]);
    stamp(p, slot++);
    stamp(p, slot++);  // the down projection's slot: inside the MLP step
    prefetch_share(m, 4 * layer + 3 + ahead, pos);
  }
  const Wait after_last{&c[kSyncMlp], p.layers * grid};
  if (sync_only)
    grid_wait(after_last);
  else
    phase_lm_head<T>(m, pos, s.xs, s.red, s.red64, after_last);
  arrive(&c[kSyncLmHead]);
  stamp(p, slot++);
  // The next token's first weights stream while this one finishes.
  for (u32 i = 0; i < ahead; ++i) prefetch_share(m, i, pos + 1);
  if (blockIdx.x == 0) {
    grid_wait(Wait{&c[kSyncLmHead], grid});
    phase_finish<T>(m, pos);
  }
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
    u32 packed[4];
    if (kind == kWdown || kind == kWo) {
      // Stored transposed: physical [cols][hidden], logical [hidden][cols]
      // (cols: intermediate or heads * head_dim), element by element.
      for (u32 j = 0; j < 4; ++j) {
        u16 h[2];
        for (u32 k = 0; k < 2; ++k) {
          const u64 e = gi * 8 + 2 * j + k;
          const u64 logical = (e % p.hidden) * cols + e / p.hidden;
          h[k] = to_dtype(weight_value(seed, kind, layer, logical, scale), T::id);
        }
        packed[j] = static_cast<u32>(h[0]) | (static_cast<u32>(h[1]) << 16);
      }
      dst[gi] = make_uint4(packed[0], packed[1], packed[2], packed[3]);
      continue;
    }
    const Source src = logical_source(p, kind, gi * 8, cols);
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

// One token in one launch: every step of every layer, each waiting only for
// the steps it reads from (dependency counters, no grid barrier). Must be
// launched cooperatively (all blocks resident: they wait for each other).
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

// One phase of one layer (kernel boundaries order them): the graph of a token
// holds one launch per phase (kPhaseDown is none: the MLP step holds it).
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
  unsigned long long* in = m.resid_after(-1);
  for (std::uint32_t i = threadIdx.x; i < p.hidden; i += blockDim.x) {
    in[i] = dg::to_fixed(dm::from_dtype(e[i], p.dtype));
    m.resid_after(0)[i] = 0;
    m.resid_after(1)[i] = 0;
  }
  if (threadIdx.x < 2 * dm::kSyncCounters)
    m.st->sync[threadIdx.x / dm::kSyncCounters][threadIdx.x % dm::kSyncCounters] = 0;
  if (threadIdx.x == 0) {
    m.st->pos = 0;
    m.st->last_token = token;
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
