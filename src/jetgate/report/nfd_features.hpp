// SPDX-License-Identifier: Apache-2.0
// A feature file for node-feature-discovery's `local` source (`probe/run
// --nfd-features FILE`): node labels from the same evidence CI uses. NFD reads
// every non-hidden file in /etc/kubernetes/node-feature-discovery/features.d/:
// `<key>[=<value>]` lines, `#` comments, and the `# +expiry-time=<RFC3339>`
// directive after which the lines below it are ignored (source/local/local.go
// and docs/usage/customization-guide.md of kubernetes-sigs/node-feature-discovery).
// Every key is in jetgate's own sub-namespace of feature.node.kubernetes.io,
// which NFD allows without -extra-label-ns; every name and value is sanitised
// into the Kubernetes label grammar, whatever the document's strings hold.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace jetgate::report {

inline constexpr std::string_view kNfdLabelPrefix = "jetgate.feature.node.kubernetes.io/";

// NFD ignores a feature file over 64 KiB (MaxFeatureFileSize); what jetgate
// writes stays far below, and the renderer stops adding labels before it.
inline constexpr std::size_t kNfdMaxFileBytes = 65536;

struct NfdFeaturesInput {
  // The probe document, or the gate's evidence as written (evidence::to_json).
  const nlohmann::json* document = nullptr;
  // The labels expire this long after the document's generated_at, so a node
  // whose validator stopped loses them instead of keeping old claims.
  int expiry_hours = 24;
};

std::string render_nfd_features(const NfdFeaturesInput& in);

// A Kubernetes label value (apimachinery's IsValidLabelValue): empty, or at
// most 63 characters of [A-Za-z0-9._-] beginning and ending with [A-Za-z0-9].
bool is_label_value(std::string_view s);

// s made into a label value: every byte outside [A-Za-z0-9._-] becomes '-',
// ends that are not alphanumeric are cut, then at most 63 characters are kept
// (and the end cut again). "" when nothing alphanumeric is left.
std::string sanitize_label_value(std::string_view s);

// A label key's name part: a non-empty label value.
bool is_label_name(std::string_view s);

}  // namespace jetgate::report
