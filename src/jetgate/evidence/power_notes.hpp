// SPDX-License-Identifier: Apache-2.0
// A speed figure on a Jetson means little without the power mode and clocks
// it was measured under: a board in its 15W mode with the memory clock capped
// reads as a slow board. When a speed probe (bandwidth, sync_path, decode) is
// not PASS, its reason gains the power facts and the command that lifts them
// ("power mode 15W, EMC at 2133 of 3199 MHz: run `sudo nvpmodel -m 2 && sudo
// jetson_clocks`"), from facts::power_advice. Facts and probes are siblings,
// so the two meet here, above both.
#pragma once

#include <nlohmann/json.hpp>

#include "jetgate/probes/cuda_section.hpp"

namespace jetgate::evidence {

// platform: the /platform object of the facts. Leaves PASS results and
// non-speed probes alone; adds the advice once.
void cite_power_facts(probes::CudaSection& section, const nlohmann::json& platform);

}  // namespace jetgate::evidence
