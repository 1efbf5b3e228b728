#include "jetgate/facts/cdi.hpp"

#include <algorithm>

#include <yaml-cpp/yaml.h>

namespace jetgate::facts {
namespace {

// yaml-cpp recurses per nesting level; a hostile spec must not exhaust the stack.
bool nesting_within(std::string_view text, int limit) {
  int depth = 0;
  for (char c : text) {
    if (c == '[' || c == '{') {
      if (++depth > limit) return false;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return true;
}

std::string scalar(const YAML::Node& n) {
  return n && n.IsScalar() ? n.as<std::string>() : std::string();
}

void collect_nodes(const YAML::Node& edits, std::vector<CdiDeviceNode>& out) {
  if (!edits || !edits.IsMap()) return;
  const auto& nodes = edits["deviceNodes"];
  if (!nodes || !nodes.IsSequence()) return;
  for (const auto& n : nodes) {
    if (!n.IsMap()) continue;
    CdiDeviceNode d{scalar(n["path"]), scalar(n["hostPath"])};
    if (d.path.empty()) continue;
    if (d.host_path.empty()) d.host_path = d.path;
    bool seen = std::any_of(out.begin(), out.end(),
                            [&](const CdiDeviceNode& o) { return o.host_path == d.host_path; });
    if (!seen) out.push_back(std::move(d));
  }
}

}  // namespace

Result<CdiSpec> parse_cdi_spec(std::string_view text) {
  if (!nesting_within(text, 64)) return make_error("nested more than 64 levels deep; not a CDI spec");
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return make_error(std::string("not valid YAML or JSON: ") + e.what());
  }
  if (!root || !root.IsMap()) return make_error("top level is not a mapping");
  CdiSpec spec;
  try {
    spec.cdi_version = scalar(root["cdiVersion"]);
    spec.kind = scalar(root["kind"]);
    if (spec.cdi_version.empty()) return make_error("missing cdiVersion", "cdiVersion");
    if (spec.kind.empty()) return make_error("missing kind", "kind");
    collect_nodes(root["containerEdits"], spec.device_nodes);
    const auto& devices = root["devices"];
    if (devices && !devices.IsSequence()) return make_error("devices is not a list", "devices");
    if (devices) {
      for (const auto& d : devices) {
        if (!d.IsMap()) continue;
        auto name = scalar(d["name"]);
        if (!name.empty()) spec.devices.push_back(name);
        collect_nodes(d["containerEdits"], spec.device_nodes);
      }
    }
  } catch (const YAML::Exception& e) {
    return make_error(std::string("unexpected structure: ") + e.what());
  }
  return spec;
}

}  // namespace jetgate::facts
