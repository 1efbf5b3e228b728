// SPDX-License-Identifier: Apache-2.0
#include "jetgate/probes/python_runtime.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "test_support.hpp"

namespace jetgate::probes {
namespace {

using namespace std::chrono_literals;
using nlohmann::json;

std::string fixture(const std::string& rel) {
  return test::fixtures_dir() + "/python/" + rel;
}

// Debian's interpreter starts in ~40 ms; the pyenv shim first on PATH here
// takes ~300 ms, which would eat the short timeouts below.
std::string real_python() {
  return ::access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
}

PythonRuntime probe_with(const std::vector<std::string>& fake_packages,
                         std::chrono::milliseconds timeout = 10s,
                         std::map<std::string, std::string> env = {}) {
  PythonOptions o;
  o.python = real_python();
  o.timeout = timeout;
  std::string path;
  for (const auto& p : fake_packages) path += (path.empty() ? "" : ":") + fixture(p);
  if (!path.empty()) env["PYTHONPATH"] = path;
  o.env = std::move(env);
  return probe_python_runtime(o);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// --- the real interpreter and fake packages -----------------------------------

TEST(PythonRuntimeLive, RealPythonWithoutTorchIsAWarningWithInterpreterFacts) {
  auto r = probe_with({});
  const json& f = r.facts;
  ASSERT_EQ(f["found"], true) << f.dump(2);
  if (f["torch"]["installed"] == true) GTEST_SKIP() << real_python() << " has torch installed";
  EXPECT_TRUE(f["executable"].is_string());
  EXPECT_TRUE(f["version"].is_string());
  EXPECT_TRUE(f["machine"].is_string());
  EXPECT_EQ(f["torch"]["installed"], false);
  EXPECT_TRUE(f["torch"]["version"].is_null());
  EXPECT_EQ(r.result.id, "python_runtime");
  EXPECT_EQ(r.result.status, ProbeStatus::warn);
  EXPECT_TRUE(contains(r.result.reason, "torch is not installed")) << r.result.reason;
  // torch absent: no torch step was started.
  EXPECT_FALSE(r.result.details["steps"].contains("torch"));
}

TEST(PythonRuntimeLive, CudaTorchOnAJetsonPasses) {
  auto r = probe_with({"fake_torch_cuda"});
  const json& t = r.facts["torch"];
  ASSERT_EQ(r.result.status, ProbeStatus::pass) << r.result.reason << "\n" << r.facts.dump(2);
  EXPECT_EQ(t["installed"], true);
  EXPECT_EQ(t["metadata_version"], "2.5.0a0+872d972e41.nv24.08");
  EXPECT_EQ(t["version"], "2.5.0a0+872d972e41.nv24.08");
  EXPECT_EQ(t["cuda_build"], true);
  EXPECT_EQ(t["cuda_version"], "12.6");
  EXPECT_EQ(t["cuda_available"], true);
  EXPECT_EQ(t["device_count"], 1);
  EXPECT_EQ(t["device"]["name"], "Orin (nvgpu)");
  EXPECT_EQ(t["device"]["capability"], "8.7");
  EXPECT_EQ(t["device"]["total_memory_bytes"], 64335933440LL);
  EXPECT_EQ(t["cudnn_version"], 90300);
  EXPECT_EQ(r.result.values.at("device0_total_memory").value, 64335933440.0);
  EXPECT_EQ(r.result.values.at("device0_total_memory").unit, "bytes");
  EXPECT_EQ(t["arch_list"], json::array({"sm_87"}));
  EXPECT_EQ(t["device"]["integrated"], true);
  EXPECT_EQ(t["cudnn_available"], true);
  // Real work on the device, each check against the CPU.
  const json& compute = t["compute"];
  EXPECT_EQ(compute["checked"], true);
  for (const char* check : {"elementwise", "matmul", "conv"}) {
    EXPECT_EQ(compute[check]["ran"], true) << check;
    EXPECT_EQ(compute[check]["beyond_tolerance"], 0) << check;
    EXPECT_EQ(compute[check]["max_abs_error"], 0.0) << check;
    EXPECT_EQ(compute[check]["tolerance"], 0.01) << check;
    EXPECT_EQ(r.result.values.at(std::string(check) + "_max_error_ratio").value, 0.0) << check;
  }
  EXPECT_EQ(compute["matmul"]["elements"], 64 * 80);
  EXPECT_EQ(compute["conv"]["backend"], "cudnn");
  EXPECT_EQ(r.result.details["arch"]["match"], "sass");
  EXPECT_EQ(r.result.details["arch"]["entry"], "sm_87");
  EXPECT_EQ(r.result.details["arch"]["tegra"], true);
  EXPECT_TRUE(r.result.details["steps"].contains("torch-compute"));
  EXPECT_EQ(r.result.reason,
            "torch 2.5.0a0+872d972e41.nv24.08 (CUDA 12.6) uses Orin (nvgpu), capability 8.7: runs "
            "sm_87 kernels; "
            "elementwise, matmul (cuBLAS) and conv2d (cuDNN 90300) match the CPU");
  EXPECT_EQ(r.facts["bitsandbytes"]["installed"], false);
  EXPECT_EQ(r.facts["bitsandbytes"]["native"]["checked"], false);
  EXPECT_FALSE(r.bitsandbytes.has_value());  // not asked for
}

TEST(PythonRuntimeLive, CudaBuildThatSeesNoGpuFails) {
  auto r = probe_with({"fake_torch_cuda"}, 10s, {{"FAKE_TORCH_CUDA_AVAILABLE", "0"}});
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  EXPECT_EQ(r.facts["torch"]["cuda_available"], false);
  EXPECT_TRUE(contains(r.result.reason, "torch.cuda.is_available() is not True"))
      << r.result.reason;
  // No GPU, no kernel checks.
  EXPECT_EQ(r.facts["torch"]["compute"]["checked"], false);
  EXPECT_FALSE(r.result.details["steps"].contains("torch-compute"));
}

TEST(PythonRuntimeLive, CpuOnlyTorchFails) {
  auto r = probe_with({"fake_torch_cpu"});
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  EXPECT_EQ(r.facts["torch"]["cuda_build"], false);
  EXPECT_TRUE(r.facts["torch"]["cuda_version"].is_null());
  EXPECT_TRUE(contains(r.result.reason, "torch 2.5.1 is a CPU-only build")) << r.result.reason;
}

TEST(PythonRuntimeLive, ImportErrorIsRecorded) {
  auto r = probe_with({"fake_torch_import_error"});
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  EXPECT_EQ(r.facts["torch"]["imported"], false);
  std::string error = r.facts["torch"]["error"].get<std::string>();
  EXPECT_EQ(
      error,
      "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory");
  EXPECT_TRUE(contains(r.result.reason, "cannot be imported: ImportError: libcudnn.so.8"))
      << r.result.reason;
}

TEST(PythonRuntimeLive, SegfaultOnImportIsRecordedAndKeepsTheOtherFacts) {
  auto r = probe_with({"fake_torch_segfault"});
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  EXPECT_EQ(r.facts["torch"]["error"], "killed by signal 11 (SIGSEGV) during import torch");
  EXPECT_EQ(r.facts["torch"]["metadata_version"], "2.3.0");  // from metadata, before the crash
  EXPECT_TRUE(r.facts["version"].is_string());
  EXPECT_TRUE(contains(r.result.reason, "torch 2.3.0 is installed")) << r.result.reason;
}

TEST(PythonRuntimeLive, HangOnImportTimesOut) {
  // Long enough for the basics step on a loaded machine, short for a test.
  auto r = probe_with({"fake_torch_hang"}, 3s);
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  ASSERT_TRUE(r.facts["torch"]["error"].is_string()) << r.facts.dump(2);
  std::string error = r.facts["torch"]["error"].get<std::string>();
  EXPECT_EQ(error.rfind("timed out after 3.0 s", 0), 0u) << error;
  EXPECT_TRUE(contains(error, "during import torch")) << error;
  EXPECT_EQ(r.facts["found"], true);
}

TEST(PythonRuntimeLive, BitsandbytesWhoseNativeLibraryFailsIsRecordedBesideAPass) {
  auto r = probe_with({"fake_torch_cuda", "fake_bnb_broken"});
  const json& bnb = r.facts["bitsandbytes"];
  EXPECT_EQ(r.result.status, ProbeStatus::pass);
  EXPECT_EQ(bnb["installed"], true);
  EXPECT_EQ(bnb["version"], "0.45.0");
  EXPECT_EQ(bnb["native"]["checked"], true);
  EXPECT_EQ(bnb["native"]["loads"], false);
  EXPECT_EQ(bnb["native"]["backend"], "CUDA");
  EXPECT_EQ(bnb["native"]["error"],
            "libcudart.so.12: cannot open shared object file: No such file or directory");
  EXPECT_TRUE(
      contains(r.result.reason,
               "bitsandbytes 0.45.0 is installed but its native CUDA library does not load"))
      << r.result.reason;
}

TEST(PythonRuntimeLive, BitsandbytesCrashLosesOnlyItsOwnStep) {
  auto r = probe_with({"fake_torch_cuda", "fake_bnb_segfault"});
  EXPECT_EQ(r.result.status, ProbeStatus::pass);
  EXPECT_EQ(r.facts["torch"]["cuda_version"], "12.6");
  EXPECT_EQ(r.facts["bitsandbytes"]["version"], "0.43.1");
  EXPECT_EQ(r.facts["bitsandbytes"]["native"]["loads"], false);
  EXPECT_EQ(r.facts["bitsandbytes"]["native"]["error"],
            "killed by signal 11 (SIGSEGV) during import bitsandbytes");
}

TEST(PythonRuntimeLive, BitsandbytesWithCudaLibraryLoads) {
  auto r = probe_with({"fake_torch_cuda", "fake_bnb_cuda"});
  const json& native = r.facts["bitsandbytes"]["native"];
  EXPECT_EQ(native["loads"], true);
  EXPECT_EQ(native["cuda"], true);
  EXPECT_EQ(native["library"], "libbitsandbytes_cuda126.so");
  EXPECT_FALSE(contains(r.result.reason, "bitsandbytes")) << r.result.reason;
}

TEST(PythonRuntimeLive, MissingInterpreterIsNotRun) {
  PythonOptions o;
  o.python = "jetgate-no-such-python3";
  auto r = probe_python_runtime(o);
  EXPECT_EQ(r.result.status, ProbeStatus::not_run);
  EXPECT_EQ(r.result.reason, "jetgate-no-such-python3: not found in PATH; pass --python PATH");
  EXPECT_EQ(r.facts["found"], false);
  EXPECT_TRUE(r.facts["torch"]["installed"].is_null());
}

TEST(PythonRuntimeLive, InterpreterThatPrintsGarbageFails) {
  test::TempDir t;
  std::string fake = t.write("python3", "#!/bin/sh\necho 'Welcome to not-python'\n");
  ASSERT_EQ(::chmod(fake.c_str(), 0755), 0);
  PythonOptions o;
  o.python = fake;
  auto r = probe_python_runtime(o);
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  EXPECT_EQ(r.facts["error"], "probe script output is not JSON: Welcome to not-python");
}

TEST(PythonRuntimeLive, InterpreterThatCannotRunTheScriptFailsWithItsLastErrorLine) {
  test::TempDir t;
  std::string fake = t.write("python3",
                             "#!/bin/sh\necho 'Traceback (most recent call last):' >&2\n"
                             "echo 'SyntaxError: invalid syntax' >&2\nexit 1\n");
  ASSERT_EQ(::chmod(fake.c_str(), 0755), 0);
  PythonOptions o;
  o.python = fake;
  auto r = probe_python_runtime(o);
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  EXPECT_EQ(r.facts["error"], "exit status 1: SyntaxError: invalid syntax");
}

TEST(PythonRuntimeLive, LeavesNoBytecodeInThePackagesItImports) {
  (void)probe_with({"fake_torch_cuda", "fake_bnb_cuda"});
  for (const auto& e : std::filesystem::recursive_directory_iterator(fixture("")))
    EXPECT_NE(e.path().filename(), "__pycache__") << e.path();
}

// JetPack 4 ships Python 3.6: the script must parse there. ast's
// feature_version rejects the grammar newer Pythons added (walrus, positional-
// only parameters, match, ...).
TEST(PythonProbeScript, ParsesAsPython36) {
  proc::ProcessSpec spec;
  spec.argv = {
      real_python(), "-c",
      "import ast, sys; ast.parse(open(sys.argv[1]).read(), feature_version=(3, 6)); print('ok')",
      test::source_dir() + "/data/python_probe.py"};
  auto o = proc::run_process(spec, proc::ChildLimits{});
  EXPECT_EQ(o.kind, proc::ChildOutcome::Kind::exited) << o.describe();
  EXPECT_EQ(o.exit_code, 0) << o.error_text;
  EXPECT_EQ(o.output, "ok\n") << o.error_text;
}

// --- recorded outputs ---------------------------------------------------------

proc::ChildOutcome exited_with(const std::string& output, const std::string& err = {}) {
  proc::ChildOutcome o;
  o.kind = proc::ChildOutcome::Kind::exited;
  o.exit_code = 0;
  o.output = output;
  o.error_text = err;
  return o;
}

std::string recorded(const std::string& name) {
  return test::read_file(fixture("recorded/" + name));
}

PythonStepOutcomes recorded_orin() {
  PythonStepOutcomes s;
  s.basics = exited_with(recorded("orin_jp61_basics.json"));
  s.torch = exited_with(recorded("orin_jp61_torch.json"));
  s.torch_compute = exited_with(recorded("orin_jp61_torch_compute.json"));
  s.bitsandbytes_native = exited_with(recorded("orin_jp61_bitsandbytes_native.json"));
  return s;
}

TEST(PythonProbeOutput, RecordedOrinPassesWithItsFacts) {
  auto r = interpret_python_steps("python3", recorded_orin());
  const json& f = r.facts;
  EXPECT_EQ(r.result.status, ProbeStatus::pass) << r.result.reason;
  EXPECT_EQ(f["machine"], "aarch64");
  EXPECT_EQ(f["version"], "3.10.12");
  EXPECT_EQ(f["torch"]["version"], "2.5.0a0+872d972e41.nv24.08");
  EXPECT_EQ(f["torch"]["cuda_version"], "12.6");
  EXPECT_EQ(f["torch"]["device"]["name"], "Orin");
  EXPECT_EQ(f["torch"]["device"]["capability"], "8.7");
  EXPECT_EQ(
      r.result.reason,
      "torch 2.5.0a0+872d972e41.nv24.08 (CUDA 12.6) uses Orin, capability 8.7: runs sm_87 kernels; "
      "elementwise, matmul (cuBLAS) and conv2d (cuDNN 90300) match the CPU; bitsandbytes 0.45.0 "
      "is installed but its native CUDA library does not load: libcudart.so.12: cannot open shared "
      "object file: No such file or directory");
  // The facts survive a round trip through text, as evidence does.
  EXPECT_EQ(json::parse(f.dump()), f);
}

TEST(PythonProbeOutput, ParsesTheFactsOfADocument) {
  auto facts = parse_probe_document(recorded("orin_jp61_torch.json"), "torch");
  ASSERT_TRUE(facts.ok()) << facts.error().message();
  EXPECT_EQ((*facts)["cuda_version"], "12.6");
}

TEST(PythonProbeOutput, RejectsMalformedOutputsWithWhatWasSeen) {
  auto what = [](std::string_view out, std::string_view step = "torch") {
    auto r = parse_probe_document(out, step);
    return r.ok() ? std::string("ok") : r.error().what;
  };
  EXPECT_EQ(what(""), "probe script output is not JSON: (no output)");
  EXPECT_EQ(what(" \n"), "probe script output is not JSON: (no output)");
  EXPECT_EQ(what("Segmentation fault\n"), "probe script output is not JSON: Segmentation fault");
  std::string whole = recorded("orin_jp61_torch.json");
  std::string half = whole.substr(0, whole.size() / 2);
  EXPECT_EQ(what(half).rfind("probe script output is not JSON: {\"facts\"", 0), 0u);
  EXPECT_EQ(what(std::string("\x7f"
                             "ELF\x02\x01\x01\0\0",
                             9)),
            "probe script output is not JSON: \\x7fELF\\x02\\x01\\x01\\x00\\x00");
  EXPECT_EQ(what("[1, 2]"),
            "probe script output is not a jetgate probe document (format 1): [1, 2]");
  EXPECT_EQ(what(R"({"jetgate_python_probe": 2, "step": "torch", "facts": {}})")
                .rfind("probe script output is not a jetgate probe document", 0),
            0u);
  EXPECT_EQ(what(whole, "basics"), "probe script answered step \"torch\" instead of basics");
  EXPECT_EQ(what(R"({"jetgate_python_probe": 1, "step": "torch"})"),
            "probe script document for step torch has no \"facts\" object");
  EXPECT_EQ(
      what(R"({"jetgate_python_probe": 1, "step": "torch", "error": "unknown step 'torch'"})"),
      "probe script: unknown step 'torch'");
  std::string huge(3u << 20, 'x');
  std::string message = what(huge);
  EXPECT_LT(message.size(), 300u);
  EXPECT_EQ(message.substr(message.size() - 3), "...");
}

TEST(PythonProbeOutput, WrongTypesNeverReachTheFacts) {
  PythonStepOutcomes s = recorded_orin();
  json torch = json::parse(recorded("orin_jp61_torch.json"));
  torch["facts"]["cuda_build"] = "yes";
  torch["facts"]["device"]["total_memory_bytes"] = "64 GB";
  torch["facts"]["errors"] = {{"torch.cuda.is_available", 3}};
  s.torch = exited_with(torch.dump());
  auto r = interpret_python_steps("python3", s);
  EXPECT_TRUE(r.facts["torch"]["cuda_build"].is_null());
  EXPECT_TRUE(r.facts["torch"]["device"]["total_memory_bytes"].is_null());
  EXPECT_TRUE(r.facts["torch"]["errors"].empty());
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  EXPECT_TRUE(contains(r.result.reason, "could not tell whether torch")) << r.result.reason;
  EXPECT_EQ(r.result.values.count("device0_total_memory"), 0u);
}

TEST(PythonProbeOutput, CrashAfterReportingKeepsTheFactsAndSaysSo) {
  PythonStepOutcomes s = recorded_orin();
  s.torch->kind = proc::ChildOutcome::Kind::signaled;
  s.torch->signal = 11;
  s.torch->error_text = "jetgate-step: torch.cuda.get_device_properties\njetgate-step: done\n";
  auto r = interpret_python_steps("python3", s);
  EXPECT_EQ(r.result.status, ProbeStatus::pass);
  EXPECT_EQ(r.facts["torch"]["errors"]["process"],
            "the step reported, then ended with killed by signal 11 (SIGSEGV)");
}

TEST(PythonProbeOutput, CrashNamesTheLastStepTheScriptStarted) {
  PythonStepOutcomes s = recorded_orin();
  s.torch = proc::ChildOutcome{};
  s.torch->kind = proc::ChildOutcome::Kind::signaled;
  s.torch->signal = 6;
  s.torch->error_text =
      "jetgate-step: import torch\njetgate-step: torch.cuda.is_available\n"
      "terminate called after throwing an instance of 'c10::Error'\n";
  auto r = interpret_python_steps("python3", s);
  EXPECT_EQ(r.facts["torch"]["error"],
            "killed by signal 6 (SIGABRT) during torch.cuda.is_available: terminate called after "
            "throwing an "
            "instance of 'c10::Error'");
  EXPECT_EQ(r.result.status, ProbeStatus::fail);
  // The version from package metadata still names the torch that crashed.
  EXPECT_TRUE(contains(r.result.reason, "torch 2.5.0a0+872d972e41.nv24.08 is installed"))
      << r.result.reason;
}

TEST(PythonProbeOutput, SpawnFailureIsNotRun) {
  PythonStepOutcomes s;
  s.basics.kind = proc::ChildOutcome::Kind::spawn_failed;
  s.basics.error_text = "python3: not found in PATH";
  auto r = interpret_python_steps("python3", s);
  EXPECT_EQ(r.result.status, ProbeStatus::not_run);
  EXPECT_EQ(r.result.reason, "python3: not found in PATH; pass --python PATH");
}

TEST(PythonProbeOutput, GarbageInStderrIsMadePrintable) {
  PythonStepOutcomes s = recorded_orin();
  s.torch = proc::ChildOutcome{};
  s.torch->kind = proc::ChildOutcome::Kind::exited;
  s.torch->exit_code = 1;
  s.torch->error_text = std::string("jetgate-step: import torch\nOSError: \xff\xfe bad\n");
  auto r = interpret_python_steps("python3", s);
  EXPECT_EQ(r.facts["torch"]["error"],
            "exit status 1 during import torch: OSError: \\xff\\xfe bad");
  EXPECT_NO_THROW((void)r.facts.dump());
}

}  // namespace
}  // namespace jetgate::probes
