// SPDX-License-Identifier: Apache-2.0
// Runs the embedded Python probe script, one process per step, so a torch
// import or kernel that segfaults or hangs costs only that step's facts, and
// a crashing bitsandbytes native library costs only its own.
#include "jetgate/probes/python_runtime.hpp"

#include <algorithm>

#include "jetgate/core/embedded.hpp"
#include "jetgate/probes/registry.hpp"

namespace jetgate::probes {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kMaxStepOutput = 1u << 20;

proc::ChildOutcome run_step(const PythonOptions& options, std::string_view script,
                            const char* step) {
  proc::ProcessSpec spec;
  // The script comes on stdin ("-"); -B leaves no __pycache__ in the user's
  // packages. Not -I: it would drop PYTHONPATH and the user site-packages,
  // where Jetson users often install torch, and so report a torch that their
  // programs do find as missing.
  spec.argv = {options.python, "-B", "-", step};
  spec.set_env = options.env;
  // Either would turn the child into an interactive interpreter.
  for (const char* name : {"PYTHONINSPECT", "PYTHONSTARTUP"})
    if (!options.env.count(name)) spec.unset_env.emplace_back(name);
  spec.stdin_text = std::string(script);
  spec.cwd = "/";  // a torch.py in jetgate's directory must not be what gets imported
  proc::ChildLimits limits;
  limits.timeout = options.timeout;
  limits.grace = std::min<std::chrono::milliseconds>(1000ms, options.timeout);
  limits.max_output_bytes = kMaxStepOutput;
  return proc::run_process(spec, limits);
}

bool flag(const nlohmann::json& facts, const char* key) {
  auto it = facts.find(key);
  return it != facts.end() && it->is_boolean() && it->get<bool>();
}

bool has_string(const nlohmann::json& facts, const char* key) {
  auto it = facts.find(key);
  return it != facts.end() && it->is_string();
}

// The facts of a step that ran, or an empty object.
nlohmann::json facts_of(const std::optional<proc::ChildOutcome>& o, std::string_view step) {
  if (!o) return nlohmann::json::object();
  auto doc = parse_probe_document(o->output, step);
  return doc.ok() ? doc.value() : nlohmann::json::object();
}

PythonRuntime run_python_steps(const PythonOptions& options) {
  PythonStepOutcomes steps;
  steps.bitsandbytes_probe = options.bitsandbytes;
  auto script = embedded_file("python_probe.py");
  if (!script) {
    steps.basics.kind = proc::ChildOutcome::Kind::exited;
    steps.basics.exit_code = 0;  // so the missing document is what gets reported
    steps.basics.output = "";
    PythonRuntime r = interpret_python_steps(options.python, steps);
    r.result.reason = "this jetgate build lacks its embedded python_probe.py; rebuild jetgate";
    if (r.bitsandbytes) r.bitsandbytes->reason = r.result.reason;
    return r;
  }
  steps.basics = run_step(options, *script, "basics");
  auto basics = parse_probe_document(steps.basics.output, "basics");
  if (!basics.ok()) return interpret_python_steps(options.python, steps);
  const auto& b = basics.value();
  // Unknown (the lookup itself failed) counts as present: the step will say.
  auto found = b.find("torch_module_found");
  if (found == b.end() || !found->is_boolean() || found->get<bool>() ||
      has_string(b, "torch_metadata_version"))
    steps.torch = run_step(options, *script, "torch");
  bool torch_sees_gpu = flag(facts_of(steps.torch, "torch"), "cuda_available");
  if (torch_sees_gpu) steps.torch_compute = run_step(options, *script, "torch-compute");
  if (flag(b, "bitsandbytes_module_found") || has_string(b, "bitsandbytes_metadata_version"))
    steps.bitsandbytes_native = run_step(options, *script, "bitsandbytes-native");
  auto native = facts_of(steps.bitsandbytes_native, "bitsandbytes-native");
  // Without a loaded CUDA library there is nothing to run; the rule says why.
  bool cpu_library = native.contains("cuda") && native["cuda"] == false;
  if (options.bitsandbytes && torch_sees_gpu && flag(native, "loads") && !cpu_library)
    steps.bitsandbytes_compute = run_step(options, *script, "bitsandbytes-compute");
  return interpret_python_steps(options.python, steps);
}

}  // namespace

const std::vector<std::string>& python_probe_ids() {
  static const std::vector<std::string> ids = registered_probe_ids(ProbeKind::python);
  return ids;
}

bool is_python_probe(std::string_view id) {
  const auto& ids = python_probe_ids();
  return std::find(ids.begin(), ids.end(), id) != ids.end();
}

PythonRuntime probe_python_runtime(const PythonOptions& options) {
  options.progress.start(kPythonRuntimeProbe);
  PythonRuntime r = run_python_steps(options);
  options.progress.finish(r.result);
  if (r.bitsandbytes) {
    options.progress.start(kBitsandbytesProbe);
    options.progress.finish(*r.bitsandbytes);
  }
  return r;
}

}  // namespace jetgate::probes
