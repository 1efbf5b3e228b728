// Python ML runtime facts (seed 000's gate records them), gathered by an
// embedded script (data/python_probe.py) in a Python child process with a time
// limit. jetgate never installs or replaces torch.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "jetgate/core/result.hpp"
#include "jetgate/proc/child.hpp"
#include "jetgate/probes/probe_result.hpp"
#include "jetgate/probes/progress.hpp"

namespace jetgate::probes {

struct PythonOptions {
  std::string python = "python3";  // --python PATH
  std::chrono::milliseconds timeout{60000};  // per step (each step is one Python process)
  std::map<std::string, std::string> env;     // added to the interpreter's environment
  ProbeProgress progress;                     // told as python_runtime starts and ends
};

struct PythonRuntime {
  // /python: {"executable", "version", "torch": {...}, "bitsandbytes": {...}}; see docs.
  nlohmann::json facts;
  ProbeResult result;  // id "python_runtime"
};

PythonRuntime probe_python_runtime(const PythonOptions& options);

// The script's steps (see data/python_probe.py) as run_process returned them.
struct PythonStepOutcomes {
  proc::ChildOutcome basics;
  std::optional<proc::ChildOutcome> torch;                // not run when torch is not installed
  std::optional<proc::ChildOutcome> bitsandbytes_native;  // run only when bitsandbytes is installed
};

// Builds /python and the result from the steps' outcomes, starting nothing;
// tests feed it recorded outputs. python is the interpreter as asked for.
PythonRuntime interpret_python_steps(const std::string& python, const PythonStepOutcomes& steps);

// The "facts" object of one step's JSON document, or an error saying what is
// wrong with the output ("probe script output is not JSON: <first 200 chars>").
Result<nlohmann::json> parse_probe_document(std::string_view output, std::string_view step);

}  // namespace jetgate::probes
