// SPDX-License-Identifier: Apache-2.0
// In a pod or container the CUDA driver's library (libcuda.so.1) and the GPU's device
// nodes come from the container runtime's injection, not from the image nor from a
// driver install inside it: a missing one there means the injection did not reach the
// container. One text names each injection and what to check, for every message that
// says so (the driver that did not load, a device node CUDA opens that is absent).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace jetgate::facts {

// "the container runtime injects ...: check ...": the CDI annotation, the runtime
// class and the device plugin's resource (docs/kubernetes.md).
extern const char* const kContainerGpuInjection;

// The note for a CUDA driver that did not load (/gpu/driver/loaded false) where the
// platform facts say this is a container (/platform/container/detected); nullopt
// anywhere else, and when the driver loaded.
std::optional<std::string> container_driver_note(const nlohmann::json& platform,
                                                 const nlohmann::json& gpu);

}  // namespace jetgate::facts
