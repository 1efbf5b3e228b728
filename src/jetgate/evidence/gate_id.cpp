// SPDX-License-Identifier: Apache-2.0
#include "jetgate/evidence/gate_id.hpp"

#include <fmt/format.h>

#include "jetgate/core/json_text.hpp"

namespace jetgate::evidence {

bool is_valid_gate_id(std::string_view id) {
  if (id.empty() || id.size() > kMaxGateIdLength) return false;
  auto lower_or_digit = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  if (!lower_or_digit(id.front())) return false;
  for (char c : id)
    if (!lower_or_digit(c) && c != '-') return false;
  return true;
}

Status validate_gate_id(std::string_view id, const std::string& where) {
  if (is_valid_gate_id(id)) return Ok{};
  // Shown inert: a quoted ASCII JSON string, so no newline, escape or
  // Markdown syntax in it reaches a report as itself.
  return make_error(
      fmt::format("invalid gate id {}", quoted_text(id)), where,
      fmt::format("gate ids are lowercase letters, digits and '-', start with a letter "
                  "or digit, at most {} characters (e.g. jetson-cuda-runtime)",
                  kMaxGateIdLength));
}

}  // namespace jetgate::evidence
