// SPDX-License-Identifier: Apache-2.0
// Which platform combination an evidence document speaks for. A support claim
// names exactly this combination, so the key is built only from recorded
// facts, never guessed (docs/claims.md, "How the matrix is keyed"):
//   Jetson: platform = module (else board model, else SoC);
//           runtime  = "JetPack J (L4T L), CUDA C[, torch T]"
//   other:  platform = GPU name(s) "(arch)";
//           runtime  = "driver D, CUDA C[, torch T]"
// Evidence without these facts (OBLITERATUS' runner records none) is keyed
// "not recorded" and can never back a claim.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "jetgate/evidence/evidence.hpp"
#include "jetgate/record/record.hpp"

namespace jetgate::claims {

struct PlatformKey {
  std::string platform;  // "Jetson AGX Orin 64GB", "NVIDIA H200 (x86_64)"
  std::string runtime;   // "JetPack 6.2 (L4T 36.4.3), CUDA 12.6, torch 2.5.0a0+872d972e41.nv24.08"
  bool identified = false;  // false: the facts a claim must name are missing
  std::string missing;      // what is missing when !identified, in words
  nlohmann::json facts = nlohmann::json::object();  // the parts, for JSON output

  friend bool operator==(const PlatformKey& a, const PlatformKey& b) {
    return a.platform == b.platform && a.runtime == b.runtime;
  }
};

PlatformKey platform_key(const evidence::Evidence& e);
PlatformKey platform_key(const record::Record& r);
// The only members of the document platform_key reads: two documents equal
// in these have the same key (the loader of evidence reuses it).
inline constexpr const char* kPlatformKeyReads[] = {"platform", "gpu", "python"};

// The board and lane evidence speaks for: "node NAME (native|container)"
// when it records /lane/node, else "directory DIR (native|container)", DIR
// being where FILE was read from. extra: the document beyond the OBLITERATUS fields.
std::string lane_of(const std::string& file, const nlohmann::json& extra);
std::string lane_of(const std::string& file, const record::Record& r);
// A directory as the user named it, normalised: "ev", "ev/", "./ev" and
// "ev/." alike ("." for the current one). The one way evidence directories
// are compared (lanes, check's empty lanes, the next step's directory).
std::string normal_directory(std::string_view dir);
// The normal_directory FILE was read from: what a lane without a node is keyed by.
std::string directory_key(const std::string& file);

// "12.6.68" -> "12.6"; other forms are returned unchanged.
std::string cuda_major_minor(const std::string& version);

}  // namespace jetgate::claims
