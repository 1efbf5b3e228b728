// Runs the embedded Python probe script, one process per step, so a torch
// import that segfaults or hangs costs only the torch facts, and a crashing
// bitsandbytes native library costs only its own.
#include "jetgate/probes/python_runtime.hpp"

#include <algorithm>

#include "jetgate/core/embedded.hpp"

namespace jetgate::probes {
namespace {

using namespace std::chrono_literals;

constexpr std::size_t kMaxStepOutput = 1u << 20;

proc::ChildOutcome run_step(const PythonOptions& options, std::string_view script, const char* step) {
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

bool wants_step(const nlohmann::json& basics, const char* found_key, const char* version_key) {
  auto found = basics.find(found_key);
  auto version = basics.find(version_key);
  // Unknown (the lookup itself failed) counts as present: the step will say.
  bool module_found = found == basics.end() || !found->is_boolean() || found->get<bool>();
  bool has_metadata = version != basics.end() && version->is_string();
  return module_found || has_metadata;
}

PythonRuntime run_python_steps(const PythonOptions& options) {
  PythonStepOutcomes steps;
  auto script = embedded_file("python_probe.py");
  if (!script) {
    steps.basics.kind = proc::ChildOutcome::Kind::exited;
    steps.basics.exit_code = 0;  // so the missing document is what gets reported
    steps.basics.output = "";
    PythonRuntime r = interpret_python_steps(options.python, steps);
    r.result.reason = "this jetgate build lacks its embedded python_probe.py; rebuild jetgate";
    return r;
  }
  steps.basics = run_step(options, *script, "basics");
  auto basics = parse_probe_document(steps.basics.output, "basics");
  if (basics.ok()) {
    const auto& b = basics.value();
    if (wants_step(b, "torch_module_found", "torch_metadata_version"))
      steps.torch = run_step(options, *script, "torch");
    auto bnb_found = b.find("bitsandbytes_module_found");
    auto bnb_version = b.find("bitsandbytes_metadata_version");
    bool bnb_installed = (bnb_found != b.end() && bnb_found->is_boolean() && bnb_found->get<bool>()) ||
                         (bnb_version != b.end() && bnb_version->is_string());
    if (bnb_installed) steps.bitsandbytes_native = run_step(options, *script, "bitsandbytes-native");
  }
  return interpret_python_steps(options.python, steps);
}

}  // namespace

PythonRuntime probe_python_runtime(const PythonOptions& options) {
  options.progress.start("python_runtime");
  PythonRuntime r = run_python_steps(options);
  options.progress.finish(r.result);
  return r;
}

}  // namespace jetgate::probes
