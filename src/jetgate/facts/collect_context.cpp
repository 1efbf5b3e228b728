#include "jetgate/facts/collect_context.hpp"

#include <cerrno>
#include <cstring>

namespace jetgate::facts {

CollectContext::CollectContext(const fs::RootFs& root, const CollectOptions& options,
                               std::vector<Warning>& warnings)
    : root_(root), options_(options), warnings_(warnings) {
  if (root_.is_live()) return;
  auto text = root_.read("/jetgate-root.json", 1u << 20);
  if (!text.ok()) {
    if (root_.exists("/jetgate-root.json")) warn("/platform/arch", root_.display("/jetgate-root.json"), text.error().what);
    return;
  }
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    warn("/platform/arch", root_.display("/jetgate-root.json"),
         "not a JSON object; expected {\"machine\": \"aarch64\", \"nodes\": {...}}");
    return;
  }
  sidecar_ = std::move(j);
}

std::optional<std::string> CollectContext::read(const std::string& path, const std::string& fact,
                                                std::size_t max_bytes) {
  auto text = root_.read(path, max_bytes);
  if (text.ok()) return std::move(text).value();
  if (text.error().what != std::strerror(ENOENT) && text.error().what != std::strerror(ENOTDIR))
    warn(fact, text.error().where, text.error().what);
  return std::nullopt;
}

void CollectContext::warn(const std::string& fact, const std::string& source,
                          const std::string& message) {
  warnings_.push_back(Warning{fact, source, message});
}

fs::NodeInfo CollectContext::node(const std::string& path) const {
  auto info = root_.stat(path);
  if (root_.is_live() || !info.present()) return info;
  const auto& nodes = sidecar_.contains("nodes") ? sidecar_["nodes"] : nlohmann::json();
  if (!nodes.is_object() || !nodes.contains(path) || !nodes[path].is_object()) return info;
  const auto& rec = nodes[path];
  if (rec.contains("type") && rec["type"].is_string()) {
    auto t = rec["type"].get<std::string>();
    if (t == "char") info.type = fs::NodeType::char_device;
    else if (t == "block") info.type = fs::NodeType::block_device;
    else if (t == "directory") info.type = fs::NodeType::directory;
  }
  if (rec.contains("mode") && rec["mode"].is_string()) {
    try {
      info.mode = static_cast<unsigned>(std::stoul(rec["mode"].get<std::string>(), nullptr, 8)) & 07777u;
    } catch (const std::exception&) {
    }
  }
  if (rec.contains("major") && rec["major"].is_number_unsigned()) info.major = rec["major"].get<unsigned>();
  if (rec.contains("minor") && rec["minor"].is_number_unsigned()) info.minor = rec["minor"].get<unsigned>();
  return info;
}

nlohmann::json json_or_null(const std::optional<std::string>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace jetgate::facts
