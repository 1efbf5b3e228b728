// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/platform_text.hpp"

#include <fmt/format.h>

#include "jetgate/core/json_text.hpp"
#include "jetgate/core/utf8.hpp"

namespace jetgate::report {
namespace {

using nlohmann::json;

std::string show(const json& doc, const std::string& pointer,
                 const std::string& unknown = "unknown") {
  auto ptr = json::json_pointer(pointer);
  if (!doc.contains(ptr)) return unknown;
  const auto& v = doc.at(ptr);
  if (v.is_null()) return unknown;
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  return dump_json(v);
}

void row(std::string& out, const std::string& label, const std::string& value) {
  out += fmt::format("  {:<18} {}\n", label + ":", terminal_safe(value));
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

std::string id_and_name(const json& n, const char* id, const char* name) {
  if (!n.contains(id) || !n[id].is_number_unsigned()) return "?";
  std::string v = std::to_string(n[id].get<unsigned>());
  if (n.contains(name) && n[name].is_string()) v = n[name].get<std::string>() + "(" + v + ")";
  return v;
}

// /platform/tegra/driver/node_access: owner, mode, major:minor, and whether this uid opened it.
void node_access(std::string& out, const json& a) {
  if (!a.is_object() || !a.contains("nodes") || !a["nodes"].is_array() || a["nodes"].empty())
    return;
  std::string as =
      a.contains("uid") && a["uid"].is_number_unsigned()
          ? fmt::format("opened read/write as uid {}, gid {}, groups {}", a["uid"].get<unsigned>(),
                        show(a, "/gid", "?"), show(a, "/groups", "[]"))
          : std::string("a recording: not opened");
  out += "  Node access (" + terminal_safe(as) + "):\n";
  for (const auto& n : a["nodes"]) {
    if (!n.is_object()) continue;
    std::string path = n.value("path", "");
    if (!n.value("present", false)) {
      std::string why = n.contains("provides") && n["provides"].is_string()
                            ? n["provides"].get<std::string>()
                            : std::string();
      out += fmt::format(
          "    {} MISSING{}\n", terminal_safe(path),
          why.empty() ? "" : " (this stack's CUDA opens it: " + terminal_safe(why) + ")");
      continue;
    }
    std::string open = !n.contains("openable") || n["openable"].is_null() ? "not tried"
                       : n["openable"].get<bool>()                        ? "yes"
                                                   : "NO (" + show(n, "/open_error", "?") + ")";
    std::string dev = n.contains("major") && n["major"].is_number()
                          ? fmt::format(" {}:{}", show(n, "/major"), show(n, "/minor"))
                          : std::string();
    out += fmt::format("    {} {}:{} {} {}{} open: {}\n", terminal_safe(path),
                       terminal_safe(id_and_name(n, "uid", "owner")),
                       terminal_safe(id_and_name(n, "gid", "group")),
                       terminal_safe(show(n, "/mode", "?")),
                       terminal_safe(show(n, "/permissions", "?")), dev, terminal_safe(open));
  }
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
  const auto& stack = d.value("stack", json());
  if (stack.is_object() && stack.contains("name") && stack["name"].is_string())
    row(out, "Stack",
        stack["name"].get<std::string>() + (stack.value("nvhost_ctrl", "") == "part"
                                                ? " (/dev/nvhost-ctrl is part of it)"
                                                : " (no /dev/nvhost-ctrl in this stack)"));
  std::string present, missing_tegra;
  for (const auto& n : d.value("device_nodes", json::array())) {
    if (n.value("present", false))
      present +=
          fmt::format("    {} ({} {})\n", terminal_safe(n.value("path", "")),
                      terminal_safe(n.value("type", "")), terminal_safe(n.value("mode", "")));
  }
  out += "  Device nodes:\n";
  out += present.empty() ? "    none of the known GPU device nodes\n" : present;
  node_access(out, d.value("node_access", json::object()));
  for (const auto& spec : d.value("cdi", json::array())) {
    std::string state;
    if (!spec["error"].is_null())
      state = "unusable: " + spec["error"].get<std::string>();
    else {
      std::string miss;
      for (const auto& n : spec.value("device_nodes", json::array()))
        if (!n.value("present", true))
          miss += (miss.empty() ? "" : ", ") + n.value("host_path", "");
      state = miss.empty() ? "all device nodes present"
                           : "MISSING on host: " + miss +
                                 "; a container requesting its devices will not start";
    }
    row(out, "CDI spec", fmt::format("{} ({})", spec.value("path", ""), state));
  }
  const auto& cdi = d.value("cdi", json::array());
  const auto& dirs = d.value("cdi_dirs", json());
  if (cdi.is_array() && cdi.empty() && dirs.is_array() && !dirs.empty()) {
    std::string looked;
    for (const auto& dir : dirs)
      if (dir.is_object()) looked += (looked.empty() ? "" : ", ") + dir.value("path", "");
    row(out, "CDI specs", "none found (looked in " + looked + ")");
  }
}

std::string mhz(const json& doc, const std::string& pointer) {
  auto ptr = json::json_pointer(pointer);
  if (!doc.contains(ptr) || !doc.at(ptr).is_number()) return "?";
  return fmt::format("{:.0f}", doc.at(ptr).get<double>() / 1e6);
}

bool has_number(const json& doc, const std::string& pointer) {
  auto ptr = json::json_pointer(pointer);
  return doc.contains(ptr) && doc.at(ptr).is_number();
}

// "612 of 1020 MHz (min 306)", "2133 MHz", or "unknown".
std::string clock(const json& p, const std::string& at, const std::string& ceiling) {
  if (!has_number(p, at + "/cur_hz"))
    return has_number(p, at + "/max_hz") ? "max " + mhz(p, at + "/max_hz") + " MHz" : "unknown";
  std::string out = mhz(p, at + "/cur_hz");
  if (has_number(p, ceiling)) out += " of " + mhz(p, ceiling);
  out += " MHz";
  if (has_number(p, at + "/min_hz") && has_number(p, at + "/max_hz"))
    out += fmt::format(" (limits {}-{})", mhz(p, at + "/min_hz"), mhz(p, at + "/max_hz"));
  return out;
}

void power_section(std::string& out, const json& p) {
  auto ptr = json::json_pointer("/power");
  if (!p.contains(ptr) || !p.at(ptr).is_object()) return;
  out += "Power and clocks\n";
  const auto& nv = p.at(ptr).value("nvpmodel", json());
  if (nv.is_object()) {
    std::string mode = show(nv, "/mode_name", "?") + " (id " + show(nv, "/mode_id", "?") + ")";
    if (nv.value("fastest_mode_id", json()) != nv.value("mode_id", json()) &&
        nv["fastest_mode_id"].is_number())
      mode += ", fastest is " + show(nv, "/fastest_mode_name", "?") + " (id " +
              show(nv, "/fastest_mode_id") + ")";
    row(out, "Power mode", mode);
  } else {
    row(out, "Power mode", "unknown (no /etc/nvpmodel.conf)");
  }
  std::string clocks = show(p, "/power/jetson_clocks/in_effect", "unknown");
  if (p.contains(json::json_pointer("/power/jetson_clocks/evidence")) &&
      p.at(json::json_pointer("/power/jetson_clocks/evidence")).is_string())
    clocks += " (" + show(p, "/power/jetson_clocks/evidence") + ")";
  row(out, "jetson_clocks", clocks);
  std::string gpu_ceiling = has_number(p, "/power/gpu/available_max_hz")
                                ? "/power/gpu/available_max_hz"
                                : "/power/gpu/max_hz";
  row(out, "GPU clock", clock(p, "/power/gpu", gpu_ceiling));
  std::string emc = clock(p, "/power/emc", "/power/emc/max_hz");
  if (has_number(p, "/power/emc/cap_hz"))
    emc += ", power-mode cap " + mhz(p, "/power/emc/cap_hz") + " MHz";
  row(out, "EMC clock", emc);
}

std::string module_text(const json& p) {
  std::string m = show(p, "/tegra/module");
  if (has_number(p, "/tegra/module_memory_gb") && m.find("GB") == std::string::npos)
    m += fmt::format(" ({} GB)", p.at(json::json_pointer("/tegra/module_memory_gb")).get<int>());
  auto variant = json::json_pointer("/tegra/module_variant");
  if (p.contains(variant) && p.at(variant).is_string())
    m += ", " + p.at(variant).get<std::string>() + " mode";
  return m;
}

std::string jetpack_text(const json& p) {
  std::string j = show(p, "/tegra/jetpack");
  // An ambiguous release has a null jetpack and its candidates: "3.2.1 | 3.3".
  auto cand = json::json_pointer("/tegra/jetpack_candidates");
  if (p.contains(cand) && p.at(cand).is_array() && p.at(cand).size() > 1) {
    j.clear();
    for (const auto& c : p.at(cand))
      if (c.is_string()) j += (j.empty() ? "" : " | ") + c.get<std::string>();
  }
  auto amb = json::json_pointer("/tegra/jetpack_ambiguous");
  if (p.contains(amb) && p.at(amb).is_boolean() && p.at(amb).get<bool>())
    j += " (this L4T release shipped in more than one JetPack)";
  return j;
}

// In a container: the image's L4T beside the host's, and what breaks CUDA.
void container_rows(std::string& out, const json& p) {
  const auto& c = p.at(json::json_pointer("/container/l4t_check"));
  row(out, "Image L4T / CUDA", show(c, "/image_l4t") + " / " + show(c, "/image_cuda"));
  std::string host = show(c, "/host_l4t");
  if (host == "unknown") host = "kernel " + show(c, "/host_kernel");
  row(out, "Host L4T / driver", host + " / CUDA " + show(c, "/driver_cuda"));
  row(out, "Image vs host", show(c, "/status"));
  if (c.contains("problems") && c["problems"].is_array())
    for (const auto& pr : c["problems"])
      if (pr.is_string()) row(out, "  mismatch", pr.get<std::string>());
  if (c.contains("fix") && c["fix"].is_string()) row(out, "  fix", c["fix"].get<std::string>());
}

}  // namespace

std::string render_platform_text(const json& p) {
  std::string out;
  bool tegra = p.value(json::json_pointer("/tegra/is_tegra"), false);
  out += "Hardware\n";
  if (tegra) {
    row(out, "Model", show(p, "/tegra/model"));
    row(out, "Module", module_text(p));
    row(out, "Part number",
        show(p, "/tegra/part_number") +
            (p.contains(json::json_pointer("/tegra/part_number_source")) &&
                     p.at(json::json_pointer("/tegra/part_number_source")).is_string()
                 ? " (from " + show(p, "/tegra/part_number_source") + ")"
                 : ""));
    if (p.contains(json::json_pointer("/tegra/eeprom/part_number")))
      row(out, "699 part number", show(p, "/tegra/eeprom/part_number"));
    if (p.contains(json::json_pointer("/tegra/carrier")) &&
        p.at(json::json_pointer("/tegra/carrier")).is_string())
      row(out, "Carrier",
          show(p, "/tegra/carrier") + " (" + show(p, "/tegra/carrier_name", "unknown carrier") +
              ")");
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
    row(out, "JetPack", jetpack_text(p));
  }
  bool in_container = p.value(json::json_pointer("/container/detected"), false);
  row(out, "Container", in_container ? "yes (" + show(p, "/container/sign") + ")" : "no");
  if (p.contains(json::json_pointer("/container/l4t_check"))) container_rows(out, p);
  if (p.contains("hostname")) row(out, "Hostname", show(p, "/hostname"));
  out += "Libraries\n";
  row(out, "CUDA toolkit", show(p, "/cuda/toolkit_version", "not found"));
  row(out, "cuDNN", show(p, "/libraries/cudnn", "not found"));
  row(out, "TensorRT", show(p, "/libraries/tensorrt", "not found"));
  row(out, "VPI", show(p, "/libraries/vpi", "not found"));
  std::string cv = show(p, "/libraries/opencv", "not found");
  if (p.contains(json::json_pointer("/libraries/opencv_cuda")) &&
      p.at(json::json_pointer("/libraries/opencv_cuda")).is_boolean())
    cv += std::string(" (with CUDA: ") +
          (p.at(json::json_pointer("/libraries/opencv_cuda")).get<bool>() ? "yes" : "no") + ")";
  row(out, "OpenCV", cv);
  row(out, "Vulkan", show(p, "/libraries/vulkan", "not found"));
  row(out, "NVIDIA driver",
      show(p, "/nvidia_driver/version", nvgpu_loaded(p) ? "n/a (nvgpu)" : "not loaded"));
  if (tegra) power_section(out, p);
  driver_stack(out, p);
  return out;
}

std::string render_warnings_text(const json& warnings) {
  std::string out;
  for (const auto& w : warnings)
    out += fmt::format("warning: {}: {}\n", terminal_safe(w.value("source", "")),
                       terminal_safe(w.value("message", "")));
  return out;
}

}  // namespace jetgate::report
