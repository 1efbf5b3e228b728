// SPDX-License-Identifier: Apache-2.0
// The node_exporter textfile: the previous file's text (read back for the last success
// time) and any document rendered from it. Every line rendered is a comment or a
// jetgate_ sample, whatever the document's strings hold.
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "fuzz_input.hpp"
#include "jetgate/report/prometheus.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = jetgate::fuzz::text(data, size);
  (void)jetgate::report::previous_last_success(text, "cuda-runtime", "jetson-01");
  auto doc = nlohmann::json::parse(text, nullptr, false);
  // Not JSON: its first bytes are the gate id (a label value, escaped like any
  // other); the whole input is still the previous file below.
  if (doc.is_discarded())
    doc = nlohmann::json{{"gate", std::string(text.substr(0, 256))}, {"status", "failed"}};
  jetgate::report::PrometheusInput in;
  in.document = &doc;
  in.node = "jetson-01";
  in.previous = std::string(text);
  const std::string out = jetgate::report::render_prometheus_textfile(in);
  std::size_t pos = 0;
  while (pos < out.size()) {
    std::size_t end = out.find('\n', pos);
    if (end == std::string::npos) std::abort();  // every line ends
    const std::string_view line(out.data() + pos, end - pos);
    if (line.substr(0, 7) != "# HELP " && line.substr(0, 7) != "# TYPE " &&
        line.substr(0, 8) != "jetgate_")
      std::abort();
    pos = end + 1;
  }
  return 0;
}
