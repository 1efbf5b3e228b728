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
  // The platform's name comes from evidence: shields.io draws what it is given,
  // so controls, bidi and zero-width characters take their visible form.
  if (platforms.size() == 1) message = terminal_safe(*platforms.begin());
  return {{"schemaVersion", 1},
          {"label", terminal_safe(label)},
          {"message", message},
          {"color", platforms.empty() ? "lightgrey" : "brightgreen"}};
}

}  // namespace jetgate::report
