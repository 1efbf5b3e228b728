// SPDX-License-Identifier: Apache-2.0
// Every outside string (file contents, file and directory names, the root
// path, dpkg versions, CDI paths) reaches the evidence through the platform
// report, so one pass at the end of collection keeps the whole report valid
// UTF-8 and `probe --json` always valid JSON. Parsers stay byte-exact.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace jetgate::facts {

// Replaces every byte sequence that is not UTF-8 in the strings and object
// keys of `value` with U+FFFD. Returns the JSON pointers (relative to `value`,
// prefixed with `at`) of what was changed.
std::vector<std::string> replace_invalid_utf8(nlohmann::json& value, const std::string& at = "");

}  // namespace jetgate::facts
