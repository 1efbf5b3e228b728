// SPDX-License-Identifier: Apache-2.0
// The CDI spec reader: one pass over libyaml's parser events, no tree. nvidia-ctk
// writes specs with Go's yaml.v3, itself a port of libyaml, so this reads them as
// their writer's YAML does. What is extracted, and how (first key wins, nulls,
// tags, aliases, documents), follows what the yaml-cpp tree reading before it gave
// (tests/unit/cdi_reader_test.cpp compares the two).
#include "jetgate/facts/cdi.hpp"

#include <yaml.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace jetgate::facts {
namespace cdi_events {
namespace {

// A spec nvidia-ctk writes has a few hundred nodes. Aliases let a few hundred KB
// expand to millions of nodes ("billion laughs"): every alias adds the size of the
// node it names, and past this many the spec is refused.
constexpr std::size_t kMaxExpandedNodes = 100000;
// Collections nested deeper than this are refused; nothing is recursive here, but a
// spec is a handful of levels deep and the bound keeps libyaml's stacks small.
constexpr std::size_t kMaxDepth = 64;

std::string at(std::size_t line, std::size_t column) {
  return "line " + std::to_string(line + 1) + ", column " + std::to_string(column + 1);
}
std::string at(const yaml_mark_t& m) {
  return at(m.line, m.column);
}

// What the reader does with a node, from where it sits in the spec.
enum class Role : std::uint8_t {
  kIgnore,        // nothing in it is read (but it is counted)
  kRoot,          // the document: a mapping
  kKey,           // a mapping's key
  kCdiVersion,    // root.cdiVersion
  kKind,          // root.kind
  kDevices,       // root.devices: a sequence
  kDevice,        // root.devices[]
  kDeviceName,    // root.devices[].name
  kEdits,         // root.containerEdits, root.devices[].containerEdits
  kNodes,         // ...containerEdits.deviceNodes
  kNode,          // ...containerEdits.deviceNodes[]
  kNodePath,      // ...deviceNodes[].path
  kNodeHostPath,  // ...deviceNodes[].hostPath
  kNodeType,      // ...deviceNodes[].type
  kNodeMajor,     // ...deviceNodes[].major
};

// An event kept for replay: the events of every anchored node, so that an alias
// where a field is read gives what the node it names holds.
struct Kept {
  enum Type : std::uint8_t { kScalar, kAlias, kSeqStart, kMapStart, kEnd } type;
  std::uint32_t text = 0;    // kScalar: offset into kept_text_
  std::uint32_t length = 0;  // kScalar: length of the value
  std::uint32_t anchor = 0;  // kAlias: the anchor it names (an index into anchors_)
  std::size_t line = 0, column = 0;
};

struct Anchor {
  std::size_t begin = 0, end = 0;  // its events in kept_
  std::size_t size = 0;            // nodes once aliases inside it are expanded
  bool open = true;                // its collection has not ended yet
};

// A node's value as a string, as yaml-cpp's tree gave it: a plain scalar that is
// YAML's null (~, null, Null, NULL, nothing) and has no tag is empty.
bool is_null(const yaml_event_t& e) {
  if (e.data.scalar.style != YAML_PLAIN_SCALAR_STYLE || e.data.scalar.tag != nullptr) return false;
  std::string_view v(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
  return v.empty() || v == "~" || v == "null" || v == "Null" || v == "NULL";
}

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {
    yaml_parser_initialize(&parser_);
    yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()),
                                 text.size());
  }
  ~Reader() { yaml_parser_delete(&parser_); }
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  Result<CdiSpec> read();

 private:
  // A collection the reader looks into (ignored ones are only counted, in skip_).
  struct Frame {
    Role role;
    bool mapping;
    bool want_key = true;             // mappings: the next node is a key
    Role value_role = Role::kIgnore;  // mappings: the role of the value after this key
    std::uint8_t taken = 0;           // mappings: keys already seen (the first one wins)
  };
  struct Cursor {  // a replay of kept events
    std::size_t pos, end;
    bool first;
    Role first_role;
  };
  enum class Got : std::uint8_t { kAbsent, kValue, kNotString };
  struct Field {  // cdiVersion or kind: what was found and where
    Got got = Got::kAbsent;
    std::size_t line = 0, column = 0;
  };

  // One event, from the parser or replayed; false once reading must stop.
  bool on_event(const Kept& e, std::string_view value, Role role);
  Role next_role();
  Role key_role(Frame& f, std::string_view key);
  void on_scalar(Role role, std::string_view value, const Kept& e);
  bool on_start(Role role, bool mapping, const Kept& e);
  void on_end();
  bool replay(std::uint32_t anchor, Role role);

  bool fail(Error e) {
    error_ = std::move(e);
    failed_ = true;
    return false;
  }
  Error syntax_error() const;
  bool keep(const yaml_event_t& e, const Kept& k, std::string_view value);
  bool count(std::size_t n, const yaml_mark_t& m);

  std::string_view text_;
  yaml_parser_t parser_;
  bool failed_ = false;
  Error error_;

  // What the spec says.
  CdiSpec spec_;
  Field version_, kind_;
  bool devices_not_list_ = false;
  std::size_t devices_line_ = 0, devices_column_ = 0;
  std::string device_name_;
  bool in_device_ = false;
  std::string node_path_, node_host_path_, node_type_, node_major_;
  std::vector<CdiDeviceNode> top_nodes_, device_nodes_;

  // Where the reader is.
  std::vector<Frame> frames_;
  std::size_t skip_ = 0;  // ignored collections open inside the innermost frame
  bool root_seen_ = false;

  // The bounds: every node counts once, an alias as the nodes it names.
  std::size_t total_ = 0;
  std::size_t depth_ = 0;
  struct Open {  // a collection the parser is inside; its anchor, if any
    std::int64_t anchor;
    std::size_t total_before;
  };
  std::vector<Open> open_;

  // Anchored nodes' events, for aliases.
  std::vector<Kept> kept_;
  std::string kept_text_;
  std::vector<Anchor> anchors_;
  std::unordered_map<std::string, std::uint32_t> anchor_names_;
  std::size_t keeping_ = 0;  // anchored collections open: their events are kept
  std::vector<Cursor> cursors_;
};

Error Reader::syntax_error() const {
  const yaml_parser_t& p = parser_;
  if (p.error == YAML_MEMORY_ERROR) return make_error("out of memory while reading the CDI spec");
  std::string problem = p.problem ? p.problem : "unknown error";
  if (p.error == YAML_READER_ERROR) {
    // The reader names a byte offset; say which line and column it is on.
    std::size_t offset = std::min(p.problem_offset, text_.size());
    std::size_t line = 0, column = 0;
    for (std::size_t i = 0; i < offset; ++i) {
      unsigned char c = static_cast<unsigned char>(text_[i]);
      if (c == '\n') {
        ++line;
        column = 0;
      } else if ((c & 0xC0) != 0x80) {
        ++column;
      }
    }
    char value[32] = "";
    if (p.problem_value >= 0)
      std::snprintf(value, sizeof value, " 0x%X", static_cast<unsigned>(p.problem_value));
    return make_error("not valid YAML or JSON at " + at(line, column) + " (byte offset " +
                          std::to_string(offset) + "): " + problem + value,
                      "", "a CDI spec is UTF-8 text without control characters");
  }
  std::string what = "not valid YAML or JSON at " + at(p.problem_mark) + ": " + problem;
  if (p.context) what += " (" + std::string(p.context) + " from " + at(p.context_mark) + ")";
  return make_error(what);
}

// The size guard: n more nodes (one, or what an alias names).
bool Reader::count(std::size_t n, const yaml_mark_t& m) {
  total_ += n;
  if (total_ <= kMaxExpandedNodes) return true;
  return fail(make_error("too large to be a CDI spec: more than " +
                             std::to_string(kMaxExpandedNodes) +
                             " nodes once aliases are expanded (at " + at(m) + ")",
                         "", "a spec from nvidia-ctk has a few hundred nodes"));
}

// Keeps the event when it is inside an anchored node or carries an anchor itself.
bool Reader::keep(const yaml_event_t& e, const Kept& k, std::string_view value) {
  const yaml_char_t* anchor = nullptr;
  if (e.type == YAML_SCALAR_EVENT) anchor = e.data.scalar.anchor;
  if (e.type == YAML_SEQUENCE_START_EVENT) anchor = e.data.sequence_start.anchor;
  if (e.type == YAML_MAPPING_START_EVENT) anchor = e.data.mapping_start.anchor;
  if (anchor == nullptr && keeping_ == 0) return true;
  if (kept_text_.size() + value.size() > UINT32_MAX) return fail(make_error("spec too large"));
  Kept copy = k;
  if (k.type == Kept::kScalar) {
    copy.text = static_cast<std::uint32_t>(kept_text_.size());
    kept_text_.append(value);
  }
  if (anchor != nullptr) {
    // A name used again names the newer node from here on (as yaml-cpp and go-yaml).
    anchor_names_[reinterpret_cast<const char*>(anchor)] =
        static_cast<std::uint32_t>(anchors_.size());
    Anchor a;
    a.begin = kept_.size();
    if (k.type == Kept::kScalar) {
      a.end = a.begin + 1;
      a.size = 1;
      a.open = false;
    }
    anchors_.push_back(a);
  }
  kept_.push_back(copy);
  return true;
}

Role Reader::key_role(Frame& f, std::string_view key) {
  // Each key is read the first time it appears; yaml-cpp's node["key"] gave the first.
  auto take = [&](std::uint8_t bit, Role r) {
    if (f.taken & bit) return Role::kIgnore;
    f.taken |= bit;
    return r;
  };
  switch (f.role) {
    case Role::kRoot:
      if (key == "cdiVersion") return take(1, Role::kCdiVersion);
      if (key == "kind") return take(2, Role::kKind);
      if (key == "containerEdits") return take(4, Role::kEdits);
      if (key == "devices") return take(8, Role::kDevices);
      return Role::kIgnore;
    case Role::kDevice:
      if (key == "name") return take(1, Role::kDeviceName);
      if (key == "containerEdits") return take(2, Role::kEdits);
      return Role::kIgnore;
    case Role::kEdits:
      if (key == "deviceNodes") return take(1, Role::kNodes);
      return Role::kIgnore;
    case Role::kNode:
      if (key == "path") return take(1, Role::kNodePath);
      if (key == "hostPath") return take(2, Role::kNodeHostPath);
      if (key == "type") return take(4, Role::kNodeType);
      if (key == "major") return take(8, Role::kNodeMajor);
      return Role::kIgnore;
    default:
      return Role::kIgnore;
  }
}

// The role of the node that starts now, from the collection it is in.
Role Reader::next_role() {
  if (skip_ > 0) return Role::kIgnore;
  if (frames_.empty()) return root_seen_ ? Role::kIgnore : Role::kRoot;
  Frame& f = frames_.back();
  if (!f.mapping) {
    if (f.role == Role::kDevices) return Role::kDevice;
    if (f.role == Role::kNodes) return Role::kNode;
    return Role::kIgnore;
  }
  if (f.want_key) {
    f.want_key = false;
    f.value_role = Role::kIgnore;  // unless the key turns out to be one that is read
    return Role::kKey;
  }
  f.want_key = true;
  return f.value_role;
}

void Reader::on_scalar(Role role, std::string_view value, const Kept& e) {
  switch (role) {
    case Role::kKey:
      frames_.back().value_role = key_role(frames_.back(), value);
      break;
    case Role::kCdiVersion:
    case Role::kKind: {
      Field& f = role == Role::kKind ? kind_ : version_;
      (role == Role::kKind ? spec_.kind : spec_.cdi_version) = std::string(value);
      f = {Got::kValue, e.line, e.column};
      break;
    }
    case Role::kDevices:  // a scalar or null where the list should be
      devices_not_list_ = true;
      devices_line_ = e.line;
      devices_column_ = e.column;
      break;
    case Role::kDeviceName:
      device_name_ = value;
      break;
    case Role::kNodePath:
      node_path_ = value;
      break;
    case Role::kNodeHostPath:
      node_host_path_ = value;
      break;
    case Role::kNodeType:
      node_type_ = value;
      break;
    case Role::kNodeMajor:
      node_major_ = value;
      break;
    default:  // a scalar where a collection is read: nothing in it
      break;
  }
}

bool Reader::on_start(Role role, bool mapping, const Kept& e) {
  bool look = false;
  switch (role) {
    case Role::kRoot:
      if (!mapping)
        return fail(make_error("top level is not a mapping (a sequence at " + at(e.line, e.column) +
                               "); a CDI spec is a mapping with cdiVersion, kind and devices"));
      look = true;
      break;
    case Role::kDevices:
      look = !mapping;
      if (mapping) {
        devices_not_list_ = true;
        devices_line_ = e.line;
        devices_column_ = e.column;
      }
      break;
    case Role::kCdiVersion:
    case Role::kKind: {
      Field& f = role == Role::kKind ? kind_ : version_;
      (role == Role::kKind ? spec_.kind : spec_.cdi_version).clear();
      f = {Got::kNotString, e.line, e.column};
      break;
    }
    case Role::kDevice:
    case Role::kNode:
    case Role::kEdits:
      look = mapping;
      break;
    case Role::kNodes:
      look = !mapping;
      break;
    default:  // ignored, a key that is a collection, or a collection where a string is read
      break;
  }
  if (!look) {
    ++skip_;
    return true;
  }
  if (role == Role::kDevice) {
    device_name_.clear();
    in_device_ = true;
  }
  if (role == Role::kNode) {
    node_path_.clear();
    node_host_path_.clear();
    node_type_.clear();
    node_major_.clear();
  }
  frames_.push_back({role, mapping});
  if (role == Role::kRoot) root_seen_ = true;
  return true;
}

void Reader::on_end() {
  if (skip_ > 0) {
    --skip_;
    return;
  }
  if (frames_.empty()) return;
  Frame f = frames_.back();
  frames_.pop_back();
  if (f.role == Role::kNode && !node_path_.empty()) {
    bool major_set =
        !node_major_.empty() && node_major_.find_first_not_of('0') != std::string::npos;
    CdiDeviceNode n{node_path_, node_host_path_.empty() ? node_path_ : node_host_path_,
                    !node_type_.empty() && (major_set || node_type_ == "p")};
    (in_device_ ? device_nodes_ : top_nodes_).push_back(std::move(n));
  }
  if (f.role == Role::kDevice) {
    if (!device_name_.empty()) spec_.devices.push_back(device_name_);
    in_device_ = false;
  }
}

bool Reader::on_event(const Kept& e, std::string_view value, Role role) {
  switch (e.type) {
    case Kept::kScalar:
      on_scalar(role, value, e);
      return true;
    case Kept::kSeqStart:
    case Kept::kMapStart:
      return on_start(role, e.type == Kept::kMapStart, e);
    case Kept::kEnd:
      on_end();
      return true;
    case Kept::kAlias:
      break;
  }
  // An alias: its node, as if it stood here. A key is read only when it is a string.
  if (role == Role::kIgnore) return true;
  if (role == Role::kKey && kept_[anchors_[e.anchor].begin].type != Kept::kScalar) return true;
  return replay(e.anchor, role);
}

// Feeds the events an anchor kept, as the node in the given role; aliases inside
// are followed with a stack of cursors, not by recursion. The size guard already
// counted every node this can reach.
bool Reader::replay(std::uint32_t anchor, Role role) {
  const Anchor& a = anchors_[anchor];
  cursors_.push_back({a.begin, a.end, true, role});
  while (!cursors_.empty() && !failed_) {
    Cursor& c = cursors_.back();
    if (c.pos == c.end) {
      cursors_.pop_back();
      continue;
    }
    const Kept& k = kept_[c.pos++];
    Role r = Role::kIgnore;
    if (k.type != Kept::kEnd) r = c.first ? c.first_role : next_role();
    c.first = false;
    std::string_view v;
    if (k.type == Kept::kScalar) v = std::string_view(kept_text_).substr(k.text, k.length);
    if (k.type == Kept::kAlias) {
      if (r != Role::kIgnore) {
        const Anchor& inner = anchors_[k.anchor];
        cursors_.push_back({inner.begin, inner.end, true, r});
      }
      continue;
    }
    if (!on_event(k, v, r)) break;
  }
  cursors_.clear();
  return !failed_;
}

Result<CdiSpec> Reader::read() {
  bool in_document = false;
  bool done = false;
  while (!done && !failed_) {
    yaml_event_t e;
    if (!yaml_parser_parse(&parser_, &e)) return syntax_error();
    struct Delete {
      yaml_event_t* e;
      ~Delete() { yaml_event_delete(e); }
    } del{&e};
    Kept k{};
    k.line = e.start_mark.line;
    k.column = e.start_mark.column;
    std::string_view value;
    switch (e.type) {
      case YAML_STREAM_END_EVENT:
        done = true;
        continue;
      case YAML_DOCUMENT_START_EVENT:
        in_document = true;
        continue;
      case YAML_DOCUMENT_END_EVENT:
        // YAML::Load read the first document only, as go-yaml's Unmarshal does.
        done = in_document;
        continue;
      case YAML_SCALAR_EVENT:
        k.type = Kept::kScalar;
        if (!is_null(e))
          value = std::string_view(reinterpret_cast<const char*>(e.data.scalar.value),
                                   e.data.scalar.length);
        k.length = static_cast<std::uint32_t>(value.size());
        if (!count(1, e.start_mark)) continue;
        break;
      case YAML_SEQUENCE_START_EVENT:
      case YAML_MAPPING_START_EVENT: {
        k.type = e.type == YAML_MAPPING_START_EVENT ? Kept::kMapStart : Kept::kSeqStart;
        if (depth_ >= kMaxDepth) {
          fail(make_error("too large to be a CDI spec: nested more than " +
                              std::to_string(kMaxDepth) + " levels deep (at " + at(e.start_mark) +
                              ")",
                          "", "a spec from nvidia-ctk is a few levels deep"));
          continue;
        }
        ++depth_;
        if (!count(1, e.start_mark)) continue;
        const yaml_char_t* anchor = e.type == YAML_MAPPING_START_EVENT
                                        ? e.data.mapping_start.anchor
                                        : e.data.sequence_start.anchor;
        open_.push_back({anchor ? static_cast<std::int64_t>(anchors_.size()) : -1, total_ - 1});
        break;
      }
      case YAML_SEQUENCE_END_EVENT:
      case YAML_MAPPING_END_EVENT:
        k.type = Kept::kEnd;
        if (depth_ > 0) --depth_;
        break;
      case YAML_ALIAS_EVENT: {
        k.type = Kept::kAlias;
        std::string name = reinterpret_cast<const char*>(e.data.alias.anchor);
        auto it = anchor_names_.find(name);
        if (it == anchor_names_.end()) {
          fail(make_error("alias *" + name + " at " + at(e.start_mark) +
                          " names no anchor before it"));
          continue;
        }
        const Anchor& a = anchors_[it->second];
        if (a.open) {
          // yaml-cpp made a node that contains itself; go-yaml, which container runtimes
          // read specs with, refuses it ("anchor value contains itself").
          std::string what = "alias *" + name + " at " + at(e.start_mark);
          what += " is inside the node &";
          what += name;
          what += " it names; a CDI spec cannot contain itself";
          fail(make_error(what));
          continue;
        }
        k.anchor = it->second;
        if (!count(a.size, e.start_mark)) continue;
        break;
      }
      default:
        continue;
    }
    if (!in_document) continue;
    if (!keep(e, k, value)) continue;
    if (e.type == YAML_SEQUENCE_START_EVENT || e.type == YAML_MAPPING_START_EVENT) {
      if (open_.back().anchor >= 0) ++keeping_;
    }
    if (k.type == Kept::kEnd && !open_.empty()) {
      Open o = open_.back();
      open_.pop_back();
      if (o.anchor >= 0) {
        Anchor& a = anchors_[static_cast<std::size_t>(o.anchor)];
        a.end = kept_.size();
        a.size = total_ - o.total_before;
        a.open = false;
        --keeping_;
      }
    }
    Role role = k.type == Kept::kEnd ? Role::kIgnore : next_role();
    on_event(k, value, role);
  }
  if (failed_) return error_;
  if (!root_seen_)
    return make_error("top level is not a mapping (the document is empty or a single value)", "",
                      "a CDI spec is a mapping with cdiVersion, kind and devices");
  auto field_error = [](const char* name, const Field& f) -> Result<CdiSpec> {
    if (f.got == Got::kAbsent) return make_error(std::string("missing ") + name, name);
    std::string where = " (at " + at(f.line, f.column) + ")";
    if (f.got == Got::kNotString)
      return make_error(std::string(name) + " is a collection, not a string" + where, name);
    return make_error(std::string(name) + " is empty" + where, name);
  };
  if (spec_.cdi_version.empty()) return field_error("cdiVersion", version_);
  if (spec_.kind.empty()) return field_error("kind", kind_);
  if (devices_not_list_)
    return make_error("devices is not a list (at " + at(devices_line_, devices_column_) + ")",
                      "devices");
  // The spec-wide nodes first, then each device's, each host path once.
  std::unordered_set<std::string> hosts;
  for (auto* list : {&top_nodes_, &device_nodes_}) {
    for (auto& n : *list) {
      if (hosts.insert(n.host_path).second) spec_.device_nodes.push_back(std::move(n));
    }
  }
  return std::move(spec_);
}

}  // namespace
}  // namespace cdi_events

Result<CdiSpec> parse_cdi_spec(std::string_view text) {
  cdi_events::Reader reader(text);
  return reader.read();
}

}  // namespace jetgate::facts
