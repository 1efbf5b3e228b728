// SPDX-License-Identifier: Apache-2.0
// collect_cuda end to end against the fake driver: every branch a real
// machine may take (no driver, no device, old driver, a hang, a crash, wrong
// results) ends in a recorded fact or probe result, never in a jetgate crash.
#include "jetgate/probes/cuda_section.hpp"

#include <gtest/gtest.h>

#include <cstdlib>

#include "jetgate/cuda/kernel_image.hpp"
#include "jetgate/probes/cuda_probes.hpp"
#include "jetgate/report/cuda_text.hpp"

namespace jetgate::probes {
namespace {

class FakeMode {
 public:
  explicit FakeMode(const char* mode) { setenv("FAKE_CUDA_MODE", mode, 1); }
  ~FakeMode() { unsetenv("FAKE_CUDA_MODE"); }
};

CudaOptions fake_options(bool run_probes = false) {
  CudaOptions o;
  o.driver_paths = {JETGATE_FAKE_CUDA};
  o.run_probes = run_probes;
  o.probe_timeout = std::chrono::milliseconds(3000);
  return o;
}

const ProbeResult* find_probe(const CudaSection& s, const std::string& id) {
  for (const auto& p : s.probes)
    if (p.id == id) return &p;
  return nullptr;
}

bool has_note(const CudaSection& s, const std::string& text) {
  for (const auto& n : s.notes)
    if (n.find(text) != std::string::npos) return true;
  return false;
}

TEST(CudaSection, NoDriverSaysSoAndRunsNoProbe) {
  CudaOptions o = fake_options(true);
  o.driver_paths = {"/nonexistent/libcuda.so.1"};
  CudaSection s = collect_cuda(o);
  EXPECT_EQ(s.gpu["driver"]["loaded"], false);
  EXPECT_TRUE(s.gpu["device_count"].is_null()) << "without a driver the count is unknown, not 0";
  ASSERT_FALSE(s.notes.empty());
  EXPECT_EQ(s.notes[0].rfind("no CUDA driver: ", 0), 0u) << s.notes[0];
  ASSERT_EQ(s.probes.size(), 4u);
  for (const auto& p : s.probes) EXPECT_EQ(p.status, ProbeStatus::skip) << p.id;
}

TEST(CudaSection, FakeDeviceFactsUnderGpu) {
  CudaSection s = collect_cuda(fake_options());
  EXPECT_EQ(s.gpu["driver"]["library"], JETGATE_FAKE_CUDA);
  EXPECT_EQ(s.gpu["device_count"], 1);
  EXPECT_EQ(s.gpu["devices"][0]["compute_capability"], "8.7");
  EXPECT_EQ(s.gpu["kernels"]["embedded"], cuda::kernel_image().present());
  EXPECT_TRUE(s.probes.empty());
}

TEST(CudaSection, NoDeviceIsANoteAndProbesSkip) {
  FakeMode mode("no_device");
  CudaSection s = collect_cuda(fake_options(true));
  EXPECT_TRUE(has_note(s, "CUDA_ERROR_NO_DEVICE")) << s.notes.size();
  for (const auto& p : s.probes) EXPECT_EQ(p.status, ProbeStatus::skip);
}

TEST(CudaSection, HangingDriverIsStoppedAndRecorded) {
  FakeMode mode("hang");
  CudaOptions o = fake_options();
  o.probe_timeout = std::chrono::milliseconds(300);
  CudaSection s = collect_cuda(o);
  EXPECT_EQ(s.gpu["driver"]["loaded"], false);
  EXPECT_TRUE(has_note(s, "timed out")) << (s.notes.empty() ? "" : s.notes[0]);
}

TEST(CudaSection, CrashingDriverIsRecorded) {
  FakeMode mode("crash");
  CudaSection s = collect_cuda(fake_options());
  EXPECT_TRUE(has_note(s, "SIGSEGV")) << (s.notes.empty() ? "" : s.notes[0]);
}

TEST(CudaSection, DriverMissingAnEntryPoint) {
  CudaOptions o = fake_options();
  o.driver_paths = {JETGATE_FAKE_CUDA_NO_LAUNCH};
  CudaSection s = collect_cuda(o);
  EXPECT_TRUE(has_note(s, "lacks entry point cuLaunchKernel"));
}

TEST(CudaSection, OldDriverIsExplainedInPlainWords) {
  if (!cuda::kernel_image().present()) GTEST_SKIP() << "built without the CUDA toolkit";
  FakeMode mode("old_driver");
  CudaOptions o = fake_options(true);
  o.only = {"launch"};
  CudaSection s = collect_cuda(o);
  EXPECT_EQ(s.gpu["driver"]["version"], "11.4");
  EXPECT_TRUE(has_note(s, "supports CUDA 11.4"));
  const ProbeResult* launch = find_probe(s, "launch");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->status, ProbeStatus::fail);
  EXPECT_NE(launch->reason.find("CUDA_ERROR_UNSUPPORTED_PTX_VERSION"), std::string::npos);
  EXPECT_NE(launch->reason.find("upgrade the driver"), std::string::npos) << launch->reason;
}

TEST(CudaSection, KernelsThatDoNothingFailTheirChecks) {
  if (!cuda::kernel_image().present()) GTEST_SKIP() << "built without the CUDA toolkit";
  CudaOptions o = fake_options(true);
  o.only = {"launch", "memory", "nonsense"};
  CudaSection s = collect_cuda(o);
  EXPECT_TRUE(has_note(s, "unknown CUDA probe \"nonsense\""));
  ASSERT_EQ(s.probes.size(), 2u);
  const ProbeResult* launch = find_probe(s, "launch");
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(launch->status, ProbeStatus::fail);
  EXPECT_NE(launch->reason.find("result is wrong"), std::string::npos) << launch->reason;
  EXPECT_EQ(launch->values.at("wrong_elements").value, 1 << 20);
  EXPECT_GT(launch->duration_ms, 0);
  const ProbeResult* memory = find_probe(s, "memory");
  ASSERT_NE(memory, nullptr);
  EXPECT_EQ(memory->status, ProbeStatus::fail);
  EXPECT_NE(memory->reason.find("fill kernel"), std::string::npos) << memory->reason;
}

TEST(CudaSection, FailingLaunchNamesTheCall) {
  if (!cuda::kernel_image().present()) GTEST_SKIP() << "built without the CUDA toolkit";
  FakeMode mode("launch_fails");
  CudaOptions o = fake_options(true);
  o.only = {"launch", "sync_path"};
  CudaSection s = collect_cuda(o);
  ASSERT_EQ(s.probes.size(), 2u);
  for (const auto& p : s.probes) {
    EXPECT_EQ(p.status, ProbeStatus::fail);
    EXPECT_NE(p.reason.find("cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED"), std::string::npos)
        << p.reason;
  }
  EXPECT_NE(find_probe(s, "sync_path")->reason.find("scheduling mode spin"), std::string::npos);
}

TEST(CudaSection, FakeBandwidthIsMeasuredFromEvents) {
  if (!cuda::kernel_image().present()) GTEST_SKIP() << "built without the CUDA toolkit";
  CudaOptions o = fake_options(true);
  o.only = {"bandwidth"};
  CudaSection s = collect_cuda(o);
  ASSERT_EQ(s.probes.size(), 1u);
  const ProbeResult& r = s.probes[0];
  // The fake's 1 ms events make 537 GB/s on a device whose clocks allow
  // 102 GB/s: the figures are kept, and the probe fails them as implausible.
  ASSERT_EQ(r.status, ProbeStatus::fail) << r.reason;
  EXPECT_EQ(r.reason.rfind("implausible: ", 0), 0u) << r.reason;
  // The fake's events say every sample took 1 ms: 8 copies of 32 MiB (256
  // MiB free / 8), read + written, in 1 ms; 2 host copies of 32 MiB.
  EXPECT_NEAR(r.values.at("d2d_gbps").value, 8 * 2 * 32.0 * (1 << 20) / 1e-3 / 1e9, 1e-6);
  EXPECT_NEAR(r.values.at("h2d_gbps").value, 2 * 32.0 * (1 << 20) / 1e-3 / 1e9, 1e-6);
  EXPECT_NEAR(r.values.at("theoretical_gbps").value, 102.4, 1e-9);
  EXPECT_EQ(r.details["d2d_counts"], "bytes read + bytes written");
}

TEST(CudaSection, TextReportShowsDriverDevicesAndProbes) {
  CudaOptions o = fake_options(true);
  o.only = {"launch"};
  CudaSection s = collect_cuda(o);
  std::string text = report::render_cuda_text(s);
  EXPECT_NE(text.find("CUDA driver: " JETGATE_FAKE_CUDA " (CUDA 12.6), 1 device(s)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Fake Orin (jetgate test driver), compute 8.7, 8 SMs, integrated (Tegra)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("launch"), std::string::npos);
}

}  // namespace
}  // namespace jetgate::probes

namespace jetgate::probes {
namespace {

CudaSection healthy_section() {
  CudaSection s;
  s.gpu = {{"driver", {{"loaded", true}, {"error", nullptr}}}, {"device_count", 1}};
  return s;
}

TEST(CudaPrecheck, BuildWithoutToolkitReportsNotRun) {
  cuda::KernelImage none{nullptr, 0, "", ""};
  auto r = cuda_probe_precheck(healthy_section(), "bandwidth", none);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->status, ProbeStatus::not_run);
  EXPECT_NE(r->reason.find("built without CUDA toolkit"), std::string::npos) << r->reason;
}

TEST(CudaPrecheck, NoDriverOrDeviceSkipsBeforeAnyChild) {
  static const unsigned char byte = 0;
  cuda::KernelImage some{&byte, 1, "13.0", "90"};
  EXPECT_FALSE(cuda_probe_precheck(healthy_section(), "launch", some).has_value());
  auto no_device = healthy_section();
  no_device.gpu["device_count"] = 0;
  EXPECT_EQ(cuda_probe_precheck(no_device, "launch", some)->status, ProbeStatus::skip);
  auto no_driver = healthy_section();
  no_driver.gpu["driver"]["loaded"] = false;
  EXPECT_EQ(cuda_probe_precheck(no_driver, "launch", some)->status, ProbeStatus::skip);
}

}  // namespace
}  // namespace jetgate::probes
