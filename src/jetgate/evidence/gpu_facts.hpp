// SPDX-License-Identifier: Apache-2.0
// The one step where the platform facts meet what the CUDA section found, shared by
// `probe` and `run`, so that their documents carry the same things: the power advice
// on a speed probe that did not pass (power_notes.hpp), and, inside a container, the
// image's L4T release and CUDA toolkit against the host's kernel and driver
// (/platform/container/l4t_check, facts::check_container_l4t). Facts and probes are
// siblings, so they meet here, above both.
#pragma once

#include <nlohmann/json.hpp>

#include "jetgate/probes/cuda_section.hpp"

namespace jetgate::evidence {

// platform: the /platform object, completed in place; section: its results gain the
// power advice.
void join_gpu_facts(probes::CudaSection& section, nlohmann::json& platform);

}  // namespace jetgate::evidence
