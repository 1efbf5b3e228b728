// SPDX-License-Identifier: Apache-2.0
// Version strings of the CUDA stack, each from the file (or command output)
// where a plain install keeps it, without needing dpkg (Yocto/OE4T and Talos
// have none).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "jetgate/core/result.hpp"

namespace jetgate::facts {

// /usr/local/cuda/version.json: {"cuda": {"version": "12.6.68"}} -> "12.6.68".
Result<std::string> parse_cuda_version_json(std::string_view text);
// /usr/local/cuda/version.txt: "CUDA Version 10.2.300" -> "10.2.300".
Result<std::string> parse_cuda_version_txt(std::string_view text);
// nvcc --version: "... release 12.6, V12.6.68" -> "12.6.68" (or "12.6").
Result<std::string> parse_nvcc_version(std::string_view text);
// /proc/driver/nvidia/version: "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  ..." ->
// "580.159.04".
Result<std::string> parse_nvidia_driver_version(std::string_view text);

// The integer value of each "#define NAME VALUE" in a C header, following one
// level of indirection ("#define NV_TENSORRT_MAJOR TRT_MAJOR_ENTERPRISE").
std::map<std::string, long> parse_header_defines(std::string_view text);
// "MAJOR.MINOR.PATCH" from a header's defines, or nullopt when one is missing.
std::optional<std::string> version_from_defines(const std::map<std::string, long>& defines,
                                                std::string_view major, std::string_view minor,
                                                std::string_view patch);
// "libcudnn.so.9.3.0" with stem "libcudnn.so." -> "9.3.0" (needs three parts).
std::optional<std::string> version_from_library_name(std::string_view file_name,
                                                     std::string_view stem);

}  // namespace jetgate::facts
