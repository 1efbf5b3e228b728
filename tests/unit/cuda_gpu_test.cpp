// SPDX-License-Identifier: Apache-2.0
// The probes on a real GPU: they run where a CUDA device is present (the
// device machine) and skip cleanly everywhere else, CI included.
#include <gtest/gtest.h>

#include <cstdlib>

#include "jetgate/probes/cuda_section.hpp"
#include "jetgate/report/cuda_text.hpp"

namespace jetgate::probes {
namespace {

// The real driver (the built-in search list), or a skip reason.
std::optional<CudaSection> real_gpu_facts(std::string* why) {
  if (std::getenv("JETGATE_CUDA_DRIVER") != nullptr) {
    *why = "JETGATE_CUDA_DRIVER is set: not testing the real driver";
    return std::nullopt;
  }
  CudaSection s = collect_cuda(CudaOptions{});
  if (s.gpu["device_count"].is_number() && s.gpu["device_count"].get<int>() > 0) return s;
  *why = s.notes.empty() ? "no CUDA device" : s.notes[0];
  return std::nullopt;
}

TEST(CudaGpu, DeviceFactsAreComplete) {
  std::string why;
  auto facts = real_gpu_facts(&why);
  if (!facts) GTEST_SKIP() << why;
  const auto& d = facts->gpu["devices"][0];
  for (const char* key :
       {"name", "compute_capability", "sm_count", "total_memory_bytes", "free_memory_bytes",
        "integrated", "memory_bus_width_bits", "memory_clock_khz"})
    EXPECT_FALSE(d[key].is_null()) << key;
  EXPECT_GT(d["free_memory_bytes"].get<double>(), 0);
  EXPECT_LE(d["free_memory_bytes"].get<double>(), d["total_memory_bytes"].get<double>());
}

TEST(CudaGpu, EveryProbePassesOnAHealthyGpu) {
  std::string why;
  if (!real_gpu_facts(&why)) GTEST_SKIP() << why;
  CudaOptions o;
  o.run_probes = true;
  CudaSection s = collect_cuda(o);
  std::cout << report::render_cuda_text(s);
  ASSERT_EQ(s.probes.size(), 4u);
  for (const auto& p : s.probes) {
    if (p.id == "sync_path") {
      // WARN is a legitimate finding on a machine whose blocking sync polls.
      EXPECT_NE(p.status, ProbeStatus::fail) << p.reason;
    } else {
      EXPECT_EQ(p.status, ProbeStatus::pass) << p.id << ": " << p.reason;
    }
  }
  EXPECT_GT(s.probes[1].values.at("tested_bytes").value, 0);
  EXPECT_EQ(s.probes[1].values.at("mismatched_words").value, 0);
  EXPECT_GT(s.probes[2].values.at("d2d_gbps").value, 0);
}

}  // namespace
}  // namespace jetgate::probes
