// SPDX-License-Identifier: Apache-2.0
// "did you mean ...?" for misspelt keys, options and ids: the nearest
// candidate by edit distance (a swap of two neighbours counts as one edit),
// when it is close enough to be the likely intent.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jetgate {

// Edits (insert, delete, substitute, swap neighbours) to turn a into b.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The closest candidate within max(1, word.size() / 3) edits; nullopt otherwise.
std::optional<std::string> closest_match(std::string_view word,
                                         const std::vector<std::string>& candidates);

// " (did you mean \"requires\"?)" or "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace jetgate
