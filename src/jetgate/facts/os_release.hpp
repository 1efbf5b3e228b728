// SPDX-License-Identifier: Apache-2.0
#pragma once

#include <map>
#include <string>
#include <string_view>

namespace jetgate::facts {

// os-release(5): KEY=value lines, values optionally quoted with " or ' and
// backslash-escaped. Comments, blank and malformed lines are skipped.
std::map<std::string, std::string> parse_os_release(std::string_view text);

}  // namespace jetgate::facts
