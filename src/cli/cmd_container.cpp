// SPDX-License-Identifier: Apache-2.0
// `jetgate container`: the container images that run on this Jetson (or on
// the L4T release named with --l4t), by the rule in data/l4t-containers.json.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli/commands.hpp"
#include "jetgate/core/exit_codes.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/facts/container_images.hpp"
#include "jetgate/facts/jetpack_table.hpp"
#include "jetgate/facts/platform.hpp"
#include "jetgate/record/codec.hpp"

namespace jetgate::cli {
namespace {

constexpr int kContainerSchemaVersion = 1;

struct ContainerArgs {
  std::optional<std::string> l4t;
  std::string root = "/";
  bool json = false;
  bool first = false;
  std::string kind;
};

struct HostRelease {
  std::string l4t;
  std::string source;
};

// Where the L4T release was read, for the reader: the file under the root, or
// the package the dpkg database names ("dpkg:nvidia-l4t-core"), or the kernel
// release that names the series.
std::string where_from(const fs::RootFs& root, const std::string& source) {
  const std::string dpkg = "dpkg:", kernel = "kernel:";
  if (source.rfind(dpkg, 0) == 0)
    return "package " + source.substr(dpkg.size()) + " in " + root.display("/var/lib/dpkg/status");
  if (source.rfind(kernel, 0) == 0)
    return "kernel release " + root.display(source.substr(kernel.size()));
  if (!source.empty() && source.front() == '/') return root.display(source);
  return source.empty() ? std::string(record::kUnknown) : source;
}

std::optional<HostRelease> host_release(const ContainerArgs& a, std::string& why) {
  if (a.l4t) {
    auto l4t = facts::normalize_l4t(*a.l4t);
    if (!l4t) {
      why = "--l4t \"" + terminal_safe(*a.l4t) + "\" is not an L4T release such as 36.4.3";
      return std::nullopt;
    }
    return HostRelease{*l4t, "--l4t"};
  }
  auto root = fs::RootFs::open(a.root);
  if (!root) {
    why = root.error().message();
    return std::nullopt;
  }
  facts::CollectOptions o;
  o.run_commands = false;
  auto report = facts::collect_platform(*root, o);
  const auto l4t = record::read_facts(&report.platform, nullptr).platform.tegra.l4t;
  if (!l4t.known()) {
    why =
        "no L4T release found on this machine (not a Jetson, or neither /etc/nv_tegra_release "
        "nor the nvidia-l4t-core package says one); name one with --l4t, e.g. --l4t 36.4.3";
    return std::nullopt;
  }
  return HostRelease{*l4t.version, where_from(*root, l4t.source.value_or(""))};
}

std::string jetpack_of(const std::string& l4t) {
  const auto& table = facts::builtin_jetpack_table();
  const auto* row = table ? table->find(l4t) : nullptr;
  return row ? row->display() : "";
}

// The JetPack values as a list: one, several for an ambiguous release, none.
nlohmann::json jetpack_candidates(const std::string& l4t) {
  const auto& table = facts::builtin_jetpack_table();
  const auto* row = table ? table->find(l4t) : nullptr;
  return row ? nlohmann::json(row->jetpack) : nlohmann::json::array();
}

int run_container(const ContainerArgs& a) {
  std::string why;
  auto host = host_release(a, why);
  if (!host) {
    std::cerr << "jetgate container: " << why << "\n";
    return kExitUsage;
  }
  const auto& table = facts::builtin_container_table();
  if (!table) {
    std::cerr << "jetgate container: " << table.error().message() << "\n";
    return kExitUsage;
  }
  auto matches = table->images_for(host->l4t);
  if (!a.kind.empty())
    std::erase_if(matches, [&](const auto& m) { return m.image->kind != a.kind; });
  auto driver_cuda = table->driver_cuda(host->l4t);
  if (a.first) {
    if (!matches.empty()) std::cout << matches.front().image->image << "\n";
  } else if (a.json) {
    nlohmann::json images = nlohmann::json::array();
    for (const auto& m : matches)
      images.push_back({{"image", m.image->image},
                        {"l4t", m.image->l4t},
                        {"jetpack", jetpack_of(m.image->l4t)},
                        {"jetpack_candidates", jetpack_candidates(m.image->l4t)},
                        {"kind", m.image->kind},
                        {"exact", m.exact},
                        {"why", m.why},
                        {"source", m.image->source}});
    nlohmann::json doc = {
        {"schema_version", kContainerSchemaVersion},
        {"host",
         {{"l4t", host->l4t},
          {"jetpack", jetpack_of(host->l4t)},
          {"jetpack_candidates", jetpack_candidates(host->l4t)},
          {"driver_cuda", driver_cuda ? nlohmann::json(*driver_cuda) : nlohmann::json(nullptr)},
          {"source", host->source}}},
        {"images", images},
        {"hint", matches.empty() ? nlohmann::json(table->no_image_hint(host->l4t))
                                 : nlohmann::json(nullptr)}};
    std::cout << dump_json(doc, 2) << "\n";
  } else {
    std::string jp = jetpack_of(host->l4t);
    std::cout << fmt::format(
        "Host: L4T {}{}{} ({})\n", host->l4t, jp.empty() ? "" : ", JetPack " + jp,
        driver_cuda ? ", driver CUDA " + *driver_cuda : "", terminal_safe(host->source));
    if (matches.empty()) std::cout << table->no_image_hint(host->l4t) << "\n";
    for (const auto& m : matches)
      std::cout << fmt::format("{:<48} L4T {:<8} {}\n", m.image->image, m.image->l4t,
                               m.exact ? "same release" : "same series, older release");
  }
  if (matches.empty()) {
    std::cerr << "jetgate container: no known image runs on L4T " << host->l4t << "\n";
    return kExitDoesNotHold;
  }
  return kExitOk;
}

}  // namespace

Command add_container_command(CLI::App& app) {
  auto args = std::make_shared<ContainerArgs>();
  auto* sub = app.add_subcommand(
      "container",
      "The container images (NVIDIA L4T images, jetson-containers) that run on this Jetson's "
      "L4T release, nearest first (docs/conditional-testing.md)");
  sub->add_option("--l4t", args->l4t,
                  "Use this L4T release (36.4.3 or r36.4.3) instead of the "
                  "machine's")
      ->type_name("X.Y.Z");
  sub->add_option("--root", args->root, "Read the L4T release under DIR (a recorded machine)")
      ->type_name("DIR");
  sub->add_flag("--json", args->json, "Print one JSON document");
  sub->add_flag("--first", args->first, "Print only the best image's reference (for scripts)")
      ->excludes("--json");
  sub->add_option("--kind", args->kind, "Only images of this kind")
      ->check(CLI::IsMember(
          {"jetpack", "cuda", "base", "pytorch", "ml", "tensorflow", "jetson-containers"}));
  sub->footer(
      "Exit status: 0 images listed, 1 no known image runs on that release, 2 usage or no L4T "
      "release.");
  return {sub, [args] { return run_container(*args); }};
}

}  // namespace jetgate::cli
