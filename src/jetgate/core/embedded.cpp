// SPDX-License-Identifier: Apache-2.0
#include "jetgate/core/embedded.hpp"

namespace jetgate {

std::optional<std::string_view> embedded_file(std::string_view name) {
  for (const auto& f : embedded_files())
    if (f.name == name) return f.bytes;
  return std::nullopt;
}

}  // namespace jetgate
