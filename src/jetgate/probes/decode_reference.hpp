// SPDX-License-Identifier: Apache-2.0
// The CPU reference of the decode probe's model: the same seeded weights
// (cuda/decode_model.hpp generates them for both sides), rounded to the same
// type, in Hugging Face's layout and order of operations; activations in
// fp32, K and V cached in the model's type as the GPU caches them, every sum
// accumulated in fp32. The GPU must produce its tokens and, within
// kLogitTolerance, its logits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "jetgate/cuda/decode_presets.hpp"

namespace jetgate::probes {

class DecodeReference {
 public:
  // threads: 0 = one per hardware thread (the big presets' LM heads are
  // hundreds of millions of multiply-adds per token).
  DecodeReference(const cuda::decode::ModelShape& model, std::uint32_t dtype, std::uint32_t seed,
                  std::uint32_t max_ctx, unsigned threads = 0);

  // Position 0, `token` as the first input.
  void begin(std::uint32_t token);
  // Runs the current input through the model at the current position; the
  // logits are then in logits(); returns their argmax (lowest id on ties)
  // and advances the position. The next input is set by feed().
  std::uint32_t forward();
  void feed(std::uint32_t token);
  // forward() then feed() of its own argmax: greedy decoding.
  std::uint32_t step();

  const std::vector<float>& logits() const { return logits_; }
  std::uint32_t position() const { return pos_; }

 private:
  // A weight matrix: 16-bit values (indices into to_float_), or for a 4-bit
  // model the dequantized values.
  struct Matrix {
    std::vector<std::uint16_t> bits;
    std::vector<float> values;
  };
  struct Layer {
    std::vector<std::uint16_t> attn_norm, bq, bk, bv, mlp_norm;
    Matrix wq, wk, wv, wo, wgate, wup, wdown;
  };
  std::vector<std::uint16_t> make_tensor(std::uint32_t kind, std::uint32_t layer,
                                         std::uint64_t count) const;
  Matrix make_matrix(std::uint32_t kind, std::uint32_t layer, std::uint64_t rows,
                     std::uint32_t cols) const;
  float weight(const Matrix& w, std::uint64_t i) const {
    return w.values.empty() ? to_float_[w.bits[i]] : w.values[i];
  }
  void matvec(const Matrix& w, const std::vector<float>& x, std::vector<float>& y,
              std::uint32_t rows, std::uint32_t cols) const;
  void rms_norm(const std::vector<float>& x, const std::vector<std::uint16_t>& gamma,
                std::vector<float>& out) const;
  void rotate(float* v) const;
  void attention(std::uint32_t layer);

  cuda::decode::ModelShape m_;
  std::uint32_t dtype_;
  std::uint32_t seed_;
  std::uint32_t max_ctx_;
  unsigned threads_;
  std::vector<float> to_float_;  // the 65536 values of the 16-bit type
  std::vector<Layer> layers_;
  std::vector<std::uint16_t> final_norm_;
  Matrix embed_, lm_head_;
  std::vector<std::uint16_t> k_cache_, v_cache_;  // [layer][kv_head][max_ctx][head_dim]
  std::vector<float> cos_, sin_;
  std::vector<float> x_, h_, q_, k_, v_, attn_, proj_, gate_, up_, act_, logits_;
  std::uint32_t pos_ = 0;
};

// How closely the GPU's logits must follow the reference's: the largest
// difference, in units of the reference logits' RMS, for fp16 and bf16
// models (bf16 rounds K and V 8x more coarsely). Documented in
// docs/probes.md.
double logit_tolerance(std::uint32_t dtype);

struct LogitComparison {
  double max_abs_diff = 0;
  double ref_rms = 0;
  double relative = 0;  // max_abs_diff / ref_rms
  std::uint32_t ref_argmax = 0;
  double ref_top_gap = 0;  // the reference's best logit minus its runner-up
};
LogitComparison compare_logits(const std::vector<float>& gpu, const std::vector<float>& ref);

// Whether the GPU's token may differ from the reference's: only where the
// reference's two best logits are closer than the logit tolerance allows
// (either is the argmax within the precision the check grants).
bool tokens_agree(std::uint32_t gpu_token, std::uint32_t ref_token, const std::vector<float>& ref,
                  std::uint32_t dtype);

}  // namespace jetgate::probes
