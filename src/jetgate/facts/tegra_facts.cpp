// SPDX-License-Identifier: Apache-2.0
// /platform/tegra: is this a Jetson, which L4T/JetPack, which module.
#include <algorithm>
#include <cmath>

#include "jetgate/facts/collect_context.hpp"
#include "jetgate/facts/device_tree.hpp"
#include "jetgate/facts/jetpack_table.hpp"
#include "jetgate/facts/l4t.hpp"
#include "jetgate/facts/module_provenance.hpp"
#include "jetgate/facts/node_access.hpp"
#include "jetgate/facts/text.hpp"

namespace jetgate::facts {
namespace {

std::optional<std::string> dt_string(CollectContext& ctx, const std::string& prop,
                                     const keys::Pointer& fact) {
  auto raw = ctx.read_device_tree(prop, fact);
  if (!raw) return std::nullopt;
  auto items = split_nul_list(*raw);
  if (items.empty()) return std::nullopt;
  if (!is_printable_text(items.front()) || items.front().size() > 256) {
    ctx.warn(fact, ctx.root().display("/proc/device-tree/" + prop), "not a printable string");
    return std::nullopt;
  }
  return items.front();
}

struct L4tFinding {
  std::optional<std::string> version, source, release_line;
  std::optional<std::string> kernel_series;  // "36.4" from an OE4T kernel release
  std::vector<std::string> candidates;       // the table's releases of that series
};

// The releases of jetgate's table in one series ("36.4" -> 36.4.0 ... 36.4.7).
std::vector<std::string> releases_of_series(const std::string& series) {
  std::vector<std::string> out;
  const auto& table = builtin_jetpack_table();
  if (!table.ok()) return out;
  for (const auto& r : table->releases())
    if (r.l4t.rfind(series + ".", 0) == 0) out.push_back(r.l4t);
  return out;
}

// No release file and no package: an OE4T kernel names the series. One
// release in that series names the L4T release; several are candidates.
bool l4t_from_kernel(const std::optional<std::string>& kernel_release, L4tFinding& f) {
  if (!kernel_release) return false;
  f.kernel_series = l4t_series_from_kernel_release(*kernel_release);
  if (!f.kernel_series) return false;
  f.candidates = releases_of_series(*f.kernel_series);
  if (f.candidates.size() == 1) {
    f.version = f.candidates.front();
    f.source = "kernel:/proc/sys/kernel/osrelease";
  }
  return true;
}

L4tFinding find_l4t(CollectContext& ctx, const std::optional<std::string>& kernel_release) {
  L4tFinding f;
  if (kernel_release) f.kernel_series = l4t_series_from_kernel_release(*kernel_release);
  const std::string path = "/etc/nv_tegra_release";
  std::string problem;
  if (auto text = ctx.read(path, keys::kL4t)) {
    for (auto line : split_lines(*text))
      if (!trim(line).empty()) {
        f.release_line = fact_text(line, 512);
        break;
      }
    auto v = parse_nv_tegra_release(*text);
    if (v.ok()) {
      f.version = *v;
      f.source = path;
      return f;
    }
    problem = ctx.root().display(path) + ": " + v.error().what;
  } else if (ctx.root().exists(path)) {
    problem = ctx.root().display(path) + " exists but cannot be read (see the warning about it)";
  }
  const auto& dpkg = ctx.dpkg();
  if (auto it = dpkg.find("nvidia-l4t-core"); it != dpkg.end()) {
    if (auto v = l4t_from_package_version(it->second)) {
      f.version = v;
      f.source = "dpkg:nvidia-l4t-core";
      return f;
    }
    problem += (problem.empty() ? "" : "; ") + std::string("nvidia-l4t-core version \"") +
               it->second + "\" is not X.Y.Z-...";
  }
  if (problem.empty() && l4t_from_kernel(kernel_release, f)) {
    if (f.version) return f;
    std::string list;
    for (const auto& c : f.candidates) list += (list.empty() ? "" : ", ") + c;
    ctx.warn(keys::kL4t, ctx.root().display("/proc/sys/kernel/osrelease"),
             "no " + ctx.root().display(path) +
                 " and no nvidia-l4t-core package; the kernel release \"" + *kernel_release +
                 "\" names L4T series " + *f.kernel_series +
                 " only (OE4T/meta-tegra builds one kernel per series), which holds " +
                 (list.empty() ? std::string("no release jetgate knows") : list) +
                 ": /platform/tegra/l4t_candidates lists them; install the release file "
                 "(meta-tegra's nv-tegra-release recipe) to name one");
    return f;
  }
  if (problem.empty())
    problem = "neither " + ctx.root().display(path) +
              " nor an installed nvidia-l4t-core package exists (usual on mainline-kernel "
              "bring-ups such as Talos or OE4T without the L4T release file); CUDA user space "
              "must still match an L4T release";
  ctx.warn(keys::kL4t, ctx.root().display(path), "cannot tell the L4T release: " + problem);
  return f;
}

// The JetPack values of the releases (with markers), each once, in table order.
std::vector<std::string> jetpacks_of(const JetpackTable& table,
                                     const std::vector<std::string>& l4ts) {
  std::vector<std::string> out;
  for (const auto& l : l4ts)
    if (const auto* row = table.find(l))
      for (const auto& j : row->jetpack)
        if (std::find(out.begin(), out.end(), j) == out.end()) out.push_back(j);
  return out;
}

// /platform/tegra/jetpack is one value or null; an ambiguous release (or an
// L4T series without its patch release) gives null and the candidates.
void set_jetpack(nlohmann::json& t, const std::vector<std::string>& values,
                 const std::string& source) {
  nlohmann::json numbers = nlohmann::json::array();
  for (const auto& j : values) {
    auto n = jetpack_number(j);
    if (std::find(numbers.begin(), numbers.end(), n) == numbers.end()) numbers.push_back(n);
  }
  t[in_tegra(keys::kJetpack)] =
      values.size() == 1 ? nlohmann::json(values.front()) : nlohmann::json(nullptr);
  t[in_tegra(keys::kTegraJetpackCandidates)] = values;
  t[in_tegra(keys::kTegraJetpackVersions)] = numbers;
  t[in_tegra(keys::kTegraJetpackAmbiguous)] = values.size() > 1;
  t[in_tegra(keys::kTegraJetpackSource)] = source;
}

void add_jetpack(CollectContext& ctx, const L4tFinding& found, bool is_tegra, nlohmann::json& t) {
  const std::optional<std::string>& l4t = found.version;
  t[in_tegra(keys::kTegraL4tKind)] = nullptr;
  t[in_tegra(keys::kJetpack)] = nullptr;
  t[in_tegra(keys::kTegraJetpackCandidates)] = nullptr;
  t[in_tegra(keys::kTegraJetpackVersions)] = nullptr;
  t[in_tegra(keys::kTegraJetpackAmbiguous)] = nullptr;
  t[in_tegra(keys::kTegraJetpackSource)] = nullptr;
  if (!is_tegra) return;
  const auto& table = builtin_jetpack_table();
  if (!table.ok()) {
    ctx.warn(keys::kJetpack, table.error().where, table.error().message());
    return;
  }
  const auto& dpkg = ctx.dpkg();
  std::optional<std::string> packaged;
  if (auto it = dpkg.find("nvidia-jetpack"); it != dpkg.end())
    packaged = jetpack_from_package_version(it->second);
  const JetpackRelease* row = l4t ? table->find(*l4t) : nullptr;
  if (row) {
    t[in_tegra(keys::kTegraL4tKind)] = row->kind;
    if (!row->jetpack.empty()) {
      // The nvidia-jetpack package settles which of an ambiguous release's JetPacks it is.
      if (row->ambiguous() && packaged)
        for (const auto& j : row->jetpack)
          if (jetpack_number(j) == *packaged) {
            set_jetpack(t, {j}, "table+dpkg:nvidia-jetpack");
            return;
          }
      set_jetpack(t, row->jetpack, "table");
      return;
    }
  }
  if (packaged) {
    set_jetpack(t, {*packaged}, "dpkg:nvidia-jetpack");
    return;
  }
  if (!l4t && !found.candidates.empty()) {
    auto values = jetpacks_of(*table, found.candidates);
    if (!values.empty()) set_jetpack(t, values, "table:l4t_candidates");
    return;
  }
  if (!l4t) return;
  if (row)  // a BSP-only release: no JetPack named it
    ctx.warn(keys::kJetpack, "L4T " + *l4t,
             "L4T " + *l4t + " was released on its own, not in a JetPack (" + row->source +
                 "), and no nvidia-jetpack package is installed");
  else
    ctx.warn(keys::kJetpack, "L4T " + *l4t,
             "L4T " + *l4t +
                 " is not in jetgate's table of JetPack releases (the newest it knows is " +
                 table->newest_l4t() +
                 ") and no nvidia-jetpack package is installed; update jetgate, "
                 "or report `head -1 /etc/nv_tegra_release` with the JetPack version you flashed");
}

std::optional<EepromPartNumber> read_module_eeprom(CollectContext& ctx, std::string& source) {
  if (auto sku = dt_string(ctx, "chosen/nvidia,sku", keys::kTegraEeprom))
    if (auto p = parse_699_part_number(*sku)) {
      source = "/proc/device-tree/chosen/nvidia,sku";
      return p;
    }
  // The module EEPROM at I2C address 0x50 through the at24 driver; jetson_stats
  // probes buses 0, 1, 2 and 7 in this order.
  auto names = ctx.root().list("/sys/bus/i2c/devices");
  if (!names.ok()) return std::nullopt;
  std::vector<std::string> candidates;
  for (std::string bus : {"0", "1", "2", "7"}) candidates.push_back(bus + "-0050");
  for (const auto& n : *names)
    if (n.size() > 5 && n.compare(n.size() - 5, 5, "-0050") == 0 &&
        std::find(candidates.begin(), candidates.end(), n) == candidates.end())
      candidates.push_back(n);
  for (const auto& dev : candidates) {
    if (std::find(names->begin(), names->end(), dev) == names->end()) continue;
    std::string path = "/sys/bus/i2c/devices/" + dev + "/eeprom";
    auto bytes = ctx.read(path, keys::kTegraEeprom, 4096);
    if (!bytes) continue;
    auto p = part_number_from_eeprom(*bytes);
    if (p && module_name(p->p_number())) {
      source = path;
      return p;
    }
  }
  return std::nullopt;
}

std::optional<ModuleFinding> find_module(CollectContext& ctx,
                                         const std::vector<std::string>& compatible) {
  if (auto f = module_from_compatible(compatible)) return f;
  for (std::string prop : {"nvidia,boardids", "chosen/ids", "chosen/plugin-manager/ids"})
    if (auto ids = dt_string(ctx, prop, keys::kPartNumber))
      if (auto f = module_from_board_ids(*ids)) return f;
  if (auto dts = dt_string(ctx, "nvidia,dtsfilename", keys::kPartNumber))
    if (auto f = module_from_dtsfilename(*dts)) return f;
  return std::nullopt;
}

void check_memory(CollectContext& ctx, const nlohmann::json& out, const std::string& part,
                  int memory_gb) {
  const auto* total = keys::find(out, in_platform(keys::kMemoryTotalBytes));
  if (!total || !total->is_number_integer()) return;
  double gib = static_cast<double>(total->get<long long>()) / (1024.0 * 1024.0 * 1024.0);
  // MemTotal leaves out firmware carve-outs: a 8GB module shows about 7.4 GiB.
  if (gib >= 0.8 * memory_gb && gib <= 1.05 * memory_gb) return;
  ctx.warn(keys::kModule, ctx.root().display("/proc/meminfo"),
           part + " is a " + std::to_string(memory_gb) + "GB module but the machine has " +
               std::to_string(std::lround(gib)) +
               " GiB of memory: the device tree may name the developer-kit module instead of the "
               "one fitted (the module EEPROM, /proc/device-tree/chosen/nvidia,sku, names the real "
               "one)");
}

void add_module(CollectContext& ctx, const std::vector<std::string>& compatible,
                const nlohmann::json& out, nlohmann::json& t) {
  auto finding = find_module(ctx, compatible);
  std::string eeprom_source;
  auto eeprom = read_module_eeprom(ctx, eeprom_source);
  t[in_tegra(keys::kTegraEeprom)] = nullptr;
  if (eeprom) {
    t[in_tegra(keys::kTegraEeprom)] = {{"part_number", eeprom->part_number},
                                       {"board_id", eeprom->board_id},
                                       {"sku", eeprom->sku},
                                       {"source", eeprom_source}};
    if (finding && finding->part_number != eeprom->p_number())
      ctx.warn(keys::kPartNumber, eeprom_source,
               "the module EEPROM names " + eeprom->p_number() + " but the device tree (" +
                   finding->source + ") names " + finding->part_number +
                   "; reporting the EEPROM's");
    ModuleFinding from_eeprom{eeprom->p_number(), "eeprom", std::nullopt, std::nullopt};
    if (finding) {
      from_eeprom.carrier = finding->carrier;
      from_eeprom.variant = finding->variant;
    }
    finding = from_eeprom;
  }
  std::optional<std::string> part, source, variant, carrier;
  if (finding) {
    part = finding->part_number;
    source = finding->source;
    variant = finding->variant;
    carrier = finding->carrier;
  }
  t[in_tegra(keys::kPartNumber)] = json_or_null(part);
  t[in_tegra(keys::kTegraPartNumberSource)] = json_or_null(source);
  t[in_tegra(keys::kModule)] = json_or_null(part ? module_name(*part) : std::nullopt);
  auto memory = part ? module_memory_gb(*part) : std::nullopt;
  t[in_tegra(keys::kTegraModuleMemoryGb)] =
      memory ? nlohmann::json(*memory) : nlohmann::json(nullptr);
  t[in_tegra(keys::kTegraModuleVariant)] = json_or_null(variant);
  t[in_tegra(keys::kTegraCarrier)] = json_or_null(carrier);
  t[in_tegra(keys::kTegraCarrierName)] =
      json_or_null(carrier ? carrier_name(*carrier) : std::nullopt);
  if (part && memory) check_memory(ctx, out, *part, *memory);
}

}  // namespace

void collect_tegra(CollectContext& ctx, nlohmann::json& out) {
  nlohmann::json t = nlohmann::json::object();
  std::vector<std::string> signs;

  auto compatible_raw = ctx.read_device_tree("compatible", keys::kSoc);
  std::vector<std::string> compatible;
  if (compatible_raw) {
    for (auto& c : split_nul_list(*compatible_raw))
      if (is_printable_text(c) && c.size() < 256) compatible.push_back(c);
  }
  auto soc = soc_from_compatible(compatible);
  if (ctx.root().exists("/etc/nv_tegra_release")) signs.push_back("/etc/nv_tegra_release exists");
  if (soc) signs.push_back("device-tree compatible names nvidia," + *soc);
  std::optional<std::string> family;
  if (auto fam = ctx.read("/sys/devices/soc0/family", keys::kIsTegra, 4096)) {
    family = fact_text(*fam);
    if (family && starts_with_icase(*family, "tegra"))
      signs.push_back("/sys/devices/soc0/family is " + *family);
  }
  bool is_tegra = !signs.empty();
  t[in_tegra(keys::kIsTegra)] = is_tegra;
  t[in_tegra(keys::kTegraSigns)] = signs;

  std::optional<std::string> kernel_release;
  if (const auto* kr = keys::find(out, in_platform(keys::kKernelRelease)); kr && kr->is_string())
    kernel_release = kr->get<std::string>();
  L4tFinding l4t;
  if (is_tegra) l4t = find_l4t(ctx, kernel_release);
  t[in_tegra(keys::kL4t)] = json_or_null(l4t.version);
  t[in_tegra(keys::kTegraL4tSource)] = json_or_null(l4t.source);
  t[in_tegra(keys::kTegraL4tSeriesFromKernel)] = json_or_null(l4t.kernel_series);
  t[in_tegra(keys::kTegraL4tCandidates)] = !l4t.version && !l4t.candidates.empty()
                                               ? nlohmann::json(l4t.candidates)
                                               : nlohmann::json(nullptr);
  t[in_tegra(keys::kTegraReleaseLine)] = json_or_null(l4t.release_line);
  add_jetpack(ctx, l4t, is_tegra, t);

  t[in_tegra(keys::kBoardModel)] = json_or_null(dt_string(ctx, "model", keys::kBoardModel));
  t[in_tegra(keys::kTegraCompatible)] = compatible;
  t[in_tegra(keys::kSoc)] = json_or_null(is_tegra ? soc : std::nullopt);
  if (is_tegra) {
    add_module(ctx, compatible, out, t);
  } else {
    for (const auto* key : {&keys::kPartNumber, &keys::kTegraPartNumberSource, &keys::kModule,
                            &keys::kTegraModuleMemoryGb, &keys::kTegraModuleVariant,
                            &keys::kTegraCarrier, &keys::kTegraCarrierName, &keys::kTegraEeprom})
      t[in_tegra(*key)] = nullptr;
  }
  t[in_tegra(keys::kTegraCudaArch)] =
      json_or_null(soc && is_tegra ? cuda_arch_for_soc(*soc) : std::nullopt);
  t[in_tegra(keys::kTegraSocFamily)] = json_or_null(family);
  if (ctx.options().show_serial)
    t[in_tegra(keys::kTegraSerialNumber)] =
        json_or_null(dt_string(ctx, "serial-number", keys::kTegraSerialNumber));

  collect_gpu_stack(ctx, t);
  // The provenance reads the kernel release and the SoC from the platform it lands in.
  auto& tegra = out[in_platform(keys::kPlatformTegra)] = std::move(t);
  collect_module_provenance(ctx, out, tegra[in_tegra(keys::kTegraDriver)]);
  // Which nodes CUDA should open follows from the SoC, the release and the modules.
  collect_node_access(ctx, out);
}

}  // namespace jetgate::facts
