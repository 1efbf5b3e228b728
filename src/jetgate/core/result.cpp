// SPDX-License-Identifier: Apache-2.0
#include "jetgate/core/result.hpp"

namespace jetgate {

std::string Error::message() const {
  std::string out;
  if (!where.empty()) out += where + ": ";
  out += what;
  if (!hint.empty()) out += " (" + hint + ")";
  return out;
}

Error make_error(std::string what, std::string where, std::string hint) {
  return Error{std::move(what), std::move(where), std::move(hint)};
}

}  // namespace jetgate
