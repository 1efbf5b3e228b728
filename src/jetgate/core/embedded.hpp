// SPDX-License-Identifier: Apache-2.0
// Data files compiled into the binary (see cmake/Embed.cmake and data/).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace jetgate {

struct EmbeddedFile {
  std::string_view name;  // file name under data/
  std::string_view bytes;
};

const std::vector<EmbeddedFile>& embedded_files();

// The embedded file with this name, or nullopt.
std::optional<std::string_view> embedded_file(std::string_view name);

}  // namespace jetgate
