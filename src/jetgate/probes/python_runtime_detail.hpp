// SPDX-License-Identifier: Apache-2.0
// Shared by the Python probes' reading (python_runtime_read.cpp) and their
// status rules (python_runtime_decide.cpp, bitsandbytes.cpp). Not for use
// outside probes/.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "jetgate/probes/python_runtime.hpp"

namespace jetgate::probes::detail {

inline constexpr std::size_t kMaxFactText = 2000;
// Where the next steps send Jetson users for builds that match JetPack.
inline constexpr const char* kJetsonContainersRepo =
    "https://github.com/dusty-nv/jetson-containers";

// Whether text holds part (error text from Python, matched by a known phrase).
inline bool contains_text(const std::string& text, std::string_view part) {
  return text.find(part) != std::string::npos;
}

// Bytes from a process, made safe for a terminal line and for JSON (which
// must be UTF-8): control characters and non-ASCII bytes become \xNN.
std::string printable(std::string_view text, std::size_t max_bytes);

std::string text_or(const nlohmann::json& v, std::string_view fallback);
std::string first_line(const std::string& s);
// A figure for a reason: "0.0312", "4.8e+03".
std::string short_number(double v);

enum class Want { string, boolean, integer, number };
// Copies src[key] into dst[key] only when it has the type jetgate expects; a
// document from another script version never puts a wrong type in evidence.
void copy_typed(nlohmann::json& dst, const nlohmann::json& src, const char* key, Want want);

struct TypedField {
  const char* key;
  Want want;
};
// copy_typed() for each field; with `null_first`, every field is first set to
// null, so the key is present (unknown) when src lacks it or has a wrong type.
void copy_fields(nlohmann::json& dst, const nlohmann::json& src,
                 std::initializer_list<TypedField> fields, bool null_first = false);

// One kernel check of a compute step, every key present, wrong types null:
// {"ran", "elements", "max_abs_error", "tolerance", "max_error_ratio",
//  "beyond_tolerance", "non_finite", "error"} plus "backend" (conv2d) or
// "blocksize", "packed_bytes", "expected_packed_bytes" (round trips).
nlohmann::json read_check(const nlohmann::json& src);
// Why a check does not hold ("is off by up to 1 (100x its tolerance) in 1 of
// 5120 values"), or empty when it holds. A check that did not report its
// figures does not hold.
std::string check_problem(const nlohmann::json& check);

// NOT_RUN or FAIL when the interpreter itself could not be used; both Python
// probes start from it.
std::optional<std::pair<ProbeStatus, std::string>> interpreter_verdict(const nlohmann::json& facts);

// torch is a CUDA build that sees a GPU (the rest of python_runtime's rule
// aside): what bitsandbytes needs.
bool torch_reaches_gpu(const nlohmann::json& torch);

// The probes' results from /python; steps give their outcomes and times.
ProbeResult python_runtime_result(const nlohmann::json& facts, const PythonStepOutcomes& steps);
ProbeResult bitsandbytes_result(const nlohmann::json& facts, const PythonStepOutcomes& steps,
                                const ProbeResult& python_runtime);

// "NVIDIA's PyTorch wheel for this JetPack ..." on a Jetson, "a torch build
// whose get_arch_list() includes sm_90 ..." elsewhere.
std::string torch_arch_fix(const nlohmann::json& facts);
// Whether device 0 is a Jetson GPU (integrated, a Tegra capability, aarch64).
bool on_tegra(const nlohmann::json& facts);

}  // namespace jetgate::probes::detail
