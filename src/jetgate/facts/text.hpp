// SPDX-License-Identifier: Apache-2.0
// Small string helpers shared by the fact parsers.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jetgate::facts {

std::string_view trim(std::string_view s);
std::vector<std::string_view> split_lines(std::string_view text);
// Device-tree string lists are NUL-separated and NUL-terminated.
std::vector<std::string> split_nul_list(std::string_view bytes);
bool starts_with_icase(std::string_view s, std::string_view prefix);
// The first "N.N" or "N.N.N" (digits and dots, at least one dot) in s.
std::optional<std::string> first_dotted_version(std::string_view s);
// The trimmed text when it is non-empty, printable and at most max_len long;
// otherwise nullopt, because a fact is null when unknown, never "".
std::optional<std::string> fact_text(std::string_view s, std::size_t max_len = 256);
// True when s holds only printable ASCII (plus tab); binary input is rejected.
bool is_printable_text(std::string_view s);
// Compares dotted numeric versions: "36.4.3" < "36.10.0"; missing parts count as 0.
// Non-numeric parts compare as 0 (callers validate first).
int compare_versions(std::string_view a, std::string_view b);
// "36.4.3" -> true; "36.4", "36.4.x" -> false (for nparts = 3).
bool is_numeric_version(std::string_view s, int nparts);
}  // namespace jetgate::facts
