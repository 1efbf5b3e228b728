// SPDX-License-Identifier: Apache-2.0
// /platform/power: nvpmodel mode, jetson_clocks, GPU and EMC clocks. Read from
// files only (no nvpmodel or jetson_clocks process), so a recorded root shows
// the same facts as the live board.
#include <cerrno>
#include <cstring>

#include "jetgate/facts/collect_context.hpp"
#include "jetgate/facts/power.hpp"
#include "jetgate/facts/text.hpp"

namespace jetgate::facts {
namespace {

using nlohmann::json;

json hz_or_null(const std::optional<std::int64_t>& v) {
  return v ? json(*v) : json(nullptr);
}

// The object that lands at `at` (/platform/power/gpu), from its documented keys
// (kPowerGpuCurHz) and their values, in the order given.
json section(const keys::Pointer& at,
             std::initializer_list<std::pair<const keys::Pointer*, json>> fields) {
  json j = json::object();
  for (const auto& [key, value] : fields) j[keys::relative(*key, at)] = value;
  return j;
}

// sysfs and debugfs clock files are world-readable on some releases and root-only
// on others: a permission failure is reported once per group, not per file.
struct QuietReader {
  CollectContext& ctx;
  bool denied = false;
  std::optional<std::string> read(const std::string& path) {
    auto r = ctx.root().read(path, std::size_t{64} * 1024);
    if (r.ok()) return std::move(r).value();
    if (r.error().what == std::strerror(EACCES) || r.error().what == std::strerror(EPERM))
      denied = true;
    return std::nullopt;
  }
  std::optional<std::int64_t> integer(const std::string& path) {
    auto t = read(path);
    return t ? parse_sysfs_integer(*t) : std::nullopt;
  }
};

json nvpmodel_json(CollectContext& ctx) {
  const std::string conf_path = "/etc/nvpmodel.conf";
  auto conf_text = ctx.read(conf_path, keys::kPowerNvpmodel);
  if (!conf_text) return nullptr;
  auto conf = parse_nvpmodel_conf(*conf_text);
  if (conf.modes.empty()) {
    ctx.warn(keys::kPowerNvpmodel, ctx.root().display(conf_path),
             "no \"< POWER_MODEL ID=n NAME=... >\" line; is this an nvpmodel configuration?");
    return nullptr;
  }
  std::optional<int> mode;
  std::string mode_source;
  const std::string status_path = "/var/lib/nvpmodel/status";
  if (auto status = ctx.read(status_path, keys::kPowerNvpmodelModeId, 4096)) {
    mode = parse_nvpmodel_status(*status);
    if (mode)
      mode_source = status_path;
    else
      ctx.warn(keys::kPowerNvpmodelModeId, ctx.root().display(status_path),
               "no \"pmode:NNNN\" in it");
  }
  if (!mode && conf.default_id) {
    // nvpmodel applies PM_CONFIG DEFAULT until a mode is chosen with -m.
    mode = conf.default_id;
    mode_source = conf_path + " (PM_CONFIG DEFAULT; no " + status_path + ")";
  }
  json modes = json::array();
  for (const auto& m : conf.modes) modes.push_back({{"id", m.id}, {"name", m.name}});
  const auto* current = mode ? conf.find(*mode) : nullptr;
  const auto* fastest = conf.fastest();
  const auto* deflt = conf.default_id ? conf.find(*conf.default_id) : nullptr;
  if (mode && !current)
    ctx.warn(keys::kPowerNvpmodelModeName, ctx.root().display(conf_path),
             "mode " + std::to_string(*mode) + " is not defined in the configuration");
  return section(
      keys::kPowerNvpmodel,
      {{&keys::kPowerNvpmodelModeId, mode ? json(*mode) : json(nullptr)},
       {&keys::kPowerNvpmodelModeName, current ? json(current->name) : json(nullptr)},
       {&keys::kPowerNvpmodelModeSource, mode ? json(mode_source) : json(nullptr)},
       {&keys::kPowerNvpmodelDefaultModeId, deflt ? json(deflt->id) : json(nullptr)},
       {&keys::kPowerNvpmodelDefaultModeName, deflt ? json(deflt->name) : json(nullptr)},
       {&keys::kPowerNvpmodelFastestModeId, fastest ? json(fastest->id) : json(nullptr)},
       {&keys::kPowerNvpmodelFastestModeName, fastest ? json(fastest->name) : json(nullptr)},
       {&keys::kPowerNvpmodelModes, modes}});
}

bool is_gpu_devfreq(const std::string& name) {
  // 17000000.gpu (Orin, JetPack 6), 17000000.ga10b (Orin, JetPack 5),
  // 17000000.gv11b (Xavier), 17000000.gp10b (TX2), 57000000.gpu (Nano, TX1),
  // gpu-gpc-0 (Thor).
  for (const char* tag : {"gpu", "ga10b", "gv11b", "gp10b", "gm20b", "gb10b"})
    if (name.find(tag) != std::string::npos) return true;
  return false;
}

std::optional<std::string> devfreq_named(CollectContext& ctx, bool (*match)(const std::string&)) {
  auto names = ctx.root().list("/sys/class/devfreq");
  if (!names.ok()) return std::nullopt;
  for (const auto& n : *names)
    if (match(n)) return "/sys/class/devfreq/" + n;
  return std::nullopt;
}

json gpu_json(CollectContext& ctx) {
  auto dir = devfreq_named(ctx, is_gpu_devfreq);
  if (!dir) return nullptr;
  QuietReader r{ctx};
  std::optional<std::int64_t> available;
  if (auto t = r.read(*dir + "/available_frequencies")) available = highest_frequency(*t);
  std::optional<std::string> governor;
  if (auto t = r.read(*dir + "/governor")) governor = fact_text(*t);
  json j =
      section(keys::kPowerGpu, {{&keys::kPowerGpuCurHz, hz_or_null(r.integer(*dir + "/cur_freq"))},
                                {&keys::kPowerGpuMinHz, hz_or_null(r.integer(*dir + "/min_freq"))},
                                {&keys::kPowerGpuMaxHz, hz_or_null(r.integer(*dir + "/max_freq"))},
                                {&keys::kPowerGpuAvailableMaxHz, hz_or_null(available)},
                                {&keys::kPowerGpuGovernor, json_or_null(governor)},
                                {&keys::kPowerGpuSource, *dir}});
  if (r.denied)
    ctx.warn(keys::kPowerGpu, ctx.root().display(*dir),
             "permission denied; run as root to read the GPU clocks");
  return j;
}

// EMC (memory) clock: bpmp debugfs on Orin and Xavier with JetPack 5+, the
// bwmgr devfreq device on Thor, clk/tegra_bwmgr debugfs on JetPack 4.
json emc_json(CollectContext& ctx) {
  QuietReader r{ctx};
  std::optional<std::int64_t> cur, max, min;
  std::optional<std::string> source;
  const std::string bpmp = "/sys/kernel/debug/bpmp/debug/clk/emc";
  if ((cur = r.integer(bpmp + "/rate"))) {
    max = r.integer(bpmp + "/max_rate");
    min = r.integer(bpmp + "/min_rate");
    source = bpmp;
  } else if (auto dir = devfreq_named(ctx, [](const std::string& n) {
               return n == "bwmgr" || n.find("emc") != std::string::npos;
             })) {
    cur = r.integer(*dir + "/cur_freq");
    max = r.integer(*dir + "/max_freq");
    min = r.integer(*dir + "/min_freq");
    source = *dir;
  } else if ((cur = r.integer("/sys/kernel/debug/clk/emc/clk_rate"))) {
    max = r.integer("/sys/kernel/debug/tegra_bwmgr/emc_max_rate");
    min = r.integer("/sys/kernel/debug/tegra_bwmgr/emc_min_rate");
    source = "/sys/kernel/debug/clk/emc";
  }
  auto cap = r.integer("/sys/kernel/nvpmodel_emc_cap/emc_iso_cap");
  if (!cur && !cap) {
    if (r.denied)
      ctx.warn(keys::kPowerEmc, ctx.root().display("/sys/kernel/debug"),
               "permission denied; the EMC (memory) clock is only in debugfs here: run as root to "
               "read it");
    return nullptr;
  }
  return section(keys::kPowerEmc, {{&keys::kPowerEmcCurHz, hz_or_null(cur)},
                                   {&keys::kPowerEmcMinHz, hz_or_null(min)},
                                   {&keys::kPowerEmcMaxHz, hz_or_null(max)},
                                   {&keys::kPowerEmcCapHz, hz_or_null(cap)},
                                   {&keys::kPowerEmcSource, json_or_null(source)}});
}

json cpu_json(CollectContext& ctx) {
  QuietReader r{ctx};
  const std::string dir = "/sys/devices/system/cpu/cpu0/cpufreq";
  auto to_hz = [](std::optional<std::int64_t> khz) {
    return khz ? std::optional<std::int64_t>(*khz * 1000) : std::nullopt;
  };
  auto min = to_hz(r.integer(dir + "/scaling_min_freq"));
  auto max = to_hz(r.integer(dir + "/scaling_max_freq"));
  auto hw = to_hz(r.integer(dir + "/cpuinfo_max_freq"));
  if (!min && !max && !hw) return nullptr;
  return section(keys::kPowerCpu, {{&keys::kPowerCpuMinHz, hz_or_null(min)},
                                   {&keys::kPowerCpuMaxHz, hz_or_null(max)},
                                   {&keys::kPowerCpuCpuinfoMaxHz, hz_or_null(hw)},
                                   {&keys::kPowerCpuSource, dir}});
}

// jetson_clocks pins the clocks to the maximum the power mode allows, so the
// sign that it is in effect is min = max for the GPU (and the CPU when readable).
json jetson_clocks_json(const json& gpu, const json& cpu) {
  // min = max in a section (the GPU's at /platform/power/gpu), or nullopt.
  auto pinned = [](const json& j, const keys::Pointer& at, const keys::Pointer& min_key,
                   const keys::Pointer& max_key) -> std::optional<bool> {
    const auto* min = keys::find(j, keys::relative(min_key, at));
    const auto* max = keys::find(j, keys::relative(max_key, at));
    if (!min || !max || !min->is_number_integer() || !max->is_number_integer()) return std::nullopt;
    return min->get<std::int64_t>() == max->get<std::int64_t>();
  };
  auto g = pinned(gpu, keys::kPowerGpu, keys::kPowerGpuMinHz, keys::kPowerGpuMaxHz);
  auto c = pinned(cpu, keys::kPowerCpu, keys::kPowerCpuMinHz, keys::kPowerCpuMaxHz);
  if (!g)
    return section(keys::kPowerJetsonClocks, {{&keys::kPowerJetsonClocksInEffect, nullptr},
                                              {&keys::kPowerJetsonClocksEvidence, nullptr}});
  bool on = *g && c.value_or(true);
  std::string evidence = std::string("GPU min ") + (*g ? "=" : "<") + " max";
  if (c) evidence += std::string(", CPU min ") + (*c ? "=" : "<") + " max";
  return section(keys::kPowerJetsonClocks, {{&keys::kPowerJetsonClocksInEffect, on},
                                            {&keys::kPowerJetsonClocksEvidence, evidence}});
}

}  // namespace

void collect_power(CollectContext& ctx, json& out) {
  json gpu = gpu_json(ctx), cpu = cpu_json(ctx);
  out[in_platform(keys::kPowerNvpmodel)] = nvpmodel_json(ctx);
  out[in_platform(keys::kPowerJetsonClocks)] = jetson_clocks_json(gpu, cpu);
  out[in_platform(keys::kPowerGpu)] = gpu;
  out[in_platform(keys::kPowerEmc)] = emc_json(ctx);
  out[in_platform(keys::kPowerCpu)] = cpu;
}

}  // namespace jetgate::facts
