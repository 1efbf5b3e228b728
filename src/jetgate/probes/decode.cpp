// SPDX-License-Identifier: Apache-2.0
// decode: batch-1 greedy decoding of a real model's architecture with seeded
// random weights (cuda/decode_runner.hpp), once per CUDA scheduling mode.
// Before timing, the tiny model's tokens and logits are checked against the
// CPU reference; the read-only bandwidth over the model's own weights is
// measured in the same run and is the bound the decode is compared with.
// decode_assess.cpp turns the numbers into values and a verdict.
#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <chrono>

#include "jetgate/cuda/context.hpp"
#include "jetgate/cuda/decode_runner.hpp"
#include "jetgate/cuda/device_facts.hpp"
#include "jetgate/cuda/read_bandwidth.hpp"
#include "jetgate/probes/cuda_probes.hpp"
#include "jetgate/probes/decode_assess.hpp"
#include "jetgate/probes/decode_reference.hpp"

namespace jetgate::probes {

namespace dm = cuda::decode;

namespace {

constexpr std::uint32_t kStartToken = 1;
constexpr unsigned kSelfCheckTokens = 16;
// The read bound is measured over the weights when they are far larger than
// any L2; smaller models get a scratch buffer of this size instead (an
// eighth of free memory on small devices).
constexpr std::size_t kMinReadBytes = std::size_t{256} << 20;
// Left free for the driver and the self-check (a sixteenth on small devices).
constexpr std::size_t kMemoryMargin = std::size_t{256} << 20;

std::size_t read_scratch_bytes(std::size_t free_bytes) {
  return std::min(kMinReadBytes, free_bytes / 8) & ~std::size_t{0xFFFF};
}

double process_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Plan {
  dm::ModelShape model;
  dm::RunnerOptions runner;
  unsigned warmup = 0, tokens = 0, burst = 0;
};

Result<Plan> make_plan(const DecodeOptions& o) {
  const dm::ModelShape* shape = dm::find_preset(o.model);
  if (shape == nullptr)
    return make_error(fmt::format("unknown decode model \"{}\"", o.model), "--model",
                      "choose one of: " + dm::preset_names());
  auto dtype = dm::parse_dtype(o.dtype);
  if (!dtype)
    return make_error(fmt::format("unknown dtype \"{}\"", o.dtype), "--dtype", "fp16 or bf16");
  if (o.tokens == 0) return make_error("--tokens must be at least 1", "--tokens");
  Plan p;
  p.model = *shape;
  p.warmup = o.warmup;
  p.tokens = o.tokens;
  p.burst = o.burst;
  p.runner.dtype = *dtype;
  p.runner.max_ctx = o.warmup + o.tokens + o.burst + 1;
  p.runner.launch = o.launch == "graph" ? dm::LaunchMode::graph : dm::LaunchMode::persistent;
  p.runner.blocks_per_sm = std::max(1u, o.blocks_per_sm);
  p.runner.prefetch_window = o.prefetch_window_mib << 20;
  if (auto why = dm::unsupported_reason(p.model, p.runner.max_ctx); !why.empty())
    return make_error(
        fmt::format("{} with {} tokens cannot run: {}", p.model.name, p.runner.max_ctx, why),
        "--tokens", "ask for fewer tokens");
  return p;
}

std::size_t bytes_needed(const Plan& p, std::size_t free_bytes) {
  const std::uint64_t model = dm::device_bytes_needed(p.model, p.runner.max_ctx);
  const std::uint64_t scratch =
      dm::weight_layout(p.model).total_bytes < kMinReadBytes ? read_scratch_bytes(free_bytes) : 0;
  return static_cast<std::size_t>(model + scratch) + std::min(kMemoryMargin, free_bytes / 16);
}

// SKIP when the model does not fit, naming the largest preset that does.
std::optional<ProbeResult> memory_check(const cuda::Context& ctx, const Plan& p) {
  std::size_t free_bytes = 0, total = 0;
  if (ctx.api().mem_get_info(&free_bytes, &total) != cuda::kCudaSuccess) return std::nullopt;
  const std::size_t need = bytes_needed(p, free_bytes);
  if (need <= free_bytes) return std::nullopt;
  const dm::ModelShape* largest = nullptr;
  for (const auto& m : dm::presets()) {
    if (m.q4_weights) continue;  // not on the GPU yet
    Plan q = p;
    q.model = m;
    if (bytes_needed(q, free_bytes) <= free_bytes &&
        (largest == nullptr ||
         dm::weight_bytes_per_token(m) > dm::weight_bytes_per_token(*largest)))
      largest = &m;
  }
  ProbeResult r;
  r.id = "decode";
  r.status = ProbeStatus::skip;
  r.reason = fmt::format("{} {} needs {:.2f} GB of GPU memory, {:.2f} GB are free: ", p.model.name,
                         dm::dtype_name(p.runner.dtype), static_cast<double>(need) / 1e9,
                         static_cast<double>(free_bytes) / 1e9) +
             (largest ? fmt::format("the largest preset that fits is {} (--model {})",
                                    largest->name, largest->name)
                      : std::string("no preset fits; free GPU memory and run again"));
  r.values["decode_free_bytes"] = {static_cast<double>(free_bytes), "bytes"};
  r.values["decode_needed_bytes"] = {static_cast<double>(need), "bytes"};
  return r;
}

// The tiny model on the GPU against the CPU reference, the reference fed the
// GPU's tokens so every step compares the same input.
Result<nlohmann::json> self_check(cuda::Context& ctx, const Plan& p) {
  const dm::ModelShape tiny = *dm::find_preset("tiny");
  dm::RunnerOptions o = p.runner;
  o.max_ctx = kSelfCheckTokens + 1;
  auto runner = dm::Runner::create(ctx, tiny, o);
  if (!runner) return runner.error();
  DecodeReference ref(tiny, o.dtype, o.seed, o.max_ctx, 1);
  if (auto st = (*runner)->begin(kStartToken); !st) return st.error();
  ref.begin(kStartToken);
  double worst = 0;
  for (unsigned i = 0; i < kSelfCheckTokens; ++i) {
    auto token = (*runner)->step();
    if (!token) return token.error();
    auto logits = (*runner)->logits();
    if (!logits) return logits.error();
    const std::uint32_t expected = ref.forward();
    const LogitComparison c = compare_logits(*logits, ref.logits());
    worst = std::max(worst, c.relative);
    if (!(c.relative <= logit_tolerance(o.dtype)) ||
        !tokens_agree(*token, expected, ref.logits(), o.dtype))
      return make_error(
          fmt::format("the GPU computes the model wrong: at token {} of the tiny model it chose {} "
                      "(the CPU "
                      "reference {}), logits off by {:.3g} of their RMS (tolerance {:.3g})",
                      i, *token, expected, c.relative, logit_tolerance(o.dtype)),
          "", "run the launch and memory probes; check the driver and dmesg");
    ref.feed(*token);
  }
  return nlohmann::json{{"model", "tiny"},
                        {"tokens", kSelfCheckTokens},
                        {"max_logit_error_relative_to_rms", worst},
                        {"tolerance", logit_tolerance(o.dtype)}};
}

Result<cuda::ReadBandwidth> read_bound(cuda::Context& ctx, dm::Runner& runner) {
  if (runner.weight_buffer_bytes() >= kMinReadBytes)
    return cuda::measure_read_bandwidth(ctx, runner.stream(), runner.weights(),
                                        runner.weight_buffer_bytes() & ~std::uint64_t{15});
  std::size_t free_bytes = 0, total = 0;
  if (auto st = ctx.check(ctx.api().mem_get_info(&free_bytes, &total), "cuMemGetInfo"); !st)
    return st.error();
  const std::size_t bytes = read_scratch_bytes(free_bytes);
  if (bytes == 0) return make_error("no device memory free for the read-bandwidth buffer");
  auto scratch = ctx.alloc(bytes);
  if (!scratch) return scratch.error();
  return cuda::measure_read_bandwidth(ctx, runner.stream(), scratch->get(), bytes);
}

Status decode_mode(dm::Runner& runner, const Plan& p, DecodeModeRun& m,
                   std::vector<std::uint32_t>& tokens) {
  if (auto st = runner.begin(kStartToken); !st) return st;
  for (unsigned i = 0; i < p.warmup; ++i)
    if (auto t = runner.step(); !t) return t.error();
  m.latency_us.reserve(p.tokens);
  const auto wall0 = std::chrono::steady_clock::now();
  const double cpu0 = process_cpu_s();
  for (unsigned i = 0; i < p.tokens; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    auto t = runner.step();
    if (!t) return t.error();
    m.latency_us.push_back(seconds_since(t0) * 1e6);
    tokens.push_back(*t);
  }
  m.cpu_s = process_cpu_s() - cpu0;
  m.wall_s = seconds_since(wall0);
  if (p.burst == 0) return Ok{};
  const auto b0 = std::chrono::steady_clock::now();
  for (unsigned i = 0; i < p.burst; ++i)
    if (auto st = runner.enqueue(); !st) return st;
  if (auto st = runner.synchronize(); !st) return st;
  m.burst_tok_s = p.burst / seconds_since(b0);
  return Ok{};
}

ProbeResult failed(const Error& e, const char* during) {
  ProbeResult r = failed_probe("decode", e);
  r.reason = fmt::format("{}: {}", during, r.reason);
  return r;
}

}  // namespace

ProbeResult probe_decode(const cuda::Driver& driver, const CudaOptions& options) {
  auto plan = make_plan(options.decode);
  if (!plan) return failed_probe("decode", plan.error());
  const Plan& p = *plan;
  DecodeRun run;
  run.model = p.model.name;
  run.dtype = dm::dtype_name(p.runner.dtype);
  run.weight_bytes_per_token = static_cast<double>(dm::weight_bytes_per_token(p.model));
  run.kv_bytes_per_token =
      static_cast<double>(dm::kv_bytes_per_position(p.model)) * (p.warmup + (p.tokens + 1) / 2.0);
  ProbeResult r;
  r.id = "decode";
  std::vector<std::vector<std::uint32_t>> tokens;
  for (const cuda::SchedMode& mode : cuda::kSchedModes) {
    auto ctx = cuda::Context::create(driver, kProbeDevice, mode.flags);
    if (!ctx) return failed(ctx.error(), mode.name);
    cuda::Context& c = **ctx;
    const bool first = tokens.empty();
    if (first) {
      if (auto skip = memory_check(c, p)) return *skip;
      if (options.decode.self_check) {
        auto check = self_check(c, p);
        if (!check) return failed(check.error(), "self-check");
        r.details["self_check"] = *check;
      }
      auto clock = c.attribute(cuda::kAttrMemoryClockRateKhz);
      auto width = c.attribute(cuda::kAttrGlobalMemoryBusWidthBits);
      run.theoretical_gbps =
          cuda::theoretical_bandwidth_gbps(clock ? *clock : 0, width ? *width : 0);
    }
    auto runner = dm::Runner::create(c, p.model, p.runner);
    if (!runner) return failed(runner.error(), mode.name);
    if (first) {
      auto bound = read_bound(c, **runner);
      if (!bound) return failed(bound.error(), "read bandwidth");
      run.read_gbps = bound->gbps;
      run.launch = dm::to_string((*runner)->launch_mode());
      r.details["read_samples_gbps"] = bound->samples_gbps;
      r.details["weight_init_ms"] = (*runner)->init_ms();
      r.details["grid"] = (*runner)->grid();
      if (!(*runner)->fallback_reason().empty())
        r.details["launch_fallback"] = (*runner)->fallback_reason();
    }
    DecodeModeRun m;
    m.mode = mode.name;
    tokens.emplace_back();
    if (auto st = decode_mode(**runner, p, m, tokens.back()); !st)
      return failed(st.error(), mode.name);
    run.modes.push_back(std::move(m));
  }
  for (std::uint32_t t : tokens[0])
    if (t >= p.model.vocab)
      return failed(
          make_error(fmt::format("token id {} is outside the vocabulary ({})", t, p.model.vocab)),
          "decode");
  for (std::size_t i = 1; i < tokens.size(); ++i)
    if (tokens[i] != tokens[0])
      return failed(
          make_error(
              fmt::format("the same model and seed gave different tokens under {} than under {}",
                          cuda::kSchedModes[i].name, cuda::kSchedModes[0].name),
              "", "the GPU is not deterministic: run the memory probe"),
          "decode");
  assess_decode(run, r);
  r.details["tokens_timed"] = p.tokens;
  r.details["tokens_warmup"] = p.warmup;
  r.details["first_tokens"] = std::vector<std::uint32_t>(
      tokens[0].begin(), tokens[0].begin() + std::min<std::ptrdiff_t>(std::ssize(tokens[0]), 16));
  r.details["source"] = p.model.source;
  return r;
}

}  // namespace jetgate::probes
