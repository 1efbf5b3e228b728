#include "jetgate/report/platform_text.hpp"

#include <fmt/format.h>

#include "jetgate/report/json_text.hpp"
#include "jetgate/report/text_escape.hpp"

namespace jetgate::report {
namespace {

using nlohmann::json;

std::string show(const json& doc, const std::string& pointer, const std::string& unknown = "unknown") {
  auto ptr = json::json_pointer(pointer);
  if (!doc.contains(ptr)) return unknown;
  const auto& v = doc.at(ptr);
  if (v.is_null()) return unknown;
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  return json_text(v, -1);
}

void row(std::string& out, const std::string& label, const std::string& value) {
  out += fmt::format("  {:<18} {}\n", label + ":", terminal_text(value));
}

std::string gib(const json& doc, const std::string& pointer) {
  auto ptr = json::json_pointer(pointer);
  if (!doc.contains(ptr) || !doc.at(ptr).is_number()) return "unknown";
  return fmt::format("{:.1f} GiB", doc.at(ptr).get<double>() / (1024.0 * 1024.0 * 1024.0));
}

// Orin and older Jetsons run the nvgpu driver, which has no
// /proc/driver/nvidia/version; Thor and discrete GPUs run the nvidia driver.
bool nvgpu_loaded(const json& p) {
  auto ptr = json::json_pointer("/tegra/driver/modules");
  if (!p.contains(ptr)) return false;
  for (const auto& m : p.at(ptr))
    if (m.value("name", std::string()) == "nvgpu") return true;
  return false;
}

void driver_stack(std::string& out, const json& p) {
  auto ptr = json::json_pointer("/tegra/driver");
  if (!p.contains(ptr)) return;
  const auto& d = p.at(ptr);
  out += "GPU driver stack\n";
  std::string mods;
  for (const auto& m : d.value("modules", json::array()))
    mods += (mods.empty() ? "" : ", ") + m.value("name", std::string("?"));
  row(out, "Modules", mods.empty() ? "none of the GPU stack loaded" : mods);
  std::string present, missing_tegra;
  for (const auto& n : d.value("device_nodes", json::array())) {
    if (n.value("present", false))
      present += fmt::format("{}    {} ({} {})\n", present.empty() ? "" : "", terminal_text(n.value("path", "")),
                             terminal_text(n.value("type", "")), terminal_text(n.value("mode", "")));
  }
  out += "  Device nodes:\n";
  out += present.empty() ? "    none of the known GPU device nodes\n" : present;
  for (const auto& spec : d.value("cdi", json::array())) {
    std::string state;
    if (!spec["error"].is_null()) state = "unusable: " + spec["error"].get<std::string>();
    else {
      std::string miss;
      for (const auto& n : spec.value("device_nodes", json::array()))
        if (!n.value("present", true)) miss += (miss.empty() ? "" : ", ") + n.value("host_path", "");
      state = miss.empty() ? "all device nodes present" : "MISSING on host: " + miss;
    }
    row(out, "CDI spec", fmt::format("{} ({})", spec.value("path", ""), state));
  }
}

}  // namespace

std::string render_platform_text(const json& p) {
  std::string out;
  bool tegra = p.value(json::json_pointer("/tegra/is_tegra"), false);
  out += "Hardware\n";
  if (tegra) {
    row(out, "Model", show(p, "/tegra/model"));
    row(out, "Module", show(p, "/tegra/module"));
    row(out, "Part number", show(p, "/tegra/part_number"));
    row(out, "SoC", show(p, "/tegra/soc"));
    row(out, "CUDA arch", show(p, "/tegra/cuda_arch"));
    if (p.contains(json::json_pointer("/tegra/serial_number")))
      row(out, "Serial number", show(p, "/tegra/serial_number"));
    else
      row(out, "Serial number", "[hidden: --show-serial]");
  } else {
    row(out, "Jetson", "no (not a Tegra SoC)");
  }
  row(out, "Memory", gib(p, "/memory/total_bytes"));
  out += "Platform\n";
  row(out, "Architecture", show(p, "/arch"));
  row(out, "OS", show(p, "/os/pretty_name", show(p, "/os/id")));
  row(out, "Kernel", show(p, "/kernel/release"));
  if (tegra) {
    row(out, "L4T", show(p, "/tegra/l4t"));
    row(out, "JetPack", show(p, "/tegra/jetpack"));
  }
  bool in_container = p.value(json::json_pointer("/container/detected"), false);
  row(out, "Container", in_container ? "yes (" + show(p, "/container/sign") + ")" : "no");
  if (p.contains("hostname")) row(out, "Hostname", show(p, "/hostname"));
  out += "Libraries\n";
  row(out, "CUDA toolkit", show(p, "/cuda/toolkit_version", "not found"));
  row(out, "cuDNN", show(p, "/libraries/cudnn", "not found"));
  row(out, "TensorRT", show(p, "/libraries/tensorrt", "not found"));
  row(out, "NVIDIA driver", show(p, "/nvidia_driver/version", nvgpu_loaded(p) ? "n/a (nvgpu)" : "not loaded"));
  driver_stack(out, p);
  return out;
}

std::string render_warnings_text(const json& warnings) {
  std::string out;
  for (const auto& w : warnings)
    out += fmt::format("warning: {}: {}\n", terminal_text(w.value("source", "")), terminal_text(w.value("message", "")));
  return out;
}

}  // namespace jetgate::report
