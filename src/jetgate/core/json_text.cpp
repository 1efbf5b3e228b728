// SPDX-License-Identifier: Apache-2.0
#include "jetgate/core/json_text.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

namespace jetgate {
namespace {

// Calls visit(i) for each byte of text outside JSON string literals (quotes and
// escapes included), in order, until visit returns false.
template <typename Visit>
void for_each_outside_strings(std::string_view text, Visit visit) {
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (!visit(i)) {
      return;
    }
  }
}

// The byte offset where nesting first exceeds max_depth, outside strings; nullopt if never.
// The JSON pointer of the first float that is -0.0, if any (depth is bounded
// by the caller's too_deep_at).
std::optional<std::string> first_negative_zero(const nlohmann::json& j, const std::string& at) {
  if (j.is_number_float()) {
    double v = j.get<double>();
    if (v == 0 && std::signbit(v)) return at.empty() ? std::string("/") : at;
    return std::nullopt;
  }
  if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i)
      if (auto found = first_negative_zero(j[i], at + "/" + std::to_string(i))) return found;
  } else if (j.is_object()) {
    for (const auto& [k, v] : j.items())
      if (auto found = first_negative_zero(v, at + "/" + k)) return found;
  }
  return std::nullopt;
}

std::optional<std::size_t> too_deep_at(std::string_view text, std::size_t max_depth) {
  std::size_t depth = 0;
  std::optional<std::size_t> at;
  for_each_outside_strings(text, [&](std::size_t i) {
    char c = text[i];
    if (c == '[' || c == '{') {
      if (++depth > max_depth) {
        at = i;
        return false;
      }
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
    return true;
  });
  return at;
}

}  // namespace

std::string line_column(std::string_view text, std::size_t offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return fmt::format("{}:{}", line, column);
}

namespace {

// The offset of the first number literal outside strings that does not fit a
// double, or 0. Only reached after the parser reported one.
std::size_t first_overflowing_number(std::string_view text) {
  std::size_t found = 0, literal_end = 0;
  for_each_outside_strings(text, [&](std::size_t i) {
    char c = text[i];
    if (i < literal_end || (c != '-' && (c < '0' || c > '9'))) return true;
    literal_end = i + 1;
    while (literal_end < text.size() &&
           std::string_view("0123456789.eE+-").find(text[literal_end]) != std::string_view::npos)
      ++literal_end;
    std::string literal(text.substr(i, literal_end - i));
    errno = 0;
    double v = std::strtod(literal.c_str(), nullptr);
    if (errno != ERANGE || !std::isinf(v)) return true;
    found = i;
    return false;
  });
  return found;
}

}  // namespace

std::optional<std::size_t> negative_integer_zero_at(std::string_view text) {
  auto number_char = [](char c) {
    return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
  };
  bool candidate = false;
  for (std::size_t i = text.find("-0"); i != std::string_view::npos; i = text.find("-0", i + 2)) {
    const char next = i + 2 < text.size() ? text[i + 2] : ' ';
    if (!number_char(next)) {
      candidate = true;
      break;
    }
  }
  if (!candidate) return std::nullopt;
  std::optional<std::size_t> found;
  std::size_t literal_end = 0;
  for_each_outside_strings(text, [&](std::size_t i) {
    const char c = text[i];
    if (i < literal_end || (c != '-' && (c < '0' || c > '9'))) return true;
    literal_end = i + 1;
    while (literal_end < text.size() && number_char(text[literal_end])) ++literal_end;
    if (text.substr(i, literal_end - i) != "-0") return true;
    found = i;
    return false;
  });
  return found;
}

Result<nlohmann::json> parse_json_text(std::string_view text, const std::string& source,
                                       std::size_t max_depth) {
  if (auto at = too_deep_at(text, max_depth))
    return make_error(
        fmt::format("JSON nested deeper than {} levels", max_depth),
        source + ":" + line_column(text, *at),
        "this is not a file jetgate writes or documents; check that the path is right");
  // JSON text never holds a NUL byte (control characters in strings must be
  // escaped), and the parser would read one as the end of the input.
  if (auto nul = text.find('\0'); nul != std::string_view::npos)
    return make_error("not valid JSON: a NUL byte (binary data, not text)",
                      source + ":" + line_column(text, nul),
                      "this is not a JSON text file; check that the path is right");
  try {
    auto doc = nlohmann::json::parse(text);
    // JSON has no NaN or infinity; "-0.0" parses, and is refused like them.
    if (auto at = first_negative_zero(doc, ""))
      return make_error(fmt::format("a number at {} is negative zero ({}), which jetgate never "
                                    "reads as a number",
                                    *at, why_not_plain_number(-0.0)),
                        source, "write 0");
    if (auto at = negative_integer_zero_at(text))
      return make_error("a number is negative zero (-0), which jetgate never reads as a number",
                        source + ":" + line_column(text, *at), "write 0");
    return doc;
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is 1-based and points just past the offending character.
    std::size_t offset = e.byte > 0 ? e.byte - 1 : 0;
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 2: syntax error ..." -> the
    // part after ": "
    auto colon = what.find(": ");
    if (colon != std::string::npos) what = what.substr(colon + 2);
    if (text.empty()) what = "the file is empty";
    return make_error("not valid JSON: " + what, source + ":" + line_column(text, offset),
                      "fix the syntax at that position");
  } catch (const nlohmann::json::out_of_range&) {
    // 406: a number literal beyond a double's range ("1e999"). The parser names
    // the literal but not its position; the first such literal is found here.
    return make_error("not valid JSON: a number too large for a double (about 1.8e308 at most)",
                      source + ":" + line_column(text, first_overflowing_number(text)),
                      "write the number within that range");
  } catch (const nlohmann::json::exception& e) {
    return make_error(std::string("not valid JSON: ") + e.what(), source,
                      "check that this is the JSON file jetgate expects");
  }
}

std::optional<std::int64_t> integer_in_range(const nlohmann::json& v, std::int64_t lo,
                                             std::int64_t hi) {
  if (v.is_number_unsigned()) {
    auto u = v.get<std::uint64_t>();
    if (hi < 0 || u > static_cast<std::uint64_t>(hi)) return std::nullopt;
    auto s = static_cast<std::int64_t>(u);
    return s < lo ? std::nullopt : std::optional<std::int64_t>(s);
  }
  if (v.is_number_integer()) {
    auto s = v.get<std::int64_t>();
    if (s < lo || s > hi) return std::nullopt;
    return s;
  }
  return std::nullopt;
}

nlohmann::json text_or_null(const std::string& text) {
  return text.empty() ? nlohmann::json(nullptr) : nlohmann::json(text);
}

std::string dump_json(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string quoted_text(std::string_view text, std::size_t max_chars) {
  bool cut = text.size() > max_chars;
  std::string head(text.substr(0, max_chars));
  // Cutting may split a UTF-8 sequence; the replace handler turns the stray bytes into U+FFFD.
  std::string out = nlohmann::json(head).dump(-1, ' ', /*ensure_ascii=*/true,
                                              nlohmann::json::error_handler_t::replace);
  if (cut) out += "...";
  return out;
}

std::string why_not_plain_number(double v) {
  if (std::isnan(v)) return "not a number (NaN)";
  if (std::isinf(v)) return "infinite";
  if (v == 0 && std::signbit(v)) return "negative zero";
  return std::string();
}

}  // namespace jetgate
