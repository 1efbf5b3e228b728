// SPDX-License-Identifier: Apache-2.0
// The keys of the documents jetgate writes (the probe document of `jetgate
// probe --json` and the evidence of `jetgate run`, which is the probe
// document plus the gate's fields), as JSON pointers: the one place a key
// is spelled. docs/evidence-schema.md documents each one, and
// DocumentKeys.* checks both ways that the document and this list agree and
// that the documents jetgate writes use no key outside it. Readers use the
// accessors below, which never throw on documents from outside.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace jetgate::keys {

using Pointer = nlohmann::json::json_pointer;

// X(name, pointer) for every documented pointer, in the order of
// docs/evidence-schema.md; then the sections documented elsewhere
// (/gpu in probes.md, the gate's fields).
#define JETGATE_DOCUMENT_KEYS(X)                                                            \
  X(kSchemaVersion, "/schema_version")                                                      \
  X(kJetgateVersion, "/jetgate/version")                                                    \
  X(kJetgateCommitId, "/jetgate/commit/id")                                                 \
  X(kJetgateCommitState, "/jetgate/commit/state")                                           \
  X(kJetgateKernelsToolkit, "/jetgate/kernels/toolkit")                                     \
  X(kJetgateKernelsArchs, "/jetgate/kernels/archs")                                         \
  X(kGeneratedAt, "/generated_at")                                                          \
  X(kFactsSource, "/facts_source")                                                          \
  X(kRoot, "/root")                                                                         \
  X(kHostMount, "/host_mount")                                                              \
  X(kHostMountDir, "/host_mount/dir")                                                       \
  X(kHostMountImage, "/host_mount/image")                                                   \
  X(kHostMountImageSource, "/host_mount/image_source")                                      \
  X(kHostMountProcIsProcfs, "/host_mount/proc_is_procfs")                                   \
  X(kHostMountSysIsSysfs, "/host_mount/sys_is_sysfs")                                       \
  X(kPlatform, "/platform")                                                                 \
  X(kGpu, "/gpu")                                                                           \
  X(kPython, "/python")                                                                     \
  X(kWarnings, "/warnings")                                                                 \
  X(kArch, "/platform/arch")                                                                \
  X(kKernelRelease, "/platform/kernel/release")                                             \
  X(kOsId, "/platform/os/id")                                                               \
  X(kOsVersionId, "/platform/os/version_id")                                                \
  X(kOsPrettyName, "/platform/os/pretty_name")                                              \
  X(kOsVersionCodename, "/platform/os/version_codename")                                    \
  X(kMemoryTotalBytes, "/platform/memory/total_bytes")                                      \
  X(kHostname, "/platform/hostname")                                                        \
  X(kContainerDetected, "/platform/container/detected")                                     \
  X(kContainerSign, "/platform/container/sign")                                             \
  X(kContainerNvTegraReleaseFromHost, "/platform/container/nv_tegra_release_from_host")     \
  X(kContainerImageL4t, "/platform/container/image_l4t")                                    \
  X(kContainerImageL4tSource, "/platform/container/image_l4t_source")                       \
  X(kContainerHostL4t, "/platform/container/host_l4t")                                      \
  X(kContainerHostL4tMajors, "/platform/container/host_l4t_majors")                         \
  X(kContainerL4tCheck, "/platform/container/l4t_check")                                    \
  X(kPlatformTegra, "/platform/tegra")                                                      \
  X(kIsTegra, "/platform/tegra/is_tegra")                                                   \
  X(kTegraSigns, "/platform/tegra/signs")                                                   \
  X(kL4t, "/platform/tegra/l4t")                                                            \
  X(kTegraL4tSource, "/platform/tegra/l4t_source")                                          \
  X(kTegraL4tSeriesFromKernel, "/platform/tegra/l4t_series_from_kernel")                    \
  X(kTegraL4tCandidates, "/platform/tegra/l4t_candidates")                                  \
  X(kTegraL4tKind, "/platform/tegra/l4t_kind")                                              \
  X(kTegraReleaseLine, "/platform/tegra/release_line")                                      \
  X(kJetpack, "/platform/tegra/jetpack")                                                    \
  X(kTegraJetpackCandidates, "/platform/tegra/jetpack_candidates")                          \
  X(kTegraJetpackVersions, "/platform/tegra/jetpack_versions")                              \
  X(kTegraJetpackAmbiguous, "/platform/tegra/jetpack_ambiguous")                            \
  X(kTegraJetpackSource, "/platform/tegra/jetpack_source")                                  \
  X(kBoardModel, "/platform/tegra/model")                                                   \
  X(kTegraCompatible, "/platform/tegra/compatible")                                         \
  X(kSoc, "/platform/tegra/soc")                                                            \
  X(kPartNumber, "/platform/tegra/part_number")                                             \
  X(kTegraPartNumberSource, "/platform/tegra/part_number_source")                           \
  X(kModule, "/platform/tegra/module")                                                      \
  X(kTegraModuleMemoryGb, "/platform/tegra/module_memory_gb")                               \
  X(kTegraModuleVariant, "/platform/tegra/module_variant")                                  \
  X(kTegraCarrier, "/platform/tegra/carrier")                                               \
  X(kTegraCarrierName, "/platform/tegra/carrier_name")                                      \
  X(kTegraEeprom, "/platform/tegra/eeprom")                                                 \
  X(kTegraCudaArch, "/platform/tegra/cuda_arch")                                            \
  X(kTegraSocFamily, "/platform/tegra/soc_family")                                          \
  X(kTegraSerialNumber, "/platform/tegra/serial_number")                                    \
  X(kTegraDriver, "/platform/tegra/driver")                                                 \
  X(kTegraDriverModules, "/platform/tegra/driver/modules")                                  \
  X(kTegraDriverDeviceNodes, "/platform/tegra/driver/device_nodes")                         \
  X(kTegraDriverCdi, "/platform/tegra/driver/cdi")                                          \
  X(kTegraDriverCdiDirs, "/platform/tegra/driver/cdi_dirs")                                 \
  X(kTegraDriverProvenance, "/platform/tegra/driver/provenance")                            \
  X(kTegraDriverExpectedModules, "/platform/tegra/driver/expected_modules")                 \
  X(kTegraDriverCudaNodes, "/platform/tegra/driver/cuda_nodes")                             \
  X(kTegraDriverStack, "/platform/tegra/driver/stack")                                      \
  X(kTegraDriverNodeAccess, "/platform/tegra/driver/node_access")                           \
  X(kTegraDriverNodeAccessUid, "/platform/tegra/driver/node_access/uid")                    \
  X(kTegraDriverNodeAccessGid, "/platform/tegra/driver/node_access/gid")                    \
  X(kTegraDriverNodeAccessGroups, "/platform/tegra/driver/node_access/groups")              \
  X(kTegraDriverNodeAccessMethod, "/platform/tegra/driver/node_access/method")              \
  X(kTegraDriverNodeAccessNodes, "/platform/tegra/driver/node_access/nodes")                \
  X(kPowerNvpmodel, "/platform/power/nvpmodel")                                             \
  X(kPowerNvpmodelModeId, "/platform/power/nvpmodel/mode_id")                               \
  X(kPowerNvpmodelModeName, "/platform/power/nvpmodel/mode_name")                           \
  X(kPowerNvpmodelModeSource, "/platform/power/nvpmodel/mode_source")                       \
  X(kPowerNvpmodelDefaultModeId, "/platform/power/nvpmodel/default_mode_id")                \
  X(kPowerNvpmodelDefaultModeName, "/platform/power/nvpmodel/default_mode_name")            \
  X(kPowerNvpmodelFastestModeId, "/platform/power/nvpmodel/fastest_mode_id")                \
  X(kPowerNvpmodelFastestModeName, "/platform/power/nvpmodel/fastest_mode_name")            \
  X(kPowerNvpmodelModes, "/platform/power/nvpmodel/modes")                                  \
  X(kPowerJetsonClocks, "/platform/power/jetson_clocks")                                    \
  X(kPowerJetsonClocksInEffect, "/platform/power/jetson_clocks/in_effect")                  \
  X(kPowerJetsonClocksEvidence, "/platform/power/jetson_clocks/evidence")                   \
  X(kPowerGpu, "/platform/power/gpu")                                                       \
  X(kPowerGpuCurHz, "/platform/power/gpu/cur_hz")                                           \
  X(kPowerGpuMinHz, "/platform/power/gpu/min_hz")                                           \
  X(kPowerGpuMaxHz, "/platform/power/gpu/max_hz")                                           \
  X(kPowerGpuAvailableMaxHz, "/platform/power/gpu/available_max_hz")                        \
  X(kPowerGpuGovernor, "/platform/power/gpu/governor")                                      \
  X(kPowerGpuSource, "/platform/power/gpu/source")                                          \
  X(kPowerEmc, "/platform/power/emc")                                                       \
  X(kPowerEmcCurHz, "/platform/power/emc/cur_hz")                                           \
  X(kPowerEmcMinHz, "/platform/power/emc/min_hz")                                           \
  X(kPowerEmcMaxHz, "/platform/power/emc/max_hz")                                           \
  X(kPowerEmcCapHz, "/platform/power/emc/cap_hz")                                           \
  X(kPowerEmcSource, "/platform/power/emc/source")                                          \
  X(kPowerCpu, "/platform/power/cpu")                                                       \
  X(kPowerCpuMinHz, "/platform/power/cpu/min_hz")                                           \
  X(kPowerCpuMaxHz, "/platform/power/cpu/max_hz")                                           \
  X(kPowerCpuCpuinfoMaxHz, "/platform/power/cpu/cpuinfo_max_hz")                            \
  X(kPowerCpuSource, "/platform/power/cpu/source")                                          \
  X(kCudaToolkitVersion, "/platform/cuda/toolkit_version")                                  \
  X(kCudaSource, "/platform/cuda/source")                                                   \
  X(kNvidiaDriverVersion, "/platform/nvidia_driver/version")                                \
  X(kLibrariesCudnn, "/platform/libraries/cudnn")                                           \
  X(kLibrariesTensorrt, "/platform/libraries/tensorrt")                                     \
  X(kLibrariesVpi, "/platform/libraries/vpi")                                               \
  X(kLibrariesOpencv, "/platform/libraries/opencv")                                         \
  X(kLibrariesOpencvCuda, "/platform/libraries/opencv_cuda")                                \
  X(kLibrariesVulkan, "/platform/libraries/vulkan")                                         \
  X(kLibrariesSourcesCudnn, "/platform/libraries/sources/cudnn")                            \
  X(kLibrariesSourcesTensorrt, "/platform/libraries/sources/tensorrt")                      \
  X(kLibrariesSourcesVpi, "/platform/libraries/sources/vpi")                                \
  X(kLibrariesSourcesOpencv, "/platform/libraries/sources/opencv")                          \
  X(kLibrariesSourcesOpencvCuda, "/platform/libraries/sources/opencv_cuda")                 \
  X(kLibrariesSourcesVulkan, "/platform/libraries/sources/vulkan")                          \
  X(kDirty, "/dirty")                                                                       \
  X(kGitShaSource, "/git/sha_source")                                                       \
  X(kGitHeadBefore, "/git/head_before")                                                     \
  X(kGitHeadAfter, "/git/head_after")                                                       \
  X(kGitProblem, "/git/problem")                                                            \
  X(kGateDefinitionSha256, "/gate_definition/sha256")                                       \
  X(kGateDefinitionPolicy, "/gate_definition/policy")                                       \
  X(kLaneNode, "/lane/node")                                                                \
  X(kLaneKind, "/lane/kind")                                                                \
  X(kInterrupted, "/interrupted")                                                           \
  X(kCommandLog, "/command/log")                                                            \
  X(kChecks, "/checks")                                                                     \
  X(kPythonTorchArchList, "/python/torch/arch_list")                                        \
  X(kPythonTorchCudnnAvailable, "/python/torch/cudnn_available")                            \
  X(kPythonTorchDeviceIntegrated, "/python/torch/device/integrated")                        \
  X(kPythonTorchComputeChecked, "/python/torch/compute/checked")                            \
  X(kPythonTorchComputeError, "/python/torch/compute/error")                                \
  X(kPythonTorchComputeErrors, "/python/torch/compute/errors")                              \
  X(kPythonTorchComputeElementwise, "/python/torch/compute/elementwise")                    \
  X(kPythonTorchComputeMatmul, "/python/torch/compute/matmul")                              \
  X(kPythonTorchComputeConv, "/python/torch/compute/conv")                                  \
  X(kPythonBitsandbytesComputeChecked, "/python/bitsandbytes/compute/checked")              \
  X(kPythonBitsandbytesComputeError, "/python/bitsandbytes/compute/error")                  \
  X(kPythonBitsandbytesComputeErrors, "/python/bitsandbytes/compute/errors")                \
  X(kPythonBitsandbytesComputeNf4, "/python/bitsandbytes/compute/nf4")                      \
  X(kPythonBitsandbytesComputeFp4, "/python/bitsandbytes/compute/fp4")                      \
  X(kPythonBitsandbytesComputeInt8Blockwise, "/python/bitsandbytes/compute/int8_blockwise") \
  X(kPythonBitsandbytesComputeInt8Matmul, "/python/bitsandbytes/compute/int8_matmul")       \
  X(kProbesPythonRuntimeValues, "/probes/python_runtime/values")                            \
  X(kProbesPythonRuntimeDetailsArch, "/probes/python_runtime/details/arch")                 \
  X(kProbesBitsandbytes, "/probes/bitsandbytes")                                            \
  X(kJetgate, "/jetgate")                                                                   \
  X(kGate, "/gate")                                                                         \
  X(kStatus, "/status")                                                                     \
  X(kReason, "/reason")                                                                     \
  X(kGitSha, "/git_sha")                                                                    \
  X(kExitCode, "/exit_code")                                                                \
  X(kCounts, "/counts")                                                                     \
  X(kDriverLoaded, "/gpu/driver/loaded")                                                    \
  X(kDriverLibrary, "/gpu/driver/library")                                                  \
  X(kDriverError, "/gpu/driver/error")                                                      \
  X(kDriverVersion, "/gpu/driver/version")                                                  \
  X(kDeviceCount, "/gpu/device_count")                                                      \
  X(kDevices, "/gpu/devices")                                                               \
  X(kProbes, "/probes")                                                                     \
  X(kTorchVersion, "/python/torch/version")                                                 \
  X(kTorchCudaVersion, "/python/torch/cuda_version")                                        \
  X(kTorchCudaAvailable, "/python/torch/cuda_available")                                    \
  X(kBitsandbytesVersion, "/python/bitsandbytes/version")                                   \
  X(kRequirements, "/requirements")                                                         \
  X(kCommand, "/command")                                                                   \
  X(kNotes, "/notes")

#define JETGATE_DECLARE_KEY(name, pointer) inline const Pointer name{pointer};
JETGATE_DOCUMENT_KEYS(JETGATE_DECLARE_KEY)
#undef JETGATE_DECLARE_KEY

// Relative to one entry of /gpu/devices (documented as /gpu/devices/N/...).
inline const Pointer kDeviceName{"/name"};
inline const Pointer kDeviceMemoryBytes{"/total_memory_bytes"};
inline const Pointer kDeviceCapability{"/compute_capability"};

struct NamedKey {
  const char* name;     // "kArch"
  const char* pointer;  // "/platform/arch"
};
// Every key above, for the tests that hold this list, the schema document and
// the documents jetgate writes together.
const std::vector<NamedKey>& all_keys();

// The pointer of `key` inside the object at `parent`, for a writer (or reader) of a
// sub-document, the object that lands at (or was read from) `parent`:
// relative(kTegraL4tSource, kPlatformTegra) is "/l4t_source". A key that does not lie
// below `parent` is a programming error: std::logic_error (DocumentKeys.Relative*).
Pointer relative(const Pointer& key, const Pointer& parent);

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
