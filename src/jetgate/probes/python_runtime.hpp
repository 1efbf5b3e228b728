// SPDX-License-Identifier: Apache-2.0
// Python ML runtime probes (OBLITERATUS' Jetson plan records torch and
// bitsandbytes: https://github.com/elder-plinius/OBLITERATUS/issues/31),
// gathered by an embedded script (data/python_probe.py) in Python child
// processes with a time limit: python_runtime (torch reaches the GPU and
// computes right on it) and bitsandbytes (its 4-bit and 8-bit kernels compute
// right on it). jetgate never installs or replaces torch.
#pragma once

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jetgate/core/result.hpp"
#include "jetgate/probes/probe_result.hpp"
#include "jetgate/probes/progress.hpp"
#include "jetgate/proc/child.hpp"

namespace jetgate::probes {

inline constexpr const char* kPythonRuntimeProbe = "python_runtime";
inline constexpr const char* kBitsandbytesProbe = "bitsandbytes";

// The probe ids a Python child answers; every other built-in probe is a CUDA
// probe (cuda_probes()).
const std::vector<std::string>& python_probe_ids();
bool is_python_probe(std::string_view id);

struct PythonOptions {
  std::string python = "python3";            // --python PATH
  std::chrono::milliseconds timeout{60000};  // per step (each step is one Python process)
  std::map<std::string, std::string> env;    // added to the interpreter's environment
  ProbeProgress progress;                    // told as python_runtime starts and ends
  bool bitsandbytes = false;  // also run the bitsandbytes probe (quantise and matmul on the GPU)
};

struct PythonRuntime {
  // /python: {"executable", "version", "torch": {...}, "bitsandbytes": {...}}; see docs.
  nlohmann::json facts;
  ProbeResult result;                       // id "python_runtime"
  std::optional<ProbeResult> bitsandbytes;  // id "bitsandbytes", when PythonOptions::bitsandbytes
};

PythonRuntime probe_python_runtime(const PythonOptions& options);

// The script's steps (see data/python_probe.py) as run_process returned them.
struct PythonStepOutcomes {
  proc::ChildOutcome basics;
  std::optional<proc::ChildOutcome> torch;                // not run when torch is not installed
  std::optional<proc::ChildOutcome> torch_compute;        // run when torch sees a GPU
  std::optional<proc::ChildOutcome> bitsandbytes_native;  // run only when bitsandbytes is installed
  std::optional<proc::ChildOutcome>
      bitsandbytes_compute;         // run when the bitsandbytes probe was asked
                                    // for, its library loads and torch sees a GPU
  bool bitsandbytes_probe = false;  // the bitsandbytes probe was asked for
};

// Builds /python and the results from the steps' outcomes, starting nothing;
// tests feed it recorded outputs. python is the interpreter as asked for.
PythonRuntime interpret_python_steps(const std::string& python, const PythonStepOutcomes& steps);

// The "facts" object of one step's JSON document, or an error saying what is
// wrong with the output ("probe script output is not JSON: <first 200 chars>").
Result<nlohmann::json> parse_probe_document(std::string_view output, std::string_view step);

}  // namespace jetgate::probes
