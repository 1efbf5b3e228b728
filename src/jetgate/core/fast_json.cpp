// SPDX-License-Identifier: Apache-2.0
#include "jetgate/core/fast_json.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>

#include "jetgate/core/identifying_keys.hpp"
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
namespace {

using PrunePaths = std::vector<std::vector<std::string>>;
// The fast path follows at most this many paths this deep (bits of a 64-bit state).
constexpr std::size_t kMaxPrunePaths = 8, kMaxPruneDepth = 8;

bool prune_fits(const JsonPrune& prune) {
  if (prune.paths.size() > kMaxPrunePaths) return false;
  for (const auto& path : prune.paths)
    if (path.empty() || path.size() > kMaxPruneDepth) return false;
  return true;
}

std::uint64_t prune_bit(std::size_t path, std::size_t pos) {
  return std::uint64_t{1} << (path * kMaxPruneDepth + pos);
}

std::uint64_t prune_root(const PrunePaths& paths) {
  std::uint64_t live = 0;
  for (std::size_t i = 0; i < paths.size(); ++i) live |= prune_bit(i, 0);
  return live;
}

// The paths still matching below member `key` of an object at which `live`
// match; ends: a path names this member itself.
std::uint64_t prune_step(const PrunePaths& paths, std::uint64_t live, std::string_view key,
                         bool& ends) {
  std::uint64_t next = 0;
  ends = false;
  for (std::size_t i = 0; i < paths.size(); ++i)
    for (std::size_t pos = 0; pos < paths[i].size(); ++pos) {
      if (!(live & prune_bit(i, pos))) continue;
      const std::string& segment = paths[i][pos];
      if (segment != "*" && segment != key) continue;
      if (pos + 1 == paths[i].size())
        ends = true;
      else
        next |= prune_bit(i, pos + 1);
    }
  return next;
}

// Leaves in node only what stays of a member left out; false when nothing does.
bool keep_identifying(nlohmann::json& node);

bool keep_member(std::string_view key, nlohmann::json& value) {
  if (value.is_string()) return identifying_key(key) != IdentifyingKey::none;
  return keep_identifying(value);
}

bool keep_identifying(nlohmann::json& node) {
  if (node.is_object()) {
    auto& members = node.get_ref<nlohmann::json::object_t&>();
    for (auto it = members.begin(); it != members.end();)
      it = keep_member(it->first, it->second) ? std::next(it) : members.erase(it);
    return !members.empty();
  }
  if (node.is_array()) {
    auto& items = node.get_ref<nlohmann::json::array_t&>();
    items.erase(std::remove_if(items.begin(), items.end(),
                               [](nlohmann::json& v) { return !keep_identifying(v); }),
                items.end());
    return !items.empty();
  }
  return false;
}

void prune_at(nlohmann::json& node, const PrunePaths& paths, std::uint64_t live) {
  if (!node.is_object() || live == 0) return;
  auto& members = node.get_ref<nlohmann::json::object_t&>();
  for (auto it = members.begin(); it != members.end();) {
    bool ends = false;
    std::uint64_t next = prune_step(paths, live, it->first, ends);
    if (ends) {
      it = keep_member(it->first, it->second) ? std::next(it) : members.erase(it);
      continue;
    }
    prune_at(it->second, paths, next);
    ++it;
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

// Whether a key is given twice. nlohmann keeps the last value; where members
// are left out that is hard to follow, so such objects go to the slow path.
bool has_duplicate_key(dom::object o) {
  std::vector<std::string_view> keys;
  keys.reserve(o.size());
  for (dom::key_value_pair kv : o) keys.push_back(kv.key);
  std::sort(keys.begin(), keys.end());
  return std::adjacent_find(keys.begin(), keys.end()) != keys.end();
}

// What stays of el inside a member left out (keep_identifying): -1 in doubt,
// 0 nothing, 1 out holds it. Every value is still looked at for doubt.
int convert_kept(dom::element el, nlohmann::json& out, std::size_t depth);

int convert_kept_member(std::string_view key, dom::element value, nlohmann::json& out,
                        std::size_t depth) {
  if (value.type() == dom::element_type::STRING) {
    if (identifying_key(key) == IdentifyingKey::none) return 0;
    std::string_view s;
    if (value.get_string().get(s)) return -1;
    out = std::string(s);
    return 1;
  }
  return convert_kept(value, out, depth);
}

int convert_kept(dom::element el, nlohmann::json& out, std::size_t depth) {
  if (el.type() == dom::element_type::ARRAY) {
    if (depth + 1 > kMaxJsonDepth) return -1;
    dom::array a;
    if (el.get_array().get(a)) return -1;
    out = nlohmann::json::array();
    for (dom::element child : a) {
      nlohmann::json kept;
      int r = convert_kept(child, kept, depth + 1);
      if (r < 0) return -1;
      if (r > 0) out.get_ref<nlohmann::json::array_t&>().push_back(std::move(kept));
    }
    return out.empty() ? 0 : 1;
  }
  if (el.type() == dom::element_type::OBJECT) {
    if (depth + 1 > kMaxJsonDepth) return -1;
    dom::object o;
    if (el.get_object().get(o) || has_duplicate_key(o)) return -1;
    out = nlohmann::json::object();
    for (dom::key_value_pair kv : o) {
      nlohmann::json kept;
      int r = convert_kept_member(kv.key, kv.value, kept, depth + 1);
      if (r < 0) return -1;
      if (r > 0) out.get_ref<nlohmann::json::object_t&>()[std::string(kv.key)] = std::move(kept);
    }
    return out.empty() ? 0 : 1;
  }
  return scalar_certain(el) ? 0 : -1;
}

// Builds out from el as nlohmann's parser builds it from the same text, less
// what the prune paths live at el (`live`) leave out; false when the result
// is in doubt (parse_json_text would refuse it, or could build something
// else). depth counts the containers around el.
bool convert(dom::element el, nlohmann::json& out, std::size_t depth, const PrunePaths& paths,
             std::uint64_t live) {
  switch (el.type()) {
    case dom::element_type::ARRAY: {
      // parse_json_text refuses the 65th nested container (too_deep_at).
      if (depth + 1 > kMaxJsonDepth) return false;
      dom::array a;
      if (el.get_array().get(a)) return false;
      out = nlohmann::json::array();
      auto& items = out.get_ref<nlohmann::json::array_t&>();
      items.reserve(a.size());
      for (dom::element child : a) {
        items.emplace_back();
        if (!convert(child, items.back(), depth + 1, paths, 0)) return false;
      }
      return true;
    }
    case dom::element_type::OBJECT: {
      if (depth + 1 > kMaxJsonDepth) return false;
      dom::object o;
      if (el.get_object().get(o)) return false;
      if (live != 0 && has_duplicate_key(o)) return false;
      out = nlohmann::json::object();
      auto& members = out.get_ref<nlohmann::json::object_t&>();
      for (dom::key_value_pair kv : o) {
        std::uint64_t next = 0;
        if (live != 0) {
          bool ends = false;
          next = prune_step(paths, live, kv.key, ends);
          if (ends) {
            nlohmann::json kept;
            int r = convert_kept_member(kv.key, kv.value, kept, depth + 1);
            if (r < 0) return false;
            if (r > 0) members[std::string(kv.key)] = std::move(kept);
            continue;
          }
        }
        std::size_t before = members.size();
        nlohmann::json& slot = members[std::string(kv.key)];
        // A key given twice: parse_json_text's nlohmann keeps the last value; it says so itself.
        if (members.size() == before) return false;
        if (!convert(kv.value, slot, depth + 1, paths, next)) return false;
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

void prune_json(nlohmann::json& doc, const JsonPrune& prune) {
  if (prune.paths.empty()) return;
  if (prune_fits(prune)) {
    prune_at(doc, prune.paths, prune_root(prune.paths));
    return;
  }
  // More paths than one state holds: one at a time.
  for (const auto& path : prune.paths) {
    PrunePaths one = {path};
    if (!path.empty()) prune_at(doc, one, prune_root(one));
  }
}

#if JETGATE_HAVE_SIMDJSON

bool fast_json_available() {
  return true;
}

std::optional<nlohmann::json> parse_json_simd(std::string_view text, const JsonPrune* prune) {
  // parse_json_text names a NUL byte itself; simdjson would refuse it anyway.
  if (text.empty() || std::memchr(text.data(), 0, text.size())) return std::nullopt;
  static const PrunePaths kNone;
  if (prune && !prune_fits(*prune)) return std::nullopt;
  const PrunePaths& paths = prune ? prune->paths : kNone;
  // One parser per thread: its buffers are reused from file to file.
  thread_local dom::parser parser;
  dom::element root;
  if (parser.parse(text.data(), text.size(), /*realloc_if_needed=*/true).get(root))
    return std::nullopt;
  nlohmann::json out;
  if (!convert(root, out, 0, paths, prune_root(paths))) return std::nullopt;
  return out;
}

#else

bool fast_json_available() {
  return false;
}

std::optional<nlohmann::json> parse_json_simd(std::string_view, const JsonPrune*) {
  return std::nullopt;
}

#endif

Result<nlohmann::json> parse_json_fast(std::string_view text, const std::string& source) {
  if (auto doc = parse_json_simd(text)) return std::move(*doc);
  return parse_json_text(text, source);
}

Result<nlohmann::json> parse_json_fast(std::string_view text, const std::string& source,
                                       const JsonPrune& prune) {
  if (auto doc = parse_json_simd(text, &prune)) return std::move(*doc);
  auto doc = parse_json_text(text, source);
  if (doc) prune_json(*doc, prune);
  return doc;
}

}  // namespace jetgate
