#pragma once

#include <string>

namespace jetgate {

// "0.1.0"
const char* version();
// "jetgate 0.1.0\nGPU kernels: CUDA 13.0 toolkit, sm_75,...+PTX" (or "built without CUDA toolkit")
std::string version_text();

}  // namespace jetgate
