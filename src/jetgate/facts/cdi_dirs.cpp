// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/cdi_dirs.hpp"

#define TOML_HEADER_ONLY 1  // NOLINT: toml++ (libtomlplusplus-dev), no library to link
#include <toml++/toml.h>

#include <algorithm>
#include <sstream>

#include "jetgate/facts/collect_context.hpp"
#include "jetgate/facts/text.hpp"

namespace jetgate::facts {
namespace {

constexpr std::size_t kMaxDirs = 24;
constexpr std::size_t kMaxConfigDirs = 16;
constexpr std::size_t kMaxParts = 16;
constexpr std::size_t kMaxConfigBytes = std::size_t{1} << 20;

bool usable_dir(std::string_view d) {
  return !d.empty() && d.size() <= 256 && d.front() == '/' &&
         d.find("/../") == std::string_view::npos &&
         (d.size() < 3 || d.substr(d.size() - 3) != "/..") && is_printable_text(d);
}

}  // namespace

Result<std::vector<std::string>> containerd_cdi_spec_dirs(std::string_view toml_text) {
  if (toml_text.size() > kMaxConfigBytes) return make_error("larger than 1 MiB");
  toml::table doc;
  try {
    doc = toml::parse(toml_text);
  } catch (const toml::parse_error& e) {
    std::ostringstream what;
    what << "not valid TOML at line " << e.source().begin.line << ", column "
         << e.source().begin.column << ": " << e.description();
    return make_error(what.str());
  }
  std::vector<std::string> out;
  for (const char* plugin : {"io.containerd.grpc.v1.cri", "io.containerd.cri.v1.runtime"}) {
    auto node = doc["plugins"][plugin]["cdi_spec_dirs"];
    if (!node) continue;
    const auto* list = node.as_array();
    if (list == nullptr)
      return make_error(std::string("plugins.\"") + plugin + "\".cdi_spec_dirs is not a list");
    for (const auto& e : *list) {
      const auto* s = e.as_string();
      if (s == nullptr || !usable_dir(s->get()))
        return make_error(std::string("plugins.\"") + plugin +
                          "\".cdi_spec_dirs holds something other than an absolute path");
      if (out.size() >= kMaxConfigDirs) break;
      if (std::find(out.begin(), out.end(), s->get()) == out.end()) out.push_back(s->get());
    }
  }
  return out;
}

std::vector<CdiDir> cdi_spec_dirs(CollectContext& ctx) {
  std::vector<CdiDir> dirs;
  auto add = [&](const std::string& path, const std::string& from) {
    if (dirs.size() >= kMaxDirs) return;
    if (std::none_of(dirs.begin(), dirs.end(), [&](const CdiDir& d) { return d.path == path; }))
      dirs.push_back({path, from});
  };
  for (const auto& d : ctx.options().cdi_dirs) add(d, "--cdi-dir");
  add("/etc/cdi", "default");
  add("/var/run/cdi", "default");
  std::vector<std::string> configs;
  if (ctx.root().exists("/etc/containerd/config.toml"))
    configs.emplace_back("/etc/containerd/config.toml");
  if (auto parts = ctx.root().list("/etc/cri/conf.d"); parts.ok()) {
    std::vector<std::string> names;
    for (const auto& n : *parts)
      if (n.size() > 5 && n.substr(n.size() - 5) == ".part") names.push_back(n);
    std::sort(names.begin(), names.end());
    if (names.size() > kMaxParts) names.resize(kMaxParts);
    for (const auto& n : names) configs.push_back("/etc/cri/conf.d/" + n);
  }
  for (const auto& path : configs) {
    auto text = ctx.read(path, keys::kTegraDriverCdiDirs, kMaxConfigBytes);
    if (!text) continue;
    auto found = containerd_cdi_spec_dirs(*text);
    if (!found) {
      ctx.warn(keys::kTegraDriverCdiDirs, ctx.root().display(path),
               "cannot read containerd's cdi_spec_dirs: " + found.error().message());
      continue;
    }
    for (const auto& d : *found) add(d, path);
  }
  add("/var/cdi/static", "Talos convention");
  add("/var/cdi/dynamic", "Talos convention");
  return dirs;
}

}  // namespace jetgate::facts
