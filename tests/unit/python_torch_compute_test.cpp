// SPDX-License-Identifier: Apache-2.0
// python_runtime's kernel checks: a torch that sees the GPU must also run its
// own kernels, cuBLAS and cuDNN on it and get the CPU's numbers. Every way
// that fails on a Jetson is played by the fake torch in
// tests/fixtures/python/fake_torch_cuda (FAKE_TORCH_* variables, see its
// _faults.py) under the real interpreter.
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

// The fake Jetson torch, with FAKE_TORCH_* settings.
PythonRuntime fake_torch(std::map<std::string, std::string> env,
                         std::chrono::milliseconds timeout = 20s) {
  PythonOptions o;
  o.python = real_python();
  o.timeout = timeout;
  env["PYTHONPATH"] = test::fixtures_dir() + "/python/fake_torch_cuda";
  o.env = std::move(env);
  return probe_python_runtime(o);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

constexpr const char* kJetsonTorchDoc =
    "https://docs.nvidia.com/deeplearning/frameworks/install-pytorch-jetson-platform/index.html";
// torch 2.9.1+cu128 for aarch64, as reported on a Jetson Thor in
// https://github.com/OpenRAL/openral/pull/167: SBSA wheels for data-centre GPUs.
constexpr const char* kSbsaArchList = "sm_80 sm_90 sm_100 sm_120";

// --- the arch list --------------------------------------------------------------

TEST(PythonTorchCompute, ArchListWithoutTheCapabilityFailsWithTheJetsonFix) {
  auto r = fake_torch(
      {{"FAKE_TORCH_ARCH_LIST", kSbsaArchList}, {"FAKE_TORCH_FAULT", "no-kernel-image"}});
  const std::string& why = r.result.reason;
  ASSERT_EQ(r.result.status, ProbeStatus::fail) << why;
  EXPECT_EQ(r.facts["torch"]["arch_list"], json::array({"sm_80", "sm_90", "sm_100", "sm_120"}));
  EXPECT_EQ(r.result.details["arch"]["match"], "none");
  EXPECT_TRUE(r.result.details["arch"]["entry"].is_null());
  EXPECT_TRUE(contains(
      why,
      "torch 2.5.0a0+872d972e41.nv24.08 (CUDA 12.6) cannot run kernels on Orin (nvgpu), "
      "capability 8.7: its arch list (sm_80, sm_90, sm_100, sm_120) has no sm_87 and no "
      "compute_XY PTX at or below 8.7 (sm_80 SASS runs on desktop GPUs only, not on Tegra)"))
      << why;
  EXPECT_TRUE(contains(
      why, "its own elementwise kernel: RuntimeError: CUDA error: no kernel image is available"))
      << why;
  EXPECT_TRUE(contains(why, kJetsonTorchDoc)) << why;
  EXPECT_TRUE(contains(why, "https://github.com/dusty-nv/jetson-containers")) << why;
  // cuBLAS ships its own kernels: the matmul ran; torch's did not.
  EXPECT_EQ(r.facts["torch"]["compute"]["matmul"]["ran"], true);
  EXPECT_EQ(r.facts["torch"]["compute"]["elementwise"]["ran"], false);
}

TEST(PythonTorchCompute, ArchListWithoutTheCapabilityIsAWarningWhenTheKernelsRunAnyway) {
  auto r = fake_torch({{"FAKE_TORCH_ARCH_LIST", kSbsaArchList}});
  EXPECT_EQ(r.result.status, ProbeStatus::warn) << r.result.reason;
  EXPECT_TRUE(contains(r.result.reason,
                       "elementwise, matmul (cuBLAS) and conv2d match the CPU, but its arch "
                       "list (sm_80, sm_90, sm_100, sm_120) has no sm_87"))
      << r.result.reason;
  EXPECT_TRUE(contains(r.result.reason, kJetsonTorchDoc)) << r.result.reason;
}

TEST(PythonTorchCompute, PtxThatRunsPassesAndSaysItIsJitCompiled) {
  auto r = fake_torch({{"FAKE_TORCH_ARCH_LIST", "sm_53 sm_62 sm_72 compute_72"}});
  EXPECT_EQ(r.result.status, ProbeStatus::pass) << r.result.reason;
  EXPECT_EQ(r.result.details["arch"]["match"], "ptx");
  EXPECT_EQ(r.result.details["arch"]["entry"], "compute_72");
  EXPECT_TRUE(contains(r.result.reason,
                       "runs compute_72 PTX, JIT-compiled by the driver (no SASS for "
                       "capability 8.7 in its arch list)"))
      << r.result.reason;
}

TEST(PythonTorchCompute, PtxTheDriverCannotCompileFails) {
  auto r = fake_torch(
      {{"FAKE_TORCH_ARCH_LIST", "sm_72 compute_72"}, {"FAKE_TORCH_FAULT", "ptx-unsupported"}});
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  EXPECT_EQ(r.result.details["arch"]["match"], "ptx");
  EXPECT_TRUE(contains(r.result.reason,
                       "cannot run its own elementwise kernel on Orin (nvgpu), capability 8.7: "
                       "RuntimeError: CUDA error: the provided PTX was compiled with an "
                       "unsupported toolchain."))
      << r.result.reason;
  EXPECT_TRUE(contains(r.result.reason, kJetsonTorchDoc)) << r.result.reason;
}

TEST(PythonTorchCompute, PtxNewerThanTheGpuDoesNotCount) {
  auto r = fake_torch(
      {{"FAKE_TORCH_ARCH_LIST", "sm_90 compute_90"}, {"FAKE_TORCH_FAULT", "no-kernel-image"}});
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  EXPECT_EQ(r.result.details["arch"]["match"], "none");
}

TEST(PythonTorchCompute, NoKernelImageAtTheFirstKernelFailsEvenWithAMatchingList) {
  auto r = fake_torch({{"FAKE_TORCH_FAULT", "no-kernel-image"}});
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  EXPECT_EQ(r.result.details["arch"]["match"], "sass");
  EXPECT_TRUE(contains(r.result.reason,
                       "cannot run its own elementwise kernel on Orin (nvgpu), capability 8.7: "
                       "RuntimeError: CUDA error: no kernel image is available for execution "
                       "on the device; install NVIDIA's PyTorch wheel"))
      << r.result.reason;
}

TEST(PythonTorchCompute, DesktopGpuFixNamesItsArchitecture) {
  auto r = fake_torch({{"FAKE_TORCH_CAPABILITY", "9.0"},
                       {"FAKE_TORCH_INTEGRATED", "0"},
                       {"FAKE_TORCH_ARCH_LIST", "sm_80 sm_86"},
                       {"FAKE_TORCH_FAULT", "no-kernel-image"}});
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  EXPECT_EQ(r.result.details["arch"]["tegra"], false);
  EXPECT_TRUE(contains(r.result.reason,
                       "its arch list (sm_80, sm_86) has no sm_90 and no compute_XY PTX at or "
                       "below 9.0;"))
      << r.result.reason;
  EXPECT_TRUE(contains(r.result.reason,
                       "install a torch build whose torch.cuda.get_arch_list() includes sm_90"))
      << r.result.reason;
  EXPECT_FALSE(contains(r.result.reason, "Tegra")) << r.result.reason;
}

TEST(PythonTorchCompute, DesktopGpuRunsAnOlderMinorCubin) {
  auto r = fake_torch({{"FAKE_TORCH_CAPABILITY", "8.6"},
                       {"FAKE_TORCH_INTEGRATED", "0"},
                       {"FAKE_TORCH_ARCH_LIST", "sm_80"}});
  EXPECT_EQ(r.result.status, ProbeStatus::pass) << r.result.reason;
  EXPECT_TRUE(contains(r.result.reason, "runs sm_80 kernels")) << r.result.reason;
}

// --- wrong numbers ------------------------------------------------------------------

TEST(PythonTorchCompute, MatmulThatReturnsWrongNumbersFails) {
  auto r = fake_torch({{"FAKE_TORCH_FAULT", "wrong-matmul"}});
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  const json& matmul = r.facts["torch"]["compute"]["matmul"];
  EXPECT_EQ(matmul["beyond_tolerance"], 1);
  EXPECT_EQ(matmul["max_abs_error"], 1.0);
  EXPECT_EQ(matmul["max_error_ratio"], 100.0);
  EXPECT_EQ(r.result.values.at("matmul_max_error_ratio").value, 100.0);
  EXPECT_TRUE(contains(r.result.reason,
                       "a matmul (cuBLAS) on Orin (nvgpu), capability 8.7 is off by up to 1 "
                       "(100x its tolerance) in 1 of 5120 values, compared with the CPU: the "
                       "GPU computes wrong numbers"))
      << r.result.reason;
}

TEST(PythonTorchCompute, NanFromTheGpuFails) {
  auto r = fake_torch({{"FAKE_TORCH_FAULT", "nan-matmul"}});
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  EXPECT_EQ(r.facts["torch"]["compute"]["matmul"]["non_finite"], 1);
  EXPECT_TRUE(r.facts["torch"]["compute"]["matmul"]["max_error_ratio"].is_null());
  EXPECT_TRUE(contains(r.result.reason,
                       "a matmul (cuBLAS) on Orin (nvgpu), capability 8.7 returned 1 NaN or "
                       "infinite value(s)"))
      << r.result.reason;
}

TEST(PythonTorchCompute, ConvThatIsWrongFails) {
  auto r = fake_torch({{"FAKE_TORCH_FAULT", "wrong-conv"}});
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  EXPECT_GT(r.facts["torch"]["compute"]["conv"]["beyond_tolerance"].get<int>(), 0);
  EXPECT_TRUE(
      contains(r.result.reason, "a conv2d (cuDNN) on Orin (nvgpu), capability 8.7 is off by up to"))
      << r.result.reason;
  EXPECT_TRUE(contains(r.result.reason, "use the torch built for this JetPack's cuDNN"))
      << r.result.reason;
}

// --- cuDNN ----------------------------------------------------------------------

TEST(PythonTorchCompute, CudnnThatDoesNotMatchFails) {
  auto r = fake_torch({{"FAKE_TORCH_FAULT", "cudnn-mismatch"}});
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  EXPECT_TRUE(r.facts["torch"]["cudnn_version"].is_null());
  EXPECT_TRUE(contains(r.result.reason,
                       "(CUDA 12.6): the cuDNN it loads does not match the one it was built "
                       "with: RuntimeError: cuDNN version incompatibility: PyTorch was compiled  "
                       "against (9, 3, 0) but found runtime version (8, 9, 4)"))
      << r.result.reason;
}

TEST(PythonTorchCompute, CudnnErrorInTheConvFails) {
  auto r = fake_torch({{"FAKE_TORCH_FAULT", "cudnn-error"}});
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  EXPECT_TRUE(contains(r.result.reason,
                       "cannot run a conv2d (cuDNN) on Orin (nvgpu), capability 8.7: "
                       "RuntimeError: GET was unable to find an engine to execute this "
                       "computation; use the torch built for this JetPack's cuDNN"))
      << r.result.reason;
}

TEST(PythonTorchCompute, CudnnLibraryMissingAbortsAndIsNamed) {
  auto r = fake_torch({{"FAKE_TORCH_FAULT", "cudnn-missing-abort"}});
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  EXPECT_EQ(r.facts["torch"]["compute"]["error"],
            "killed by signal 6 (SIGABRT) during conv2d: Could not load library "
            "libcudnn_cnn_infer.so.8. Error: "
            "libcudnn_cnn_infer.so.8: cannot open shared object file: No such file or directory");
  // The torch step's facts survive the compute step's crash.
  EXPECT_EQ(r.facts["torch"]["cuda_version"], "12.6");
  EXPECT_TRUE(contains(r.result.reason,
                       "sees Orin (nvgpu), capability 8.7 but its kernel checks did not finish: "
                       "killed by signal 6 (SIGABRT) during conv2d"))
      << r.result.reason;
  EXPECT_TRUE(contains(r.result.reason, "use the torch built for this JetPack's cuDNN"))
      << r.result.reason;
}

TEST(PythonTorchCompute, TorchWithoutCudnnIsAWarning) {
  auto r = fake_torch({{"FAKE_TORCH_FAULT", "no-cudnn"}});
  EXPECT_EQ(r.result.status, ProbeStatus::warn) << r.result.reason;
  EXPECT_EQ(r.facts["torch"]["cudnn_available"], false);
  EXPECT_EQ(r.facts["torch"]["compute"]["conv"]["backend"], "native");
  EXPECT_TRUE(contains(r.result.reason,
                       "but torch has no cuDNN (torch.backends.cudnn.is_available() is False)"))
      << r.result.reason;
}

// --- crashes and hangs ------------------------------------------------------------

TEST(PythonTorchCompute, HangInAKernelTimesOutAndKeepsTheTorchFacts) {
  auto r = fake_torch({{"FAKE_TORCH_FAULT", "hang-matmul"}}, 5s);
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  std::string error = r.facts["torch"]["compute"]["error"].get<std::string>();
  EXPECT_EQ(error, "timed out after 5.0 s (stopped with SIGTERM) during matmul (cuBLAS)");
  EXPECT_EQ(r.facts["torch"]["device"]["name"], "Orin (nvgpu)");
  EXPECT_TRUE(contains(r.result.reason, "its kernel checks did not finish: timed out"))
      << r.result.reason;
}

TEST(PythonTorchCompute, SegfaultInAKernelIsRecorded) {
  auto r = fake_torch({{"FAKE_TORCH_FAULT", "segfault-conv"}});
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  EXPECT_EQ(r.facts["torch"]["compute"]["error"], "killed by signal 11 (SIGSEGV) during conv2d");
  EXPECT_EQ(r.result.details["steps"]["torch-compute"]["outcome"], "killed by signal 11 (SIGSEGV)");
}

// --- outputs that do not fit ---------------------------------------------------------

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

PythonStepOutcomes recorded_orin_with_compute(const json& compute_doc) {
  PythonStepOutcomes s;
  s.basics = exited_with(recorded("orin_jp61_basics.json"));
  s.torch = exited_with(recorded("orin_jp61_torch.json"));
  s.torch_compute = exited_with(compute_doc.dump());
  return s;
}

TEST(PythonTorchComputeOutput, ACheckWithoutFiguresDoesNotPass) {
  json doc = json::parse(recorded("orin_jp61_torch_compute.json"));
  doc["facts"]["matmul"]["max_error_ratio"] = "0";
  doc["facts"]["conv"]["beyond_tolerance"] = -0.5;
  auto r = interpret_python_steps("python3", recorded_orin_with_compute(doc));
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  EXPECT_TRUE(r.facts["torch"]["compute"]["matmul"]["max_error_ratio"].is_null());
  EXPECT_TRUE(contains(r.result.reason,
                       "a matmul (cuBLAS) on Orin, capability 8.7 did not report how far it is "
                       "from the reference"))
      << r.result.reason;
}

TEST(PythonTorchComputeOutput, AMissingCheckDoesNotPass) {
  json doc = json::parse(recorded("orin_jp61_torch_compute.json"));
  doc["facts"].erase("conv");
  auto r = interpret_python_steps("python3", recorded_orin_with_compute(doc));
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  EXPECT_TRUE(r.facts["torch"]["compute"]["conv"].is_null());
  EXPECT_TRUE(
      contains(r.result.reason, "cannot run a conv2d (cuDNN) on Orin, capability 8.7: not run"))
      << r.result.reason;
}

TEST(PythonTorchComputeOutput, NoComputeStepMeansNoPass) {
  PythonStepOutcomes s = recorded_orin_with_compute(json::object());
  s.torch_compute.reset();
  auto r = interpret_python_steps("python3", s);
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  EXPECT_TRUE(contains(r.result.reason, "but its kernel checks did not run")) << r.result.reason;
}

TEST(PythonTorchComputeOutput, AnUnreadableArchListIsDecidedByTheKernels) {
  json torch = json::parse(recorded("orin_jp61_torch.json"));
  torch["facts"]["arch_list"] = json::array({"gfx90a", 87});
  PythonStepOutcomes s =
      recorded_orin_with_compute(json::parse(recorded("orin_jp61_torch_compute.json")));
  s.torch = exited_with(torch.dump());
  auto r = interpret_python_steps("python3", s);
  EXPECT_EQ(r.result.status, ProbeStatus::pass) << r.result.reason;
  EXPECT_EQ(r.facts["torch"]["arch_list"], json::array({"gfx90a"}));
  EXPECT_EQ(r.result.details["arch"]["match"], "unknown");
  EXPECT_TRUE(contains(r.result.reason, "arch list unavailable, so the kernel checks decided"))
      << r.result.reason;
}

}  // namespace
}  // namespace jetgate::probes
