// SPDX-License-Identifier: Apache-2.0
// The decode probe end to end against the fake driver (tests/fake_cuda):
// it runs only when named, refuses a model that does not fit and names the
// largest that does, and its self-check catches kernels that compute
// nothing. The CLI wires --decode, --model, --dtype and --tokens.
#include <gtest/gtest.h>

#include "jetgate/cuda/kernel_image.hpp"
#include "jetgate/probes/cuda_probes.hpp"
#include "jetgate/probes/cuda_section.hpp"
#include "test_support.hpp"

namespace jetgate::probes {
namespace {

CudaOptions fake_decode(const std::string& model) {
  CudaOptions o;
  o.driver_paths = {JETGATE_FAKE_CUDA};
  o.run_probes = true;
  o.only = {"decode"};
  o.probe_timeout = std::chrono::milliseconds(20000);
  o.decode.model = model;
  o.decode.tokens = 4;
  o.decode.warmup = 1;
  o.decode.burst = 2;
  return o;
}

TEST(DecodeProbe, RegisteredButOnlyRunWhenNamed) {
  bool found = false;
  for (const auto& p : cuda_probes())
    if (std::string(p.id) == "decode") {
      found = true;
      EXPECT_FALSE(p.by_default);
      EXPECT_GE(p.min_timeout.count(), 60000);
    }
  EXPECT_TRUE(found);
  CudaOptions o;
  o.driver_paths = {JETGATE_FAKE_CUDA};
  o.run_probes = true;
  o.probe_timeout = std::chrono::milliseconds(3000);
  for (const auto& r : collect_cuda(o).probes) EXPECT_NE(r.id, "decode");
}

TEST(DecodeProbe, ModelTooLargeSkipsNamingTheLargestThatFits) {
  if (!cuda::kernel_image().present()) GTEST_SKIP() << "built without the CUDA toolkit";
  // The fake device has 256 MiB free: only the tiny model fits.
  CudaSection s = collect_cuda(fake_decode("qwen2.5-0.5b"));
  ASSERT_EQ(s.probes.size(), 1u);
  const ProbeResult& r = s.probes[0];
  EXPECT_EQ(r.status, ProbeStatus::skip) << r.reason;
  EXPECT_NE(r.reason.find("qwen2.5-0.5b fp16 needs"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("the largest preset that fits is tiny (--model tiny)"), std::string::npos)
      << r.reason;
  EXPECT_GT(r.values.at("decode_needed_bytes").value, r.values.at("decode_free_bytes").value);
}

TEST(DecodeProbe, SelfCheckCatchesKernelsThatComputeNothing) {
  if (!cuda::kernel_image().present()) GTEST_SKIP() << "built without the CUDA toolkit";
  CudaSection s = collect_cuda(fake_decode("tiny"));
  ASSERT_EQ(s.probes.size(), 1u);
  EXPECT_EQ(s.probes[0].status, ProbeStatus::fail);
  EXPECT_NE(s.probes[0].reason.find("self-check: the GPU computes the model wrong"),
            std::string::npos)
      << s.probes[0].reason;
}

TEST(DecodeProbe, WithoutTheSelfCheckEveryModeIsTimed) {
  if (!cuda::kernel_image().present()) GTEST_SKIP() << "built without the CUDA toolkit";
  CudaOptions o = fake_decode("tiny");
  o.decode.self_check = false;
  CudaSection s = collect_cuda(o);
  ASSERT_EQ(s.probes.size(), 1u);
  const ProbeResult& r = s.probes[0];
  // The fake driver's events make every token take the same made-up time, so
  // the bandwidth they imply is beyond the fake device's bus: the figures are
  // kept, and the plausibility check fails them (as it must on a real board).
  EXPECT_EQ(r.reason.rfind("implausible: decode_achieved_gbps", 0), 0u) << r.reason;
  for (const char* key :
       {"decode_tok_s", "decode_spin_tok_s", "decode_yield_tok_s", "decode_blocking_sync_tok_s",
        "decode_bytes_per_token", "decode_fraction_of_bound", "decode_host_cpu_us_per_token",
        "decode_latency_p99_us"})
    EXPECT_EQ(r.values.count(key), 1u) << key;
  EXPECT_EQ(r.details["modes"].size(), 3u);
  EXPECT_EQ(r.details["model"], "tiny");
}

TEST(DecodeProbe, FailingLaunchIsAFailureNamingTheCall) {
  if (!cuda::kernel_image().present()) GTEST_SKIP() << "built without the CUDA toolkit";
  setenv("FAKE_CUDA_MODE", "launch_fails", 1);
  CudaSection s = collect_cuda(fake_decode("tiny"));
  unsetenv("FAKE_CUDA_MODE");
  ASSERT_EQ(s.probes.size(), 1u);
  EXPECT_EQ(s.probes[0].status, ProbeStatus::fail);
  EXPECT_NE(s.probes[0].reason.find("CUDA_ERROR_LAUNCH_FAILED"), std::string::npos)
      << s.probes[0].reason;
}

TEST(DecodeCli, DecodeFlagRunsOnlyTheDecodeProbe) {
  if (!cuda::kernel_image().present()) GTEST_SKIP() << "built without the CUDA toolkit";
  test::CliRun r = test::run_jetgate({"probe", "--decode", "--json"},
                                     {std::string("JETGATE_CUDA_DRIVER=") + JETGATE_FAKE_CUDA});
  // The fake has too little free memory for the default preset: SKIP, and a
  // probe that was asked for and could not answer does not hold (exit 1).
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("does not hold: decode: SKIP"), std::string::npos) << r.err;
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_TRUE(doc.is_object()) << r.out;
  ASSERT_TRUE(doc["probes"].contains("decode")) << r.out;
  EXPECT_EQ(doc["probes"].size(), 1u);
  EXPECT_EQ(doc["probes"]["decode"]["status"], "SKIP");
}

TEST(DecodeCli, ModelDtypeAndTokensAreChecked) {
  auto bad_model = test::run_jetgate({"probe", "--decode", "--model", "gpt-5"});
  EXPECT_EQ(bad_model.exit_code, 2);
  auto bad_dtype = test::run_jetgate({"probe", "--decode", "--dtype", "fp8"});
  EXPECT_EQ(bad_dtype.exit_code, 2);
  auto bad_tokens = test::run_jetgate({"probe", "--decode", "--tokens", "0"});
  EXPECT_EQ(bad_tokens.exit_code, 2);
  auto help = test::run_jetgate({"probe", "--help"});
  EXPECT_NE(help.out.find("--decode"), std::string::npos);
  EXPECT_NE(help.out.find("qwen2.5-0.5b"), std::string::npos) << help.out;
}

}  // namespace
}  // namespace jetgate::probes
