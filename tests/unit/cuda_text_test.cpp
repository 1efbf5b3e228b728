// SPDX-License-Identifier: Apache-2.0
// The text rendering of the CUDA section, from hand-built sections.
#include "jetgate/report/cuda_text.hpp"

#include <gtest/gtest.h>

#include "jetgate/cuda/device_facts.hpp"

namespace jetgate::report {
namespace {

TEST(CudaText, NoDriver) {
  probes::CudaSection s;
  s.gpu = cuda::gpu_facts_without_driver("libcuda.so.1 not found");
  s.notes.assign(1, std::string("no CUDA driver: libcuda.so.1 not found"));
  std::string text = render_cuda_text(s);
  EXPECT_NE(text.find("CUDA driver: not loaded\n"), std::string::npos) << text;
  EXPECT_NE(text.find("note: no CUDA driver: libcuda.so.1 not found"), std::string::npos);
  EXPECT_EQ(text.find("probe"), std::string::npos);
}

TEST(CudaText, ProbeTableHasStatusValuesWithUnitsAndReason) {
  probes::CudaSection s;
  s.gpu = {{"driver", {{"loaded", true}, {"library", "libcuda.so.1"}, {"version", "13.0"}}},
           {"device_count", 1},
           {"devices",
            {{{"index", 0},
              {"name", "NVIDIA H200"},
              {"compute_capability", "9.0"},
              {"sm_count", 132},
              {"integrated", false},
              {"total_memory_bytes", 150e9},
              {"free_memory_bytes", 149e9},
              {"theoretical_bandwidth_gbps", 4915.2}}}}};
  probes::ProbeResult r;
  r.id = "bandwidth";
  r.status = probes::ProbeStatus::pass;
  r.reason = "device-to-device 4200 GB/s";
  r.values["d2d_gbps"] = {4200.4, "GB/s"};
  r.values["d2d_fraction_of_peak"] = {0.855, "fraction"};
  r.duration_ms = 412;
  s.probes.push_back(r);
  std::string text = render_cuda_text(s);
  EXPECT_NE(text.find("GPU 0: NVIDIA H200, compute 9.0, 132 SMs, discrete, memory 150.00 GB "
                      "(149.00 GB free), peak 4915.2 GB/s"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("bandwidth  PASS"), std::string::npos) << text;
  EXPECT_NE(text.find("d2d_gbps=4200.4 GB/s, d2d_fraction_of_peak=85.5%"), std::string::npos);
  EXPECT_NE(text.find("412ms"), std::string::npos);
  EXPECT_NE(text.find("device-to-device 4200 GB/s"), std::string::npos);
}

TEST(CudaText, OddGpuDocumentsDoNotCrash) {
  probes::CudaSection s;
  s.gpu = nlohmann::json::array();
  EXPECT_NE(render_cuda_text(s).find("not loaded"), std::string::npos);
  s.gpu = {{"driver", {{"loaded", true}}}, {"devices", {1, "x", nullptr}}};
  EXPECT_NO_THROW(render_cuda_text(s));
}

TEST(CudaText, Units) {
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1.5e9), "1.50 GB");
  EXPECT_EQ(format_bytes(-1), "?");
  EXPECT_EQ(format_measurement({9.64, "us"}), "9.6 us");
  EXPECT_EQ(format_measurement({0.002, "fraction"}), "0.2%");
  EXPECT_EQ(format_measurement({3, "count"}), "3");
  EXPECT_EQ(format_measurement({std::nan(""), "GB/s"}), "n/a");
}

}  // namespace
}  // namespace jetgate::report
