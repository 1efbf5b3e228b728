// Python ML runtime facts (seed 000's gate records them), gathered by an
// embedded script (data/python_probe.py) in a Python child process with a time
// limit. jetgate never installs or replaces torch.
#pragma once

#include <chrono>
#include <string>

#include <nlohmann/json.hpp>

#include "jetgate/probes/probe_result.hpp"

namespace jetgate::probes {

struct PythonOptions {
  std::string python = "python3";  // --python PATH
  std::chrono::milliseconds timeout{60000};
};

struct PythonRuntime {
  // /python: {"executable", "version", "torch": {...}, "bitsandbytes": {...}}; see docs.
  nlohmann::json facts;
  ProbeResult result;  // id "python_runtime"
};

PythonRuntime probe_python_runtime(const PythonOptions& options);

}  // namespace jetgate::probes
