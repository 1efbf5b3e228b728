// SPDX-License-Identifier: Apache-2.0
// node-feature-discovery's feature file (`--nfd-features`): any document, or any string
// in its gate, module and probe names, renders to comments, one expiry directive and
// PREFIX/NAME=VALUE lines in the Kubernetes label grammar, under NFD's 64 KiB limit; and
// the sanitiser's output is always a label value.
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "fuzz_input.hpp"
#include "jetgate/report/nfd_features.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace r = jetgate::report;
  const std::string_view text = jetgate::fuzz::text(data, size);
  if (!r::is_label_value(r::sanitize_label_value(text))) std::abort();
  auto doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded()) {
    const std::string s(text);
    nlohmann::json mode = {{"mode", s}, {"wait", s}};
    nlohmann::json probe = {{"status", s}};
    probe["details"]["modes"] = nlohmann::json::array({mode});
    doc = {{"gate", s}, {"status", s}, {"generated_at", "2026-12-03T07:00:00Z"}};
    doc["platform"]["tegra"] = {{"module", s}, {"jetpack", s}};
    doc["probes"][s] = probe;
  }
  r::NfdFeaturesInput in;
  in.document = &doc;
  const std::string out = r::render_nfd_features(in);
  if (out.size() > r::kNfdMaxFileBytes) std::abort();
  std::size_t pos = 0;
  int directives = 0;
  while (pos < out.size()) {
    std::size_t end = out.find('\n', pos);
    if (end == std::string::npos) std::abort();  // every line ends
    const std::string_view line(out.data() + pos, end - pos);
    pos = end + 1;
    if (line.substr(0, 3) == "# +") {
      if (line.substr(0, 15) != "# +expiry-time=") std::abort();
      ++directives;
      continue;
    }
    if (line.substr(0, 2) == "# ") continue;
    if (line.substr(0, r::kNfdLabelPrefix.size()) != r::kNfdLabelPrefix) std::abort();
    const auto rest = line.substr(r::kNfdLabelPrefix.size());
    const auto eq = rest.find('=');
    if (eq == std::string_view::npos || !r::is_label_name(rest.substr(0, eq)) ||
        rest.size() == eq + 1 || !r::is_label_value(rest.substr(eq + 1)))
      std::abort();
  }
  if (directives != 1) std::abort();
  return 0;
}
