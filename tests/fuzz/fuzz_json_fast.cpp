// SPDX-License-Identifier: Apache-2.0
// Differential: the fast JSON path (core/fast_json.hpp, simdjson when built
// with it) must give parse_json_text's value or parse_json_text's error on any
// input, also when it keeps only the members the evidence loader keeps
// (claims::judged_keys), and evidence read through it must be the slow path's
// evidence.
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
  auto fast = jetgate::parse_json_fast(text, "f.json");
  if (slow.ok() != fast.ok()) std::abort();
  if (slow.ok() && jetgate::dump_json(*slow) != jetgate::dump_json(*fast)) std::abort();
  if (!slow.ok() && slow.error().message() != fast.error().message()) std::abort();
  if (auto simd = jetgate::parse_json_simd(text))
    if (!slow.ok() || jetgate::dump_json(*simd) != jetgate::dump_json(*slow)) std::abort();
  const auto& keep = jetgate::claims::judged_keys();
  auto kept = jetgate::parse_json_fast(text, "f.json", keep);
  if (kept.ok() != slow.ok()) std::abort();
  if (slow.ok()) {
    nlohmann::json expected = *slow;
    jetgate::keep_json(expected, keep);
    if (jetgate::dump_json(expected) != jetgate::dump_json(*kept)) std::abort();
  } else if (kept.error().message() != slow.error().message()) {
    std::abort();
  }
  if (slow.ok()) {
    auto a = jetgate::evidence::evidence_from_json(*slow);
    auto b = jetgate::evidence::evidence_from_text(text, "f.json");
    if (a.ok() != b.ok()) std::abort();
    if (a.ok() && jetgate::dump_json(jetgate::evidence::to_json(*a)) !=
                      jetgate::dump_json(jetgate::evidence::to_json(*b)))
      std::abort();
  }
  return 0;
}
