// SPDX-License-Identifier: Apache-2.0
#include "jetgate/core/identifying_keys.hpp"

namespace jetgate {

IdentifyingKey identifying_key(std::string_view key) {
  if (key == "hostname" || key == "host" || key == "nodename") return IdentifyingKey::hostname;
  if (key == "user" || key == "username" || key == "login") return IdentifyingKey::user;
  if (key.find("serial") != std::string_view::npos || key == "uuid") return IdentifyingKey::serial;
  return IdentifyingKey::none;
}

}  // namespace jetgate
