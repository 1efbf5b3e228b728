// SPDX-License-Identifier: Apache-2.0
// Differential: the fast JSON path (core/fast_json.hpp, simdjson when built
// with it) must give parse_json_text's value or parse_json_text's error on any
// input, also when it keeps only the members the evidence loader keeps
// (claims::judged_keys), and evidence read through it must be the slow path's
// evidence. Where simdjson refuses or is in doubt, parse_json_fast is
// parse_json_text by construction (FastJson.HostileInputsGetTheSlowPathsAnswer);
// each input is parsed the slow way once and compared with what simdjson built.
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "fuzz_input.hpp"
#include "jetgate/claims/evidence_set.hpp"
#include "jetgate/core/fast_json.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/evidence/evidence.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text = jetgate::fuzz::text(data, size);
  auto slow = jetgate::parse_json_text(text, "f.json");
  // simdjson never gives a value the slow path would not, and gives the same one.
  auto simd = jetgate::parse_json_simd(text);
  if (simd && (!slow.ok() || jetgate::dump_json(*simd) != jetgate::dump_json(*slow))) std::abort();
  const auto& keep = jetgate::claims::judged_keys();
  if (auto kept = jetgate::parse_json_simd(text, &keep)) {
    if (!slow.ok()) std::abort();
    nlohmann::json expected = *slow;
    jetgate::keep_json(expected, keep);
    if (jetgate::dump_json(expected) != jetgate::dump_json(*kept)) std::abort();
  }
  if (slow.ok()) {
    auto a = jetgate::evidence::evidence_from_json(*slow);
    auto b = jetgate::evidence::evidence_from_document(
        simd ? jetgate::Result<nlohmann::json>(std::move(*simd)) : std::move(slow), "f.json");
    if (a.ok() != b.ok()) std::abort();
    if (a.ok() && jetgate::dump_json(jetgate::evidence::to_json(*a)) !=
                      jetgate::dump_json(jetgate::evidence::to_json(*b)))
      std::abort();
  }
  return 0;
}
