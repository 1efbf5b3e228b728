// SPDX-License-Identifier: Apache-2.0
// The decode probe's model contract and CPU reference, without a GPU: the
// fp16/bf16 rounding, the seeded weights, the fused-row layout, the presets'
// sizes (checked against the parameter counts the models publish), and the
// reference itself against an independent double-precision implementation
// written here straight from the Hugging Face formulas.
#include "jetgate/probes/decode_reference.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "jetgate/cuda/decode_model.hpp"
#include "jetgate/cuda/decode_presets.hpp"

namespace jetgate::probes {
namespace {

namespace dm = cuda::decode;

float from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

TEST(DecodeModel, HalfRoundingMatchesIeee) {
  EXPECT_EQ(dm::float_to_f16(1.0f), 0x3C00);
  EXPECT_EQ(dm::float_to_f16(-2.0f), 0xC000);
  EXPECT_EQ(dm::float_to_f16(65504.0f), 0x7BFF);
  EXPECT_EQ(dm::float_to_f16(65519.0f), 0x7BFF);
  EXPECT_EQ(dm::float_to_f16(65520.0f), 0x7C00);  // halfway to the next: even is inf
  EXPECT_EQ(dm::float_to_f16(1.0f / 3.0f), 0x3555);
  EXPECT_EQ(dm::float_to_f16(1.0f + std::ldexp(1.0f, -11)), 0x3C00);      // tie to even (down)
  EXPECT_EQ(dm::float_to_f16(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3C02);  // tie to even (up)
  EXPECT_EQ(dm::float_to_f16(std::ldexp(1.0f, -24)), 0x0001);             // smallest subnormal
  EXPECT_EQ(dm::float_to_f16(std::ldexp(1.0f, -25)), 0x0000);             // tie to even: zero
  EXPECT_EQ(dm::float_to_f16(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(dm::float_to_f16(std::ldexp(1.0f, -14) - std::ldexp(1.0f, -25)),
            0x0400);  // up into normals
  EXPECT_EQ(dm::float_to_f16(-0.0f), 0x8000);
  EXPECT_EQ(dm::float_to_f16(INFINITY), 0x7C00);
  EXPECT_EQ(dm::float_to_f16(NAN) & 0x7C00, 0x7C00);
  EXPECT_NE(dm::float_to_f16(NAN) & 0x03FF, 0);
}

TEST(DecodeModel, EveryHalfSurvivesARoundTrip) {
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const auto h = static_cast<std::uint16_t>(b);
    const float f = dm::f16_to_float(h);
    if (std::isnan(f)) continue;
    EXPECT_EQ(dm::float_to_f16(f), h) << std::hex << b;
  }
  EXPECT_EQ(dm::f16_to_float(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(dm::f16_to_float(0x7BFF), 65504.0f);
  EXPECT_EQ(dm::f16_to_float(0xC000), -2.0f);
}

TEST(DecodeModel, Bfloat16RoundsToNearestEven) {
  EXPECT_EQ(dm::float_to_bf16(1.0f), 0x3F80);
  EXPECT_EQ(dm::float_to_bf16(from_bits(0x3F808000u)), 0x3F80);  // tie, even stays
  EXPECT_EQ(dm::float_to_bf16(from_bits(0x3F818000u)), 0x3F82);  // tie, odd rounds up
  EXPECT_EQ(dm::float_to_bf16(from_bits(0x3F808001u)), 0x3F81);
  EXPECT_EQ(dm::bf16_to_float(0xC040), -3.0f);
  for (std::uint32_t b = 0; b < 65536; ++b) {
    const float f = dm::bf16_to_float(static_cast<std::uint16_t>(b));
    if (!std::isnan(f)) {
      EXPECT_EQ(dm::float_to_bf16(f), b);
    }
  }
}

TEST(DecodeModel, WeightsAreSeededPerTensorAndInRange) {
  EXPECT_EQ(dm::weight_value(7, dm::kWq, 3, 12345, 0.0625f),
            dm::weight_value(7, dm::kWq, 3, 12345, 0.0625f));
  EXPECT_NE(dm::weight_value(7, dm::kWq, 3, 12345, 0.0625f),
            dm::weight_value(8, dm::kWq, 3, 12345, 0.0625f));
  EXPECT_NE(dm::weight_value(7, dm::kWq, 3, 12345, 0.0625f),
            dm::weight_value(7, dm::kWk, 3, 12345, 0.0625f));
  EXPECT_NE(dm::weight_value(7, dm::kWq, 3, 12345, 0.0625f),
            dm::weight_value(7, dm::kWq, 4, 12345, 0.0625f));
  double sum = 0, sq = 0;
  constexpr int kN = 100000;
  for (int i = 0; i < kN; ++i) {
    const float w = dm::weight_value(1, dm::kWup, 0, static_cast<std::uint64_t>(i), 0.5f);
    ASSERT_GE(w, -0.5f);
    ASSERT_LT(w, 0.5f);
    sum += w;
    sq += static_cast<double>(w) * w;
    const float g = dm::weight_value(1, dm::kAttnNorm, 0, static_cast<std::uint64_t>(i), 0.5f);
    ASSERT_GE(g, 0.75f);
    ASSERT_LT(g, 1.25f);
  }
  EXPECT_NEAR(sum / kN, 0.0, 0.005);
  EXPECT_NEAR(sq / kN, 0.25 / 3, 0.002);  // uniform(-a, a): a^2 / 3
}

TEST(DecodeModel, QkvPairsCoverEveryRowOnceAndPairRotaryHalves) {
  for (const auto& m : dm::presets()) {
    const std::uint32_t rows = (m.heads + 2 * m.kv_heads) * m.head_dim;
    std::set<std::uint32_t> seen;
    for (std::uint32_t p = 0; p < rows / 2; ++p) {
      const dm::QkvRows r = dm::qkv_pair_rows(p, m.heads, m.kv_heads, m.head_dim);
      EXPECT_TRUE(seen.insert(r.first).second) << m.name << " row " << r.first;
      EXPECT_TRUE(seen.insert(r.second).second) << m.name << " row " << r.second;
      if (r.first < (m.heads + m.kv_heads) * m.head_dim) {
        EXPECT_EQ(r.second, r.first + m.head_dim / 2);
        EXPECT_LT(r.first % m.head_dim, m.head_dim / 2);
      } else {
        EXPECT_EQ(r.second, r.first + 1);
      }
    }
    EXPECT_EQ(seen.size(), rows) << m.name;
  }
}

// The parameter counts the model cards publish (tied embeddings counted
// once): Qwen2.5-0.5B 494,032,768; Llama-3.2-1B 1,235,814,400; one token
// reads all of them plus one embedding row.
TEST(DecodePresets, BytesPerTokenMatchPublishedParameterCounts) {
  EXPECT_EQ(dm::weight_bytes_per_token(*dm::find_preset("qwen2.5-0.5b")), 2 * (494032768ull + 896));
  EXPECT_EQ(dm::weight_bytes_per_token(*dm::find_preset("llama-3.2-1b")),
            2 * (1235814400ull + 2048));
  // Qwen2.5-1.5B: 1,543,714,304 parameters.
  EXPECT_EQ(dm::weight_bytes_per_token(*dm::find_preset("qwen2.5-1.5b")),
            2 * (1543714304ull + 1536));
  // TinyLlama's LM head is its own matrix: the embedding table is not read
  // whole. 1,100,048,384 parameters, of which 65,536,000 are the embedding.
  EXPECT_EQ(dm::weight_bytes_per_token(*dm::find_preset("tinyllama-1.1b")),
            2 * (1100048384ull - 65536000ull + 2048));
  EXPECT_EQ(dm::kv_bytes_per_position(*dm::find_preset("qwen2.5-0.5b")), 2ull * 24 * 2 * 64 * 2);
}

// 4-bit matrices: 18 bytes per 32 weights; norms and biases stay 2 bytes.
TEST(DecodePresets, Q4BytesPerTokenFromTheParameterCounts) {
  // Qwen2.5-0.5B: 494,032,768 parameters, of which 24 * 2 * 896 + 896 are
  // norm weights and 24 * (896 + 2 * 128) q/k/v biases; the rest are
  // matrices (the tied embedding read once, as the LM head). The next input
  // is one 4-bit embedding row of 896.
  const std::uint64_t qwen_small = 24ull * 2 * 896 + 896 + 24ull * 1152;
  const std::uint64_t qwen_matrix = 494032768ull - qwen_small;
  EXPECT_EQ(qwen_matrix % 32, 0u);
  EXPECT_EQ(dm::weight_bytes_per_token(*dm::find_preset("qwen2.5-0.5b-q4")),
            qwen_matrix / 32 * 18 + 2 * qwen_small + 896 / 32 * 18);
  EXPECT_EQ(dm::weight_bytes_per_token(*dm::find_preset("qwen2.5-0.5b-q4")), 277996792ull);
  // Llama-3.2-1B: 1,235,814,400 parameters, 16 * 2 * 2048 + 2048 of them norms.
  const std::uint64_t llama_small = 16ull * 2 * 2048 + 2048;
  EXPECT_EQ(dm::weight_bytes_per_token(*dm::find_preset("llama-3.2-1b-q4")),
            (1235814400ull - llama_small) / 32 * 18 + 2 * llama_small + 2048 / 32 * 18);
  // Under a third of the 16-bit model's bytes: the bound rises by as much.
  const double ratio =
      static_cast<double>(dm::weight_bytes_per_token(*dm::find_preset("qwen2.5-0.5b-q4"))) /
      static_cast<double>(dm::weight_bytes_per_token(*dm::find_preset("qwen2.5-0.5b")));
  EXPECT_GT(ratio, 0.28);
  EXPECT_LT(ratio, 0.29);
  // The layout holds every matrix at 9/16 of a byte per weight.
  const dm::ModelShape& q = *dm::find_preset("qwen2.5-0.5b-q4");
  const dm::WeightLayout l = dm::weight_layout(q);
  EXPECT_EQ(l.o_w - l.qkv_b, (dm::tensor_bytes(q, 1152, false) + 255) / 256 * 256);
  EXPECT_EQ(l.mlp_norm - l.o_w, (896ull * 896 / 32 * 18 + 255) / 256 * 256);
  EXPECT_EQ(dm::unsupported_reason(q, 512), "");
  dm::ModelShape odd = q;
  odd.hidden = 904;  // a multiple of 8, not of the 32-weight group
  EXPECT_NE(dm::unsupported_reason(odd, 512).find("group"), std::string::npos);
}

TEST(DecodeModel, Q4GroupsQuantizeWithinHalfAScaleStep) {
  for (std::uint32_t g = 0; g < 64; ++g) {
    float w[dm::kQ4Group];
    float amax = 0;
    for (std::uint32_t i = 0; i < dm::kQ4Group; ++i) {
      w[i] = dm::weight_value(7, dm::kWo, 0, g * dm::kQ4Group + i, 0.0625f);
      amax = std::max(amax, std::fabs(w[i]));
    }
    const std::uint16_t s = dm::q4_group_scale(w);
    EXPECT_EQ(s, dm::float_to_f16(amax / 7.0f));
    const float scale = dm::f16_to_float(s);
    bool seven = false;
    for (std::uint32_t i = 0; i < dm::kQ4Group; ++i) {
      const std::int32_t q = dm::q4_quantize(w[i], s);
      EXPECT_GE(q, -8);
      EXPECT_LE(q, 7);
      // fp16 rounding of the scale can push the largest value a hair past 7.5 steps.
      EXPECT_LE(std::fabs(dm::q4_dequantize(q, s) - w[i]), scale * 0.5f * 1.002f) << g << " " << i;
      seven = seven || std::abs(q) == 7;
    }
    EXPECT_TRUE(seven) << "the largest magnitude maps to +-7, group " << g;
  }
  float zeros[dm::kQ4Group] = {};
  EXPECT_EQ(dm::q4_group_scale(zeros), 0);
  EXPECT_EQ(dm::q4_quantize(0.5f, 0), 0);
  const std::uint16_t one = dm::float_to_f16(1.0f);
  EXPECT_EQ(dm::q4_quantize(2.5f, one), 3);  // half away from zero
  EXPECT_EQ(dm::q4_quantize(-2.5f, one), -3);
  EXPECT_EQ(dm::q4_quantize(100.f, one), 7);
  EXPECT_EQ(dm::q4_quantize(-100.f, one), -8);
  EXPECT_EQ(dm::q4_dequantize(-3, dm::float_to_f16(0.25f)), -0.75f);
}

TEST(DecodePresets, LayoutIsAlignedOrderedAndHoldsEveryTensor) {
  for (const auto& m : dm::presets()) {
    const dm::WeightLayout l = dm::weight_layout(m);
    for (std::uint64_t off :
         {l.layer_stride, l.qkv_w, l.o_w, l.gateup_w, l.down_w, l.final_norm, l.embed, l.lm_head})
      EXPECT_EQ(off % 256, 0u) << m.name;
    EXPECT_LT(l.qkv_w, l.o_w);
    EXPECT_LT(l.o_w, l.gateup_w);
    EXPECT_LT(l.gateup_w, l.down_w);
    // A token reads every tensor once, plus one embedding row (for tied
    // models a second read of the LM head's matrix).
    const std::uint64_t row = std::uint64_t{m.hidden} * 2;
    EXPECT_GE(l.total_bytes + (m.tied_embeddings ? row : 0), dm::weight_bytes_per_token(m))
        << m.name;
    if (m.tied_embeddings) {
      EXPECT_LT(l.total_bytes, dm::weight_bytes_per_token(m) + 256 * 8 * (m.layers + 1)) << m.name;
    }
    EXPECT_EQ(l.lm_head == l.embed, m.tied_embeddings) << m.name;
    EXPECT_EQ(dm::unsupported_reason(m, 512), "") << m.name;
  }
}

TEST(DecodePresets, ArchitectureFactsFromTheirConfigs) {
  const auto* q = dm::find_preset("qwen2.5-0.5b");
  ASSERT_NE(q, nullptr);
  EXPECT_TRUE(q->qkv_bias);
  EXPECT_TRUE(q->tied_embeddings);
  EXPECT_EQ(q->rope_theta, 1e6);
  EXPECT_FLOAT_EQ(q->rms_eps, 1e-6f);
  const auto* l = dm::find_preset("llama-3.2-1b");
  ASSERT_NE(l, nullptr);
  EXPECT_FALSE(l->qkv_bias);
  EXPECT_TRUE(l->rope_scaling.has_value());
  EXPECT_FLOAT_EQ(l->rms_eps, 1e-5f);
  EXPECT_FALSE(dm::find_preset("tinyllama-1.1b")->tied_embeddings);
  EXPECT_EQ(dm::find_preset("no-such-model"), nullptr);
  EXPECT_EQ(dm::cut_layers(*q, 2).layers, 2u);
  EXPECT_EQ(dm::cut_layers(*q, 2).vocab, q->vocab);
  EXPECT_NE(dm::unsupported_reason(*q, 100000), "");
}

// Llama 3 scaling (transformers' _compute_llama3_parameters): wavelengths
// below original_max / high_freq_factor = 2048 stay, above original_max /
// low_freq_factor = 8192 are divided by 32, the band between is blended.
TEST(DecodePresets, Llama3RopeScaling) {
  const auto& m = *dm::find_preset("llama-3.2-1b");
  const std::vector<double> f = dm::rope_inv_freq(m);
  ASSERT_EQ(f.size(), 32u);
  const double pi = std::acos(-1.0);
  for (std::size_t i = 0; i < f.size(); ++i) {
    const double base = std::pow(500000.0, -2.0 * static_cast<double>(i) / 64);
    const double wavelen = 2 * pi / base;
    if (wavelen < 2048) {
      EXPECT_DOUBLE_EQ(f[i], base) << i;
    }
    if (wavelen > 8192) {
      EXPECT_DOUBLE_EQ(f[i], base / 32) << i;
    }
    if (wavelen >= 2048 && wavelen <= 8192) {
      EXPECT_LE(f[i], base) << i;
      EXPECT_GE(f[i], base / 32) << i;
    }
  }
  EXPECT_DOUBLE_EQ(f[0], 1.0);
  std::vector<float> c, s;
  dm::rope_tables(m, 4, &c, &s);
  EXPECT_EQ(c.size(), 4u * 32);
  EXPECT_FLOAT_EQ(c[0], 1.0f);
  EXPECT_FLOAT_EQ(s[32], std::sin(1.0f));  // pos 1, i 0: angle 1
}

// --- an independent implementation, in double, of the same model ---

struct Naive {
  dm::ModelShape m;
  std::uint32_t dtype, seed;
  std::vector<std::vector<double>> kc, vc;  // per layer: [pos][kv_heads * head_dim]
  std::vector<double> x;
  // The last 4-bit group's scale (rows are walked in order: 31 of 32 hits).
  mutable std::uint32_t memo_kind = ~0u, memo_layer = ~0u;
  mutable std::uint64_t memo_first = ~0ull;
  mutable float memo_scale = 0;

  double w(std::uint32_t kind, std::uint32_t layer, std::uint64_t i) const {
    const float v = dm::weight_value(seed, kind, layer, i, dm::weight_scale(m, kind));
    const bool matrix = kind != dm::kAttnNorm && kind != dm::kMlpNorm && kind != dm::kFinalNorm &&
                        kind != dm::kBq && kind != dm::kBk && kind != dm::kBv;
    if (m.q4_weights && matrix) {
      // Its group of 32 (rows are multiples of 32 long): scale max|w| / 7 in
      // fp16, the value rounded half away from zero to [-8, 7] steps.
      const std::uint64_t first = i / 32 * 32;
      if (memo_kind != kind || memo_layer != layer || memo_first != first) {
        double amax = 0;
        for (std::uint64_t j = first; j < first + 32; ++j)
          amax = std::max(amax, std::fabs(static_cast<double>(dm::weight_value(
                                    seed, kind, layer, j, dm::weight_scale(m, kind)))));
        memo_scale = dm::f16_to_float(dm::float_to_f16(static_cast<float>(amax) / 7.0f));
        memo_kind = kind, memo_layer = layer, memo_first = first;
      }
      const float scale = memo_scale;
      if (scale == 0) return 0;
      const long q = std::clamp(std::lround(v / scale), -8L, 7L);
      return static_cast<double>(q) * scale;
    }
    return dm::from_dtype(dm::to_dtype(v, dtype), dtype);
  }
  double rounded(double v) const {
    return dm::from_dtype(dm::to_dtype(static_cast<float>(v), dtype), dtype);
  }
  std::vector<double> linear(std::uint32_t kind, std::uint32_t layer, const std::vector<double>& in,
                             std::uint32_t rows) const {
    std::vector<double> out(rows, 0.0);
    for (std::uint32_t r = 0; r < rows; ++r)
      for (std::size_t c = 0; c < in.size(); ++c)
        out[r] += w(kind, layer, r * in.size() + c) * in[c];
    return out;
  }
  std::vector<double> norm(std::uint32_t kind, std::uint32_t layer,
                           const std::vector<double>& v) const {
    double ss = 0;
    for (double a : v) ss += a * a;
    const double inv = 1.0 / std::sqrt(ss / static_cast<double>(v.size()) + m.rms_eps);
    std::vector<double> out(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) out[i] = w(kind, layer, i) * v[i] * inv;
    return out;
  }
  void rope(std::vector<double>& v, std::uint32_t heads, std::uint32_t pos) const {
    const std::vector<double> inv = dm::rope_inv_freq(m);
    const std::uint32_t half = m.head_dim / 2;
    for (std::uint32_t h = 0; h < heads; ++h)
      for (std::uint32_t i = 0; i < half; ++i) {
        const double a = v[h * m.head_dim + i], b = v[h * m.head_dim + i + half];
        const double ang = pos * inv[i];
        v[h * m.head_dim + i] = a * std::cos(ang) - b * std::sin(ang);
        v[h * m.head_dim + i + half] = b * std::cos(ang) + a * std::sin(ang);
      }
  }
  void feed(std::uint32_t token) {
    x.assign(m.hidden, 0.0);
    for (std::uint32_t i = 0; i < m.hidden; ++i)
      x[i] = w(dm::kEmbed, 0, std::uint64_t{token} * m.hidden + i);
  }
  std::vector<double> forward(std::uint32_t pos) {
    const std::uint32_t D = m.head_dim, qd = m.heads * D, kd = m.kv_heads * D;
    if (kc.empty()) kc.resize(m.layers), vc.resize(m.layers);
    for (std::uint32_t l = 0; l < m.layers; ++l) {
      const auto h = norm(dm::kAttnNorm, l, x);
      auto q = linear(dm::kWq, l, h, qd), k = linear(dm::kWk, l, h, kd),
           v = linear(dm::kWv, l, h, kd);
      if (m.qkv_bias) {
        for (std::uint32_t i = 0; i < qd; ++i) q[i] += w(dm::kBq, l, i);
        for (std::uint32_t i = 0; i < kd; ++i) k[i] += w(dm::kBk, l, i), v[i] += w(dm::kBv, l, i);
      }
      rope(q, m.heads, pos);
      rope(k, m.kv_heads, pos);
      for (auto& a : k) a = rounded(a);  // the cache holds the model's type
      for (auto& a : v) a = rounded(a);
      kc[l].insert(kc[l].end(), k.begin(), k.end());
      vc[l].insert(vc[l].end(), v.begin(), v.end());
      std::vector<double> att(qd, 0.0);
      for (std::uint32_t hd = 0; hd < m.heads; ++hd) {
        const std::uint32_t kv = hd / (m.heads / m.kv_heads);
        std::vector<double> sc(pos + 1);
        double mx = -1e300, sum = 0;
        for (std::uint32_t t = 0; t <= pos; ++t) {
          double s = 0;
          for (std::uint32_t d = 0; d < D; ++d) s += q[hd * D + d] * kc[l][t * kd + kv * D + d];
          sc[t] = s / std::sqrt(static_cast<double>(D));
          mx = std::max(mx, sc[t]);
        }
        for (auto& s : sc) sum += (s = std::exp(s - mx));
        for (std::uint32_t t = 0; t <= pos; ++t)
          for (std::uint32_t d = 0; d < D; ++d)
            att[hd * D + d] += sc[t] / sum * vc[l][t * kd + kv * D + d];
      }
      const auto o = linear(dm::kWo, l, att, m.hidden);
      for (std::uint32_t i = 0; i < m.hidden; ++i) x[i] += o[i];
      const auto h2 = norm(dm::kMlpNorm, l, x);
      const auto g = linear(dm::kWgate, l, h2, m.intermediate),
                 u = linear(dm::kWup, l, h2, m.intermediate);
      std::vector<double> a(m.intermediate);
      for (std::uint32_t i = 0; i < m.intermediate; ++i) a[i] = g[i] / (1 + std::exp(-g[i])) * u[i];
      const auto dn = linear(dm::kWdown, l, a, m.hidden);
      for (std::uint32_t i = 0; i < m.hidden; ++i) x[i] += dn[i];
    }
    return linear(m.tied_embeddings ? dm::kEmbed : dm::kLmHead, 0, norm(dm::kFinalNorm, 0, x),
                  m.vocab);
  }
};

void expect_reference_matches_naive(const dm::ModelShape& shape, std::uint32_t dtype) {
  constexpr std::uint32_t kSeed = 1234, kTokens = 12;
  DecodeReference ref(shape, dtype, kSeed, 64, 2);
  Naive naive{shape, dtype, kSeed, {}, {}, {}, ~0u, ~0u, ~0ull, 0.f};
  ref.begin(3);
  naive.feed(3);
  std::set<std::uint32_t> distinct;
  for (std::uint32_t pos = 0; pos < kTokens; ++pos) {
    const std::uint32_t token = ref.forward();
    const std::vector<double> expect = naive.forward(pos);
    std::vector<float> expect_f(expect.begin(), expect.end());
    const LogitComparison c = compare_logits(ref.logits(), expect_f);
    // fp32 against double, and K/V roundings that may fall either side.
    EXPECT_LT(c.relative, logit_tolerance(dtype) / 4) << shape.name << " position " << pos;
    EXPECT_TRUE(tokens_agree(token, c.ref_argmax, expect_f, dtype))
        << shape.name << " position " << pos;
    distinct.insert(token);
    ref.feed(token);
    naive.feed(token);
  }
  EXPECT_GT(distinct.size(), 1u) << "a model that repeats one token tests little";
}

TEST(DecodeReference, MatchesANaiveDoubleImplementationFp16) {
  expect_reference_matches_naive(*dm::find_preset("tiny"), dm::kDTypeF16);
}

TEST(DecodeReference, MatchesANaiveDoubleImplementationQ4) {
  expect_reference_matches_naive(*dm::find_preset("tiny-q4"), dm::kDTypeF16);
}

// 4-bit matrices move the logits, not the model: the tiny model's first
// logits under 4-bit weights stay close to its fp16 ones (and differ).
TEST(DecodeReference, Q4LogitsFollowTheSixteenBitModel) {
  DecodeReference f16(*dm::find_preset("tiny"), dm::kDTypeF16, 5, 16, 1);
  DecodeReference q4(*dm::find_preset("tiny-q4"), dm::kDTypeF16, 5, 16, 1);
  f16.begin(7);
  q4.begin(7);
  f16.forward();
  q4.forward();
  double dot = 0, a2 = 0, b2 = 0, diff = 0;
  for (std::size_t i = 0; i < f16.logits().size(); ++i) {
    const double a = f16.logits()[i], b = q4.logits()[i];
    dot += a * b;
    a2 += a * a;
    b2 += b * b;
    diff = std::max(diff, std::fabs(a - b));
  }
  EXPECT_GT(dot / std::sqrt(a2 * b2), 0.9);
  EXPECT_GT(diff, 0.0);
}

TEST(DecodeReference, MatchesANaiveDoubleImplementationBf16UntiedLlama3Rope) {
  // A small Llama-3.2-shaped model: no bias, llama3 rotary scaling, its own LM head.
  dm::ModelShape m = *dm::find_preset("llama-3.2-1b");
  m.name = "llama-3.2-mini";
  m.hidden = 128;
  m.layers = 2;
  m.heads = 4;
  m.kv_heads = 2;
  m.head_dim = 32;
  m.intermediate = 256;
  m.vocab = 512;
  m.tied_embeddings = false;
  expect_reference_matches_naive(m, dm::kDTypeBf16);
}

TEST(DecodeReference, GreedyStepFeedsItsOwnArgmaxAndIsDeterministic) {
  const auto& tiny = *dm::find_preset("tiny");
  DecodeReference a(tiny, dm::kDTypeF16, 9, 32, 1);
  DecodeReference b(tiny, dm::kDTypeF16, 9, 32, 1);
  a.begin(5);
  b.begin(5);
  for (int i = 0; i < 8; ++i) {
    const std::uint32_t t = a.step();
    EXPECT_EQ(b.forward(), t);
    b.feed(t);
    EXPECT_EQ(a.logits(), b.logits());
  }
  EXPECT_EQ(a.position(), 8u);
  DecodeReference other_seed(tiny, dm::kDTypeF16, 10, 32, 1);
  other_seed.begin(5);
  other_seed.forward();
  a.begin(5);
  a.forward();
  EXPECT_NE(other_seed.logits(), a.logits());
}

TEST(DecodeReference, LogitComparisonAndNearTies) {
  const std::vector<float> ref = {0.0f, 3.0f, 2.999f, -1.0f};
  const LogitComparison same = compare_logits(ref, ref);
  EXPECT_EQ(same.max_abs_diff, 0.0);
  EXPECT_EQ(same.ref_argmax, 1u);
  EXPECT_NEAR(same.ref_top_gap, 0.001, 1e-6);
  std::vector<float> off = ref;
  off[3] += 0.5f;
  EXPECT_NEAR(compare_logits(off, ref).max_abs_diff, 0.5, 1e-6);
  std::vector<float> nan = ref;
  nan[0] = NAN;
  EXPECT_FALSE(compare_logits(nan, ref).relative <= 1.0) << "NaN never passes";
  EXPECT_FALSE(compare_logits({1.0f}, ref).relative <= 1.0) << "a short vector never passes";
  // 2 and 1 are 0.001 apart: within fp16's tolerance of a 2.1-RMS vector.
  EXPECT_TRUE(tokens_agree(2, 1, ref, dm::kDTypeF16));
  EXPECT_FALSE(tokens_agree(0, 1, ref, dm::kDTypeF16));
  EXPECT_FALSE(tokens_agree(7, 1, ref, dm::kDTypeF16));
}

}  // namespace
}  // namespace jetgate::probes
