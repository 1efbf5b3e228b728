// SPDX-License-Identifier: Apache-2.0
#include "jetgate/probes/decode_reference.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <thread>

namespace jetgate::probes {

namespace dm = cuda::decode;

namespace {

// Splits [0, n) into contiguous chunks over up to `threads` threads; small
// jobs stay on the calling thread.
void parallel_for(std::uint64_t n, unsigned threads,
                  const std::function<void(std::uint64_t, std::uint64_t)>& fn) {
  constexpr std::uint64_t kMinPerThread = 1u << 16;
  const std::uint64_t wanted = std::max<std::uint64_t>(1, n / kMinPerThread);
  const unsigned t = static_cast<unsigned>(std::min<std::uint64_t>(threads, wanted));
  if (t <= 1) {
    fn(0, n);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(t);
  for (unsigned i = 0; i < t; ++i) pool.emplace_back(fn, n * i / t, n * (i + 1) / t);
  for (auto& th : pool) th.join();
}

float silu(float g) {
  return g / (1.0f + std::exp(-g));
}

}  // namespace

DecodeReference::DecodeReference(const dm::ModelShape& model, std::uint32_t dtype,
                                 std::uint32_t seed, std::uint32_t max_ctx, unsigned threads)
    : m_(model), dtype_(dtype), seed_(seed), max_ctx_(max_ctx), threads_(threads) {
  if (threads_ == 0) threads_ = std::max(1u, std::thread::hardware_concurrency());
  to_float_.resize(65536);
  for (std::uint32_t b = 0; b < 65536; ++b)
    to_float_[b] = dm::from_dtype(static_cast<std::uint16_t>(b), dtype_);
  const std::uint64_t hidden = m_.hidden;
  const std::uint64_t qdim = std::uint64_t{m_.heads} * m_.head_dim;
  const std::uint64_t kdim = std::uint64_t{m_.kv_heads} * m_.head_dim;
  const std::uint64_t inter = m_.intermediate;
  layers_.resize(m_.layers);
  for (std::uint32_t l = 0; l < m_.layers; ++l) {
    Layer& L = layers_[l];
    L.attn_norm = make_tensor(dm::kAttnNorm, l, hidden);
    L.wq = make_matrix(dm::kWq, l, qdim, m_.hidden);
    L.wk = make_matrix(dm::kWk, l, kdim, m_.hidden);
    L.wv = make_matrix(dm::kWv, l, kdim, m_.hidden);
    if (m_.qkv_bias) {
      L.bq = make_tensor(dm::kBq, l, qdim);
      L.bk = make_tensor(dm::kBk, l, kdim);
      L.bv = make_tensor(dm::kBv, l, kdim);
    }
    L.wo = make_matrix(dm::kWo, l, hidden, static_cast<std::uint32_t>(qdim));
    L.mlp_norm = make_tensor(dm::kMlpNorm, l, hidden);
    L.wgate = make_matrix(dm::kWgate, l, inter, m_.hidden);
    L.wup = make_matrix(dm::kWup, l, inter, m_.hidden);
    L.wdown = make_matrix(dm::kWdown, l, hidden, m_.intermediate);
  }
  final_norm_ = make_tensor(dm::kFinalNorm, 0, hidden);
  embed_ = make_matrix(dm::kEmbed, 0, m_.vocab, m_.hidden);
  if (!m_.tied_embeddings) lm_head_ = make_matrix(dm::kLmHead, 0, m_.vocab, m_.hidden);
  const std::uint64_t cache = std::uint64_t{m_.layers} * kdim * max_ctx_;
  k_cache_.assign(cache, 0);
  v_cache_.assign(cache, 0);
  dm::rope_tables(m_, max_ctx_, &cos_, &sin_);
  x_.assign(hidden, 0.f);
  logits_.assign(m_.vocab, 0.f);
}

std::vector<std::uint16_t> DecodeReference::make_tensor(std::uint32_t kind, std::uint32_t layer,
                                                        std::uint64_t count) const {
  std::vector<std::uint16_t> t(count);
  const float scale = dm::weight_scale(m_, kind);
  parallel_for(count, threads_, [&](std::uint64_t b, std::uint64_t e) {
    for (std::uint64_t i = b; i < e; ++i)
      t[i] = dm::to_dtype(dm::weight_value(seed_, kind, layer, i, scale), dtype_);
  });
  return t;
}

DecodeReference::Matrix DecodeReference::make_matrix(std::uint32_t kind, std::uint32_t layer,
                                                     std::uint64_t rows, std::uint32_t cols) const {
  Matrix w;
  if (!m_.q4_weights) {
    w.bits = make_tensor(kind, layer, rows * cols);
    return w;
  }
  // Groups of kQ4Group along each row: the scale from the group's values,
  // then each value quantized under it and dequantized.
  const float scale = dm::weight_scale(m_, kind);
  w.values.resize(rows * cols);
  const std::uint64_t groups = rows * cols / dm::kQ4Group;
  parallel_for(groups, threads_, [&](std::uint64_t b, std::uint64_t e) {
    float g[dm::kQ4Group];
    for (std::uint64_t gi = b; gi < e; ++gi) {
      const std::uint64_t at = gi * dm::kQ4Group;
      for (std::uint32_t i = 0; i < dm::kQ4Group; ++i)
        g[i] = dm::weight_value(seed_, kind, layer, at + i, scale);
      const std::uint16_t s = dm::q4_group_scale(g);
      for (std::uint32_t i = 0; i < dm::kQ4Group; ++i)
        w.values[at + i] = dm::q4_dequantize(dm::q4_quantize(g[i], s), s);
    }
  });
  return w;
}

void DecodeReference::matvec(const Matrix& mat, const std::vector<float>& x, std::vector<float>& y,
                             std::uint32_t rows, std::uint32_t cols) const {
  y.assign(rows, 0.f);
  if (!mat.values.empty()) {
    parallel_for(rows, threads_, [&](std::uint64_t b, std::uint64_t e) {
      for (std::uint64_t r = b; r < e; ++r) {
        const float* row = mat.values.data() + r * cols;
        float s = 0.f;
        for (std::uint32_t c = 0; c < cols; ++c) s += row[c] * x[c];
        y[r] = s;
      }
    });
    return;
  }
  const std::vector<std::uint16_t>& w = mat.bits;
  const float* table = to_float_.data();
  const std::uint64_t work = std::uint64_t{rows} * cols;
  const unsigned t = work < (1u << 20) ? 1 : threads_;
  std::vector<std::thread> pool;
  auto rows_fn = [&](std::uint32_t b, std::uint32_t e) {
    for (std::uint32_t r = b; r < e; ++r) {
      const std::uint16_t* row = w.data() + std::uint64_t{r} * cols;
      float s0 = 0.f, s1 = 0.f, s2 = 0.f, s3 = 0.f;
      std::uint32_t c = 0;
      for (; c + 4 <= cols; c += 4) {
        s0 += table[row[c]] * x[c];
        s1 += table[row[c + 1]] * x[c + 1];
        s2 += table[row[c + 2]] * x[c + 2];
        s3 += table[row[c + 3]] * x[c + 3];
      }
      for (; c < cols; ++c) s0 += table[row[c]] * x[c];
      y[r] = (s0 + s1) + (s2 + s3);
    }
  };
  if (t <= 1) {
    rows_fn(0, rows);
    return;
  }
  for (unsigned i = 0; i < t; ++i)
    pool.emplace_back(rows_fn, static_cast<std::uint32_t>(std::uint64_t{rows} * i / t),
                      static_cast<std::uint32_t>(std::uint64_t{rows} * (i + 1) / t));
  for (auto& th : pool) th.join();
}

void DecodeReference::rms_norm(const std::vector<float>& x, const std::vector<std::uint16_t>& gamma,
                               std::vector<float>& out) const {
  float ss = 0.f;
  for (float v : x) ss += v * v;
  const float scale = 1.0f / std::sqrt(ss / static_cast<float>(x.size()) + m_.rms_eps);
  out.resize(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) out[i] = to_float_[gamma[i]] * (x[i] * scale);
}

// Hugging Face's rotate_half convention: dimension i pairs with i + d/2.
void DecodeReference::rotate(float* v) const {
  const std::uint32_t half = m_.head_dim / 2;
  const float* c = cos_.data() + std::uint64_t{pos_} * half;
  const float* s = sin_.data() + std::uint64_t{pos_} * half;
  for (std::uint32_t i = 0; i < half; ++i) {
    const float a = v[i];
    const float b = v[i + half];
    v[i] = a * c[i] - b * s[i];
    v[i + half] = b * c[i] + a * s[i];
  }
}

void DecodeReference::attention(std::uint32_t layer) {
  const std::uint32_t D = m_.head_dim;
  const std::uint32_t group = m_.heads / m_.kv_heads;
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(D)));
  const std::uint64_t plane = std::uint64_t{max_ctx_} * D;
  attn_.assign(std::uint64_t{m_.heads} * D, 0.f);
  std::vector<float> scores(pos_ + 1);
  std::vector<float> qs(D);
  for (std::uint32_t h = 0; h < m_.heads; ++h) {
    const std::uint32_t kvh = h / group;
    const std::uint64_t base = (std::uint64_t{layer} * m_.kv_heads + kvh) * plane;
    for (std::uint32_t d = 0; d < D; ++d) qs[d] = q_[std::uint64_t{h} * D + d] * scale;
    float mx = -INFINITY;
    for (std::uint32_t t = 0; t <= pos_; ++t) {
      const std::uint16_t* k = k_cache_.data() + base + std::uint64_t{t} * D;
      float s = 0.f;
      for (std::uint32_t d = 0; d < D; ++d) s += to_float_[k[d]] * qs[d];
      scores[t] = s;
      mx = std::max(mx, s);
    }
    float sum = 0.f;
    for (std::uint32_t t = 0; t <= pos_; ++t) {
      scores[t] = std::exp(scores[t] - mx);
      sum += scores[t];
    }
    float* out = attn_.data() + std::uint64_t{h} * D;
    for (std::uint32_t t = 0; t <= pos_; ++t) {
      const std::uint16_t* v = v_cache_.data() + base + std::uint64_t{t} * D;
      for (std::uint32_t d = 0; d < D; ++d) out[d] += scores[t] * to_float_[v[d]];
    }
    for (std::uint32_t d = 0; d < D; ++d) out[d] /= sum;
  }
}

void DecodeReference::begin(std::uint32_t token) {
  pos_ = 0;
  feed(token);
}

void DecodeReference::feed(std::uint32_t token) {
  const std::uint64_t row = std::uint64_t{token % m_.vocab} * m_.hidden;
  for (std::uint32_t i = 0; i < m_.hidden; ++i) x_[i] = weight(embed_, row + i);
}

std::uint32_t DecodeReference::forward() {
  const std::uint32_t D = m_.head_dim;
  const std::uint32_t qdim = m_.heads * D;
  const std::uint32_t kdim = m_.kv_heads * D;
  const std::uint64_t plane = std::uint64_t{max_ctx_} * D;
  for (std::uint32_t l = 0; l < m_.layers; ++l) {
    const Layer& L = layers_[l];
    rms_norm(x_, L.attn_norm, h_);
    matvec(L.wq, h_, q_, qdim, m_.hidden);
    matvec(L.wk, h_, k_, kdim, m_.hidden);
    matvec(L.wv, h_, v_, kdim, m_.hidden);
    if (m_.qkv_bias) {
      for (std::uint32_t i = 0; i < qdim; ++i) q_[i] += to_float_[L.bq[i]];
      for (std::uint32_t i = 0; i < kdim; ++i) {
        k_[i] += to_float_[L.bk[i]];
        v_[i] += to_float_[L.bv[i]];
      }
    }
    for (std::uint32_t h = 0; h < m_.heads; ++h) rotate(q_.data() + std::uint64_t{h} * D);
    for (std::uint32_t h = 0; h < m_.kv_heads; ++h) {
      rotate(k_.data() + std::uint64_t{h} * D);
      const std::uint64_t at =
          (std::uint64_t{l} * m_.kv_heads + h) * plane + std::uint64_t{pos_} * D;
      for (std::uint32_t d = 0; d < D; ++d) {
        k_cache_[at + d] = dm::to_dtype(k_[std::uint64_t{h} * D + d], dtype_);
        v_cache_[at + d] = dm::to_dtype(v_[std::uint64_t{h} * D + d], dtype_);
      }
    }
    attention(l);
    matvec(L.wo, attn_, proj_, m_.hidden, qdim);
    for (std::uint32_t i = 0; i < m_.hidden; ++i) x_[i] += proj_[i];
    rms_norm(x_, L.mlp_norm, h_);
    matvec(L.wgate, h_, gate_, m_.intermediate, m_.hidden);
    matvec(L.wup, h_, up_, m_.intermediate, m_.hidden);
    act_.resize(m_.intermediate);
    for (std::uint32_t i = 0; i < m_.intermediate; ++i) act_[i] = silu(gate_[i]) * up_[i];
    matvec(L.wdown, act_, proj_, m_.hidden, m_.intermediate);
    for (std::uint32_t i = 0; i < m_.hidden; ++i) x_[i] += proj_[i];
  }
  rms_norm(x_, final_norm_, h_);
  matvec(m_.tied_embeddings ? embed_ : lm_head_, h_, logits_, m_.vocab, m_.hidden);
  ++pos_;
  return static_cast<std::uint32_t>(std::max_element(logits_.begin(), logits_.end()) -
                                    logits_.begin());
}

std::uint32_t DecodeReference::step() {
  const std::uint32_t token = forward();
  feed(token);
  return token;
}

double logit_tolerance(std::uint32_t dtype) {
  return dtype == dm::kDTypeBf16 ? 2e-2 : 5e-3;
}

LogitComparison compare_logits(const std::vector<float>& gpu, const std::vector<float>& ref) {
  LogitComparison c;
  if (gpu.size() != ref.size() || ref.empty()) {
    c.max_abs_diff = c.relative = INFINITY;
    return c;
  }
  double ss = 0;
  std::uint32_t best = 0, second = ref.size() > 1 ? 1 : 0;
  if (ref.size() > 1 && ref[1] > ref[0]) std::swap(best, second);
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double d = std::fabs(static_cast<double>(gpu[i]) - ref[i]);
    if (!(d <= c.max_abs_diff)) c.max_abs_diff = std::isnan(d) ? INFINITY : d;
    ss += static_cast<double>(ref[i]) * ref[i];
    if (i < 2) continue;
    const auto id = static_cast<std::uint32_t>(i);
    if (ref[i] > ref[best]) {
      second = best;
      best = id;
    } else if (ref[i] > ref[second]) {
      second = id;
    }
  }
  c.ref_rms = std::sqrt(ss / static_cast<double>(ref.size()));
  c.relative = c.ref_rms > 0 ? c.max_abs_diff / c.ref_rms : c.max_abs_diff;
  c.ref_argmax = best;
  c.ref_top_gap = static_cast<double>(ref[best]) - ref[second];
  return c;
}

bool tokens_agree(std::uint32_t gpu_token, std::uint32_t ref_token, const std::vector<float>& ref,
                  std::uint32_t dtype) {
  if (gpu_token == ref_token) return true;
  if (gpu_token >= ref.size() || ref_token >= ref.size()) return false;
  double ss = 0;
  for (float v : ref) ss += static_cast<double>(v) * v;
  const double rms = std::sqrt(ss / static_cast<double>(ref.size()));
  return static_cast<double>(ref[ref_token]) - ref[gpu_token] <= logit_tolerance(dtype) * rms;
}

}  // namespace jetgate::probes
