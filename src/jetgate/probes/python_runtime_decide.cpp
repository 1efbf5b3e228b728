// SPDX-License-Identifier: Apache-2.0
// python_runtime's status rule (docs/python-runtime.md): only a CUDA build of
// torch that sees the GPU, whose arch list covers it and whose own kernels,
// cuBLAS and cuDNN compute on it what the CPU computes, passes.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "jetgate/probes/python_runtime_arch.hpp"
#include "jetgate/probes/python_runtime_detail.hpp"

namespace jetgate::probes::detail {
namespace {

using nlohmann::json;

using Verdict = std::pair<ProbeStatus, std::string>;

constexpr const char* kJetsonTorchDoc =
    "https://docs.nvidia.com/deeplearning/frameworks/install-pytorch-jetson-platform/index.html";
std::string torch_label(const json& torch) {
  return "torch " +
         text_or(torch["version"], text_or(torch["metadata_version"], "(version unknown)"));
}

std::optional<ComputeCapability> device_capability(const json& torch) {
  const json& device = torch["device"];
  if (!device.is_object() || !device["capability"].is_string()) return std::nullopt;
  return parse_capability(device["capability"].get<std::string>());
}

std::string sm_name(ComputeCapability c) {
  return fmt::format("sm_{}{}", c.major, c.minor);
}

struct ArchReading {
  ArchCoverage coverage;
  std::string list;        // "sm_80, sm_90" or "(unavailable)"
  std::string capability;  // "8.7" or "?"
};

ArchReading read_arch(const json& f) {
  const json& torch = f["torch"];
  ArchReading r;
  r.capability = torch["device"].is_object() ? text_or(torch["device"]["capability"], "?") : "?";
  std::vector<std::string> list;
  if (torch["arch_list"].is_array())
    for (const auto& e : torch["arch_list"]) list.push_back(e.get<std::string>());
  r.list = list.empty() ? "(unavailable)" : fmt::format("{}", fmt::join(list, ", "));
  if (auto cap = device_capability(torch)) r.coverage = arch_coverage(list, *cap, on_tegra(f));
  return r;
}

// "its arch list (sm_80, sm_90) has no sm_87 and no compute_XY PTX at or
// below 8.7 (sm_80 SASS runs on desktop GPUs only, not on Tegra)"
std::string arch_gap(const json& f, const ArchReading& arch) {
  auto cap = device_capability(f["torch"]);
  std::string out =
      fmt::format("its arch list ({}) has no {} and no compute_XY PTX at or below {}", arch.list,
                  cap ? sm_name(*cap) : "entry for this GPU", arch.capability);
  if (!arch.coverage.tegra_miss.empty())
    out +=
        fmt::format(" ({} SASS runs on desktop GPUs only, not on Tegra)", arch.coverage.tegra_miss);
  return out;
}

// How the arch list covers the GPU, for a passing reason.
std::string arch_statement(const ArchReading& arch) {
  switch (arch.coverage.match) {
    case ArchMatch::sass:
      return "runs " + arch.coverage.entry + " kernels";
    case ArchMatch::ptx:
      return "runs " + arch.coverage.entry +
             " PTX, JIT-compiled by the driver (no SASS for capability " + arch.capability +
             " in its arch list)";
    case ArchMatch::none:
      return "its arch list does not cover capability " + arch.capability;
    case ArchMatch::unknown:
      break;
  }
  return "arch list unavailable, so the kernel checks decided";
}

struct NamedCheck {
  const char* key;
  std::string label;
};

std::vector<NamedCheck> torch_checks(const json& compute) {
  const json& conv = compute["conv"];
  bool native_conv = conv.is_object() && conv.value("backend", json()) == "native";
  return {{"elementwise", "its own elementwise kernel"},
          {"matmul", "a matmul (cuBLAS)"},
          {"conv", native_conv ? "a conv2d (torch's own kernels, no cuDNN)" : "a conv2d (cuDNN)"}};
}

std::string cudnn_fix(const json& f) {
  if (on_tegra(f))
    return fmt::format(
        "use the torch built for this JetPack's cuDNN: NVIDIA's wheel for this JetPack ({}) "
        "or a jetson-containers image matching this L4T release ({})",
        kJetsonTorchDoc, kJetsonContainersRepo);
  return "make the cuDNN torch was built against the one it loads (the wheel's bundled cuDNN, or "
         "check "
         "LD_LIBRARY_PATH), or install a torch built for the installed cuDNN";
}

// The next step for a check that raised, chosen by what the error says.
std::string fix_for(const std::string& error, const std::string& key, const json& f) {
  if (contains_text(error, "no kernel image") || contains_text(error, "PTX") ||
      contains_text(error, "invalid device function"))
    return torch_arch_fix(f);
  if (contains_text(error, "cuDNN") || contains_text(error, "CUDNN") ||
      contains_text(error, "cudnn") || key == "conv")
    return cudnn_fix(f);
  if (contains_text(error, "CUBLAS") || contains_text(error, "cuBLAS") ||
      contains_text(error, "cublas"))
    return "torch's cuBLAS does not work with this driver: " + torch_arch_fix(f);
  return "check the driver and that this torch was built for this platform: " + torch_arch_fix(f);
}

Verdict compute_verdict(const json& f, const std::string& build, const std::string& seen) {
  const json& torch = f["torch"];
  const json& compute = torch["compute"];
  ArchReading arch = read_arch(f);
  bool arch_missing = arch.coverage.match == ArchMatch::none;
  if (compute["checked"] != true)
    return {ProbeStatus::fail, build + " sees " + seen + " but its kernel checks did not run"};
  if (compute["error"].is_string()) {
    std::string error = compute["error"].get<std::string>();
    return {ProbeStatus::fail,
            build + " sees " + seen + " but its kernel checks did not finish: " + error + "; " +
                (arch_missing
                     ? arch_gap(f, arch) + "; " + torch_arch_fix(f)
                     : fix_for(error, contains_text(error, "during conv2d") ? "conv" : "", f))};
  }
  auto checks = torch_checks(compute);
  for (const auto& c : checks) {
    const json& check = compute[c.key];
    if (check.is_object() && check["ran"] == true) continue;
    std::string error =
        check.is_object() ? first_line(text_or(check["error"], "no result")) : "not run";
    if (arch_missing)
      return {ProbeStatus::fail,
              fmt::format("{} cannot run kernels on {}: {}; {}: {}; {}", build, seen,
                          arch_gap(f, arch), c.label, error, torch_arch_fix(f))};
    return {ProbeStatus::fail, fmt::format("{} cannot run {} on {}: {}; {}", build, c.label, seen,
                                           error, fix_for(error, c.key, f))};
  }
  if (torch["cudnn_available"] == true && torch["errors"].contains("torch.backends.cudnn.version"))
    return {ProbeStatus::fail,
            build + ": the cuDNN it loads does not match the one it was built with: " +
                first_line(torch["errors"]["torch.backends.cudnn.version"].get<std::string>()) +
                "; " + cudnn_fix(f)};
  for (const auto& c : checks) {
    std::string problem = check_problem(compute[c.key]);
    if (!problem.empty())
      return {ProbeStatus::fail,
              fmt::format("{}: {} on {} {}, compared with the CPU: the GPU computes wrong "
                          "numbers; {}",
                          build, c.label, seen, problem, fix_for("", c.key, f))};
  }
  std::string passed = "elementwise, matmul (cuBLAS) and conv2d match the CPU";
  if (arch_missing)
    return {ProbeStatus::warn,
            fmt::format("{} on {}: {}, but {}: other kernels may not run; {}", build, seen, passed,
                        arch_gap(f, arch), torch_arch_fix(f))};
  if (torch["cudnn_available"] == false)
    return {ProbeStatus::warn,
            build + " on " + seen + ": " + arch_statement(arch) + "; " + passed +
                ", but torch has no cuDNN (torch.backends.cudnn.is_available() is False): "
                "convolutions run on torch's own slower kernels; " +
                cudnn_fix(f)};
  std::string cudnn = torch["cudnn_version"].is_number_integer()
                          ? fmt::format(" (cuDNN {})", torch["cudnn_version"].get<long long>())
                          : "";
  return {ProbeStatus::pass, build + " uses " + seen + ": " + arch_statement(arch) +
                                 "; elementwise, matmul "
                                 "(cuBLAS) and conv2d" +
                                 cudnn + " match the CPU"};
}

}  // namespace

namespace {

Verdict decide(const json& f) {
  if (auto v = interpreter_verdict(f)) return *v;
  const std::string python = f["interpreter"].get<std::string>();
  const json& torch = f["torch"];
  std::string where = python + " (Python " + text_or(f["version"], "?") + ")";
  if (torch["installed"] == false)
    return {ProbeStatus::warn, "torch is not installed for " + where +
                                   ": no Python ML runtime to check; pass --python for the "
                                   "environment that has torch"};
  if (torch["error"].is_string() || torch["imported"] != true)
    return {ProbeStatus::fail,
            torch_label(torch) + " is installed for " + where +
                " but cannot be imported: " + text_or(torch["error"], "unknown error")};
  if (torch["cuda_build"] == false)
    return {ProbeStatus::fail,
            torch_label(torch) +
                " is a CPU-only build (torch.version.cuda is None): it proves "
                "nothing about the GPU; install the CUDA build of torch made for "
                "this platform (on a Jetson, NVIDIA's wheel for its JetPack)"};
  if (torch["cuda_build"] != true)
    return {ProbeStatus::fail, "could not tell whether " + torch_label(torch) + " is a CUDA build"};
  std::string build = torch_label(torch) + " (CUDA " + text_or(torch["cuda_version"], "?") + ")";
  if (torch["cuda_available"] != true) {
    std::string why = torch["errors"].contains("torch.cuda.is_available")
                          ? ": " + torch["errors"]["torch.cuda.is_available"].get<std::string>()
                          : "";
    return {ProbeStatus::fail,
            build + " cannot use the GPU: torch.cuda.is_available() is not True" + why +
                "; check the driver, /dev access and that torch's CUDA "
                "version matches the installed one"};
  }
  const json& device = torch["device"];
  std::string seen = device.is_object() ? text_or(device["name"], "device 0") : "device 0";
  if (device.is_object() && device["capability"].is_string())
    seen += ", capability " + device["capability"].get<std::string>();
  return compute_verdict(f, build, seen);
}

// bitsandbytes does not change python_runtime's status (it is a probe of its
// own); a broken native library is worth saying next to it.
std::string bitsandbytes_note(const json& bnb) {
  const json& native = bnb["native"];
  if (native["checked"] != true) return {};
  if (native["loads"] == true && native["cuda"] != false) return {};
  std::string label = "bitsandbytes " + text_or(bnb["version"], "");
  if (native["loads"] == true) return "; " + label + " loaded a library without CUDA support";
  return "; " + label + " is installed but its native CUDA library does not load: " +
         first_line(text_or(native["error"], "unknown error"));
}

void add_value(ProbeResult& r, const std::string& key, const json& v, const char* unit) {
  if (v.is_number()) r.values[key] = {v.get<double>(), unit};
}

json arch_details(const json& f) {
  ArchReading arch = read_arch(f);
  return {{"capability",
           f["torch"]["device"].is_object() ? f["torch"]["device"]["capability"] : json()},
          {"arch_list", f["torch"]["arch_list"]},
          {"match", to_string(arch.coverage.match)},
          {"entry", arch.coverage.entry.empty() ? json() : json(arch.coverage.entry)},
          {"tegra", on_tegra(f)}};
}

}  // namespace

std::optional<Verdict> interpreter_verdict(const json& f) {
  const std::string python = f["interpreter"].get<std::string>();
  if (f["found"] != true)
    return Verdict{ProbeStatus::not_run,
                   first_line(text_or(f["error"], python + " not found")) + "; pass --python PATH"};
  if (f["error"].is_string())
    return Verdict{ProbeStatus::fail, python + " could not run jetgate's probe script: " +
                                          f["error"].get<std::string>()};
  return std::nullopt;
}

bool torch_reaches_gpu(const json& torch) {
  return torch["imported"] == true && !torch["error"].is_string() && torch["cuda_build"] == true &&
         torch["cuda_available"] == true;
}

std::string check_problem(const json& check) {
  if (!check.is_object() || check["ran"] != true) return "did not run";
  const json& beyond = check["beyond_tolerance"];
  const json& ratio = check["max_error_ratio"];
  const json& elements = check["elements"];
  if (check["non_finite"].is_number_integer() && check["non_finite"].get<long long>() > 0)
    return fmt::format("returned {} NaN or infinite value(s)",
                       check["non_finite"].get<long long>());
  if (!beyond.is_number_integer() || !ratio.is_number() || !elements.is_number_integer() ||
      elements.get<long long>() <= 0)
    return "did not report how far it is from the reference";
  if (beyond.get<long long>() > 0 || ratio.get<double>() > 1.0)
    return fmt::format(
        "is off by up to {} ({}x its tolerance) in {} of {} values",
        short_number(check["max_abs_error"].is_number() ? check["max_abs_error"].get<double>() : 0),
        short_number(ratio.get<double>()), beyond.get<long long>(), elements.get<long long>());
  json packed = check.value("packed_bytes", json());
  json expected = check.value("expected_packed_bytes", json());
  if (check.contains("expected_packed_bytes") &&
      (!packed.is_number_integer() || packed != expected))
    return fmt::format(
        "stored {} bytes for {} values where the format needs {}: it did not quantise",
        packed.is_number_integer() ? packed.dump() : "an unknown number of",
        elements.get<long long>(), expected.dump());
  return {};
}

bool on_tegra(const json& f) {
  const json& torch = f["torch"];
  auto cap = device_capability(torch);
  if (!cap || !is_tegra_capability(*cap)) return false;
  // torch says whether the GPU is integrated; older torch does not, and then
  // only an aarch64 interpreter can be on a Jetson.
  const json& integrated = torch["device"].is_object() ? torch["device"]["integrated"] : json();
  if (integrated.is_boolean()) return integrated.get<bool>();
  return !f["machine"].is_string() || f["machine"] == "aarch64";
}

std::string torch_arch_fix(const json& f) {
  if (on_tegra(f))
    return fmt::format(
        "install NVIDIA's PyTorch wheel for this JetPack release ({}) or run in a "
        "jetson-containers or l4t image that matches this L4T release ({})",
        kJetsonTorchDoc, kJetsonContainersRepo);
  auto cap = device_capability(f["torch"]);
  return fmt::format(
      "install a torch build whose torch.cuda.get_arch_list() includes {} "
      "(https://pytorch.org/get-started/locally/)",
      cap ? sm_name(*cap) : "this GPU's architecture");
}

ProbeResult python_runtime_result(const json& f, const PythonStepOutcomes& steps) {
  ProbeResult r;
  r.id = kPythonRuntimeProbe;
  auto [status, reason] = decide(f);
  r.status = status;
  r.reason = reason + bitsandbytes_note(f["bitsandbytes"]);
  const json& torch = f["torch"];
  add_value(r, "cuda_device_count", torch["device_count"], "count");
  if (torch["device"].is_object())
    add_value(r, "device0_total_memory", torch["device"]["total_memory_bytes"], "bytes");
  for (const char* check : {"elementwise", "matmul", "conv"})
    if (torch["compute"][check].is_object())
      add_value(r, std::string(check) + "_max_error_ratio",
                torch["compute"][check]["max_error_ratio"], "fraction");
  json step_details = json::object();
  auto note = [&](const char* name, const std::optional<proc::ChildOutcome>& o) {
    if (!o) return;
    step_details[name] = {{"outcome", o->describe()}, {"wall_ms", o->wall_ms}};
    r.duration_ms += o->wall_ms;
  };
  note("basics", steps.basics);
  note("torch", steps.torch);
  note("torch-compute", steps.torch_compute);
  note("bitsandbytes-native", steps.bitsandbytes_native);
  r.details = {{"steps", step_details}};
  if (torch["cuda_available"] == true) r.details["arch"] = arch_details(f);
  return r;
}

}  // namespace jetgate::probes::detail
