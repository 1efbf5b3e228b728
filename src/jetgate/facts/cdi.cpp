// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/cdi.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <sstream>

namespace jetgate::facts {
namespace {

// A spec nvidia-ctk writes has a few hundred nodes. Aliases let a few hundred
// KB expand to millions of nodes ("billion laughs"), and every walk over the
// tree pays for the expansion: count the expanded size from the parser's
// events and stop before the tree is built.
constexpr std::size_t kMaxExpandedNodes = 100000;
constexpr int kMaxDepth = 64;

struct TooBig {
  std::string why;
};

class ExpansionCounter : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = sizes_.find(anchor);
    add(mark, it == sizes_.end() ? 1 : it->second);
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string&) override {
    leaf(mark, anchor);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Frame {
    YAML::anchor_t anchor;
    std::size_t size;
  };
  static std::string where(const YAML::Mark& m) {
    return "line " + std::to_string(m.line + 1) + ", column " + std::to_string(m.column + 1);
  }
  void add(const YAML::Mark& mark, std::size_t n) {
    total_ += n;
    if (!stack_.empty()) stack_.back().size += n;
    if (total_ > kMaxExpandedNodes)
      throw TooBig{"more than " + std::to_string(kMaxExpandedNodes) +
                   " nodes once aliases are expanded (at " + where(mark) + ")"};
  }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    add(mark, 1);
    if (anchor) sizes_[anchor] = 1;
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    if (static_cast<int>(stack_.size()) >= kMaxDepth)
      throw TooBig{"nested more than " + std::to_string(kMaxDepth) + " levels deep (at " +
                   where(mark) + ")"};
    add(mark, 1);
    stack_.push_back({anchor, 1});
  }
  void close() {
    if (stack_.empty()) return;
    Frame f = stack_.back();
    stack_.pop_back();
    if (!stack_.empty()) stack_.back().size += f.size - 1;  // the 1 was added on open
    if (f.anchor) sizes_[f.anchor] = f.size;
  }

  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, std::size_t> sizes_;
  std::size_t total_ = 0;
};

// Empty when the text is within bounds, else why not. YAML syntax errors are
// left for YAML::Load to report.
std::string expansion_problem(std::string_view text) {
  std::istringstream in{std::string(text)};
  ExpansionCounter counter;
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(counter)) {
    }
  } catch (const TooBig& e) {
    return e.why;
  } catch (const YAML::Exception&) {
  }
  return {};
}

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
  if (!nesting_within(text, kMaxDepth))
    return make_error("nested more than 64 levels deep; not a CDI spec");
  if (auto why = expansion_problem(text); !why.empty())
    return make_error("too large to be a CDI spec: " + why, "",
                      "a spec from nvidia-ctk has a few hundred nodes");
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
