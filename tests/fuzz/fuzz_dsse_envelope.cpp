// SPDX-License-Identifier: Apache-2.0
// A DSSE envelope (GATE.dsse.json) checked against fixed evidence and a fixed
// trusted key. An input is tried twice: as the envelope itself, and, when it is
// JSON, as the statement a trusted key signed, so the checks behind the
// signature (statement, subject, predicate) see mutated statements too.
#include <array>
#include <nlohmann/json.hpp>

#include "fuzz_input.hpp"
#include "jetgate/trust/envelope.hpp"
#include "jetgate/trust/verify.hpp"

namespace {

// tests/fixtures/trust/pynacl: the evidence, its commit and repository, and the
// test key (seed 32 bytes of 0x55) that signed the recorded envelope.
constexpr const char* kEvidence = R"({"schema_version":1,"gate":"jetson-cuda-runtime",
"status":"passed","generated_at":"2026-11-29T16:23:05Z",
"git_sha":"3f1c2a9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39","reason":"","exit_code":0,
"counts":{"tests":12,"failures":0,"errors":0,"skipped":0},"facts_source":"live",
"platform":{"arch":"aarch64","tegra":{"is_tegra":true,"l4t":"36.4.3","jetpack":"6.2",
"module":"Jetson AGX Orin 64GB"}},"probes":{"bandwidth":{"status":"PASS","gbps":187.25}},
"notes":["caf\u00e9 \u2014 made by PyNaCl"]})";

struct Fixed {
  nlohmann::json document = nlohmann::json::parse(kEvidence);
  jetgate::trust::SigningKey key = [] {
    std::array<unsigned char, 32> seed;
    seed.fill(0x55);
    return jetgate::trust::SigningKey::from_seed(seed);
  }();
  std::vector<jetgate::trust::TrustedKey> keys{{key.key_id(), key.public_key(), "acme/robot", {}}};
  jetgate::trust::SignedSubject subject{&document, "3f1c2a9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
                                        std::string("acme/robot")};
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Fixed fixed;
  auto input = jetgate::fuzz::text(data, size);
  (void)jetgate::trust::verify_envelope(input, fixed.subject, fixed.keys);
  auto statement = nlohmann::json::parse(input, nullptr, false);
  if (!statement.is_discarded()) {
    auto envelope = jetgate::trust::sign_statement(statement, fixed.key);
    (void)jetgate::trust::verify_envelope(envelope.dump(), fixed.subject, fixed.keys);
  }
  return 0;
}
