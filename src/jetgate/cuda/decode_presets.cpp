// SPDX-License-Identifier: Apache-2.0
#include "jetgate/cuda/decode_presets.hpp"

#include <fmt/format.h>

#include <cmath>

namespace jetgate::cuda::decode {

namespace {

ModelShape make(std::string name, std::uint32_t hidden, std::uint32_t layers, std::uint32_t heads,
                std::uint32_t kv_heads, std::uint32_t head_dim, std::uint32_t intermediate,
                std::uint32_t vocab, bool tied, bool qkv_bias, float eps, double theta,
                std::string source) {
  ModelShape m;
  m.name = std::move(name);
  m.hidden = hidden;
  m.layers = layers;
  m.heads = heads;
  m.kv_heads = kv_heads;
  m.head_dim = head_dim;
  m.intermediate = intermediate;
  m.vocab = vocab;
  m.tied_embeddings = tied;
  m.qkv_bias = qkv_bias;
  m.rms_eps = eps;
  m.rope_theta = theta;
  m.source = std::move(source);
  return m;
}

std::vector<ModelShape> build_presets() {
  std::vector<ModelShape> v;
  // Qwen2 has biases on q, k and v (not on o); Llama has none.
  v.push_back(make("qwen2.5-0.5b", 896, 24, 14, 2, 64, 4864, 151936, true, true, 1e-6f, 1e6,
                   "https://huggingface.co/Qwen/Qwen2.5-0.5B/blob/main/config.json"));
  v.push_back(make("qwen2.5-1.5b", 1536, 28, 12, 2, 128, 8960, 151936, true, true, 1e-6f, 1e6,
                   "https://huggingface.co/Qwen/Qwen2.5-1.5B/blob/main/config.json"));
  ModelShape llama =
      make("llama-3.2-1b", 2048, 16, 32, 8, 64, 8192, 128256, true, false, 1e-5f, 500000.0,
           "https://huggingface.co/meta-llama/Llama-3.2-1B/blob/main/config.json");
  llama.rope_scaling = Llama3RopeScaling{32.0, 1.0, 4.0, 8192.0};
  v.push_back(llama);
  v.push_back(
      make("tinyllama-1.1b", 2048, 22, 32, 4, 64, 5632, 32000, false, false, 1e-5f, 10000.0,
           "https://huggingface.co/TinyLlama/TinyLlama-1.1B-Chat-v1.0/blob/main/config.json"));
  // Every feature of the real ones (grouped-query attention, q/k/v bias,
  // tied embeddings) at a size the CPU reference runs in milliseconds.
  v.push_back(make("tiny", 256, 2, 4, 2, 64, 512, 1024, true, true, 1e-6f, 10000.0, "jetgate"));
  // The same shapes with 4-bit matrices, the way Ollama and llama.cpp ship
  // them (their default tags are 4-bit): for comparing a device's 4-bit
  // tokens/s by fraction of its read bound.
  for (const char* base : {"qwen2.5-0.5b", "llama-3.2-1b", "tiny"}) {
    for (const ModelShape& m : std::vector<ModelShape>(v)) {
      if (m.name != base) continue;
      ModelShape q = m;
      q.name = m.name + "-q4";
      q.q4_weights = true;
      v.push_back(q);
    }
  }
  return v;
}

std::uint64_t align256(std::uint64_t n) {
  return (n + 255) & ~std::uint64_t{255};
}

constexpr std::uint64_t kElem = 2;  // fp16 and bf16

struct LayerSizes {
  std::uint64_t norm, qkv_w, qkv_b, o_w, gateup_w, down_w;  // elements
};

LayerSizes layer_sizes(const ModelShape& m) {
  const std::uint64_t qkv_rows = std::uint64_t{m.heads + 2 * m.kv_heads} * m.head_dim;
  return {m.hidden,
          qkv_rows * m.hidden,
          m.qkv_bias ? qkv_rows : 0,
          std::uint64_t{m.hidden} * m.heads * m.head_dim,
          std::uint64_t{2} * m.intermediate * m.hidden,
          std::uint64_t{m.hidden} * m.intermediate};
}

}  // namespace

const std::vector<ModelShape>& presets() {
  static const std::vector<ModelShape> all = build_presets();
  return all;
}

const ModelShape* find_preset(const std::string& name) {
  for (const auto& p : presets())
    if (p.name == name) return &p;
  return nullptr;
}

std::string preset_names() {
  std::string out;
  for (const auto& p : presets()) out += (out.empty() ? "" : ", ") + p.name;
  return out;
}

ModelShape cut_layers(const ModelShape& m, std::uint32_t layers) {
  ModelShape c = m;
  if (layers < c.layers) {
    c.layers = layers;
    c.name = fmt::format("{} ({} layers)", m.name, layers);
  }
  return c;
}

std::string unsupported_reason(const ModelShape& m, std::uint32_t max_ctx) {
  const std::uint32_t qdim = m.heads * m.head_dim;
  if (m.layers == 0 || m.heads == 0 || m.kv_heads == 0 || m.vocab == 0)
    return "layers, heads, kv_heads and vocab must be positive";
  if (m.heads % m.kv_heads != 0) return "heads must be a multiple of kv_heads";
  if (m.head_dim % 8 != 0 || m.head_dim > kMaxHeadDim)
    return fmt::format("head_dim must be a multiple of 8 up to {}", kMaxHeadDim);
  if (m.hidden % 8 != 0 || m.intermediate % 8 != 0 || m.hidden == 0 || m.intermediate == 0)
    return "hidden and intermediate sizes must be positive multiples of 8 (16-byte rows)";
  if (m.vocab % 2 != 0) return "vocab must be even (rows are computed in pairs)";
  if (m.q4_weights &&
      (m.hidden % kQ4Group != 0 || m.intermediate % kQ4Group != 0 || qdim % kQ4Group != 0))
    return fmt::format(
        "4-bit weights need hidden, intermediate and heads * head_dim to be "
        "multiples of the {}-weight group",
        kQ4Group);
  if (m.hidden > kSharedFloats || m.intermediate > kSharedFloats || qdim > kSharedFloats)
    return fmt::format("vectors longer than {} floats do not fit in shared memory", kSharedFloats);
  // Attention's shared memory: reductions, q, the scores, two partial sums.
  const std::uint32_t ctx_room = kSharedFloats - 32 - kMaxHeadDim - kBlockThreads * 9;
  if (max_ctx == 0 || max_ctx > ctx_room)
    return fmt::format("the context must hold 1 to {} positions", ctx_room);
  return {};
}

std::optional<std::uint32_t> parse_dtype(const std::string& s) {
  if (s == "fp16") return kDTypeF16;
  if (s == "bf16") return kDTypeBf16;
  return std::nullopt;
}

const char* dtype_name(std::uint32_t dtype) {
  return dtype == kDTypeBf16 ? "bf16" : "fp16";
}

float weight_scale(const ModelShape& m, std::uint32_t kind) {
  std::uint32_t fan_in = m.hidden;
  switch (kind) {
    case kEmbed:
    case kLmHead:
      return 0.125f;
    case kBq:
    case kBk:
    case kBv:
      return 0.0625f;
    case kWo:
      fan_in = m.heads * m.head_dim;
      break;
    case kWdown:
      fan_in = m.intermediate;
      break;
    default:
      break;
  }
  // uniform(-a, a) has variance a^2 / 3: a = sqrt(3 / fan_in) keeps unit
  // variance; rounded to a power of two so the product stays exact.
  const double a = std::sqrt(3.0 / fan_in);
  return static_cast<float>(std::ldexp(1.0, static_cast<int>(std::lround(std::log2(a)))));
}

std::vector<double> rope_inv_freq(const ModelShape& m) {
  const std::uint32_t half = m.head_dim / 2;
  std::vector<double> f(half);
  for (std::uint32_t i = 0; i < half; ++i)
    f[i] = 1.0 / std::pow(m.rope_theta, static_cast<double>(2 * i) / m.head_dim);
  if (!m.rope_scaling) return f;
  // transformers' _compute_llama3_parameters: long wavelengths are divided
  // by factor, short ones kept, the band between interpolated.
  const auto& s = *m.rope_scaling;
  const double low_wavelen = s.original_max_position / s.low_freq_factor;
  const double high_wavelen = s.original_max_position / s.high_freq_factor;
  const double pi = std::acos(-1.0);
  for (auto& inv : f) {
    const double wavelen = 2 * pi / inv;
    if (wavelen > low_wavelen) {
      inv = inv / s.factor;
    } else if (wavelen >= high_wavelen) {
      const double smooth = (s.original_max_position / wavelen - s.low_freq_factor) /
                            (s.high_freq_factor - s.low_freq_factor);
      inv = (1 - smooth) * inv / s.factor + smooth * inv;
    }
  }
  return f;
}

void rope_tables(const ModelShape& m, std::uint32_t max_ctx, std::vector<float>* cos_table,
                 std::vector<float>* sin_table) {
  const std::vector<double> inv = rope_inv_freq(m);
  const std::size_t half = inv.size();
  cos_table->assign(std::size_t{max_ctx} * half, 0.f);
  sin_table->assign(std::size_t{max_ctx} * half, 0.f);
  for (std::uint32_t pos = 0; pos < max_ctx; ++pos) {
    for (std::size_t i = 0; i < half; ++i) {
      // transformers computes the angle in float32, then cos and sin.
      const float angle = static_cast<float>(pos) * static_cast<float>(inv[i]);
      (*cos_table)[pos * half + i] = static_cast<float>(std::cos(static_cast<double>(angle)));
      (*sin_table)[pos * half + i] = static_cast<float>(std::sin(static_cast<double>(angle)));
    }
  }
}

std::uint64_t tensor_bytes(const ModelShape& m, std::uint64_t elements, bool matrix) {
  if (!matrix || !m.q4_weights) return elements * kElem;
  return elements / 2 + elements / kQ4Group * 2;
}

WeightLayout weight_layout(const ModelShape& m) {
  const LayerSizes s = layer_sizes(m);
  WeightLayout l;
  std::uint64_t at = 0;
  auto place = [&](std::uint64_t elements, bool matrix) {
    const std::uint64_t here = at;
    at = align256(at + tensor_bytes(m, elements, matrix));
    return here;
  };
  l.attn_norm = place(s.norm, false);
  l.qkv_w = place(s.qkv_w, true);
  l.qkv_b = place(s.qkv_b, false);
  l.o_w = place(s.o_w, true);
  l.mlp_norm = place(s.norm, false);
  l.gateup_w = place(s.gateup_w, true);
  l.down_w = place(s.down_w, true);
  l.layer_stride = at;
  at = l.layer_stride * m.layers;
  l.final_norm = place(m.hidden, false);
  const std::uint64_t table = std::uint64_t{m.vocab} * m.hidden;
  if (!m.tied_embeddings) l.lm_head = place(table, true);
  l.embed = place(table, true);
  if (m.tied_embeddings) l.lm_head = l.embed;
  l.total_bytes = at;
  return l;
}

std::uint64_t weight_bytes_per_token(const ModelShape& m) {
  const LayerSizes s = layer_sizes(m);
  const std::uint64_t layer = tensor_bytes(m, 2 * s.norm + s.qkv_b, false) +
                              tensor_bytes(m, s.qkv_w + s.o_w + s.gateup_w + s.down_w, true);
  // The final norm, the LM head and the one embedding row the next input is.
  return layer * m.layers + tensor_bytes(m, m.hidden, false) +
         tensor_bytes(m, std::uint64_t{m.vocab} * m.hidden, true) + tensor_bytes(m, m.hidden, true);
}

std::uint64_t kv_bytes_per_position(const ModelShape& m) {
  return std::uint64_t{2} * m.layers * m.kv_heads * m.head_dim * kElem;
}

std::uint64_t device_bytes_needed(const ModelShape& m, std::uint32_t max_ctx) {
  const std::uint64_t floats = std::uint64_t{m.hidden} + 2ull * m.heads * m.head_dim +
                               m.intermediate + m.vocab + std::uint64_t{max_ctx} * m.head_dim;
  return weight_layout(m).total_bytes + kv_bytes_per_position(m) * max_ctx + floats * 4 +
         std::uint64_t{max_ctx} * 4 + (std::uint64_t{1} << 20);
}

}  // namespace jetgate::cuda::decode
