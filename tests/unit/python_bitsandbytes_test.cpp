// SPDX-License-Identifier: Apache-2.0
// The bitsandbytes probe: import is not enough; its 4-bit and 8-bit round
// trips and its int8 matmul must match torch within the documented
// tolerances on the GPU. The fakes in tests/fixtures/python play every way
// that goes wrong (FAKE_BNB_FAULT, see fake_bnb_cuda/bitsandbytes/functional.py)
// under the real interpreter.
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "jetgate/probes/python_runtime.hpp"
#include "test_support.hpp"

namespace jetgate::probes {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

std::string real_python() {
  return ::access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

// The fake Jetson torch with a fake bitsandbytes package, the probe asked for.
PythonRuntime with_bitsandbytes(const std::string& package,
                                std::map<std::string, std::string> env = {},
                                std::chrono::milliseconds timeout = 20s) {
  PythonOptions o;
  o.python = real_python();
  o.timeout = timeout;
  o.bitsandbytes = true;
  std::string fixtures = test::fixtures_dir() + "/python/";
  env["PYTHONPATH"] =
      fixtures + "fake_torch_cuda" + (package.empty() ? "" : ":" + fixtures + package);
  o.env = std::move(env);
  return probe_python_runtime(o);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

const ProbeResult& bnb_result(const PythonRuntime& r) {
  EXPECT_TRUE(r.bitsandbytes.has_value());
  static const ProbeResult none;
  return r.bitsandbytes ? *r.bitsandbytes : none;
}

TEST(PythonBitsandbytes, WorkingKernelsPassWithTheirErrorsRecorded) {
  auto r = with_bitsandbytes("fake_bnb_cuda");
  const ProbeResult& b = bnb_result(r);
  ASSERT_EQ(b.status, ProbeStatus::pass) << b.reason << "\n" << r.facts["bitsandbytes"].dump(2);
  EXPECT_EQ(b.id, "bitsandbytes");
  EXPECT_EQ(
      b.reason,
      "bitsandbytes 0.45.5 (libbitsandbytes_cuda126.so) on Orin (nvgpu), capability 8.7: nf4, "
      "fp4 and 8-bit round trips and the int8 matmul match torch on the CPU within their "
      "tolerances");
  const json& compute = r.facts["bitsandbytes"]["compute"];
  EXPECT_EQ(compute["checked"], true);
  for (const char* check : {"nf4", "fp4", "int8_blockwise", "int8_matmul"}) {
    EXPECT_EQ(compute[check]["ran"], true) << check;
    EXPECT_EQ(compute[check]["beyond_tolerance"], 0) << check;
    EXPECT_LE(compute[check]["max_error_ratio"].get<double>(), 1.0) << check;
    EXPECT_LE(b.values.at(std::string(check) + "_max_error_ratio").value, 1.0) << check;
  }
  // The documented tolerances (docs/python-runtime.md), as the script applied them.
  EXPECT_NEAR(compute["nf4"]["tolerance"].get<double>(), (1.0 - 0.6961928009986877) / 2, 1e-5);
  EXPECT_NEAR(compute["fp4"]["tolerance"].get<double>(), 1.0 / 6, 1e-5);
  EXPECT_NEAR(compute["int8_blockwise"]["tolerance"].get<double>(), 0.0140625 / 2, 1e-5);
  EXPECT_EQ(compute["int8_matmul"]["tolerance"], 1.0 / 256);
  EXPECT_EQ(compute["nf4"]["packed_bytes"], 2048);
  EXPECT_EQ(compute["int8_blockwise"]["packed_bytes"], 4096);
  EXPECT_EQ(compute["int8_matmul"]["elements"], 32 * 48);
  EXPECT_TRUE(b.details["steps"].contains("bitsandbytes-compute"));
  // python_runtime is judged on its own.
  EXPECT_EQ(r.result.status, ProbeStatus::pass) << r.result.reason;
}

TEST(PythonBitsandbytes, NotAskedForMeansNoResultAndNoGpuWork) {
  PythonOptions o;
  o.python = real_python();
  std::string fixtures = test::fixtures_dir() + "/python/";
  o.env["PYTHONPATH"] = fixtures + "fake_torch_cuda:" + fixtures + "fake_bnb_cuda";
  auto r = probe_python_runtime(o);
  EXPECT_FALSE(r.bitsandbytes.has_value());
  EXPECT_EQ(r.facts["bitsandbytes"]["native"]["loads"], true);
  EXPECT_EQ(r.facts["bitsandbytes"]["compute"]["checked"], false);
}

TEST(PythonBitsandbytes, NotInstalledIsAWarning) {
  auto r = with_bitsandbytes("");
  const ProbeResult& b = bnb_result(r);
  EXPECT_EQ(b.status, ProbeStatus::warn);
  EXPECT_TRUE(contains(b.reason, "bitsandbytes is not installed for ")) << b.reason;
}

TEST(PythonBitsandbytes, ImportFailureFails) {
  auto r = with_bitsandbytes("fake_bnb_import_error");
  const ProbeResult& b = bnb_result(r);
  EXPECT_EQ(b.status, ProbeStatus::fail);
  EXPECT_EQ(b.reason,
            "bitsandbytes 0.41.1 cannot be imported: ModuleNotFoundError: No module named 'scipy'");
  EXPECT_EQ(r.facts["bitsandbytes"]["compute"]["checked"], false);
}

TEST(PythonBitsandbytes, NativeLibraryThatDoesNotLoadFails) {
  auto r = with_bitsandbytes("fake_bnb_broken");
  const ProbeResult& b = bnb_result(r);
  EXPECT_EQ(b.status, ProbeStatus::fail);
  EXPECT_EQ(b.reason,
            "bitsandbytes 0.45.0 is installed but its native CUDA library does not load: "
            "libcudart.so.12: cannot open shared object file: No such file or directory");
  EXPECT_EQ(r.facts["bitsandbytes"]["compute"]["checked"], false);  // nothing to run
}

TEST(PythonBitsandbytes, NativeLibraryCrashFails) {
  auto r = with_bitsandbytes("fake_bnb_segfault");
  const ProbeResult& b = bnb_result(r);
  EXPECT_EQ(b.status, ProbeStatus::fail);
  EXPECT_EQ(b.reason,
            "bitsandbytes 0.43.1 cannot be imported: killed by signal 11 (SIGSEGV) during import "
            "bitsandbytes");
  EXPECT_EQ(r.result.status, ProbeStatus::pass);  // the crash costs only its own step
}

TEST(PythonBitsandbytes, KernelThatCannotLaunchFailsWithTheFix) {
  auto r = with_bitsandbytes("fake_bnb_cuda", {{"FAKE_BNB_FAULT", "quantize-raises"}});
  const ProbeResult& b = bnb_result(r);
  EXPECT_EQ(b.status, ProbeStatus::fail);
  EXPECT_TRUE(
      contains(b.reason,
               "bitsandbytes 0.45.5 cannot run its 4-bit nf4 quantise/dequantise round trip on "
               "Orin (nvgpu), capability 8.7: RuntimeError: Error named symbol not found at "
               "line 233 in file /src/csrc/ops.cu; its library has no kernels for this GPU"))
      << b.reason;
  EXPECT_TRUE(contains(b.reason, "https://github.com/dusty-nv/jetson-containers")) << b.reason;
}

TEST(PythonBitsandbytes, ReleaseWithout4BitFails) {
  auto r = with_bitsandbytes("fake_bnb_cuda", {{"FAKE_BNB_FAULT", "no-4bit"}});
  const ProbeResult& b = bnb_result(r);
  EXPECT_EQ(b.status, ProbeStatus::fail);
  EXPECT_TRUE(contains(b.reason, "AttributeError")) << b.reason;
  EXPECT_TRUE(
      contains(b.reason, "this bitsandbytes has no 4-bit quantisation; 0.39 or later is needed"))
      << b.reason;
}

TEST(PythonBitsandbytes, Nf4RoundTripBeyondToleranceFails) {
  auto r = with_bitsandbytes("fake_bnb_cuda", {{"FAKE_BNB_FAULT", "nf4-off"}});
  const ProbeResult& b = bnb_result(r);
  EXPECT_EQ(b.status, ProbeStatus::fail);
  EXPECT_EQ(r.facts["bitsandbytes"]["compute"]["nf4"]["beyond_tolerance"], 1);
  EXPECT_GT(b.values.at("nf4_max_error_ratio").value, 1.0);
  EXPECT_TRUE(
      contains(b.reason,
               "its 4-bit nf4 quantise/dequantise round trip on Orin (nvgpu), capability 8.7 "
               "is off by up to"))
      << b.reason;
  EXPECT_TRUE(contains(b.reason, "in 1 of 4096 values, compared with torch on the CPU"))
      << b.reason;
}

TEST(PythonBitsandbytes, EightBitRoundTripBeyondToleranceFails) {
  auto r = with_bitsandbytes("fake_bnb_cuda", {{"FAKE_BNB_FAULT", "int8-blockwise-off"}});
  const ProbeResult& b = bnb_result(r);
  EXPECT_EQ(b.status, ProbeStatus::fail);
  EXPECT_EQ(r.facts["bitsandbytes"]["compute"]["nf4"]["beyond_tolerance"], 0);
  EXPECT_EQ(r.facts["bitsandbytes"]["compute"]["int8_blockwise"]["beyond_tolerance"], 1);
  EXPECT_TRUE(contains(b.reason, "its 8-bit blockwise quantise/dequantise round trip")) << b.reason;
}

TEST(PythonBitsandbytes, QuantisationThatDoesNotPackFails) {
  auto r = with_bitsandbytes("fake_bnb_cuda", {{"FAKE_BNB_FAULT", "no-packing"}});
  const ProbeResult& b = bnb_result(r);
  EXPECT_EQ(b.status, ProbeStatus::fail);
  EXPECT_TRUE(contains(b.reason,
                       "stored 4096 bytes for 4096 values where the format needs 2048: it did not "
                       "quantise"))
      << b.reason;
}

TEST(PythonBitsandbytes, Int8MatmulThatIsWrongFails) {
  auto r = with_bitsandbytes("fake_bnb_cuda", {{"FAKE_BNB_FAULT", "int8-matmul-wrong"}});
  const ProbeResult& b = bnb_result(r);
  EXPECT_EQ(b.status, ProbeStatus::fail);
  EXPECT_TRUE(contains(b.reason, "its int8 matmul on Orin (nvgpu), capability 8.7 is off by up to"))
      << b.reason;
  EXPECT_GT(r.facts["bitsandbytes"]["compute"]["int8_matmul"]["beyond_tolerance"].get<int>(), 1000);
}

TEST(PythonBitsandbytes, HangTimesOut) {
  auto r = with_bitsandbytes("fake_bnb_cuda", {{"FAKE_BNB_FAULT", "hang"}}, 5s);
  const ProbeResult& b = bnb_result(r);
  EXPECT_EQ(b.status, ProbeStatus::fail);
  EXPECT_EQ(r.facts["bitsandbytes"]["compute"]["error"],
            "timed out after 5.0 s (stopped with SIGTERM) during bitsandbytes int8 matmul");
  EXPECT_TRUE(contains(b.reason,
                       "bitsandbytes 0.45.5's GPU checks on Orin (nvgpu), capability 8.7 did not "
                       "finish: timed out"))
      << b.reason;
}

TEST(PythonBitsandbytes, SegfaultInAKernelFails) {
  auto r = with_bitsandbytes("fake_bnb_cuda", {{"FAKE_BNB_FAULT", "segfault"}});
  const ProbeResult& b = bnb_result(r);
  EXPECT_EQ(b.status, ProbeStatus::fail);
  EXPECT_EQ(r.facts["bitsandbytes"]["compute"]["error"],
            "killed by signal 11 (SIGSEGV) during bitsandbytes nf4 round trip");
  EXPECT_EQ(r.facts["bitsandbytes"]["native"]["loads"], true);  // the native step's facts stay
}

TEST(PythonBitsandbytes, TorchWithoutAGpuFailsFirst) {
  auto r = with_bitsandbytes("fake_bnb_cuda", {{"FAKE_TORCH_CUDA_AVAILABLE", "0"}});
  const ProbeResult& b = bnb_result(r);
  EXPECT_EQ(b.status, ProbeStatus::fail);
  EXPECT_TRUE(contains(b.reason,
                       "bitsandbytes 0.45.5 needs a torch that reaches the GPU: torch "
                       "2.5.0a0+872d972e41.nv24.08 (CUDA 12.6) cannot use the GPU"))
      << b.reason;
  EXPECT_EQ(r.facts["bitsandbytes"]["compute"]["checked"], false);
}

TEST(PythonBitsandbytes, MissingInterpreterIsNotRun) {
  PythonOptions o;
  o.python = "jetgate-no-such-python3";
  o.bitsandbytes = true;
  auto r = probe_python_runtime(o);
  ASSERT_TRUE(r.bitsandbytes.has_value());
  EXPECT_EQ(r.bitsandbytes->status, ProbeStatus::not_run);
  EXPECT_EQ(r.bitsandbytes->reason,
            "jetgate-no-such-python3: not found in PATH; pass --python PATH");
}

// --- outputs that do not fit -------------------------------------------------------

proc::ChildOutcome exited_with(const std::string& output) {
  proc::ChildOutcome o;
  o.kind = proc::ChildOutcome::Kind::exited;
  o.exit_code = 0;
  o.output = output;
  return o;
}

std::string recorded(const std::string& name) {
  return test::read_file(test::fixtures_dir() + "/python/recorded/" + name);
}

// The recorded Orin with a loading CUDA library and the given compute document.
PythonStepOutcomes orin_with_bitsandbytes(const json& compute_doc) {
  PythonStepOutcomes s;
  s.bitsandbytes_probe = true;
  s.basics = exited_with(recorded("orin_jp61_basics.json"));
  s.torch = exited_with(recorded("orin_jp61_torch.json"));
  s.torch_compute = exited_with(recorded("orin_jp61_torch_compute.json"));
  json native = json::parse(recorded("orin_jp61_bitsandbytes_native.json"));
  native["facts"] = {
      {"loads", true},     {"cuda", true},     {"library", "libbitsandbytes_cuda126.so"},
      {"backend", "CUDA"}, {"error", nullptr}, {"errors", json::object()}};
  s.bitsandbytes_native = exited_with(native.dump());
  s.bitsandbytes_compute = exited_with(compute_doc.dump());
  return s;
}

TEST(PythonBitsandbytesOutput, RecordedComputePasses) {
  auto r = interpret_python_steps(
      "python3",
      orin_with_bitsandbytes(json::parse(recorded("fake_packages_bitsandbytes_compute.json"))));
  ASSERT_TRUE(r.bitsandbytes.has_value());
  EXPECT_EQ(r.bitsandbytes->status, ProbeStatus::pass) << r.bitsandbytes->reason;
  EXPECT_EQ(json::parse(r.facts.dump()), r.facts);
}

// A source checkout on PYTHONPATH (how it was run on the H200) has no package
// metadata: the version comes from the module itself.
TEST(PythonBitsandbytesOutput, VersionFromTheModuleWithoutPackageMetadata) {
  auto steps =
      orin_with_bitsandbytes(json::parse(recorded("fake_packages_bitsandbytes_compute.json")));
  json basics = json::parse(recorded("orin_jp61_basics.json"));
  basics["facts"]["bitsandbytes_metadata_version"] = nullptr;
  basics["facts"]["bitsandbytes_module_found"] = true;
  steps.basics = exited_with(basics.dump());
  json native = json::parse(steps.bitsandbytes_native->output);
  native["facts"]["module_version"] = "0.50.2.dev0";
  steps.bitsandbytes_native = exited_with(native.dump());
  auto r = interpret_python_steps("python3", steps);
  EXPECT_EQ(r.facts["bitsandbytes"]["version"], "0.50.2.dev0") << r.facts["bitsandbytes"].dump();
  ASSERT_TRUE(r.bitsandbytes.has_value());
  EXPECT_TRUE(contains(r.bitsandbytes->reason, "bitsandbytes 0.50.2.dev0"))
      << r.bitsandbytes->reason;
}

TEST(PythonBitsandbytesOutput, WrongTypesAndMissingChecksNeverPass) {
  json doc = json::parse(recorded("fake_packages_bitsandbytes_compute.json"));
  doc["facts"]["fp4"]["beyond_tolerance"] = "0";
  auto r = interpret_python_steps("python3", orin_with_bitsandbytes(doc));
  EXPECT_EQ(r.bitsandbytes->status, ProbeStatus::fail);
  EXPECT_TRUE(r.facts["bitsandbytes"]["compute"]["fp4"]["beyond_tolerance"].is_null());
  EXPECT_TRUE(contains(r.bitsandbytes->reason, "did not report how far it is from the reference"))
      << r.bitsandbytes->reason;

  doc = json::parse(recorded("fake_packages_bitsandbytes_compute.json"));
  doc["facts"].erase("int8_matmul");
  r = interpret_python_steps("python3", orin_with_bitsandbytes(doc));
  EXPECT_EQ(r.bitsandbytes->status, ProbeStatus::fail);
  EXPECT_TRUE(contains(r.bitsandbytes->reason, "cannot run its int8 matmul"))
      << r.bitsandbytes->reason;

  doc = json::parse(recorded("fake_packages_bitsandbytes_compute.json"));
  doc["facts"] = {
      {"errors", {{"import bitsandbytes.functional", "ImportError: cannot import name 'lib'"}}}};
  r = interpret_python_steps("python3", orin_with_bitsandbytes(doc));
  EXPECT_EQ(r.bitsandbytes->status, ProbeStatus::fail);
  EXPECT_TRUE(contains(r.bitsandbytes->reason, "ImportError: cannot import name 'lib'"))
      << r.bitsandbytes->reason;
}

TEST(PythonBitsandbytesOutput, ALibraryWithoutCudaFails) {
  PythonStepOutcomes s = orin_with_bitsandbytes(json::object());
  json native = json::parse(s.bitsandbytes_native->output);
  native["facts"]["cuda"] = false;
  native["facts"]["library"] = "libbitsandbytes_cpu.so";
  s.bitsandbytes_native = exited_with(native.dump());
  s.bitsandbytes_compute.reset();
  auto r = interpret_python_steps("python3", s);
  EXPECT_EQ(r.bitsandbytes->status, ProbeStatus::fail);
  EXPECT_EQ(r.bitsandbytes->reason,
            "bitsandbytes 0.45.0 loaded a library without CUDA support "
            "(libbitsandbytes_cpu.so): its GPU kernels cannot run; install the CUDA build "
            "of bitsandbytes");
}

}  // namespace
}  // namespace jetgate::probes
