// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/container_injection.hpp"

#include "jetgate/core/document_keys.hpp"

namespace jetgate::facts {

// The three ways a Kubernetes pod gets an NVIDIA GPU: a CDI device request
// (https://github.com/cncf-tags/container-device-interface, resolved by containerd
// or CRI-O from the specs in /etc/cdi and /var/run/cdi), the NVIDIA runtime class
// (nvidia-container-runtime), and the device plugin's nvidia.com/gpu resource
// (https://github.com/NVIDIA/k8s-device-plugin).
const char* const kContainerGpuInjection =
    "in a pod or container, libcuda.so.1 and the GPU's device nodes come from the container "
    "runtime, not the image: check that the pod's injection reached it: its CDI annotation "
    "(cdi.k8s.io/...: nvidia.com/gpu=all) with CDI enabled in containerd and a spec in the "
    "host's /etc/cdi or /var/run/cdi, its runtimeClassName (nvidia), or its nvidia.com/gpu "
    "resource from NVIDIA's device plugin (docs/kubernetes.md)";

std::optional<std::string> container_driver_note(const nlohmann::json& platform,
                                                 const nlohmann::json& gpu) {
  const auto in_container =
      keys::bool_at(platform, keys::relative(keys::kContainerDetected, keys::kPlatform));
  const auto loaded = keys::bool_at(gpu, keys::relative(keys::kDriverLoaded, keys::kGpu));
  if (in_container != std::optional<bool>(true) || loaded != std::optional<bool>(false))
    return std::nullopt;
  return std::string("no CUDA driver in this container: ") + kContainerGpuInjection;
}

}  // namespace jetgate::facts
