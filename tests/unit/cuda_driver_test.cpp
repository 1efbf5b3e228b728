// SPDX-License-Identifier: Apache-2.0
// The driver loader and its error catalogue, against the fake driver library
// that tests/fake_cuda.cmake builds (no GPU needed).
#include <gtest/gtest.h>

#include <cstdlib>

#include "jetgate/cuda/context.hpp"
#include "jetgate/cuda/device_facts.hpp"
#include "jetgate/cuda/driver.hpp"

namespace jetgate::cuda {
namespace {

// Sets FAKE_CUDA_MODE for the scope of one test.
class FakeMode {
 public:
  explicit FakeMode(const char* mode) { setenv("FAKE_CUDA_MODE", mode, 1); }
  ~FakeMode() { unsetenv("FAKE_CUDA_MODE"); }
};

TEST(CudaDriver, LoadsTheFakeDriverAndResolvesEveryEntryPoint) {
  auto d = Driver::load({"/nonexistent/libcuda.so.1", JETGATE_FAKE_CUDA});
  ASSERT_TRUE(d) << d.error().message();
  EXPECT_EQ(d->library(), JETGATE_FAKE_CUDA);
  EXPECT_NE(d->api().launch_kernel, nullptr);
  EXPECT_NE(d->api().event_elapsed_time, nullptr);
  int v = 0;
  EXPECT_EQ(d->api().driver_get_version(&v), kCudaSuccess);
  EXPECT_EQ(v, 12060);
}

TEST(CudaDriver, MissingLibraryListsEveryCandidate) {
  auto d = Driver::load({"/nonexistent/a/libcuda.so.1", "/nonexistent/b/libcuda.so.1"});
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().where.find("/nonexistent/a/libcuda.so.1"), std::string::npos);
  EXPECT_NE(d.error().where.find("/nonexistent/b/libcuda.so.1"), std::string::npos);
  EXPECT_EQ(d.error().what, "libcuda.so.1 not found");
  EXPECT_NE(d.error().hint.find("JETGATE_CUDA_DRIVER"), std::string::npos);
  EXPECT_FALSE(Driver::load({}));
}

TEST(CudaDriver, LibraryLackingAnEntryPointIsRejectedByName) {
  auto d = Driver::load({JETGATE_FAKE_CUDA_NO_LAUNCH});
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().where.find("lacks entry point cuLaunchKernel"), std::string::npos)
      << d.error().message();
  // ... and the next candidate is tried.
  EXPECT_TRUE(Driver::load({JETGATE_FAKE_CUDA_NO_LAUNCH, JETGATE_FAKE_CUDA}));
}

TEST(CudaDriver, NotADriverAtAll) {
  auto d = Driver::load({"libc.so.6"});
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().where.find("lacks entry point cuInit"), std::string::npos);
}

TEST(CudaDriver, SearchPathsComeFromOptionsThenEnvironmentThenBuiltIn) {
  unsetenv("JETGATE_CUDA_DRIVER");
  EXPECT_EQ(driver_search_paths({}), builtin_driver_paths());
  EXPECT_EQ(builtin_driver_paths().front(), "libcuda.so.1");
  setenv("JETGATE_CUDA_DRIVER", "/a/libcuda.so.1::/b/libcuda.so.1", 1);
  EXPECT_EQ(driver_search_paths({}),
            (std::vector<std::string>{"/a/libcuda.so.1", "/b/libcuda.so.1"}));
  EXPECT_EQ(driver_search_paths({"/c"}), std::vector<std::string>{"/c"});
  unsetenv("JETGATE_CUDA_DRIVER");
}

TEST(CudaDriver, ErrorsUseTheDriversNamesAndJetgatesHints) {
  auto d = Driver::load({JETGATE_FAKE_CUDA});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->describe(kCudaErrorNoDevice),
            "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected");
  // The fake driver does not know this code: jetgate's table names it.
  EXPECT_EQ(d->describe(kCudaErrorSystemDriverMismatch), "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH");
  EXPECT_EQ(d->describe(12345), "CUresult 12345");
  Error e = d->error("cuInit", kCudaErrorNoDevice);
  EXPECT_EQ(e.where, JETGATE_FAKE_CUDA);
  EXPECT_NE(e.what.find("cuInit failed"), std::string::npos);
  EXPECT_NE(e.hint.find("/dev/nvgpu"), std::string::npos);
}

TEST(CudaDriver, InitErrorsAreValues) {
  FakeMode mode("no_device");
  auto d = Driver::load({JETGATE_FAKE_CUDA});
  ASSERT_TRUE(d);
  auto st = init_driver(*d);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().what.find("CUDA_ERROR_NO_DEVICE"), std::string::npos);
}

TEST(CudaDriver, CatalogueNamesAndHints) {
  EXPECT_EQ(result_name(kCudaErrorUnsupportedPtxVersion), "CUDA_ERROR_UNSUPPORTED_PTX_VERSION");
  EXPECT_EQ(result_name(-7), "CUresult -7");
  EXPECT_NE(result_hint(kCudaErrorStubLibrary).find("stubs"), std::string::npos);
  EXPECT_EQ(result_hint(4242), "");
}

TEST(CudaDriver, CudaVersionText) {
  EXPECT_EQ(format_cuda_version(13000), "13.0");
  EXPECT_EQ(format_cuda_version(12060), "12.6");
  EXPECT_EQ(format_cuda_version(11040), "11.4");
  EXPECT_EQ(format_cuda_version(0), "unknown");
  EXPECT_EQ(parse_cuda_version("12.6"), 12060);
  EXPECT_EQ(parse_cuda_version("13.0"), 13000);
  EXPECT_EQ(parse_cuda_version(""), -1);
  EXPECT_EQ(parse_cuda_version("12"), -1);
  EXPECT_EQ(parse_cuda_version("12.6.1"), -1);
  EXPECT_EQ(parse_cuda_version("a.b"), -1);
  EXPECT_EQ(parse_cuda_version("12.600"), -1);
}

TEST(CudaDriver, KernelLoadAdviceNamesBothVersionsWhenTheDriverIsOlder) {
  std::string advice = kernel_load_advice(kCudaErrorUnsupportedPtxVersion, 12060, "13.0");
  EXPECT_NE(advice.find("supports CUDA 12.6"), std::string::npos) << advice;
  EXPECT_NE(advice.find("built with CUDA 13.0"), std::string::npos);
  EXPECT_NE(advice.find("upgrade the driver"), std::string::npos);
  EXPECT_NE(advice.find("rebuild jetgate"), std::string::npos);
  // A newer driver that still lacks code for the GPU: a different fix.
  std::string no_code = kernel_load_advice(kCudaErrorNoBinaryForGpu, 13000, "13.0");
  EXPECT_NE(no_code.find("architecture"), std::string::npos);
  EXPECT_EQ(kernel_load_advice(kCudaErrorOutOfMemory, 13000, "13.0"),
            result_hint(kCudaErrorOutOfMemory));
}

TEST(CudaDeviceFacts, TheoreticalBandwidth) {
  // 3.201 GHz memory clock, 6144-bit bus (H200-like).
  EXPECT_NEAR(theoretical_bandwidth_gbps(3201000, 6144), 4916.736, 1e-6);
  // Orin NX 16GB: 102.4 GB/s.
  EXPECT_NEAR(theoretical_bandwidth_gbps(3200000, 128), 102.4, 1e-9);
  EXPECT_EQ(theoretical_bandwidth_gbps(0, 128), 0);
  EXPECT_EQ(theoretical_bandwidth_gbps(3200000, -1), 0);
}

TEST(CudaDeviceFacts, FakeDeviceFacts) {
  auto d = Driver::load({JETGATE_FAKE_CUDA});
  ASSERT_TRUE(d);
  nlohmann::json gpu = collect_gpu_facts(*d);
  EXPECT_EQ(gpu["driver"]["loaded"], true);
  EXPECT_EQ(gpu["driver"]["version"], "12.6");
  EXPECT_TRUE(gpu["driver"]["error"].is_null());
  ASSERT_EQ(gpu["device_count"], 1);
  const auto& dev = gpu["devices"][0];
  EXPECT_EQ(dev["name"], "Fake Orin (jetgate test driver)");
  EXPECT_EQ(dev["compute_capability"], "8.7");
  EXPECT_EQ(dev["sm_count"], 8);
  EXPECT_EQ(dev["integrated"], true);
  EXPECT_EQ(dev["memory_bus_width_bits"], 128);
  EXPECT_EQ(dev["memory_clock_khz"], 3200000);
  EXPECT_NEAR(dev["theoretical_bandwidth_gbps"].get<double>(), 102.4, 1e-9);
  EXPECT_EQ(dev["total_memory_bytes"], std::size_t{16} << 30);
  EXPECT_EQ(dev["free_memory_bytes"], std::size_t{256} << 20);
  EXPECT_EQ(dev["pci_bus_id"], "0000:00:00.0");
  EXPECT_FALSE(dev.contains("errors")) << dev.dump();
}

TEST(CudaDeviceFacts, NoDeviceIsRecordedNotThrown) {
  FakeMode mode("no_device");
  auto d = Driver::load({JETGATE_FAKE_CUDA});
  ASSERT_TRUE(d);
  nlohmann::json gpu = collect_gpu_facts(*d);
  EXPECT_EQ(gpu["driver"]["loaded"], true);
  EXPECT_EQ(gpu["device_count"], 0);
  EXPECT_NE(gpu["driver"]["error"].get<std::string>().find("CUDA_ERROR_NO_DEVICE"),
            std::string::npos);
  EXPECT_TRUE(gpu_facts_without_driver("x")["driver"]["library"].is_null());
}

}  // namespace
}  // namespace jetgate::cuda
