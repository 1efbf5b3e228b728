// SPDX-License-Identifier: Apache-2.0
// The keys of the documents jetgate writes (the probe document of `jetgate
// probe --json` and the evidence of `jetgate run`, which is the probe
// document plus the gate's fields), as JSON pointers: the one place a key
// is spelled. docs/evidence-schema.md documents each. Readers use the
// accessors below, which never throw on documents from outside.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace jetgate::keys {

using Pointer = nlohmann::json::json_pointer;

// Where the facts came from: "live" (this machine) or "recorded" (--root).
inline const Pointer kFactsSource{"/facts_source"};
inline const Pointer kRoot{"/root"};
inline const Pointer kJetgate{"/jetgate"};
inline const Pointer kJetgateVersion{"/jetgate/version"};
inline const Pointer kWarnings{"/warnings"};

// Platform facts.
inline const Pointer kPlatform{"/platform"};
inline const Pointer kArch{"/platform/arch"};
inline const Pointer kOsId{"/platform/os/id"};
inline const Pointer kOsVersionId{"/platform/os/version_id"};
inline const Pointer kKernelRelease{"/platform/kernel/release"};
inline const Pointer kIsTegra{"/platform/tegra/is_tegra"};
inline const Pointer kBoardModel{"/platform/tegra/model"};
inline const Pointer kModule{"/platform/tegra/module"};
inline const Pointer kPartNumber{"/platform/tegra/part_number"};
inline const Pointer kSoc{"/platform/tegra/soc"};
inline const Pointer kL4t{"/platform/tegra/l4t"};
inline const Pointer kJetpack{"/platform/tegra/jetpack"};
inline const Pointer kPowerMode{"/platform/tegra/power/mode_name"};
inline const Pointer kCudaToolkitVersion{"/platform/cuda/toolkit_version"};
inline const Pointer kNvidiaDriverVersion{"/platform/nvidia_driver/version"};

// GPU facts from the CUDA driver.
inline const Pointer kGpu{"/gpu"};
inline const Pointer kDriverLoaded{"/gpu/driver/loaded"};
inline const Pointer kDriverError{"/gpu/driver/error"};
inline const Pointer kDriverVersion{"/gpu/driver/version"};
inline const Pointer kDeviceCount{"/gpu/device_count"};
inline const Pointer kDevices{"/gpu/devices"};
// Relative to one entry of /gpu/devices.
inline const Pointer kDeviceName{"/name"};
inline const Pointer kDeviceMemoryBytes{"/total_memory_bytes"};
inline const Pointer kDeviceCapability{"/compute_capability"};

// Probe results by id, and the Python runtime.
inline const Pointer kProbes{"/probes"};
inline const Pointer kPython{"/python"};
inline const Pointer kTorchVersion{"/python/torch/version"};
inline const Pointer kTorchCudaVersion{"/python/torch/cuda_version"};
inline const Pointer kTorchCudaAvailable{"/python/torch/cuda_available"};
inline const Pointer kBitsandbytesVersion{"/python/bitsandbytes/version"};

// The gate's fields in evidence (beside OBLITERATUS' top-level keys).
inline const Pointer kRequirements{"/requirements"};
inline const Pointer kChecks{"/checks"};
inline const Pointer kCommand{"/command"};
inline const Pointer kDirty{"/dirty"};

// The value at p, or nullptr when any step is missing or the value is null. Never throws.
const nlohmann::json* find(const nlohmann::json& doc, const Pointer& p);
// find() for a pointer spelled in the caller's code (a key inside a sub-document,
// such as "/tegra/l4t" under /platform); the spelling must be a valid pointer.
const nlohmann::json* find(const nlohmann::json& doc, const char* pointer);
// The string at p, or "" when missing or not a string.
std::string string_at(const nlohmann::json& doc, const Pointer& p);
// The boolean at p, or nullopt.
std::optional<bool> bool_at(const nlohmann::json& doc, const Pointer& p);

}  // namespace jetgate::keys
