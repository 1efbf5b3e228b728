// SPDX-License-Identifier: Apache-2.0
// The decode kernels on a real GPU against the CPU reference: the tiny model
// and a 2-layer cut of every real preset, 32 tokens each, through both the
// persistent kernel and the CUDA graph. The reference is fed the GPU's
// tokens, so every step compares the same input: the GPU's token must be the
// reference's argmax (or within the logit tolerance of it) and its logits
// within logit_tolerance() of the reference's. Runs where a CUDA device is
// present (the device machine) and skips everywhere else, CI included. The
// GPU work runs in a child process so that no CUDA state is left in the
// test process.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>

#include "jetgate/cuda/context.hpp"
#include "jetgate/cuda/decode_runner.hpp"
#include "jetgate/probes/cuda_probes.hpp"
#include "jetgate/probes/cuda_section.hpp"
#include "jetgate/probes/decode_reference.hpp"
#include "jetgate/proc/child.hpp"

namespace jetgate::probes {
namespace {

namespace dm = cuda::decode;

constexpr std::uint32_t kTokens = 32;
constexpr std::uint32_t kSeed = 0x5EED0003u;
constexpr std::uint32_t kStart = 1;

bool real_gpu(std::string* why) {
  if (std::getenv("JETGATE_CUDA_DRIVER") != nullptr) {
    *why = "JETGATE_CUDA_DRIVER is set: not testing the real driver";
    return false;
  }
  CudaSection s = collect_cuda(CudaOptions{});
  if (s.gpu["device_count"].is_number() && s.gpu["device_count"].get<int>() > 0) return true;
  *why = s.notes.empty() ? "no CUDA device" : s.notes[0];
  return false;
}

struct GpuRun {
  std::string launch;
  std::vector<std::uint32_t> tokens;
  std::vector<std::vector<float>> logits;
};

Result<GpuRun> run_gpu(cuda::Context& ctx, const dm::ModelShape& m, std::uint32_t dtype,
                       dm::LaunchMode launch) {
  dm::RunnerOptions o;
  o.dtype = dtype;
  o.seed = kSeed;
  o.max_ctx = 64;
  o.launch = launch;
  o.prefetch_window = 16u << 20;  // results must not depend on it
  auto runner = dm::Runner::create(ctx, m, o);
  if (!runner) return runner.error();
  GpuRun out;
  out.launch = dm::to_string((*runner)->launch_mode());
  if (auto st = (*runner)->begin(kStart); !st) return st.error();
  for (std::uint32_t i = 0; i < kTokens; ++i) {
    auto t = (*runner)->step();
    if (!t) return t.error();
    auto l = (*runner)->logits();
    if (!l) return l.error();
    out.tokens.push_back(*t);
    out.logits.push_back(std::move(*l));
  }
  return out;
}

// In the child: both launch modes and the reference; a JSON summary back.
std::string compare_in_child(const dm::ModelShape& m, std::uint32_t dtype) {
  auto fail = [](const Error& e) { return nlohmann::json{{"error", e.message()}}.dump(); };
  auto driver = cuda::Driver::load(cuda::builtin_driver_paths());
  if (!driver) return fail(driver.error());
  if (auto st = cuda::init_driver(*driver); !st) return fail(st.error());
  auto ctx = cuda::Context::create(*driver, kProbeDevice, cuda::kCtxSchedSpin);
  if (!ctx) return fail(ctx.error());
  auto persistent = run_gpu(**ctx, m, dtype, dm::LaunchMode::persistent);
  if (!persistent) return fail(persistent.error());
  auto graph = run_gpu(**ctx, m, dtype, dm::LaunchMode::graph);
  if (!graph) return fail(graph.error());
  DecodeReference ref(m, dtype, kSeed, 64);
  ref.begin(kStart);
  nlohmann::json steps = nlohmann::json::array();
  double worst = 0, worst_graph = 0;
  int disagreements = 0, near_ties = 0;
  for (std::uint32_t i = 0; i < kTokens; ++i) {
    const std::uint32_t expected = ref.forward();
    const std::uint32_t got = persistent->tokens[i];
    const LogitComparison c = compare_logits(persistent->logits[i], ref.logits());
    const LogitComparison g = compare_logits(graph->logits[i], persistent->logits[i]);
    worst = std::max(worst, c.relative);
    worst_graph = std::max(worst_graph, g.relative);
    if (got != expected) {
      if (tokens_agree(got, expected, ref.logits(), dtype))
        ++near_ties;
      else
        ++disagreements;
    }
    if (graph->tokens[i] != got) ++disagreements;
    steps.push_back({{"gpu", got}, {"ref", expected}, {"rel", c.relative}, {"gap", c.ref_top_gap}});
    ref.feed(got);
  }
  std::set<std::uint32_t> distinct(persistent->tokens.begin(), persistent->tokens.end());
  return nlohmann::json{{"model", m.name},
                        {"launch", persistent->launch},
                        {"max_rel", worst},
                        {"max_rel_graph_vs_persistent", worst_graph},
                        {"disagreements", disagreements},
                        {"near_ties", near_ties},
                        {"distinct_tokens", distinct.size()},
                        {"steps", steps}}
      .dump();
}

void expect_matches_reference(const std::string& preset, std::uint32_t dtype) {
  std::string why;
  if (!real_gpu(&why)) GTEST_SKIP() << why;
  const dm::ModelShape m = dm::cut_layers(*dm::find_preset(preset), 2);
  proc::ChildLimits limits;
  limits.timeout = std::chrono::minutes(5);
  limits.max_output_bytes = 1u << 20;
  proc::ChildOutcome out = proc::run_in_child([&] { return compare_in_child(m, dtype); }, limits);
  ASSERT_EQ(out.kind, proc::ChildOutcome::Kind::exited) << out.describe() << out.error_text;
  auto j = nlohmann::json::parse(out.output, nullptr, false);
  ASSERT_TRUE(j.is_object()) << out.output;
  ASSERT_FALSE(j.contains("error")) << j["error"];
  std::cout << m.name << " " << dm::dtype_name(dtype) << ": launch " << j["launch"]
            << ", max logit error " << j["max_rel"] << " of RMS (tolerance "
            << logit_tolerance(dtype) << "), graph vs persistent "
            << j["max_rel_graph_vs_persistent"] << ", near ties " << j["near_ties"]
            << ", distinct tokens " << j["distinct_tokens"] << "\n";
  EXPECT_EQ(j["launch"], "persistent") << "the H200 launches cooperatively";
  EXPECT_LE(j["max_rel"].get<double>(), logit_tolerance(dtype)) << j["steps"].dump();
  EXPECT_LE(j["max_rel_graph_vs_persistent"].get<double>(), 1e-6) << "same kernels, same order";
  EXPECT_EQ(j["disagreements"], 0) << j["steps"].dump();
}

TEST(DecodeGpu, TinyFp16MatchesTheCpuReference) {
  expect_matches_reference("tiny", dm::kDTypeF16);
}
TEST(DecodeGpu, TinyBf16MatchesTheCpuReference) {
  expect_matches_reference("tiny", dm::kDTypeBf16);
}
TEST(DecodeGpu, Qwen25_05bTwoLayersMatchTheCpuReference) {
  expect_matches_reference("qwen2.5-0.5b", dm::kDTypeF16);
}
TEST(DecodeGpu, Qwen25_15bTwoLayersMatchTheCpuReference) {
  expect_matches_reference("qwen2.5-1.5b", dm::kDTypeBf16);
}
TEST(DecodeGpu, Llama32_1bTwoLayersMatchTheCpuReference) {
  expect_matches_reference("llama-3.2-1b", dm::kDTypeBf16);
}
TEST(DecodeGpu, TinyLlamaTwoLayersMatchTheCpuReference) {
  expect_matches_reference("tinyllama-1.1b", dm::kDTypeF16);
}

// The whole probe, as `jetgate probe --decode` runs it, on the default preset.
TEST(DecodeGpu, ProbePassesOnAHealthyGpu) {
  std::string why;
  if (!real_gpu(&why)) GTEST_SKIP() << why;
  CudaOptions o;
  o.run_probes = true;
  o.only = {"decode"};
  CudaSection s = collect_cuda(o);
  ASSERT_EQ(s.probes.size(), 1u);
  const ProbeResult& r = s.probes[0];
  std::cout << r.reason << "\n" << to_json(r).dump(1) << "\n";
  EXPECT_NE(r.status, ProbeStatus::fail) << r.reason;
  EXPECT_GT(r.values.at("decode_tok_s").value, 0);
  EXPECT_GT(r.values.at("decode_fraction_of_bound").value, 0);
}

}  // namespace
}  // namespace jetgate::probes
