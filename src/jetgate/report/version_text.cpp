#include "jetgate/report/version_text.hpp"

#include "jetgate/core/version.hpp"
#include "jetgate/cuda/kernel_image.hpp"

namespace jetgate::report {

std::string version_text() {
  std::string out = std::string("jetgate ") + version() + "\n";
  auto image = cuda::kernel_image();
  if (image.present())
    out += std::string("GPU kernels: CUDA ") + image.toolkit_version + " toolkit, sm_{" +
           image.archs + "} + PTX";
  else
    out += "GPU kernels: none (built without CUDA toolkit)";
  return out;
}

}  // namespace jetgate::report
