// SPDX-License-Identifier: Apache-2.0
#include "jetgate/core/fast_json.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>

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

#if JETGATE_HAVE_SIMDJSON
namespace {

namespace dom = simdjson::dom;

// Builds out from el as nlohmann's parser builds it from the same text; false
// when the result is in doubt (parse_json_text would refuse it, or could
// build something else). depth counts the containers around el.
bool convert(dom::element el, nlohmann::json& out, std::size_t depth) {
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
        if (!convert(child, items.back(), depth + 1)) return false;
      }
      return true;
    }
    case dom::element_type::OBJECT: {
      if (depth + 1 > kMaxJsonDepth) return false;
      dom::object o;
      if (el.get_object().get(o)) return false;
      out = nlohmann::json::object();
      auto& members = out.get_ref<nlohmann::json::object_t&>();
      // A key given twice keeps its last value, as nlohmann's parser does.
      for (dom::key_value_pair kv : o)
        if (!convert(kv.value, members[std::string(kv.key)], depth + 1)) return false;
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

}  // namespace

bool fast_json_available() {
  return true;
}

std::optional<nlohmann::json> parse_json_simd(std::string_view text) {
  // parse_json_text names a NUL byte itself; simdjson would refuse it anyway.
  if (text.empty() || std::memchr(text.data(), 0, text.size())) return std::nullopt;
  // One parser per thread: its buffers are reused from file to file.
  thread_local dom::parser parser;
  dom::element root;
  if (parser.parse(text.data(), text.size(), /*realloc_if_needed=*/true).get(root))
    return std::nullopt;
  nlohmann::json out;
  if (!convert(root, out, 0)) return std::nullopt;
  return out;
}

#else

bool fast_json_available() {
  return false;
}

std::optional<nlohmann::json> parse_json_simd(std::string_view) {
  return std::nullopt;
}

#endif

Result<nlohmann::json> parse_json_fast(std::string_view text, const std::string& source) {
  if (auto doc = parse_json_simd(text)) return std::move(*doc);
  return parse_json_text(text, source);
}

}  // namespace jetgate
