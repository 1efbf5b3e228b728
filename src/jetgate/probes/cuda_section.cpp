// SPDX-License-Identifier: Apache-2.0
// Collects the CUDA section: one child process reads the driver and device
// facts; then each kernel probe runs in a child of its own, so a hang or a
// crash in one is recorded as that probe's FAIL and the others still run.
// The parent never loads the driver.
#include "jetgate/probes/cuda_section.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <string>

#include "jetgate/cuda/context.hpp"
#include "jetgate/cuda/device_facts.hpp"
#include "jetgate/cuda/driver.hpp"
#include "jetgate/cuda/kernel_image.hpp"
#include "jetgate/probes/cuda_probes.hpp"
#include "jetgate/probes/nvhost_ctrl.hpp"
#include "jetgate/probes/plausibility.hpp"
#include "jetgate/probes/registry.hpp"
#include "jetgate/proc/child.hpp"

namespace jetgate::probes {

const std::vector<CudaProbe>& cuda_probes() {
  // The registry (probes/registry.cpp) lists the probes and whether each runs by
  // default; this table adds the function that runs each one.
  static const std::vector<CudaProbe> probes = [] {
    struct Runner {
      const char* id;
      CudaProbeFn run;
      std::chrono::milliseconds min_timeout{0};
    };
    static const Runner runners[] = {{"launch", probe_launch},
                                     {"memory", probe_memory},
                                     {"bandwidth", probe_bandwidth},
                                     {"sync_path", probe_sync_path},
                                     {"decode", probe_decode, std::chrono::milliseconds(60000)},
                                     {"nvhost_ctrl", nullptr}};
    std::vector<CudaProbe> out;
    for (const auto& spec : probe_registry()) {
      if (spec.kind != ProbeKind::cuda) continue;
      for (const auto& r : runners)
        if (spec.id == r.id) out.push_back({r.id, r.run, spec.by_default, r.min_timeout});
    }
    return out;
  }();
  return probes;
}

ProbeResult failed_probe(const std::string& id, const Error& e) {
  ProbeResult r;
  r.id = id;
  r.status = ProbeStatus::fail;
  r.reason = e.message();
  return r;
}

namespace {

// device_count is null when the driver could not count (no driver, init failed).
bool no_devices(const nlohmann::json& gpu) {
  const auto& c = gpu.contains("device_count") ? gpu["device_count"] : nlohmann::json();
  return !c.is_number_integer() || c.get<long long>() == 0;
}

proc::ChildLimits limits_for(const CudaOptions& options,
                             std::chrono::milliseconds min_timeout = {}) {
  proc::ChildLimits limits;
  limits.timeout = std::max(options.probe_timeout, min_timeout);
  return limits;
}

// Runs in the child: the /gpu document, or {"load_error": reason}.
std::string query_driver_facts(const std::vector<std::string>& paths) {
  auto driver = cuda::Driver::load(paths);
  if (!driver) return nlohmann::json{{"load_error", driver.error().message()}}.dump();
  return cuda::collect_gpu_facts(*driver).dump();
}

// Runs in the child: one probe's result as JSON.
std::string run_probe_in_child(const CudaProbe& probe, const std::vector<std::string>& paths,
                               const CudaOptions& options) {
  auto driver = cuda::Driver::load(paths);
  if (!driver) return to_json(failed_probe(probe.id, driver.error())).dump();
  if (auto st = cuda::init_driver(*driver); !st)
    return to_json(failed_probe(probe.id, st.error())).dump();
  return to_json(probe.run(*driver, options)).dump();
}

nlohmann::json kernel_facts() {
  const cuda::KernelImage image = cuda::kernel_image();
  return {{"embedded", image.present()},
          {"toolkit_version", image.present() ? nlohmann::json(image.toolkit_version) : nullptr},
          {"archs", image.present() ? nlohmann::json(image.archs) : nullptr}};
}

void read_facts(const CudaOptions& options, const std::vector<std::string>& paths, CudaSection& s) {
  proc::ChildOutcome out =
      proc::run_in_child([&] { return query_driver_facts(paths); }, limits_for(options));
  nlohmann::json doc = nlohmann::json::parse(out.output, nullptr, false);
  if (out.kind != proc::ChildOutcome::Kind::exited || out.exit_code != 0 || !doc.is_object()) {
    const std::string why =
        fmt::format("querying the CUDA driver failed: the child process was {}", out.describe());
    s.gpu = cuda::gpu_facts_without_driver(why);
    s.notes.push_back("CUDA driver unusable: " + why);
    return;
  }
  if (doc.contains("load_error")) {
    const std::string why =
        doc["load_error"].is_string() ? doc["load_error"].get<std::string>() : "unknown reason";
    s.gpu = cuda::gpu_facts_without_driver(why);
    s.notes.push_back("no CUDA driver: " + why);
    return;
  }
  s.gpu = std::move(doc);
  const auto& drv = s.gpu["driver"];
  if (drv.contains("error") && drv["error"].is_string())
    s.notes.push_back("CUDA driver found but not usable: " + drv["error"].get<std::string>());
  else if (no_devices(s.gpu))
    s.notes.push_back("no CUDA device: the driver reports 0 devices");
}

void note_version_gap(CudaSection& s) {
  const cuda::KernelImage image = cuda::kernel_image();
  const auto& version = s.gpu["driver"]["version"];
  if (!image.present() || !version.is_string()) return;
  const int driver = cuda::parse_cuda_version(version.get<std::string>());
  const int toolkit = cuda::parse_cuda_version(image.toolkit_version);
  if (driver > 0 && toolkit > 0 && driver < toolkit)
    s.notes.push_back(cuda::kernel_load_advice(cuda::kCudaErrorUnsupportedPtxVersion, driver,
                                               image.toolkit_version));
}

// The facts of the device the probes run on (an empty object when unknown).
nlohmann::json probe_device_facts(const nlohmann::json& gpu) {
  const auto& devices = gpu.contains("devices") ? gpu["devices"] : nlohmann::json();
  if (devices.is_array() && devices.size() > static_cast<std::size_t>(kProbeDevice))
    return devices[static_cast<std::size_t>(kProbeDevice)];
  return nlohmann::json::object();
}

bool wanted(const CudaOptions& options, const CudaProbe& probe) {
  if (options.only.empty()) return probe.by_default;
  for (const auto& o : options.only)
    if (o == probe.id) return true;
  return false;
}

ProbeResult run_probe(const CudaProbe& probe, const CudaOptions& options,
                      const std::vector<std::string>& paths) {
  proc::ChildOutcome out =
      proc::run_in_child([&] { return run_probe_in_child(probe, paths, options); },
                         limits_for(options, probe.min_timeout));
  ProbeResult r;
  std::string parse_error;
  nlohmann::json doc = nlohmann::json::parse(out.output, nullptr, false);
  if (out.kind == proc::ChildOutcome::Kind::exited && out.exit_code == 0) {
    if (auto parsed = probe_result_from_json(doc, &parse_error)) {
      r = std::move(*parsed);
    } else {
      r = failed_probe(probe.id, make_error("the probe's child process returned unreadable "
                                            "output: " +
                                            parse_error));
    }
  } else {
    r.id = probe.id;
    r.status = ProbeStatus::fail;
    // Stopped because jetgate itself was asked to stop: nothing is known of the GPU.
    r.reason = out.kind == proc::ChildOutcome::Kind::interrupted
                   ? fmt::format("the probe's child process was stopped ({}): not measured",
                                 out.describe())
                   : fmt::format("the probe's child process was {}: a CUDA call hung or crashed",
                                 out.describe());
    if (!out.error_text.empty()) r.details["stderr"] = out.error_text;
  }
  r.duration_ms = out.wall_ms;
  return r;
}

}  // namespace

CudaSection collect_cuda(const CudaOptions& options) {
  CudaSection s;
  const std::vector<std::string> paths = cuda::driver_search_paths(options.driver_paths);
  read_facts(options, paths, s);
  s.gpu["kernels"] = kernel_facts();
  note_version_gap(s);
  if (!options.run_probes) return s;
  for (const auto& id : options.only) {
    bool known = false;
    for (const auto& p : cuda_probes()) known = known || id == p.id;
    if (!known) s.notes.push_back(fmt::format("unknown CUDA probe \"{}\" ignored", id));
  }
  for (const auto& probe : cuda_probes()) {
    if (!wanted(options, probe)) continue;
    if (probe.run == nullptr) {  // nvhost_ctrl: asks the kernel, not the CUDA driver
      options.progress.start(probe.id);
      NvhostCtrlOptions no = options.nvhost;
      no.timeout = options.probe_timeout;
      ProbeResult r = probe_nvhost_ctrl(no);
      options.progress.finish(r);
      s.probes.push_back(std::move(r));
      continue;
    }
    if (auto r = cuda_probe_precheck(s, probe.id, cuda::kernel_image())) {
      options.progress.finish(*r);
      s.probes.push_back(*r);
      continue;
    }
    options.progress.start(probe.id);
    ProbeResult r = run_probe(probe, options, paths);
    check_plausibility(r, device_limits(probe_device_facts(s.gpu)));
    options.progress.finish(r);
    s.probes.push_back(std::move(r));
  }
  return s;
}

std::optional<ProbeResult> cuda_probe_precheck(const CudaSection& s, const std::string& id,
                                               const cuda::KernelImage& image) {
  ProbeResult r;
  r.id = id;
  const auto& drv = s.gpu["driver"];
  if (!drv.value("loaded", false) || (drv.contains("error") && drv["error"].is_string())) {
    r.status = ProbeStatus::skip;
    r.reason = "no usable CUDA driver (see /gpu/driver/error)";
    return r;
  }
  if (no_devices(s.gpu)) {
    r.status = ProbeStatus::skip;
    r.reason = "no CUDA device";
    return r;
  }
  if (!image.present()) {
    r.status = ProbeStatus::not_run;
    r.reason =
        "built without CUDA toolkit: rebuild jetgate where nvcc is installed to run the "
        "kernel probes";
    return r;
  }
  return std::nullopt;
}

}  // namespace jetgate::probes
