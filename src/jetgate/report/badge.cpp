// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/badge.hpp"

#include <set>

#include "jetgate/core/utf8.hpp"

namespace jetgate::report {

nlohmann::json support_badge(const claims::SupportMatrix& matrix, const std::string& label) {
  std::set<std::string> platforms;
  for (const auto& c : claims::supported_claims(matrix)) platforms.insert(c.platform);
  std::string message =
      platforms.empty()
          ? "no support claimed"
          : std::to_string(platforms.size()) + (platforms.size() == 1 ? " platform" : " platforms");
  if (platforms.size() == 1) message = to_valid_utf8(*platforms.begin());
  return {{"schemaVersion", 1},
          {"label", to_valid_utf8(label)},
          {"message", message},
          {"color", platforms.empty() ? "lightgrey" : "brightgreen"}};
}

}  // namespace jetgate::report
