// SPDX-License-Identifier: Apache-2.0
#include "jetgate/core/fast_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <utility>

#include "jetgate/core/json_text.hpp"
#include "jetgate/fast_json_config.hpp"

#if JETGATE_HAVE_SIMDJSON
// As libsimdjson-dev's simdjson.pc says the library was built.
#ifndef SIMDJSON_THREADS_ENABLED
#define SIMDJSON_THREADS_ENABLED 1
#endif
#include <simdjson.h>
#endif

namespace jetgate {

// The paths of a JsonKeep as a tree: the step for each member name, the step
// for "*", and whether a path ends here. Built once; a named step also holds
// everything "*" leads to, so a member looks up one step.
struct JsonKeep::Step {
  bool whole = false;
  std::vector<std::string> names;  // names[i] leads to steps[i]
  std::vector<Step> steps;
  std::unique_ptr<Step> any;

  const Step* member(std::string_view key) const {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == key) return &steps[i];
    return any.get();
  }
  const Step* element() const { return any.get(); }

  Step& named(const std::string& name) {
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == name) return steps[i];
    names.push_back(name);
    return steps.emplace_back();
  }

  void add(const std::vector<std::string>& path, std::size_t pos) {
    if (pos == path.size()) {
      whole = true;
      return;
    }
    Step* next = nullptr;
    if (path[pos] == "*") {
      if (!any) any = std::make_unique<Step>();
      next = any.get();
    } else {
      next = &named(path[pos]);
    }
    next->add(path, pos + 1);
  }
  // Everything other leads to, this step leads to as well.
  void merge(const Step& other) {
    whole = whole || other.whole;
    for (std::size_t i = 0; i < other.names.size(); ++i)
      named(other.names[i]).merge(other.steps[i]);
    if (other.any) {
      if (!any) any = std::make_unique<Step>();
      any->merge(*other.any);
    }
  }
  // A named step takes what "*" at the same place leads to; then the same below.
  void fold() {
    if (any) {
      any->fold();
      for (auto& step : steps) step.merge(*any);
    }
    for (auto& step : steps) step.fold();
  }
};

JsonKeep::JsonKeep(std::vector<std::vector<std::string>> paths_in)
    : paths(std::move(paths_in)), root_(std::make_shared<Step>()) {
  for (const auto& path : paths) root_->add(path, 0);
  root_->fold();
}

namespace {

using KeepStep = JsonKeep::Step;

void keep_at(nlohmann::json& node, const KeepStep& step) {
  if (step.whole) return;
  if (node.is_object()) {
    auto& members = node.get_ref<nlohmann::json::object_t&>();
    for (auto it = members.begin(); it != members.end();) {
      const KeepStep* next = step.member(it->first);
      if (!next) {
        it = members.erase(it);
        continue;
      }
      keep_at(it->second, *next);
      ++it;
    }
  } else if (node.is_array()) {
    const KeepStep* next = step.element();
    auto& items = node.get_ref<nlohmann::json::array_t&>();
    if (!next) {
      items.clear();
      return;
    }
    for (auto& item : items) keep_at(item, *next);
  }
}

#if JETGATE_HAVE_SIMDJSON

namespace dom = simdjson::dom;

// False when the scalar is in doubt: parse_json_text refuses -0.0 with its own message.
bool scalar_certain(dom::element el) {
  if (el.type() != dom::element_type::DOUBLE) return true;
  double v = 0;
  return !el.get_double().get(v) && !(v == 0 && std::signbit(v));
}

// Whether what is left out is certain: parse_json_text would build it (and
// so accept the document) exactly when simdjson did. It refuses -0.0 and
// the 65th nested container; simdjson does neither.
bool certain(dom::element el, std::size_t depth) {
  switch (el.type()) {
    case dom::element_type::ARRAY: {
      if (depth + 1 > kMaxJsonDepth) return false;
      dom::array a;
      if (el.get_array().get(a)) return false;
      for (dom::element child : a)
        if (!certain(child, depth + 1)) return false;
      return true;
    }
    case dom::element_type::OBJECT: {
      if (depth + 1 > kMaxJsonDepth) return false;
      dom::object o;
      if (el.get_object().get(o)) return false;
      for (dom::key_value_pair kv : o)
        if (!certain(kv.value, depth + 1)) return false;
      return true;
    }
    default:
      return scalar_certain(el);
  }
}

// Builds out from el as nlohmann's parser builds it from the same text, less
// what `step` leaves out (nullptr: nothing); false when the result is in doubt
// (parse_json_text would refuse it, or could build something else). depth
// counts the containers around el.
bool convert(dom::element el, nlohmann::json& out, std::size_t depth, const KeepStep* step) {
  if (step && step->whole) step = nullptr;
  switch (el.type()) {
    case dom::element_type::ARRAY: {
      // parse_json_text refuses the 65th nested container (too_deep_at).
      if (depth + 1 > kMaxJsonDepth) return false;
      dom::array a;
      if (el.get_array().get(a)) return false;
      out = nlohmann::json::array();
      const KeepStep* next = step ? step->element() : nullptr;
      if (step && !next) return certain(el, depth);  // kept empty
      auto& items = out.get_ref<nlohmann::json::array_t&>();
      items.reserve(a.size());
      for (dom::element child : a) {
        items.emplace_back();
        if (!convert(child, items.back(), depth + 1, next)) return false;
      }
      return true;
    }
    case dom::element_type::OBJECT: {
      if (depth + 1 > kMaxJsonDepth) return false;
      dom::object o;
      if (el.get_object().get(o)) return false;
      out = nlohmann::json::object();
      auto& members = out.get_ref<nlohmann::json::object_t&>();
      for (dom::key_value_pair kv : o) {
        const KeepStep* next = nullptr;
        if (step) {
          next = step->member(kv.key);
          if (!next) {
            if (!certain(kv.value, depth + 1)) return false;
            continue;
          }
        }
        std::size_t before = members.size();
        nlohmann::json& slot = members[std::string(kv.key)];
        // A key given twice: parse_json_text's nlohmann keeps the last value; it says so itself.
        if (members.size() == before) return false;
        if (!convert(kv.value, slot, depth + 1, next)) return false;
      }
      return true;
    }
    case dom::element_type::INT64: {
      std::int64_t v = 0;
      if (el.get_int64().get(v)) return false;
      // nlohmann reads a literal without '-' as unsigned, one with '-' as signed.
      if (v < 0)
        out = v;
      else
        out = static_cast<std::uint64_t>(v);
      return true;
    }
    case dom::element_type::UINT64: {
      std::uint64_t v = 0;
      if (el.get_uint64().get(v)) return false;
      out = v;
      return true;
    }
    case dom::element_type::DOUBLE: {
      double v = 0;
      if (el.get_double().get(v)) return false;
      // parse_json_text refuses -0.0 with its own message.
      if (v == 0 && std::signbit(v)) return false;
      out = v;
      return true;
    }
    case dom::element_type::STRING: {
      std::string_view s;
      if (el.get_string().get(s)) return false;
      out = std::string(s);
      return true;
    }
    case dom::element_type::BOOL: {
      bool b = false;
      if (el.get_bool().get(b)) return false;
      out = b;
      return true;
    }
    case dom::element_type::NULL_VALUE:
      out = nullptr;
      return true;
  }
  return false;
}

#endif

}  // namespace

void keep_json(nlohmann::json& doc, const JsonKeep& keep) {
  keep_at(doc, keep.root());
}

#if JETGATE_HAVE_SIMDJSON

bool fast_json_available() {
  return true;
}

std::optional<nlohmann::json> parse_json_simd(std::string_view text, const JsonKeep* keep) {
  // parse_json_text names a NUL byte itself; simdjson would refuse it anyway.
  if (text.empty() || std::memchr(text.data(), 0, text.size())) return std::nullopt;
  // One parser per thread: its buffers are reused from file to file.
  thread_local dom::parser parser;
  dom::element root;
  if (parser.parse(text.data(), text.size(), /*realloc_if_needed=*/true).get(root))
    return std::nullopt;
  // "-0" reads as the integer 0 here too; parse_json_text refuses it.
  if (negative_integer_zero_at(text)) return std::nullopt;
  nlohmann::json out;
  if (!convert(root, out, 0, keep ? &keep->root() : nullptr)) return std::nullopt;
  return out;
}

#else

bool fast_json_available() {
  return false;
}

std::optional<nlohmann::json> parse_json_simd(std::string_view, const JsonKeep*) {
  return std::nullopt;
}

#endif

Result<nlohmann::json> parse_json_fast(std::string_view text, const std::string& source) {
  if (auto doc = parse_json_simd(text)) return std::move(*doc);
  return parse_json_text(text, source);
}

Result<nlohmann::json> parse_json_fast(std::string_view text, const std::string& source,
                                       const JsonKeep& keep) {
  if (auto doc = parse_json_simd(text, &keep)) return std::move(*doc);
  auto doc = parse_json_text(text, source);
  if (doc) keep_json(*doc, keep);
  return doc;
}

}  // namespace jetgate
