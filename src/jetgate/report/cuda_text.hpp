// SPDX-License-Identifier: Apache-2.0
// The CUDA section as readable text: the driver, one line per device, and a
// table of the probes (status, key values with units, reason).
#pragma once

#include <string>

#include "jetgate/probes/cuda_section.hpp"

namespace jetgate::report {

std::string render_cuda_text(const probes::CudaSection& section);

// 1.5e9 -> "1.50 GB" (decimal units, as bandwidth figures use).
std::string format_bytes(double bytes);
// One probe value with its unit: "4210 GB/s", "9.6 us", "0.2%", "1.50 GB".
std::string format_measurement(const probes::Measurement& m);

}  // namespace jetgate::report
