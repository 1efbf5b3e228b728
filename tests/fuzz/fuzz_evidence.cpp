// SPDX-License-Identifier: Apache-2.0
// An evidence file (conditional-evidence/GATE.json).
#include <nlohmann/json.hpp>

#include "fuzz_input.hpp"
#include "jetgate/evidence/evidence.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto j = nlohmann::json::parse(jetgate::fuzz::text(data, size), nullptr, false);
  if (!j.is_discarded()) (void)jetgate::evidence::evidence_from_json(j);
  return 0;
}
