// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/badge.hpp"

#include <set>

#include "jetgate/core/utf8.hpp"

namespace jetgate::report {

nlohmann::json support_badge(const claims::SupportMatrix& matrix, const std::string& label) {
  // Under the label "Jetson" only Jetson platforms count: an H200's green
  // evidence is no Jetson platform. Any other label counts every platform.
  const bool jetson_only = label == kJetsonBadgeLabel;
  std::set<std::string> platforms;
  for (const auto& row : matrix.rows) {
    if (row.supported_gates().empty()) continue;
    if (jetson_only && row.key.facts.value("kind", "") != "jetson") continue;
    platforms.insert(row.key.platform);
  }
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
