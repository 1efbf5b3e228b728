// SPDX-License-Identifier: Apache-2.0
// The GPU kernels embedded at build time (cmake/CudaKernels.cmake).
#pragma once

#include <cstddef>

namespace jetgate::cuda {

struct KernelImage {
  const unsigned char* data;  // fatbin; nullptr when built without the CUDA toolkit
  std::size_t size;
  const char* toolkit_version;  // "13.0", or "" without a toolkit
  const char* archs;            // "75,80,86,87,...", or ""
  bool present() const { return data != nullptr && size > 0; }
};

KernelImage kernel_image();

}  // namespace jetgate::cuda
