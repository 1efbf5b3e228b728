// SPDX-License-Identifier: Apache-2.0
#include "jetgate/cuda/decode_runner.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>

namespace jetgate::cuda::decode {

namespace {

constexpr unsigned kInitBlock = 256;
constexpr std::uint64_t kAlign = 256;

std::uint64_t aligned(std::uint64_t n) {
  return (n + kAlign - 1) & ~(kAlign - 1);
}

struct TensorInit {
  std::uint32_t kind;
  std::uint32_t layer;
  std::uint64_t offset;  // bytes from the start of the weight buffer
  std::uint64_t rows;
  std::uint32_t cols;
};

std::vector<TensorInit> tensors_of(const ModelShape& m, const WeightLayout& l) {
  std::vector<TensorInit> t;
  const std::uint64_t qkv_rows = std::uint64_t{m.heads + 2 * m.kv_heads} * m.head_dim;
  for (std::uint32_t layer = 0; layer < m.layers; ++layer) {
    const std::uint64_t base = l.layer_stride * layer;
    t.push_back({kAttnNorm, layer, base + l.attn_norm, 1, m.hidden});
    t.push_back({kWq, layer, base + l.qkv_w, qkv_rows, m.hidden});
    if (m.qkv_bias)
      t.push_back({kBq, layer, base + l.qkv_b, 1, static_cast<std::uint32_t>(qkv_rows)});
    t.push_back({kWo, layer, base + l.o_w, m.hidden, m.heads * m.head_dim});
    t.push_back({kMlpNorm, layer, base + l.mlp_norm, 1, m.hidden});
    t.push_back({kWgate, layer, base + l.gateup_w, std::uint64_t{2} * m.intermediate, m.hidden});
    t.push_back({kWdown, layer, base + l.down_w, m.hidden, m.intermediate});
  }
  t.push_back({kFinalNorm, 0, l.final_norm, 1, m.hidden});
  t.push_back({kEmbed, 0, l.embed, m.vocab, m.hidden});
  if (!m.tied_embeddings) t.push_back({kLmHead, 0, l.lm_head, m.vocab, m.hidden});
  return t;
}

}  // namespace

const char* to_string(LaunchMode m) {
  return m == LaunchMode::graph ? "graph" : "persistent";
}

Runner::Runner(Context& ctx, const ModelShape& model, const RunnerOptions& options)
    : ctx_(ctx), model_(model), options_(options), layout_(weight_layout(model)) {}

Runner::~Runner() {
  if (graph_ != nullptr) ctx_.api().graph_exec_destroy(graph_);
}

Result<std::unique_ptr<Runner>> Runner::create(Context& ctx, const ModelShape& model,
                                               const RunnerOptions& options) {
  if (auto why = unsupported_reason(model, options.max_ctx); !why.empty())
    return make_error(fmt::format("model {} cannot run: {}", model.name, why));
  if (model.q4_weights)
    return make_error(fmt::format(
        "model {} has 4-bit weights, which only the CPU reference and the byte counts (its read "
        "bound) handle so far; the GPU kernels read fp16/bf16 matrices: choose a 16-bit preset",
        model.name));
  std::unique_ptr<Runner> r(new Runner(ctx, model, options));
  auto token = ctx.kernel("jetgate_decode_token");
  if (!token) return token.error();
  auto phase = ctx.kernel("jetgate_decode_phase");
  if (!phase) return phase.error();
  r->token_kernel_ = *token;
  r->phase_kernel_ = *phase;
  auto sms = ctx.attribute(kAttrMultiprocessorCount);
  if (!sms) return sms.error();
  auto stream = ctx.stream();
  if (!stream) return stream.error();
  r->stream_ = std::move(*stream);
  if (auto st = r->choose_launch(static_cast<unsigned>(*sms)); !st) return st.error();
  if (auto st = r->allocate(); !st) return st.error();
  const auto t0 = std::chrono::steady_clock::now();
  if (auto st = r->fill_weights(); !st) return st.error();
  r->init_ms_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  if (r->launch_ == LaunchMode::graph)
    if (auto st = r->capture_graph(); !st) return st.error();
  return r;
}

Status Runner::choose_launch(unsigned sms) {
  const unsigned per_sm = options_.blocks_per_sm == 0 ? 1 : options_.blocks_per_sm;
  launch_ = options_.launch;
  grid_ = sms * per_sm;
  if (launch_ == LaunchMode::graph) return Ok{};
  auto coop = ctx_.attribute(kAttrCooperativeLaunch);
  int resident = 0;
  const CUresult rc = ctx_.api().occupancy_max_active_blocks(&resident, token_kernel_,
                                                             static_cast<int>(kBlockThreads), 0);
  if (!coop || *coop == 0) {
    fallback_reason_ = "the device does not support cooperative launches";
  } else if (rc != kCudaSuccess || resident < 1) {
    fallback_reason_ = fmt::format("no block of the persistent kernel fits on an SM ({})",
                                   rc != kCudaSuccess ? ctx_.driver().describe(rc) : "occupancy 0");
  } else {
    grid_ = sms * std::min(per_sm, static_cast<unsigned>(resident));
    return Ok{};
  }
  launch_ = LaunchMode::graph;
  return Ok{};
}

Status Runner::allocate() {
  const ModelShape& m = model_;
  const std::uint32_t ctx_len = options_.max_ctx;
  auto weights = ctx_.alloc(layout_.total_bytes);
  if (!weights) return weights.error();
  weights_ = std::move(*weights);
  const std::uint64_t cache = kv_bytes_per_position(m) / 2 * ctx_len;
  auto k = ctx_.alloc(cache);
  if (!k) return k.error();
  auto v = ctx_.alloc(cache);
  if (!v) return v.error();
  k_cache_ = std::move(*k);
  v_cache_ = std::move(*v);
  std::vector<float> cos_table, sin_table;
  rope_tables(m, ctx_len, &cos_table, &sin_table);
  const std::size_t table_bytes = cos_table.size() * sizeof(float);
  auto c = ctx_.alloc(table_bytes);
  if (!c) return c.error();
  auto s = ctx_.alloc(table_bytes);
  if (!s) return s.error();
  rope_cos_ = std::move(*c);
  rope_sin_ = std::move(*s);
  const auto& api = ctx_.api();
  if (auto st = ctx_.check(api.memcpy_htod(rope_cos_.get(), cos_table.data(), table_bytes),
                           "cuMemcpyHtoD (rotary table)");
      !st)
    return st;
  if (auto st = ctx_.check(api.memcpy_htod(rope_sin_.get(), sin_table.data(), table_bytes),
                           "cuMemcpyHtoD (rotary table)");
      !st)
    return st;
  const std::uint64_t qdim = std::uint64_t{m.heads} * m.head_dim;
  const std::uint64_t x_at = 0;
  const std::uint64_t q_at = aligned(x_at + 4ull * m.hidden);
  const std::uint64_t attn_at = aligned(q_at + 4 * qdim);
  const std::uint64_t act_at = aligned(attn_at + 4 * qdim);
  const std::uint64_t logits_at = aligned(act_at + 4ull * m.intermediate);
  const std::uint64_t end = aligned(logits_at + 4ull * m.vocab);
  auto acts = ctx_.alloc(end);
  if (!acts) return acts.error();
  activations_ = std::move(*acts);
  auto state = ctx_.alloc(sizeof(State));
  if (!state) return state.error();
  state_ = std::move(*state);
  auto tokens = ctx_.alloc(std::size_t{ctx_len} * 4);
  if (!tokens) return tokens.error();
  tokens_ = std::move(*tokens);
  auto host = ctx_.alloc_pinned(sizeof(std::uint32_t));
  if (!host) return host.error();
  host_token_ = std::move(*host);

  Params& p = params_;
  p.weights = weights_.get();
  p.k_cache = k_cache_.get();
  p.v_cache = v_cache_.get();
  p.rope_cos = rope_cos_.get();
  p.rope_sin = rope_sin_.get();
  const CUdeviceptr a = activations_.get();
  p.x = a + x_at;
  p.q = a + q_at;
  p.attn = a + attn_at;
  p.act = a + act_at;
  p.logits = a + logits_at;
  p.state = state_.get();
  p.tokens = tokens_.get();
  p.layer_stride = layout_.layer_stride;
  p.off_attn_norm = layout_.attn_norm;
  p.off_qkv_w = layout_.qkv_w;
  p.off_qkv_b = layout_.qkv_b;
  p.off_o_w = layout_.o_w;
  p.off_mlp_norm = layout_.mlp_norm;
  p.off_gateup_w = layout_.gateup_w;
  p.off_down_w = layout_.down_w;
  p.off_final_norm = layout_.final_norm;
  p.off_embed = layout_.embed;
  p.off_lm_head = layout_.lm_head;
  p.hidden = m.hidden;
  p.layers = m.layers;
  p.heads = m.heads;
  p.kv_heads = m.kv_heads;
  p.head_dim = m.head_dim;
  p.intermediate = m.intermediate;
  p.vocab = m.vocab;
  p.qkv_bias = m.qkv_bias ? 1u : 0u;
  p.max_ctx = ctx_len;
  p.dtype = options_.dtype;
  p.rms_eps = m.rms_eps;
  p.attn_scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(m.head_dim)));
  p.prefetch_window = options_.prefetch_window;
  if (auto l2 = ctx_.attribute(kAttrL2CacheSizeBytes); l2 && *l2 > 0)
    p.prefetch_window = std::min(p.prefetch_window, static_cast<std::uint32_t>(*l2) / 2);
  p.prefetch_end = layout_.lm_head + std::uint64_t{m.vocab} * m.hidden * 2;
  p.bench_flags = options_.bench_flags;
  p.prefetch_ahead = (options_.bench_flags & kBenchPrefetchTwoAhead) != 0 ? 2 : 1;
  p.prefetch_share = 0;
  if (options_.share_prefetch || (options_.bench_flags & kBenchSharePrefetch) != 0)
    if (auto l2 = ctx_.attribute(kAttrL2CacheSizeBytes); l2 && *l2 > 0 && grid_ > 0)
      p.prefetch_share = static_cast<std::uint32_t>(*l2) / 2 / grid_ / p.prefetch_ahead;
  p.phase_times = 0;
  if ((options_.bench_flags & kBenchPhaseTimes) != 0) {
    auto times = ctx_.alloc(std::size_t{phase_time_slots(m.layers)} * sizeof(std::uint64_t));
    if (!times) return times.error();
    phase_times_ = std::move(*times);
    p.phase_times = phase_times_.get();
  }
  return Ok{};
}

Status Runner::fill_weights() {
  auto init = ctx_.kernel("jetgate_decode_init");
  if (!init) return init.error();
  const unsigned grid = grid_ * 4;
  for (const TensorInit& t : tensors_of(model_, layout_)) {
    const float scale = weight_scale(model_, t.kind);
    if (auto st = ctx_.launch(*init, grid, kInitBlock, stream_.get(), params_, options_.seed,
                              t.kind, t.layer, t.offset, t.rows, t.cols, scale);
        !st)
      return st;
  }
  return synchronize();
}

Status Runner::capture_graph() {
  const auto& api = ctx_.api();
  CUstream s = stream_.get();
  if (auto st = ctx_.check(api.stream_begin_capture(s, kStreamCaptureModeThreadLocal),
                           "cuStreamBeginCapture");
      !st)
    return st;
  Status launched = Ok{};
  for (std::uint32_t layer = 0; layer < model_.layers && launched; ++layer)
    for (std::uint32_t phase = kPhaseQkv; phase <= kPhaseDown && launched; ++phase)
      launched = ctx_.launch(phase_kernel_, grid_, kBlockThreads, s, params_, phase, layer);
  if (launched)
    launched = ctx_.launch(phase_kernel_, grid_, kBlockThreads, s, params_,
                           static_cast<std::uint32_t>(kPhaseLmHead), std::uint32_t{0});
  if (launched)
    launched = ctx_.launch(phase_kernel_, 1, kBlockThreads, s, params_,
                           static_cast<std::uint32_t>(kPhaseFinish), std::uint32_t{0});
  CUgraph graph = nullptr;
  const CUresult end_rc = api.stream_end_capture(s, &graph);
  if (!launched) return launched;
  if (auto st = ctx_.check(end_rc, "cuStreamEndCapture"); !st) return st;
  const CUresult rc = api.graph_instantiate(&graph_, graph, nullptr, nullptr, 0);
  api.graph_destroy(graph);
  return ctx_.check(rc, "cuGraphInstantiate");
}

Status Runner::launch_token() {
  const auto& api = ctx_.api();
  if (launch_ == LaunchMode::graph)
    return ctx_.check(api.graph_launch(graph_, stream_.get()), "cuGraphLaunch");
  void* args[] = {&params_};
  return ctx_.check(api.launch_cooperative_kernel(token_kernel_, grid_, 1, 1, kBlockThreads, 1, 1,
                                                  0, stream_.get(), args),
                    "cuLaunchCooperativeKernel");
}

Status Runner::begin(std::uint32_t token) {
  if (token >= model_.vocab)
    return make_error(
        fmt::format("start token {} is outside the vocabulary ({})", token, model_.vocab));
  auto f = ctx_.kernel("jetgate_decode_begin");
  if (!f) return f.error();
  if (auto st = ctx_.launch(*f, 1, kInitBlock, stream_.get(), params_, token); !st) return st;
  return synchronize();
}

Status Runner::enqueue() {
  return launch_token();
}

Status Runner::synchronize() {
  return ctx_.check(ctx_.api().stream_synchronize(stream_.get()), "cuStreamSynchronize");
}

Result<std::uint32_t> Runner::step() {
  if (auto st = launch_token(); !st) return st.error();
  const auto& api = ctx_.api();
  if (auto st = ctx_.check(
          api.memcpy_dtoh_async(host_token_.get(), state_.get() + offsetof(State, last_token),
                                sizeof(std::uint32_t), stream_.get()),
          "cuMemcpyDtoHAsync (token id)");
      !st)
    return st.error();
  if (auto st = synchronize(); !st) return st.error();
  return *static_cast<const std::uint32_t*>(host_token_.get());
}

Result<std::vector<float>> Runner::logits() {
  if (auto st = synchronize(); !st) return st.error();
  std::vector<float> out(model_.vocab);
  if (auto st =
          ctx_.check(ctx_.api().memcpy_dtoh(out.data(), params_.logits, out.size() * sizeof(float)),
                     "cuMemcpyDtoH (logits)");
      !st)
    return st.error();
  return out;
}

Result<std::vector<std::uint64_t>> Runner::phase_times() {
  if (params_.phase_times == 0)
    return make_error("phase times were not recorded: create the runner with kBenchPhaseTimes");
  if (auto st = synchronize(); !st) return st.error();
  std::vector<std::uint64_t> out(phase_time_slots(model_.layers));
  if (auto st = ctx_.check(ctx_.api().memcpy_dtoh(out.data(), params_.phase_times,
                                                  out.size() * sizeof(std::uint64_t)),
                           "cuMemcpyDtoH (phase times)");
      !st)
    return st.error();
  return out;
}

}  // namespace jetgate::cuda::decode
