// /platform/tegra: is this a Jetson, which L4T/JetPack, which module.
#include "jetgate/facts/collect_context.hpp"
#include "jetgate/facts/device_tree.hpp"
#include "jetgate/facts/l4t.hpp"
#include "jetgate/facts/text.hpp"

namespace jetgate::facts {
namespace {

constexpr std::size_t kDpkgStatusMax = 64u << 20;  // a full JetPack install is a few MB

// Device-tree properties live under /proc/device-tree, a link to
// /sys/firmware/devicetree/base that some containers and recorders keep only one of.
std::optional<std::string> read_dt(CollectContext& ctx, const std::string& prop, const std::string& fact) {
  if (auto t = ctx.read("/proc/device-tree/" + prop, fact, 64 * 1024)) return t;
  return ctx.read("/sys/firmware/devicetree/base/" + prop, fact, 64 * 1024);
}

std::optional<std::string> dt_string(CollectContext& ctx, const std::string& prop, const std::string& fact) {
  auto raw = read_dt(ctx, prop, fact);
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
};

L4tFinding find_l4t(CollectContext& ctx, const std::map<std::string, std::string>& dpkg) {
  L4tFinding f;
  const std::string path = "/etc/nv_tegra_release";
  std::string problem;
  if (auto text = ctx.read(path, "/platform/tegra/l4t")) {
    auto lines = split_lines(*text);
    if (!lines.empty()) f.release_line = fact_text(lines.front(), 512);
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
  if (auto it = dpkg.find("nvidia-l4t-core"); it != dpkg.end()) {
    if (auto v = l4t_from_package_version(it->second)) {
      f.version = v;
      f.source = "dpkg:nvidia-l4t-core";
      return f;
    }
    problem += (problem.empty() ? "" : "; ") + std::string("nvidia-l4t-core version \"") +
               it->second + "\" is not X.Y.Z-...";
  }
  if (problem.empty())
    problem = "neither " + ctx.root().display(path) +
              " nor an installed nvidia-l4t-core package exists (usual on mainline-kernel "
              "bring-ups such as Talos or OE4T without the L4T release file); CUDA user space "
              "must still match an L4T release";
  ctx.warn("/platform/tegra/l4t", ctx.root().display(path), "cannot tell the L4T release: " + problem);
  return f;
}

}  // namespace

void collect_tegra(CollectContext& ctx, nlohmann::json& out) {
  nlohmann::json t = nlohmann::json::object();
  std::vector<std::string> signs;

  auto compatible_raw = read_dt(ctx, "compatible", "/platform/tegra/soc");
  std::vector<std::string> compatible;
  if (compatible_raw) {
    for (auto& c : split_nul_list(*compatible_raw))
      if (is_printable_text(c) && c.size() < 256) compatible.push_back(c);
  }
  auto soc = soc_from_compatible(compatible);
  if (ctx.root().exists("/etc/nv_tegra_release")) signs.push_back("/etc/nv_tegra_release exists");
  if (soc) signs.push_back("device-tree compatible names nvidia," + *soc);
  std::optional<std::string> family;
  if (auto fam = ctx.read("/sys/devices/soc0/family", "/platform/tegra/is_tegra", 4096)) {
    family = fact_text(*fam);
    if (family && starts_with_icase(*family, "tegra")) signs.push_back("/sys/devices/soc0/family is " + *family);
  }
  bool is_tegra = !signs.empty();
  t["is_tegra"] = is_tegra;
  t["signs"] = signs;

  std::map<std::string, std::string> dpkg;
  if (auto status = ctx.read("/var/lib/dpkg/status", "/platform/tegra/l4t", kDpkgStatusMax))
    dpkg = parse_dpkg_status(*status);

  L4tFinding l4t;
  if (is_tegra) l4t = find_l4t(ctx, dpkg);
  t["l4t"] = json_or_null(l4t.version);
  t["l4t_source"] = json_or_null(l4t.source);
  t["release_line"] = json_or_null(l4t.release_line);

  std::optional<std::string> jetpack, jetpack_source;
  if (l4t.version) {
    if ((jetpack = jetpack_for_l4t(*l4t.version))) jetpack_source = "table";
  }
  if (!jetpack && is_tegra) {
    if (auto it = dpkg.find("nvidia-jetpack"); it != dpkg.end())
      if ((jetpack = jetpack_from_package_version(it->second))) jetpack_source = "dpkg:nvidia-jetpack";
  }
  if (!jetpack && l4t.version)
    ctx.warn("/platform/tegra/jetpack", "L4T " + *l4t.version,
             "L4T " + *l4t.version + " is not in jetgate's table of JetPack releases and no "
             "nvidia-jetpack package is installed; please report it (an issue with "
             "`head -1 /etc/nv_tegra_release` and the JetPack version you flashed)");
  t["jetpack"] = json_or_null(jetpack);
  t["jetpack_source"] = json_or_null(jetpack_source);

  auto boardids = read_dt(ctx, "nvidia,boardids", "/platform/tegra/part_number");
  auto part = is_tegra ? module_part_number(compatible, boardids ? *boardids : "") : std::nullopt;
  t["model"] = json_or_null(dt_string(ctx, "model", "/platform/tegra/model"));
  t["compatible"] = compatible;
  t["soc"] = json_or_null(is_tegra ? soc : std::nullopt);
  t["part_number"] = json_or_null(part);
  t["module"] = json_or_null(part ? module_name(*part) : std::nullopt);
  t["cuda_arch"] = json_or_null(soc && is_tegra ? cuda_arch_for_soc(*soc) : std::nullopt);
  t["soc_family"] = json_or_null(family);
  if (ctx.options().show_serial)
    t["serial_number"] = json_or_null(dt_string(ctx, "serial-number", "/platform/tegra/serial_number"));

  collect_gpu_stack(ctx, t);
  out["tegra"] = std::move(t);
}

}  // namespace jetgate::facts
