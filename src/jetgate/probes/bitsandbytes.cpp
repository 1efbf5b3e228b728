// SPDX-License-Identifier: Apache-2.0
// The bitsandbytes probe's status rule (docs/python-runtime.md): importing
// bitsandbytes proves nothing; it passes only when its 4-bit (nf4, fp4) and
// 8-bit round trips and its int8 matmul on the GPU match torch on the CPU
// within the tolerances the quantisation step sizes allow.
#include <fmt/format.h>

#include <string>

#include "jetgate/probes/python_runtime_detail.hpp"

namespace jetgate::probes::detail {
namespace {

using nlohmann::json;
using Verdict = std::pair<ProbeStatus, std::string>;

struct BnbCheck {
  const char* key;
  const char* label;
};
constexpr BnbCheck kChecks[] = {
    {"nf4", "4-bit nf4 quantise/dequantise round trip"},
    {"fp4", "4-bit fp4 quantise/dequantise round trip"},
    {"int8_blockwise", "8-bit blockwise quantise/dequantise round trip"},
    {"int8_matmul", "int8 matmul"}};

std::string device_seen(const json& torch) {
  const json& device = torch["device"];
  std::string seen = device.is_object() ? text_or(device["name"], "device 0") : "device 0";
  if (device.is_object() && device["capability"].is_string())
    seen += ", capability " + device["capability"].get<std::string>();
  return seen;
}

// A library that cannot launch its kernels here says so in one of a few ways.
std::string kernel_fix(const std::string& error, const json& f) {
  if (contains_text(error, "quantize_4bit") && contains_text(error, "AttributeError"))
    return "this bitsandbytes has no 4-bit quantisation; 0.39 or later is needed";
  if (contains_text(error, "no kernel image") || contains_text(error, "named symbol not found") ||
      contains_text(error, "invalid device function"))
    return on_tegra(f)
               ? fmt::format(
                     "its library has no kernels for this GPU: build bitsandbytes for it "
                     "(-DCOMPUTE_CAPABILITY) or use a jetson-containers image that ships "
                     "one for this L4T release ({})",
                     kJetsonContainersRepo)
               : "its library has no kernels for this GPU: install a bitsandbytes build for it";
  return "check that bitsandbytes was built for this CUDA version and GPU";
}

std::optional<Verdict> native_verdict(const json& bnb, const std::string& label) {
  const json& native = bnb["native"];
  if (native["checked"] != true)
    return Verdict{ProbeStatus::fail, label + " is installed but was not imported"};
  std::string error = first_line(text_or(native["error"], "unknown error"));
  if (native["loads"] != true) {
    bool import_failed = native["errors"].contains("import bitsandbytes") ||
                         contains_text(error, "import bitsandbytes");
    return Verdict{ProbeStatus::fail,
                   label +
                       (import_failed ? " cannot be imported: "
                                      : " is installed but its native CUDA library "
                                        "does not load: ") +
                       error};
  }
  if (native["cuda"] == false)
    return Verdict{ProbeStatus::fail,
                   fmt::format("{} loaded a library without CUDA support ({}): its GPU "
                               "kernels cannot run; install the CUDA build of bitsandbytes",
                               label, text_or(native["library"], "unknown library"))};
  return std::nullopt;
}

Verdict compute_verdict(const json& f, const std::string& label) {
  const json& compute = f["bitsandbytes"]["compute"];
  std::string seen = device_seen(f["torch"]);
  if (compute["checked"] != true) return {ProbeStatus::fail, label + "'s GPU checks did not run"};
  if (compute["error"].is_string())
    return {ProbeStatus::fail, label + "'s GPU checks on " + seen +
                                   " did not finish: " + compute["error"].get<std::string>()};
  for (const auto& c : kChecks) {
    const json& check = compute[c.key];
    if (check.is_object() && check["ran"] == true) continue;
    // No check object: an import inside the step failed before any check.
    std::string error =
        check.is_object() ? first_line(text_or(check["error"], "no result"))
        : compute["errors"].empty()
            ? std::string("not run")
            : first_line(compute["errors"].items().begin().value().get<std::string>());
    return {ProbeStatus::fail, fmt::format("{} cannot run its {} on {}: {}; {}", label, c.label,
                                           seen, error, kernel_fix(error, f))};
  }
  for (const auto& c : kChecks) {
    std::string problem = check_problem(compute[c.key]);
    if (!problem.empty())
      return {ProbeStatus::fail,
              fmt::format("{}: its {} on {} {}, compared with torch on the CPU: its GPU "
                          "kernels compute wrong numbers; {}",
                          label, c.label, seen, problem, kernel_fix("", f))};
  }
  return {
      ProbeStatus::pass,
      fmt::format("{} ({}) on {}: nf4, fp4 and 8-bit round trips and the int8 matmul "
                  "match torch on the CPU within their tolerances",
                  label, text_or(f["bitsandbytes"]["native"]["library"], "CUDA library"), seen)};
}

Verdict decide(const json& f, const ProbeResult& python_runtime) {
  if (auto v = interpreter_verdict(f)) return *v;
  const json& bnb = f["bitsandbytes"];
  std::string where =
      f["interpreter"].get<std::string>() + " (Python " + text_or(f["version"], "?") + ")";
  if (bnb["installed"] == false)
    return {ProbeStatus::warn,
            "bitsandbytes is not installed for " + where +
                ": nothing to check; a gate that needs it requires PASS (install the "
                "bitsandbytes build for this platform, or pass --python for the "
                "environment that has it)"};
  if (bnb["installed"] != true)
    return {ProbeStatus::fail, "could not tell whether bitsandbytes is installed for " + where};
  std::string label = "bitsandbytes " + text_or(bnb["version"], "(version unknown)");
  if (!torch_reaches_gpu(f["torch"]))
    return {ProbeStatus::fail,
            label + " needs a torch that reaches the GPU: " + python_runtime.reason};
  if (auto v = native_verdict(bnb, label)) return *v;
  return compute_verdict(f, label);
}

}  // namespace

ProbeResult bitsandbytes_result(const json& f, const PythonStepOutcomes& steps,
                                const ProbeResult& python_runtime) {
  ProbeResult r;
  r.id = kBitsandbytesProbe;
  auto [status, reason] = decide(f, python_runtime);
  r.status = status;
  r.reason = reason;
  const json& compute = f["bitsandbytes"]["compute"];
  for (const auto& c : kChecks)
    if (compute[c.key].is_object() && compute[c.key]["max_error_ratio"].is_number())
      r.values[std::string(c.key) + "_max_error_ratio"] = {
          compute[c.key]["max_error_ratio"].get<double>(), "fraction"};
  json step_details = json::object();
  if (steps.bitsandbytes_compute) {
    step_details["bitsandbytes-compute"] = {{"outcome", steps.bitsandbytes_compute->describe()},
                                            {"wall_ms", steps.bitsandbytes_compute->wall_ms}};
    r.duration_ms = steps.bitsandbytes_compute->wall_ms;
  }
  r.details = {{"steps", step_details}};
  return r;
}

}  // namespace jetgate::probes::detail
