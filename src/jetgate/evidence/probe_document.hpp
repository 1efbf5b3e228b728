// SPDX-License-Identifier: Apache-2.0
// The document `jetgate probe --json` prints, and the facts part of every
// gate's evidence (docs/evidence-schema.md).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "jetgate/facts/platform.hpp"
#include "jetgate/probes/cuda_section.hpp"
#include "jetgate/probes/python_runtime.hpp"

namespace jetgate::evidence {

inline constexpr int kEvidenceSchemaVersion = 1;

struct ProbeDocumentInput {
  std::string root;   // "/" or the recorded root
  bool live = false;  // facts read on this machine (not a recorded root); opt in
  const facts::PlatformReport* platform = nullptr;  // required
  const probes::CudaSection* cuda = nullptr;        // live machine only
  const probes::PythonRuntime* python = nullptr;    // when asked
  std::optional<std::string> generated_at;          // UTC ISO-8601; none for reproducible output
  nlohmann::json host_mount = nullptr;              // host_mount_json() under --host-root
};

// The /host_mount object: the facts came live from the host mounted at dir
// (`--host-root`), read from a container; image is the container image that
// ran, when the environment named it (image_source says where from).
nlohmann::json host_mount_json(const std::string& dir, bool proc_is_procfs, bool sys_is_sysfs,
                               const std::optional<std::string>& image,
                               const std::string& image_source);

// {"schema_version", "jetgate": {...}, "facts_source", "root", "platform", "gpu",
//  "probes", "python", "warnings"}; keys of absent sections are left out.
// facts_source is "live" or "recorded": evidence from a recording never backs a claim.
nlohmann::json build_probe_document(const ProbeDocumentInput& in);

// The part every document jetgate writes starts with, probe documents and
// gate evidence alike: {"schema_version", "jetgate", "facts_source", "root",
// "host_mount", "platform"}. Gate evidence is this head plus the gate's fields.
// Facts from a host mount are live ("facts_source": "live"), and host_mount says
// where they were read (null: on the machine itself, or a recording).
nlohmann::json facts_head(const std::string& root, bool live, const nlohmann::json& platform,
                          const nlohmann::json& host_mount = nullptr);

// {"version": "0.1.0", "kernels": {"toolkit": "13.0" | null, "archs": [...]}}
nlohmann::json jetgate_identity();

// The current time as "YYYY-MM-DDTHH:MM:SSZ".
std::string utc_now_iso8601();

}  // namespace jetgate::evidence
