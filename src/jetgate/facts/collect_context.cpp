// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/collect_context.hpp"

#include <cerrno>
#include <cstring>

#include "jetgate/core/json_text.hpp"
#include "jetgate/facts/l4t.hpp"

namespace jetgate::facts {
namespace {

constexpr std::size_t kDpkgStatusMax = 64u << 20;  // a full JetPack install is a few MB

}  // namespace

CollectContext::CollectContext(const fs::RootFs& root, const CollectOptions& options,
                               std::vector<Warning>& warnings, DeviceNodes devices)
    : root_(root), options_(options), warnings_(warnings), devices_(devices) {
  if (!facts_live()) load_sidecar();
}

void CollectContext::load_sidecar() {
  const std::string path = "/jetgate-root.json";
  auto text = root_.read(path, 1u << 20);
  if (!text.ok()) {
    if (root_.exists(path)) warn(keys::kArch, root_.display(path), text.error().what);
    return;
  }
  // With an empty source the error's position is ":LINE:COLUMN", or empty where
  // the error has no position (negative zero names its JSON pointer instead); the
  // warning names the file already.
  auto j = parse_json_text(*text, "", kSidecarMaxDepth);
  if (!j || !j->is_object()) {
    std::string why = "not a JSON object";
    if (!j) {
      const std::string& at = j.error().where;
      why = j.error().what;
      if (at.size() > 1 && at.front() == ':') why += " at line:column " + at.substr(1);
    }
    warn(keys::kArch, root_.display(path),
         why + "; expected {\"machine\": \"aarch64\", \"nodes\": {...}} (not read)");
    return;
  }
  sidecar_ = std::move(*j);
}

std::optional<std::string> CollectContext::read(const std::string& path, const keys::Pointer& fact,
                                                std::size_t max_bytes) {
  auto text = root_.read(path, max_bytes);
  if (text.ok()) return std::move(text).value();
  if (text.error().what != std::strerror(ENOENT) && text.error().what != std::strerror(ENOTDIR))
    warn(fact, text.error().where, text.error().what);
  return std::nullopt;
}

void CollectContext::warn(const keys::Pointer& fact, const std::string& source,
                          const std::string& message) {
  warnings_.push_back(Warning{fact.to_string(), source, message});
}

std::optional<std::string> CollectContext::read_device_tree(const std::string& property,
                                                            const keys::Pointer& fact) {
  if (auto t = read("/proc/device-tree/" + property, fact, std::size_t{64} * 1024)) return t;
  return read("/sys/firmware/devicetree/base/" + property, fact, std::size_t{64} * 1024);
}

const std::map<std::string, std::string>& CollectContext::dpkg() {
  if (!dpkg_) {
    dpkg_.emplace();
    if (auto status = read("/var/lib/dpkg/status", keys::kL4t, kDpkgStatusMax))
      *dpkg_ = parse_dpkg_status(*status);
  }
  return *dpkg_;
}

fs::NodeInfo CollectContext::node(const std::string& path) const {
  auto info = device_root().stat(path);
  if (devices_live() || !info.present()) return info;
  if (!sidecar_.contains("nodes") || !sidecar_["nodes"].is_object()) return info;
  const auto& nodes = sidecar_["nodes"];
  auto it = nodes.find(path);
  if (it == nodes.end() || !it->is_object()) return info;
  const auto& rec = *it;
  if (rec.contains("type") && rec["type"].is_string()) {
    auto t = rec["type"].get<std::string>();
    if (t == "char")
      info.type = fs::NodeType::char_device;
    else if (t == "block")
      info.type = fs::NodeType::block_device;
    else if (t == "directory")
      info.type = fs::NodeType::directory;
  }
  if (rec.contains("mode") && rec["mode"].is_string()) {
    try {
      info.mode =
          static_cast<unsigned>(std::stoul(rec["mode"].get<std::string>(), nullptr, 8)) & 07777u;
    } catch (const std::exception&) {
    }
  }
  if (rec.contains("major") && rec["major"].is_number_unsigned() &&
      rec["major"].get<std::uint64_t>() <= 0xFFFFFFFFu)
    info.major = rec["major"].get<unsigned>();
  if (rec.contains("minor") && rec["minor"].is_number_unsigned() &&
      rec["minor"].get<std::uint64_t>() <= 0xFFFFFFFFu)
    info.minor = rec["minor"].get<unsigned>();
  return info;
}

nlohmann::json json_or_null(const std::optional<std::string>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace jetgate::facts
