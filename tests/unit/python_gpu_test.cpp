// SPDX-License-Identifier: Apache-2.0
// The Python probes on a real GPU with a real torch: they run where both are
// present (the device machine; bench/h200_python_probe.sh) and skip cleanly
// everywhere else, CI included. JETGATE_TEST_PYTHON names the interpreter
// that has torch (default: python3 on PATH).
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>

#include "jetgate/probes/cuda_section.hpp"
#include "jetgate/probes/python_runtime.hpp"
#include "jetgate/report/python_text.hpp"

namespace jetgate::probes {
namespace {

using nlohmann::json;

// The real probes, or a skip reason: no GPU, or no torch for the interpreter.
std::optional<PythonRuntime> real_python_probes(std::string* why) {
  if (std::getenv("JETGATE_CUDA_DRIVER") != nullptr) {
    *why = "JETGATE_CUDA_DRIVER is set: not testing the real driver";
    return std::nullopt;
  }
  CudaSection s = collect_cuda(CudaOptions{});
  if (!s.gpu["device_count"].is_number() || s.gpu["device_count"].get<int>() == 0) {
    *why = s.notes.empty() ? "no CUDA device" : s.notes[0];
    return std::nullopt;
  }
  PythonOptions o;
  if (const char* python = std::getenv("JETGATE_TEST_PYTHON")) o.python = python;
  o.timeout = std::chrono::minutes(5);  // first CUDA and cuDNN start-up on a cold machine
  o.bitsandbytes = true;
  PythonRuntime r = probe_python_runtime(o);
  if (r.facts["torch"]["installed"] != true) {
    *why = o.python + " has no torch";
    return std::nullopt;
  }
  return r;
}

TEST(PythonGpu, TorchComputesRightOnARealGpu) {
  std::string why;
  auto r = real_python_probes(&why);
  if (!r) GTEST_SKIP() << why;
  std::cout << report::render_python_text(*r);
  const json& torch = r->facts["torch"];
  ASSERT_EQ(r->result.status, ProbeStatus::pass) << r->result.reason;
  EXPECT_EQ(torch["cuda_available"], true);
  EXPECT_TRUE(torch["arch_list"].is_array());
  EXPECT_NE(r->result.details["arch"]["match"], "none");
  for (const char* check : {"elementwise", "matmul", "conv"}) {
    const json& c = torch["compute"][check];
    EXPECT_EQ(c["ran"], true) << check << ": " << c.dump();
    EXPECT_EQ(c["beyond_tolerance"], 0) << check << ": " << c.dump();
    EXPECT_LE(c["max_error_ratio"].get<double>(), 1.0) << check;
  }
  EXPECT_EQ(torch["compute"]["conv"]["backend"], "cudnn");
}

TEST(PythonGpu, BitsandbytesComputesRightOnARealGpuOrIsReportedMissing) {
  std::string why;
  auto r = real_python_probes(&why);
  if (!r) GTEST_SKIP() << why;
  ASSERT_TRUE(r->bitsandbytes.has_value());
  const ProbeResult& b = *r->bitsandbytes;
  if (r->facts["bitsandbytes"]["installed"] == false) {
    // Not installed is a finding (WARN), never a pass.
    EXPECT_EQ(b.status, ProbeStatus::warn) << b.reason;
    GTEST_SKIP() << "bitsandbytes is not installed: " << b.reason;
  }
  ASSERT_EQ(b.status, ProbeStatus::pass) << b.reason << "\n" << r->facts["bitsandbytes"].dump(2);
  for (const char* check : {"nf4", "fp4", "int8_blockwise", "int8_matmul"}) {
    EXPECT_LE(b.values.at(std::string(check) + "_max_error_ratio").value, 1.0) << check;
    std::cout << check << " max_error_ratio "
              << b.values.at(std::string(check) + "_max_error_ratio").value << "\n";
  }
}

}  // namespace
}  // namespace jetgate::probes
