// SPDX-License-Identifier: Apache-2.0
// Evidence documents for the claims tests, built from JSON so every test
// goes through the same validation as evidence read from disk.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "jetgate/claims/evidence_set.hpp"
#include "jetgate/evidence/evidence.hpp"

namespace jetgate::test {

// A passed jetson-cuda-runtime run on an AGX Orin 64GB, JetPack 6.2, dated
// `generated_at`; `patch` is merged over it (merge_patch semantics).
inline nlohmann::json orin_evidence_json(const std::string& generated_at = "2026-11-29T16:23:05Z",
                                         const nlohmann::json& patch = nlohmann::json::object()) {
  nlohmann::json j = {
      {"schema_version", 1},
      {"gate", "jetson-cuda-runtime"},
      {"status", "passed"},
      {"generated_at", generated_at},
      {"git_sha", "3f1c2a9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39"},
      {"reason", ""},
      {"exit_code", 0},
      {"counts", {{"tests", 12}, {"failures", 0}, {"errors", 0}, {"skipped", 0}}},
      {"facts_source", "live"},
      {"dirty", false},
      {"platform",
       {{"arch", "aarch64"},
        {"tegra",
         {{"is_tegra", true},
          {"l4t", "36.4.3"},
          {"jetpack", "6.2"},
          {"model", "NVIDIA Jetson AGX Orin Developer Kit"},
          {"soc", "tegra234"},
          {"part_number", "p3701-0005"},
          {"module", "Jetson AGX Orin 64GB"}}},
        {"cuda", {{"toolkit_version", "12.6.68"}}},
        {"nvidia_driver", {{"version", nullptr}}}}},
      {"gpu",
       {{"device_count", 1}, {"devices", {{{"name", "Orin"}, {"compute_capability", "8.7"}}}}}},
      {"python",
       {{"torch", {{"version", "2.5.0a0+872d972e41.nv24.08"}, {"cuda_version", "12.6"}}}}}};
  j.merge_patch(patch);
  return j;
}

inline evidence::Evidence evidence_of(const nlohmann::json& j) {
  auto e = evidence::evidence_from_json(j);
  if (!e) throw std::runtime_error("test evidence does not validate: " + e.error().message());
  return *e;
}

// One document, whole, as claims::judge_set takes it.
inline claims::LoadedEvidence loaded(const std::string& file, const nlohmann::json& j) {
  claims::LoadedEvidence le;
  le.file = file;
  le.evidence = evidence_of(j);
  return le;
}

}  // namespace jetgate::test
