// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/platform_text.hpp"

#include <fmt/format.h>

#include "jetgate/core/json_text.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/record/codec.hpp"

namespace jetgate::report {
namespace {

using nlohmann::json;
using record::Number;

// A fact as the text shows it: its value, or `unknown` (or the caller's word).
std::string show(const std::optional<std::string>& v, const std::string& unknown = "unknown") {
  return v ? *v : unknown;
}
std::string show(const std::optional<bool>& v, const std::string& unknown = "unknown") {
  return v ? (*v ? "yes" : "no") : unknown;
}
std::string show(const std::optional<std::int64_t>& v, const std::string& unknown = "unknown") {
  return v ? std::to_string(*v) : unknown;
}

void row(std::string& out, const std::string& label, const std::string& value) {
  out += fmt::format("  {:<18} {}\n", label + ":", terminal_safe(value));
}

std::string gib(const std::optional<std::int64_t>& bytes) {
  if (!bytes) return "unknown";
  return fmt::format("{:.1f} GiB", static_cast<double>(*bytes) / (1024.0 * 1024.0 * 1024.0));
}

// Orin and older Jetsons run the nvgpu driver, which has no
// /proc/driver/nvidia/version; Thor and discrete GPUs run the nvidia driver.
bool nvgpu_loaded(const record::DriverStack& d) {
  for (const auto& m : d.modules)
    if (m.name == "nvgpu") return true;
  return false;
}

std::string id_and_name(const std::optional<std::int64_t>& id,
                        const std::optional<std::string>& name) {
  if (!id || *id < 0) return "?";
  std::string v = std::to_string(*id);
  if (name) v = *name + "(" + v + ")";
  return v;
}

// /platform/tegra/driver/node_access: owner, mode, major:minor, and whether this uid opened it.
void node_access(std::string& out, const record::NodeAccess& a) {
  if (a.nodes.empty()) return;
  std::string as =
      a.uid && *a.uid >= 0
          ? fmt::format("opened read/write as uid {}, gid {}, groups {}", *a.uid, show(a.gid, "?"),
                        a.groups ? dump_json(json(*a.groups)) : std::string("[]"))
          : std::string("a recording: not opened");
  out += "  Node access (" + terminal_safe(as) + "):\n";
  for (const auto& n : a.nodes) {
    std::string path = n.path.value_or("");
    if (n.present != true) {
      std::string why = n.provides.value_or("");
      out += fmt::format(
          "    {} MISSING{}\n", terminal_safe(path),
          why.empty() ? "" : " (this stack's CUDA opens it: " + terminal_safe(why) + ")");
      continue;
    }
    std::string open = !n.openable   ? "not tried"
                       : *n.openable ? "yes"
                                     : "NO (" + show(n.open_error, "?") + ")";
    std::string dev = n.major ? fmt::format(" {}:{}", *n.major, show(n.minor)) : std::string();
    out += fmt::format("    {} {}:{} {} {}{} open: {}\n", terminal_safe(path),
                       terminal_safe(id_and_name(n.uid, n.owner)),
                       terminal_safe(id_and_name(n.gid, n.group)), terminal_safe(show(n.mode, "?")),
                       terminal_safe(show(n.permissions, "?")), dev, terminal_safe(open));
  }
}

void driver_stack(std::string& out, const record::DriverStack& d) {
  if (!d.recorded) return;
  out += "GPU driver stack\n";
  std::string mods;
  for (const auto& m : d.modules) mods += (mods.empty() ? "" : ", ") + m.name.value_or("?");
  row(out, "Modules", mods.empty() ? "none of the GPU stack loaded" : mods);
  if (d.stack_name)
    row(out, "Stack",
        *d.stack_name + (d.stack_nvhost_ctrl == "part" ? " (/dev/nvhost-ctrl is part of it)"
                                                       : " (no /dev/nvhost-ctrl in this stack)"));
  std::string present;
  for (const auto& n : d.device_nodes)
    if (n.present == true)
      present +=
          fmt::format("    {} ({} {})\n", terminal_safe(n.path.value_or("")),
                      terminal_safe(n.type.value_or("")), terminal_safe(n.mode.value_or("")));
  out += "  Device nodes:\n";
  out += present.empty() ? "    none of the known GPU device nodes\n" : present;
  node_access(out, d.node_access);
  const std::vector<record::CdiSpec> none;
  const auto& cdi = d.cdi ? *d.cdi : none;
  for (const auto& spec : cdi) {
    std::string state;
    if (spec.error)
      state = "unusable: " + *spec.error;
    else {
      std::string miss;
      for (const auto& n : spec.device_nodes)
        if (n.present == false) miss += (miss.empty() ? "" : ", ") + n.host_path.value_or("");
      state = miss.empty() ? "all device nodes present"
                           : "MISSING on host: " + miss +
                                 "; a container requesting its devices will not start";
    }
    row(out, "CDI spec", fmt::format("{} ({})", spec.path.value_or(""), state));
  }
  if (d.cdi && d.cdi->empty() && !d.cdi_dirs.empty()) {
    std::string looked;
    for (const auto& dir : d.cdi_dirs)
      looked += (looked.empty() ? "" : ", ") + dir.path.value_or("");
    row(out, "CDI specs", "none found (looked in " + looked + ")");
  }
}

std::string mhz(const std::optional<Number>& hz) {
  if (!hz) return "?";
  return fmt::format("{:.0f}", hz->value / 1e6);
}

// "612 of 1020 MHz (min 306)", "2133 MHz", or "unknown".
std::string clock(const record::Clock& c, const std::optional<Number>& ceiling) {
  if (!c.cur_hz) return c.max_hz ? "max " + mhz(c.max_hz) + " MHz" : "unknown";
  std::string out = mhz(c.cur_hz);
  if (ceiling) out += " of " + mhz(ceiling);
  out += " MHz";
  if (c.min_hz && c.max_hz) out += fmt::format(" (limits {}-{})", mhz(c.min_hz), mhz(c.max_hz));
  return out;
}

void power_section(std::string& out, const record::Platform& p) {
  if (!p.power.recorded) return;
  out += "Power and clocks\n";
  const auto& nv = p.nvpmodel;
  if (nv.recorded) {
    std::string mode = show(nv.mode_name, "?") + " (id " + show(nv.mode_id, "?") + ")";
    if (nv.fastest_mode_id && nv.fastest_mode_id != nv.mode_id)
      mode += ", fastest is " + show(nv.fastest_mode_name, "?") + " (id " +
              show(nv.fastest_mode_id) + ")";
    row(out, "Power mode", mode);
  } else {
    row(out, "Power mode", "unknown (no /etc/nvpmodel.conf)");
  }
  const auto& w = p.power;
  std::string clocks = show(w.jetson_clocks_in_effect);
  if (w.jetson_clocks_evidence) clocks += " (" + *w.jetson_clocks_evidence + ")";
  row(out, "jetson_clocks", clocks);
  row(out, "GPU clock",
      clock(w.gpu, w.gpu.available_max_hz ? w.gpu.available_max_hz : w.gpu.max_hz));
  std::string emc = clock(w.emc, w.emc.max_hz);
  if (w.emc.cap_hz) emc += ", power-mode cap " + mhz(w.emc.cap_hz) + " MHz";
  row(out, "EMC clock", emc);
}

std::string module_text(const record::Tegra& t) {
  std::string m = show(t.module);
  if (t.module_memory_gb && m.find("GB") == std::string::npos)
    m += fmt::format(" ({} GB)", *t.module_memory_gb);
  if (t.module_variant) m += ", " + *t.module_variant + " mode";
  return m;
}

std::string jetpack_text(const record::Tegra& t) {
  std::string j = show(t.jetpack);
  // An ambiguous release has a null jetpack and its candidates: "3.2.1 | 3.3".
  if (t.jetpack_candidates && t.jetpack_candidates->size() > 1) {
    j.clear();
    for (const auto& c : *t.jetpack_candidates) j += (j.empty() ? "" : " | ") + c;
  }
  if (t.jetpack_ambiguous == true) j += " (this L4T release shipped in more than one JetPack)";
  return j;
}

// In a container: the image's L4T beside the host's, and what breaks CUDA.
void container_rows(std::string& out, const record::ContainerCheck& c) {
  row(out, "Image L4T / CUDA", show(c.image_l4t) + " / " + show(c.image_cuda));
  std::string host = show(c.host_l4t);
  if (host == "unknown") host = "kernel " + show(c.host_kernel);
  row(out, "Host L4T / driver", host + " / CUDA " + show(c.driver_cuda));
  row(out, "Image vs host", show(c.status));
  if (c.problems)
    for (const auto& pr : *c.problems) row(out, "  mismatch", pr);
  if (c.fix) row(out, "  fix", *c.fix);
}

}  // namespace

std::string render_platform_text(const record::Record& r) {
  const auto& p = r.platform;
  const auto& t = p.tegra;
  std::string out;
  bool tegra = t.is_tegra == true;
  out += "Hardware\n";
  if (tegra) {
    row(out, "Model", show(t.model));
    row(out, "Module", module_text(t));
    row(out, "Part number",
        show(t.part_number) +
            (t.part_number_source ? " (from " + *t.part_number_source + ")" : ""));
    if (t.eeprom_part_number) row(out, "699 part number", *t.eeprom_part_number);
    if (t.carrier)
      row(out, "Carrier", *t.carrier + " (" + show(t.carrier_name, "unknown carrier") + ")");
    row(out, "SoC", show(t.soc));
    row(out, "CUDA arch", show(t.cuda_arch));
    if (t.serial_number_recorded)
      row(out, "Serial number", show(t.serial_number));
    else
      row(out, "Serial number", "[hidden: --show-serial]");
  } else {
    row(out, "Jetson", "no (not a Tegra SoC)");
  }
  row(out, "Memory", gib(p.memory_total_bytes));
  out += "Platform\n";
  row(out, "Architecture", show(p.arch));
  row(out, "OS", show(p.os_pretty_name, show(p.os_id)));
  row(out, "Kernel", show(p.kernel_release));
  if (tegra) {
    row(out, "L4T", t.l4t.text());
    row(out, "JetPack", jetpack_text(t));
  }
  bool in_container = p.container_detected == true;
  row(out, "Container", in_container ? "yes (" + show(p.container_sign) + ")" : "no");
  if (p.container_check.recorded) container_rows(out, p.container_check);
  if (p.hostname_recorded) row(out, "Hostname", show(p.hostname));
  out += "Libraries\n";
  const auto& l = p.libraries;
  row(out, "CUDA toolkit", show(p.cuda_toolkit_version, "not found"));
  row(out, "cuDNN", show(l.cudnn, "not found"));
  row(out, "TensorRT", show(l.tensorrt, "not found"));
  row(out, "VPI", show(l.vpi, "not found"));
  std::string cv = show(l.opencv, "not found");
  if (l.opencv_cuda) cv += std::string(" (with CUDA: ") + (*l.opencv_cuda ? "yes" : "no") + ")";
  row(out, "OpenCV", cv);
  row(out, "Vulkan", show(l.vulkan, "not found"));
  row(out, "NVIDIA driver",
      show(p.nvidia_driver_version, nvgpu_loaded(t.driver) ? "n/a (nvgpu)" : "not loaded"));
  if (tegra) power_section(out, p);
  driver_stack(out, t.driver);
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
