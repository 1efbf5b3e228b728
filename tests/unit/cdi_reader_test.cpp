// SPDX-License-Identifier: Apache-2.0
// The CDI spec reader (facts/cdi.cpp: one pass over libyaml's events) against the
// reading it replaced, yaml-cpp's tree, kept here only as the oracle: the recorded
// specs, the fuzz corpus, corner cases of YAML, and hostile input.
//
// Where the two YAML implementations legitimately disagree on an input, the case
// is one of the classes below, each with the reason; the corpus test fails on any
// disagreement no class explains. libyaml reads YAML 1.1 as go-yaml does (yaml.v3
// is its port), which is what nvidia-ctk writes specs with and what container
// runtimes read them with.
#include <gtest/gtest.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "jetgate/core/utf8.hpp"
#include "jetgate/facts/cdi.hpp"
#include "test_support.hpp"

namespace jetgate::facts {
namespace {

using namespace std::string_literals;

// ---- The oracle: parse_cdi_spec as it was on yaml-cpp (before the libyaml reader) ----
namespace oracle {

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
    if (!stack_.empty()) stack_.back().size += f.size - 1;
    if (f.anchor) sizes_[f.anchor] = f.size;
  }

  std::vector<Frame> stack_;
  std::map<YAML::anchor_t, std::size_t> sizes_;
  std::size_t total_ = 0;
};

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

Result<CdiSpec> parse(std::string_view text) {
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

}  // namespace oracle

// One line per result, for comparing and for the failure message: the spec, or "error".
std::string show(const Result<CdiSpec>& r) {
  if (!r.ok()) return "error";
  std::string s = "cdiVersion=" + r->cdi_version + " kind=" + r->kind + " devices=[";
  for (std::size_t i = 0; i < r->devices.size(); ++i) s += (i ? "," : "") + r->devices[i];
  s += "] nodes=[";
  for (std::size_t i = 0; i < r->device_nodes.size(); ++i)
    s += (i ? "," : "") + r->device_nodes[i].path + ">" + r->device_nodes[i].host_path;
  return s + "]";
}

std::string message(const Result<CdiSpec>& r) {
  return r.ok() ? "" : r.error().message();
}

// "line L, column C" in an error message, 1-based; {0, 0} when it names none.
std::pair<std::size_t, std::size_t> position(const std::string& m) {
  auto p = m.find("at line ");
  if (p == std::string::npos) return {0, 0};
  std::size_t line = 0, column = 0;
  if (std::sscanf(m.c_str() + p, "at line %zu, column %zu", &line, &column) != 2) return {0, 0};
  return {line, column};
}

// Text of the 1-based line (without its line break).
std::string_view line_of(std::string_view text, std::size_t line) {
  std::size_t begin = 0;
  for (std::size_t l = 1; l < line; ++l) {
    auto nl = text.find('\n', begin);
    if (nl == std::string_view::npos) return {};
    begin = nl + 1;
  }
  auto end = text.find('\n', begin);
  return text.substr(begin, end == std::string_view::npos ? text.size() - begin : end - begin);
}

// A character YAML 1.1 does not allow in a stream (section 5.1, c-printable).
bool has_non_printable(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    Utf8Unit u = decode_utf8(text, i);
    i += u.length;
    if (!u.valid) continue;
    char32_t c = u.code_point;
    bool printable = c == 0x09 || c == 0x0A || c == 0x0D || (c >= 0x20 && c <= 0x7E) || c == 0x85 ||
                     (c >= 0xA0 && c <= 0xD7FF) || (c >= 0xE000 && c <= 0xFFFD) ||
                     (c >= 0x10000 && c <= 0x10FFFF);
    if (!printable) return true;
  }
  return false;
}

// A line break YAML 1.1 knows and yaml-cpp did not: CR alone, NEL, LS, PS.
bool has_other_line_break(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n')) return true;
  }
  return text.find("\xc2\x85") != std::string_view::npos ||
         text.find("\xe2\x80\xa8") != std::string_view::npos ||
         text.find("\xe2\x80\xa9") != std::string_view::npos;
}

// A line after the first that starts a document ("---") or ends one ("...").
bool has_later_document(std::string_view text) {
  bool content = false;
  for (std::size_t begin = 0; begin < text.size();) {
    auto end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    bool marker = (line.substr(0, 3) == "---" || line.substr(0, 3) == "...") &&
                  (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r');
    if (marker && content) return true;
    if (!line.empty() && line[0] != '#') content = true;
    begin = end + 1;
  }
  return false;
}

// The inputs on which the two readers may disagree (one refuses, both refuse for
// different reasons, or both read a spec and the specs differ), and why. `applies` gets the input
// and both results; it holds only where the input is of that class.
struct Disagreement {
  const char* name;
  const char* reason;
  std::function<bool(std::string_view, const Result<CdiSpec>& old_result,
                     const Result<CdiSpec>& new_result)>
      applies;
};

// The tree reading read the input as YAML: a spec, or a field that is wrong in it.
bool read_as_yaml(const Result<CdiSpec>& r) {
  return r.ok() || !r.error().where.empty();
}

bool says(const Result<CdiSpec>& r, const char* text) {
  return !r.ok() && r.error().message().find(text) != std::string::npos;
}

const std::vector<Disagreement>& disagreements() {
  static const std::vector<Disagreement> list = {
      // yaml-cpp accepted, libyaml refuses:
      {"not UTF-8",
       "yaml-cpp replaced bytes that are not UTF-8 with U+FFFD; libyaml and go-yaml refuse "
       "the stream (YAML is Unicode text), and so would the container runtime",
       [](std::string_view t, const auto& o, const auto& n) {
         return read_as_yaml(o) && !is_valid_utf8(t) && (says(n, "UTF-8") || says(n, "Unicode"));
       }},
      {"control character",
       "YAML 1.1 allows only printable characters (c-printable); yaml-cpp passed control "
       "characters through, libyaml and go-yaml refuse them",
       [](std::string_view t, const auto& o, const auto& n) {
         return read_as_yaml(o) && has_non_printable(t) &&
                says(n, "control characters are not allowed");
       }},
      {"truncated at the end",
       "a quoted string or a key without ':' still open where the input ends: yaml-cpp "
       "closed it silently, libyaml (and go-yaml) report the truncation",
       [](std::string_view t, const auto& o, const auto& n) {
         if (!read_as_yaml(o) ||
             !(says(n, "found unexpected end of stream") || says(n, "could not find expected ':'")))
           return false;
         auto [line, column] = position(message(n));
         return line >= static_cast<std::size_t>(std::count(t.begin(), t.end(), '\n')) + 1;
       }},
      {"empty key in a block mapping",
       "a line starting with ': ' (a key that is empty): yaml-cpp read a null key, libyaml "
       "and go-yaml do not accept an empty implicit key there",
       [](std::string_view t, const auto& o, const auto& n) {
         if (!read_as_yaml(o) || !says(n, "did not find expected key")) return false;
         auto [line, column] = position(message(n));
         std::string_view l = line_of(t, line);
         return column >= 1 && column <= l.size() && l[column - 1] == ':' &&
                (column == l.size() || l[column] == ' ' || l[column] == '\t' || l[column] == '\r');
       }},
      {"line breaks other than LF",
       "YAML 1.1 breaks lines at CR alone, NEL, LS and PS as well (libyaml and go-yaml do); "
       "yaml-cpp kept them inside strings and keys, so the same bytes are other lines",
       [](std::string_view t, const auto&, const auto&) { return has_other_line_break(t); }},
      {"empty entry in a flow collection",
       "'[a, , b]': yaml-cpp read a null entry; YAML has no empty flow entry and libyaml and "
       "go-yaml refuse it",
       [](std::string_view t, const auto& o, const auto& n) {
         if (!read_as_yaml(o) || !says(n, "did not find expected node content")) return false;
         auto [line, column] = position(message(n));
         std::string_view l = line_of(t, line);
         return column >= 1 && column <= l.size() && l[column - 1] == ',';
       }},
      {"recursive alias",
       "an alias inside the node it names: yaml-cpp built a node that contains itself, "
       "go-yaml refuses it (\"anchor value contains itself\"), so does the reader",
       [](std::string_view, const auto& o, const auto& n) {
         return read_as_yaml(o) && says(n, "a CDI spec cannot contain itself");
       }},
      // yaml-cpp refused, libyaml accepts:
      {"brackets inside strings",
       "the old reader counted every '[' and '{' of the text, inside quoted strings and "
       "comments too, against the depth limit; the reader counts collections",
       [](std::string_view, const auto& o, const auto& n) {
         return n.ok() && says(o, "nested more than 64 levels deep; not a CDI spec");
       }},
      {"after the first document",
       "YAML::Load and go-yaml's Unmarshal read the first document only, but yaml-cpp's "
       "scanner read one token past its end marker and the old size guard went through "
       "every document; the reader stops where the first document ends",
       [](std::string_view t, const auto& o, const auto& n) {
         return n.ok() && !o.ok() && has_later_document(t);
       }},
  };
  return list;
}

std::string read_all(const std::filesystem::path& p) {
  return test::read_file(p.string());
}

// ---- The recorded specs ----

TEST(CdiReader, EveryRecordedSpecReadsAsTheTreeReadingDid) {
  int specs = 0;
  for (const auto& board : std::filesystem::directory_iterator(test::fixtures_dir())) {
    for (const char* dir : {"root/etc/cdi", "root/var/run/cdi"}) {
      auto d = board.path() / dir;
      if (!std::filesystem::is_directory(d)) continue;
      for (const auto& f : std::filesystem::directory_iterator(d)) {
        std::string text = read_all(f.path());
        auto now = parse_cdi_spec(text);
        auto before = oracle::parse(text);
        ASSERT_TRUE(now.ok()) << f.path() << ": " << message(now);
        EXPECT_EQ(show(now), show(before)) << f.path();
        EXPECT_FALSE(now->device_nodes.empty()) << f.path();
        ++specs;
      }
    }
  }
  EXPECT_GE(specs, 2);
}

// ---- The fuzz corpus: every input, both readers ----

// Both readers on one input: the same spec, refused by both, or of a listed class.
struct Tally {
  int inputs = 0, same_spec = 0, both_refuse = 0;
  int refused_as_yaml = 0;  // of both_refuse: the new reader found the YAML itself wrong
  std::map<std::string, int> by_class;
  std::string summary() const {
    std::string s = std::to_string(inputs) + " inputs: " + std::to_string(same_spec) +
                    " the same spec, " + std::to_string(both_refuse) + " refused by both (" +
                    std::to_string(refused_as_yaml) + " as not YAML)";
    for (const auto& [name, n] : by_class) s += ", " + std::to_string(n) + " " + name;
    return s;
  }
};

void compare(const std::string& label, std::string_view text, Tally& tally) {
  ++tally.inputs;
  auto before = oracle::parse(text);
  auto now = parse_cdi_spec(text);
  if (before.ok() && now.ok() && show(now) == show(before)) {
    ++tally.same_spec;
    return;
  }
  // Both refuse; where both read the YAML and found a field wrong, the same field.
  if (!before.ok() && !now.ok() &&
      (before.error().where.empty() || now.error().where.empty() ||
       before.error().where == now.error().where)) {
    ++tally.both_refuse;
    if (message(now).rfind("not valid YAML", 0) == 0) ++tally.refused_as_yaml;
    return;
  }
  for (const auto& d : disagreements()) {
    if (d.applies(text, before, now)) {
      ++tally.by_class[d.name];
      return;
    }
  }
  ADD_FAILURE() << label
                << ": the readers disagree for no listed reason\n  yaml-cpp: " << show(before)
                << " " << message(before) << "\n  libyaml:  " << show(now) << " " << message(now)
                << "\n  input: " << text.substr(0, 2000);
}

TEST(CdiReader, FuzzCorpusReadsAsTheTreeReadingDidOrDisagreesForAListedReason) {
  auto dir = std::filesystem::path(test::source_dir()) / "tests/fuzz/corpus/fuzz_cdi_yaml";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  Tally tally;
  for (const auto& f : std::filesystem::directory_iterator(dir))
    compare(f.path().string(), read_all(f.path()), tally);
  std::cout << "[ corpus   ] " << tally.summary() << "\n";
  RecordProperty("summary", tally.summary());
  // Not vacuous: the corpus holds specs both readers read, and they agree on them.
  EXPECT_GE(tally.same_spec, 100) << tally.summary();
}

// Spec-like documents from a small grammar, reproducible from the seed: the keys the
// reader reads and others, block and flow styles, duplicate keys, nulls, tags, quoted
// and block scalars, empty values, anchors and aliases (to nodes that have ended),
// several documents.
class SpecGenerator {
 public:
  explicit SpecGenerator(std::uint32_t seed) : rng_(seed) {}

  std::string document() {
    anchors_.clear();
    std::string doc;
    if (chance(80)) doc += "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\n";
    for (std::size_t i = pick(6); i > 0; --i) {
      static const char* const keys[] = {"cdiVersion", "kind",    "devices",       "containerEdits",
                                         "x",          "devices", "containerEdits"};
      std::string key = keys[pick(std::size(keys))];
      Want w = key == "devices"          ? Want::kDevices
               : key == "containerEdits" ? Want::kEdits
               : key == "x"              ? Want::kAny
                                         : Want::kScalar;
      // One draw after the other (the operands of + are not sequenced).
      std::string written_key = quoted_key(key);
      doc += written_key + ":" + value(1, w, 2) + "\n";
      // Anchors become usable by aliases once the root entry holding them has ended.
      anchors_.insert(anchors_.end(), pending_.begin(), pending_.end());
      pending_.clear();
    }
    if (chance(10)) doc = "---\n" + doc + "---\nkind: other\n";
    if (chance(5)) doc = "# a comment\n" + doc + "...\n";
    return doc;
  }

 private:
  enum class Want { kScalar, kDevices, kDevice, kEdits, kNodes, kNode, kAny };
  std::size_t pick(std::size_t n) { return rng_() % n; }
  bool chance(std::size_t percent) { return pick(100) < percent; }
  std::string quoted_key(const std::string& k) { return chance(5) ? "\"" + k + "\"" : k; }
  std::string anchor() {
    if (!chance(15)) return "";
    std::string name = "a" + std::to_string(next_anchor_++);
    pending_.push_back(name);
    return "&" + name + " ";
  }
  std::string scalar(bool flow, int indent) {
    static const char* const plain[] = {"0.5.0",
                                        "nvidia.com/gpu",
                                        "~",
                                        "null",
                                        "NULL",
                                        "Null",
                                        "\"null\"",
                                        "'x'",
                                        "!!str ~",
                                        "! null",
                                        "/dev/a",
                                        "/dev/b",
                                        "/dev/a",
                                        "all",
                                        "\"0\"",
                                        "a b",
                                        "!!int 3",
                                        "\"q\\\"x\"",
                                        "'it''s'",
                                        "\"\"",
                                        "!custom /dev/c",
                                        "\"\\u00e9\"",
                                        "'/dev/d # not a comment'"};
    if (!flow && chance(8)) {
      std::string pad(static_cast<std::size_t>(indent + 2), ' ');
      return std::string(chance(50) ? "|" : ">-") + "\n" + pad + "line one\n" + pad + "/dev/e";
    }
    if (!flow && chance(5)) return "";  // an empty value
    return plain[pick(std::size(plain))];
  }
  std::string value(int depth, Want want, int indent) {
    std::string v = node(depth, want, indent, false);
    return v.empty() || v[0] == '\n' ? v : " " + v;
  }
  std::string node(int depth, Want want, int indent, bool flow) {
    if (!anchors_.empty() && chance(12)) return "*" + anchors_[pick(anchors_.size())];
    std::string a = anchor();
    if (depth > 5 || (want == Want::kScalar && chance(85)) || (want == Want::kAny && chance(40)))
      return a + scalar(flow, indent);
    bool sequence = want == Want::kDevices || want == Want::kNodes ||
                    ((want == Want::kAny || want == Want::kScalar) && chance(50));
    if (want == Want::kDevice || want == Want::kEdits || want == Want::kNode) sequence = chance(5);
    std::size_t n = pick(4);
    std::string pad(static_cast<std::size_t>(indent), ' ');
    std::string block_anchor = a.empty() ? "" : a.substr(0, a.size() - 1);
    if (sequence) {
      Want item = want == Want::kDevices ? Want::kDevice
                  : want == Want::kNodes ? Want::kNode
                                         : Want::kAny;
      if (flow || n == 0 || chance(40)) {
        std::string s = a + "[";
        for (std::size_t i = 0; i < n; ++i)
          s += (i ? ", " : "") + node(depth + 1, item, indent, true);
        return s + "]";
      }
      std::string s = block_anchor;
      for (std::size_t i = 0; i < n; ++i)
        s += "\n" + pad + "- " + node(depth + 1, item, indent + 2, false);
      return s;
    }
    static const char* const device_keys[] = {"name", "containerEdits", "name", "x"};
    static const char* const edits_keys[] = {"deviceNodes", "env", "deviceNodes"};
    static const char* const node_keys[] = {"path", "hostPath", "path", "x", "hostPath"};
    static const char* const other_keys[] = {"a", "b", "path", "name"};
    std::vector<std::pair<std::string, Want>> pairs;
    for (std::size_t i = 0; i < n; ++i) {
      std::string k = want == Want::kDevice  ? device_keys[pick(std::size(device_keys))]
                      : want == Want::kEdits ? edits_keys[pick(std::size(edits_keys))]
                      : want == Want::kNode  ? node_keys[pick(std::size(node_keys))]
                                             : other_keys[pick(std::size(other_keys))];
      Want w = k == "containerEdits"                           ? Want::kEdits
               : k == "deviceNodes"                            ? Want::kNodes
               : k == "name" || k == "path" || k == "hostPath" ? Want::kScalar
                                                               : Want::kAny;
      pairs.emplace_back(quoted_key(k), w);
    }
    if (flow || pairs.empty() || chance(30)) {
      std::string s = a + "{";
      for (std::size_t i = 0; i < pairs.size(); ++i)
        s += (i ? ", " : "") + pairs[i].first + ": " +
             node(depth + 1, pairs[i].second, indent, true);
      return s + "}";
    }
    std::string s = block_anchor;
    for (const auto& [k, w] : pairs) s += "\n" + pad + k + ":" + value(depth + 1, w, indent + 2);
    return s;
  }

  std::mt19937 rng_;
  std::vector<std::string> anchors_, pending_;
  int next_anchor_ = 0;
};

TEST(CdiReader, GeneratedSpecsReadAsTheTreeReadingDid) {
  SpecGenerator gen(20261206);
  Tally tally;
  for (int i = 0; i < 3000; ++i)
    compare("generated document " + std::to_string(i), gen.document(), tally);
  std::cout << "[ generated] " << tally.summary() << "\n";
  RecordProperty("summary", tally.summary());
  EXPECT_GE(tally.same_spec, 1500) << tally.summary();
  // Valid YAML on which the two readers differ would show up here as a class.
  EXPECT_TRUE(tally.by_class.empty()) << tally.summary();
}

// ---- Corner cases: what the reader gives, and whether yaml-cpp's tree gave the same ----

struct Case {
  const char* name;
  std::string text;
  std::string expect;  // show() of the result, or "error: TEXT" (the message contains TEXT)
  bool as_before;      // the tree reading gave the same (for an error: an error too)
};

// ASCII text as UTF-16LE with its byte order mark.
std::string utf16le(std::string_view ascii) {
  std::string out = "\xff\xfe";
  for (char c : ascii) out += std::string{c, '\0'};
  return out;
}

const std::string kHead = "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\n";

std::vector<Case> corner_cases() {
  const std::string ok = "cdiVersion=0.5.0 kind=nvidia.com/gpu devices=[]";
  return {
      // Duplicate keys: yaml-cpp's node["key"] found the first of them.
      {"duplicate top-level key: the first wins", kHead + "cdiVersion: 9.9.9\n", ok + " nodes=[]",
       true},
      {"duplicate devices: the first wins even when it is not a list",
       kHead + "devices: 3\ndevices: [{name: all}]\n", "error: devices is not a list", true},
      {"duplicate containerEdits: the first wins",
       kHead + "containerEdits: {deviceNodes: [{path: /dev/a}]}\n"
               "containerEdits: {deviceNodes: [{path: /dev/b}]}\n",
       ok + " nodes=[/dev/a>/dev/a]", true},
      {"duplicate deviceNodes: the first wins",
       kHead +
           "containerEdits:\n  deviceNodes: [{path: /dev/a}]\n  deviceNodes: [{path: /dev/b}]\n",
       ok + " nodes=[/dev/a>/dev/a]", true},
      {"duplicate path and hostPath: the first of each wins",
       kHead +
           "containerEdits: {deviceNodes: [{path: /a, path: /b, hostPath: /h, hostPath: /i}]}\n",
       ok + " nodes=[/a>/h]", true},
      {"duplicate device name: the first wins", kHead + "devices: [{name: x, name: y}]\n",
       "cdiVersion=0.5.0 kind=nvidia.com/gpu devices=[x] nodes=[]", true},
      // Nulls: ~, null, Null, NULL and nothing are YAML's null, an empty string here.
      {"cdiVersion ~ is missing", "cdiVersion: ~\nkind: k\n", "error: cdiVersion is empty", true},
      {"cdiVersion null is missing", "cdiVersion: null\nkind: k\n", "error: cdiVersion", true},
      {"kind NULL is missing", "cdiVersion: 1\nkind: NULL\n", "error: kind is empty", true},
      {"kind Null is missing", "cdiVersion: 1\nkind: Null\n", "error: kind is empty", true},
      {"an empty value is missing", "cdiVersion:\nkind: k\n", "error: cdiVersion is empty", true},
      {"a key that is absent", "kind: k\n", "error: missing cdiVersion", true},
      {"quoted null is a string", "cdiVersion: 'null'\nkind: \"~\"\n",
       "cdiVersion=null kind=~ devices=[] nodes=[]", true},
      {"nUll is not null", "cdiVersion: nUll\nkind: k\n",
       "cdiVersion=nUll kind=k devices=[] nodes=[]", true},
      {"null hostPath is the path",
       kHead + "containerEdits: {deviceNodes: [{path: /a, hostPath: ~}]}\n", ok + " nodes=[/a>/a]",
       true},
      {"null path: no node",
       kHead + "containerEdits: {deviceNodes: [{path: null, hostPath: /h}]}\n", ok + " nodes=[]",
       true},
      {"devices null is not a list", kHead + "devices:\n",
       "error: devices is not a list (at line 3", true},
      // Tags: ignored, except that a tagged scalar is never null (as yaml-cpp).
      {"!!str ~ is the string ~", "cdiVersion: !!str ~\nkind: k\n",
       "cdiVersion=~ kind=k devices=[] nodes=[]", true},
      {"! null is the string null", "cdiVersion: ! null\nkind: k\n",
       "cdiVersion=null kind=k devices=[] nodes=[]", true},
      {"!!str with no value is empty", "cdiVersion: !!str\nkind: k\n", "error: cdiVersion is empty",
       true},
      {"tags on collections and numbers",
       "!!map\ncdiVersion: !!float 0.5\nkind: !custom k\ndevices: !!seq [!!map {name: !!int 0}]\n",
       "cdiVersion=0.5 kind=k devices=[0] nodes=[]", true},
      {"a tag on a key", kHead + "!!str devices: [{name: a}]\n",
       "cdiVersion=0.5.0 kind=nvidia.com/gpu devices=[a] nodes=[]", true},
      // Collections where strings are read, strings where collections are read.
      {"cdiVersion a list", "cdiVersion: [0.5.0]\nkind: k\n",
       "error: cdiVersion is a collection, not a string (at line 1, column 13)", true},
      {"kind a mapping", "cdiVersion: 1\nkind: {a: b}\n", "error: kind is a collection", true},
      {"devices a mapping", kHead + "devices: {name: all}\n", "error: devices is not a list", true},
      {"entries that are not mappings are skipped",
       kHead + "devices: [all, [x], ~, {name: [a]}, {name: {b: c}}, {name: ok}]\n",
       "cdiVersion=0.5.0 kind=nvidia.com/gpu devices=[ok] nodes=[]", true},
      {"containerEdits a list, deviceNodes a mapping: nothing read",
       kHead + "containerEdits: [deviceNodes]\ndevices: [{name: a, containerEdits: {deviceNodes: "
               "{path: /a}}}]\n",
       "cdiVersion=0.5.0 kind=nvidia.com/gpu devices=[a] nodes=[]", true},
      {"path a list: no node",
       kHead + "containerEdits: {deviceNodes: [{path: [/a]}, {path: /b}]}\n", ok + " nodes=[/b>/b]",
       true},
      // Collections as keys are never the keys read.
      {"a sequence as a key", "? [cdiVersion]\n: x\ncdiVersion: 1\nkind: k\n",
       "cdiVersion=1 kind=k devices=[] nodes=[]", true},
      {"a mapping as a key in a flow mapping", "{{cdiVersion: 2}: x, cdiVersion: 1, kind: k}",
       "cdiVersion=1 kind=k devices=[] nodes=[]", true},
      {"an empty key", "? \n: x\ncdiVersion: 1\nkind: k\n",
       "cdiVersion=1 kind=k devices=[] nodes=[]", true},
      {"an empty key without '?' (yaml-cpp read a null key; libyaml and go-yaml refuse)",
       kHead + ": x\n", "error: at line 3, column 1: did not find expected key", false},
      // Cut short: yaml-cpp closed what was open at the end, libyaml reports it.
      {"a quoted string still open at the end", kHead + "x: 'abc\n",
       "error: at line 4, column 1: found unexpected end of stream (while scanning a quoted "
       "scalar from line 3, column 4)",
       false},
      {"a key without ':' on the last line", kHead + "devices\n",
       "error: could not find expected ':'", false},
      // Documents: the first one only (YAML::Load, go-yaml's Unmarshal).
      {"two documents: the first is read", kHead + "---\ncdiVersion: 2\nkind: other\n",
       ok + " nodes=[]", true},
      {"a second document that is not YAML is not read", kHead + "---\n[: {\n", ok + " nodes=[]",
       true},
      {"an empty first document", "---\n---\n" + kHead, "error: top level is not a mapping", true},
      {"garbage after the end marker (yaml-cpp read one token past it)", kHead + "...\n]]]\n",
       ok + " nodes=[]", false},
      {"a directive and explicit markers", "%YAML 1.1\n---\n" + kHead + "...\n", ok + " nodes=[]",
       true},
      {"empty input", "", "error: top level is not a mapping", true},
      {"only a comment", "# nothing\n", "error: top level is not a mapping", true},
      {"a list at the top", "- cdiVersion: 1\n",
       "error: top level is not a mapping (a sequence at "
       "line 1, column 1)",
       true},
      {"a string at the top", "cdiVersion", "error: top level is not a mapping", true},
      // Anchors and aliases: an alias reads as the node it names.
      {"containerEdits by alias, at the top and in a device",
       "x-edits: &edits\n  deviceNodes:\n  - path: /dev/nvmap\n" + kHead +
           "containerEdits: *edits\ndevices:\n- name: all\n  containerEdits: *edits\n",
       "cdiVersion=0.5.0 kind=nvidia.com/gpu devices=[all] nodes=[/dev/nvmap>/dev/nvmap]", true},
      {"aliases inside an anchored node",
       "a: &n {path: /dev/a, hostPath: /h/a}\nb: &l [*n, {path: /dev/b}]\nc: &e {deviceNodes: "
       "*l}\n" +
           kHead + "devices: [{name: d, containerEdits: *e}]\n",
       "cdiVersion=0.5.0 kind=nvidia.com/gpu devices=[d] nodes=[/dev/a>/h/a,/dev/b>/dev/b]", true},
      {"aliases of strings: version, name, path, and a key",
       "v: &v 0.5.0\nk: &k kind\ncdiVersion: *v\n*k : nvidia.com/gpu\np: &p /dev/p\n"
       "devices: [{name: *v, containerEdits: {deviceNodes: [{path: *p}]}}]\n",
       "cdiVersion=0.5.0 kind=nvidia.com/gpu devices=[0.5.0] nodes=[/dev/p>/dev/p]", true},
      {"an anchor named again: the later node", "a: &x 1\na2: &x 2\ncdiVersion: *x\nkind: k\n",
       "cdiVersion=2 kind=k devices=[] nodes=[]", true},
      {"an alias of a collection as a key is not a key read",
       "c: &c [cdiVersion]\n*c : 3\ncdiVersion: 1\nkind: k\n",
       "cdiVersion=1 kind=k devices=[] nodes=[]", true},
      {"an anchored root", "&r\ncdiVersion: 1\nkind: k\n",
       "cdiVersion=1 kind=k devices=[] nodes=[]", true},
      {"an alias that names no anchor", kHead + "devices: *nothing\n",
       "error: alias *nothing at line 3, column 10 names no anchor before it", true},
      {"the merge key is an ordinary key (as yaml-cpp; go-yaml would merge)",
       "b: &b {path: /dev/m}\n" + kHead + "containerEdits: {deviceNodes: [{<<: *b}]}\n",
       ok + " nodes=[]", true},
      {"a recursive alias (yaml-cpp built a cycle; go-yaml refuses it)",
       kHead + "containerEdits: &e {deviceNodes: [*e], path: /dev/y}\n",
       "error: alias *e at line 3, column 35 is inside the node &e", false},
      // De-duplication by host path: the spec-wide nodes first, then each device's.
      {"one node per host path, spec-wide ones first",
       kHead + "devices:\n- name: a\n  containerEdits: {deviceNodes: [{path: /c, hostPath: /h}, "
               "{path: /d}]}\ncontainerEdits: {deviceNodes: [{path: /top, hostPath: /h}, {path: "
               "/d}]}\n",
       "cdiVersion=0.5.0 kind=nvidia.com/gpu devices=[a] nodes=[/top>/h,/d>/d]", true},
      // Encodings and characters.
      {"UTF-8 in values", kHead + "devices: [{name: \"gpu-é-\xe4\xb8\xad\"}]\n",
       "cdiVersion=0.5.0 kind=nvidia.com/gpu devices=[gpu-é-\xe4\xb8\xad] nodes=[]", true},
      {"a UTF-8 byte order mark", "\xef\xbb\xbf" + kHead, ok + " nodes=[]", true},
      {"UTF-16LE with its byte order mark", utf16le("cdiVersion: 1\nkind: k\n"),
       "cdiVersion=1 kind=k devices=[] nodes=[]", true},
      {"bytes that are not UTF-8 (yaml-cpp put U+FFFD in)",
       kHead + "devices: [{name: \"all\xc3\"}]\n",
       "error: not valid YAML or JSON at line 3, column 23 (byte offset 61): invalid trailing "
       "UTF-8 octet "
       "0x22",
       false},
      {"a control character (yaml-cpp let it through)", "cdiVersion: 1\nkind: \"k\x01\"\n",
       "error: at line 2, column 9 (byte offset 22): control characters are not allowed 0x1",
       false},
      {"a NUL byte", "cdiVersion: 1\nkind: k\0\n"s, "error: control characters are not allowed",
       false},
      {"an empty entry in a flow sequence (yaml-cpp read a null)", kHead + "x: [a, , b]\n",
       "error: at line 3, column 8: did not find expected node content", false},
      {"an empty value in a flow mapping is null", kHead + "devices: [{name: , x: 1}, {name: b}]\n",
       "cdiVersion=0.5.0 kind=nvidia.com/gpu devices=[b] nodes=[]", true},
      {"CRLF line ends and tabs between tokens", "cdiVersion:\t1\r\nkind: \tk\r\n",
       "cdiVersion=1 kind=k devices=[] nodes=[]", true},
      {"block scalars keep their line breaks as yaml-cpp did",
       "cdiVersion: |\n  1\nkind: >-\n  a\n  b\n", "cdiVersion=1\n kind=a b devices=[] nodes=[]",
       true},
      // JSON as nvidia-ctk writes it (Go's encoding/json: no spaces).
      {"compact JSON",
       R"({"cdiVersion":"0.5.0","kind":"nvidia.com/gpu","devices":[{"name":"all","containerEdits":{"deviceNodes":[{"path":"/dev/nvidia0"}]}}],"containerEdits":{"deviceNodes":[{"path":"/dev/nvidiactl","hostPath":"/dev/nvidiactl"}]}})",
       "cdiVersion=0.5.0 kind=nvidia.com/gpu devices=[all] "
       "nodes=[/dev/nvidiactl>/dev/nvidiactl,/dev/nvidia0>/dev/nvidia0]",
       true},
      {"malformed YAML names line and column", kHead + "devices:\n- name: a\n b: c\n",
       "error: not valid YAML or JSON at line 5, column 2: did not find expected key (while "
       "parsing a block mapping from line 1, column 1)",
       true},
      {"JSON cut short", R"({"cdiVersion": "0.5.0", "kind": )",
       "error: not valid YAML or JSON at line 2, column 1: did not find expected node content",
       true},
      {"a line break YAML 1.1 knows and yaml-cpp did not (CR alone)", "cdiVersion: 1\rkind: k\r",
       "cdiVersion=1 kind=k devices=[] nodes=[]", false},
  };
}

TEST(CdiReader, CornerCases) {
  for (const auto& c : corner_cases()) {
    SCOPED_TRACE(c.name);
    auto now = parse_cdi_spec(c.text);
    auto before = oracle::parse(c.text);
    if (c.expect.rfind("error: ", 0) == 0) {
      EXPECT_FALSE(now.ok()) << show(now);
      EXPECT_NE(message(now).find(c.expect.substr(7)), std::string::npos) << message(now);
      EXPECT_TRUE(is_valid_utf8(message(now))) << message(now);
      if (c.as_before) {
        EXPECT_FALSE(before.ok()) << show(before);
      }
    } else {
      EXPECT_EQ(show(now), c.expect) << message(now);
      if (c.as_before) {
        EXPECT_EQ(show(before), c.expect) << message(before);
      }
    }
    if (!c.as_before) {
      EXPECT_NE(show(now) + message(now), show(before) + message(before));
    }
  }
}

// The errors name the field that is wrong, as the warnings' `where` says.
TEST(CdiReader, FieldErrorsNameTheField) {
  EXPECT_EQ(parse_cdi_spec("kind: k\n").error().where, "cdiVersion");
  EXPECT_EQ(parse_cdi_spec("cdiVersion: 1\n").error().where, "kind");
  EXPECT_EQ(parse_cdi_spec(kHead + "devices: all\n").error().where, "devices");
}

// ---- Hostile input: an error or a value, quickly, never a crash ----

// Not a timing claim: a hang or a blow-up would run for minutes; this only catches that.
constexpr auto kQuick = std::chrono::seconds(20);

template <typename F>
auto timed(F f) {
  auto start = std::chrono::steady_clock::now();
  auto r = f();
  EXPECT_LT(std::chrono::steady_clock::now() - start, kQuick);
  return r;
}

TEST(CdiReaderHostile, AliasBombWhereNodesAreReadIsRefused) {
  // Ten levels of ten aliases of a device node list: 10^10 nodes once expanded.
  std::string bomb = kHead + "l0: &l0 [{path: /dev/a}]\n";
  for (int i = 1; i < 10; ++i) {
    bomb += "l" + std::to_string(i) + ": &l" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) bomb += (k ? ", *l" : "*l") + std::to_string(i - 1);
    bomb += "]\n";
  }
  bomb += "containerEdits: {deviceNodes: *l9}\n";
  auto r = timed([&] { return parse_cdi_spec(bomb); });
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find("once aliases are expanded (at line"), std::string::npos)
      << r.error().what;
}

TEST(CdiReaderHostile, LargeAnchorReadOnceWhereNodesAreRead) {
  // 15 000 device nodes (45 001 nodes, counted again where named): under the bound,
  // read in full.
  std::string text = kHead + "n: &n\n";
  for (int i = 0; i < 15000; ++i) text += "- {path: /dev/n" + std::to_string(i) + "}\n";
  text += "containerEdits: {deviceNodes: *n}\n";
  auto r = timed([&] { return parse_cdi_spec(text); });
  ASSERT_TRUE(r.ok()) << message(r);
  EXPECT_EQ(r->device_nodes.size(), 15000u);
  EXPECT_EQ(r->device_nodes.back().path, "/dev/n14999");
  // Named twice it passes the bound.
  text += "devices: [{name: a, containerEdits: {deviceNodes: *n}}]\n";
  EXPECT_FALSE(timed([&] { return parse_cdi_spec(text); }).ok());
}

TEST(CdiReaderHostile, NestingIsBoundedWithoutRecursion) {
  auto flow = [](int depth) {
    return kHead + "x: " + std::string(static_cast<std::size_t>(depth), '[') +
           std::string(static_cast<std::size_t>(depth), ']') + "\n";
  };
  // 64 levels in all (the root mapping is one): read; 65: refused.
  EXPECT_TRUE(parse_cdi_spec(flow(63)).ok()) << message(parse_cdi_spec(flow(63)));
  auto deep = parse_cdi_spec(flow(64));
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.error().what.find("nested more than 64 levels deep (at line 3, column"),
            std::string::npos)
      << deep.error().what;
  // A million brackets, flow mappings, block sequences and block mappings.
  EXPECT_FALSE(timed([] { return parse_cdi_spec(std::string(1000000, '[')); }).ok());
  std::string maps = kHead + "x: ";
  for (int i = 0; i < 100000; ++i) maps += "{a: ";
  EXPECT_FALSE(timed([&] { return parse_cdi_spec(maps); }).ok());
  std::string block = kHead + "x:\n";
  for (std::size_t i = 0; i < 3000; ++i) block += std::string(i + 1, ' ') + "-\n";
  EXPECT_FALSE(timed([&] { return parse_cdi_spec(block); }).ok());
  std::string block_maps = kHead;
  for (std::size_t i = 0; i < 3000; ++i) block_maps += std::string(i, ' ') + "k:\n";
  EXPECT_FALSE(timed([&] { return parse_cdi_spec(block_maps); }).ok());
  // Brackets inside a string are not nesting (the old reader counted them).
  std::string quoted = kHead + "x: \"" + std::string(100, '[') + "\"\n";
  EXPECT_TRUE(parse_cdi_spec(quoted).ok());
  EXPECT_FALSE(oracle::parse(quoted).ok());
}

TEST(CdiReaderHostile, ThirtyThousandSpaces) {
  const std::string spaces(30000, ' ');
  for (const std::string& text : {
           kHead + spaces + "x: 1\n",                        // as an indentation
           kHead + "x:\n" + spaces + "- 1\n",                // a nested entry far right
           kHead + spaces + "\n" + spaces + "\n",            // lines of spaces
           kHead + "x: a" + spaces + "b\n",                  // inside a plain string
           kHead + "x: \"" + spaces + "\"\n",                // inside a quoted string
           kHead + "x: [" + spaces + "a," + spaces + "]\n",  // between flow entries
           spaces + kHead,                                   // before everything
           kHead + "x: a" + spaces,                          // at the end
       }) {
    auto now = timed([&] { return parse_cdi_spec(text); });
    auto before = oracle::parse(text);
    // Where both read a spec it is the same one.
    if (now.ok() && before.ok()) {
      EXPECT_EQ(show(now), show(before));
    }
    if (now.ok()) {
      EXPECT_EQ(now->kind, "nvidia.com/gpu");
    }
  }
  // Spaces as indentation of the whole spec: read as it is.
  std::string indented;
  for (const char* line : {"cdiVersion: 1\n", "kind: k\n"}) indented += spaces + line;
  auto r = timed([&] { return parse_cdi_spec(indented); });
  ASSERT_TRUE(r.ok()) << message(r);
  EXPECT_EQ(show(r), show(oracle::parse(indented)));
}

TEST(CdiReaderHostile, OneMegabyteLines) {
  const std::string mb(1 << 20, 'a');
  auto plain = timed([&] { return parse_cdi_spec("cdiVersion: 1\nkind: " + mb + "\n"); });
  ASSERT_TRUE(plain.ok()) << message(plain);
  EXPECT_EQ(plain->kind.size(), mb.size());
  auto quoted = timed([&] { return parse_cdi_spec("cdiVersion: 1\nkind: \"" + mb + "\"\n"); });
  ASSERT_TRUE(quoted.ok()) << message(quoted);
  EXPECT_EQ(quoted->kind, mb);
  // A 1 MB key: a simple key is at most 1024 characters in YAML 1.1.
  EXPECT_FALSE(timed([&] { return parse_cdi_spec(kHead + mb + ": x\n"); }).ok());
  // One line, no line break, no colon.
  EXPECT_FALSE(timed([&] { return parse_cdi_spec(mb); }).ok());
  // A megabyte of flow entries (32 768 of them) and of aliases on one line.
  std::string flow = kHead + "x: [";
  while (flow.size() < (1u << 20)) flow += std::string(30, 'a') + ", ";
  EXPECT_TRUE(timed([&] { return parse_cdi_spec(flow + "a]\n"); }).ok());
  std::string aliases = kHead + "a: &a x\nx: [";
  while (aliases.size() < (1u << 20)) aliases += "*a, ";
  auto r = timed([&] { return parse_cdi_spec(aliases + "*a]\n"); });
  ASSERT_FALSE(r.ok());  // more than 100 000 nodes
  EXPECT_NE(r.error().what.find("aliases are expanded"), std::string::npos) << r.error().what;
}

TEST(CdiReaderHostile, ManyAnchors) {
  std::string text = kHead + "x:\n";
  for (int i = 0; i < 40000; ++i) text += "- &a" + std::to_string(i) + " v\n";
  text += "devices: [{name: *a39999}]\n";
  auto r = timed([&] { return parse_cdi_spec(text); });
  ASSERT_TRUE(r.ok()) << message(r);
  EXPECT_EQ(r->devices, (std::vector<std::string>{"v"}));
}

// Every prefix of a recorded spec: cut anywhere, it reads as a spec or an error.
TEST(CdiReaderHostile, EveryPrefixOfARecordedSpec) {
  std::string spec = test::read_file(test::fixtures_dir() +
                                     "/talos-orin-nx-mainline/root/var/run/cdi/"
                                     "nvidia-tegra.yaml");
  ASSERT_FALSE(spec.empty());
  int read = 0;
  for (std::size_t n = 0; n <= spec.size(); ++n) {
    auto r = parse_cdi_spec(std::string_view(spec).substr(0, n));
    if (r.ok()) {
      ++read;
    } else {
      EXPECT_TRUE(is_valid_utf8(r.error().message()));
    }
  }
  EXPECT_GT(read, 0);
  EXPECT_TRUE(parse_cdi_spec(spec).ok());
}

}  // namespace
}  // namespace jetgate::facts
