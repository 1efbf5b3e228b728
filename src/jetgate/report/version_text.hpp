// What `jetgate --version` prints: the version and the GPU kernels built in.
#pragma once

#include <string>

namespace jetgate::report {

// "jetgate 0.1.0\nGPU kernels: CUDA 13.0 toolkit, sm_{75,...} + PTX" (or "none (built without CUDA
// toolkit)")
std::string version_text();

}  // namespace jetgate::report
