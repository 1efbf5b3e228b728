// Turns what the Python probe's steps printed (or how they died) into the
// /python facts and the python_runtime result. Nothing here starts a process,
// so every outcome, a segfault or garbage on stdout included, is tested with
// recorded outputs. The rule and every key are in docs/python-runtime.md.
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "jetgate/probes/python_runtime.hpp"

namespace jetgate::probes {
namespace {

using nlohmann::json;

constexpr int kProbeFormat = 1;
constexpr std::size_t kMaxFactText = 2000;
constexpr std::size_t kMaxShownOutput = 200;
constexpr std::size_t kMaxErrorEntries = 50;
constexpr std::string_view kStepMarker = "jetgate-step: ";

// Bytes from a process, made safe for a terminal line and for JSON (which
// must be UTF-8): control characters and non-ASCII bytes become \xNN.
std::string printable(std::string_view text, std::size_t max_bytes) {
  std::string out;
  for (std::size_t i = 0; i < text.size() && i < max_bytes; ++i) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f)
      out += static_cast<char>(c);
    else
      out += fmt::format("\\x{:02x}", c);
  }
  if (text.size() > max_bytes) out += "...";
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\n' || s.front() == '\r' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// The last "jetgate-step: NAME" the script wrote to stderr: where it died.
std::string last_step_marker(std::string_view err) {
  auto at = err.rfind(kStepMarker);
  if (at == std::string_view::npos) return {};
  auto rest = err.substr(at + kStepMarker.size());
  return printable(rest.substr(0, rest.find('\n')), 100);
}

// The last stderr line that is not a step marker (a traceback's last line).
std::string last_error_line(std::string_view err) {
  err = trim(err);
  while (!err.empty()) {
    auto nl = err.rfind('\n');
    auto line = trim(nl == std::string_view::npos ? err : err.substr(nl + 1));
    if (!line.empty() && line.substr(0, kStepMarker.size()) != kStepMarker)
      return printable(line, kMaxShownOutput);
    if (nl == std::string_view::npos) break;
    err = trim(err.substr(0, nl));
  }
  return {};
}

json blank_facts(const std::string& python) {
  json native = {{"checked", false}, {"loads", nullptr}, {"cuda", nullptr}, {"library", nullptr},
                 {"backend", nullptr}, {"error", nullptr}, {"errors", json::object()}};
  json torch = {{"installed", nullptr},     {"metadata_version", nullptr}, {"imported", nullptr},
                {"version", nullptr},       {"cuda_build", nullptr},       {"cuda_version", nullptr},
                {"cuda_available", nullptr}, {"device_count", nullptr},    {"device", nullptr},
                {"cudnn_version", nullptr}, {"error", nullptr},            {"errors", json::object()}};
  return {{"interpreter", printable(python, kMaxFactText)},
          {"found", nullptr},
          {"executable", nullptr},
          {"version", nullptr},
          {"implementation", nullptr},
          {"machine", nullptr},
          {"error", nullptr},
          {"errors", json::object()},
          {"torch", torch},
          {"bitsandbytes", {{"installed", nullptr}, {"version", nullptr}, {"native", native}}}};
}

enum class Want { string, boolean, integer };

// Copies src[key] into dst[key] only when it has the type jetgate expects; a
// document from another script version never puts a wrong type in evidence.
void copy_typed(json& dst, const json& src, const char* key, Want want) {
  auto it = src.find(key);
  if (it == src.end()) return;
  const json& v = *it;
  if (want == Want::string && v.is_string()) {
    // An empty string is unknown, and unknown is null in the evidence.
    if (!v.get_ref<const std::string&>().empty())
      dst[key] = printable(v.get_ref<const std::string&>(), kMaxFactText);
  }
  else if (want == Want::boolean && v.is_boolean())
    dst[key] = v;
  else if (want == Want::integer && (v.is_number_integer() || v.is_number_unsigned()))
    dst[key] = v;
}

void copy_errors(json& dst, const json& src) {
  auto it = src.find("errors");
  if (it == src.end() || !it->is_object()) return;
  for (const auto& [name, message] : it->items()) {
    if (dst.size() >= kMaxErrorEntries) break;
    if (message.is_string())
      dst[printable(name, 100)] = printable(message.get_ref<const std::string&>(), kMaxFactText);
  }
}

// One step as read: its facts, or why there are none.
struct StepReading {
  std::optional<json> facts;
  std::string failure;    // no facts: what happened
  std::string exit_note;  // facts, but the process then ended badly
};

StepReading read_step(const proc::ChildOutcome& o, std::string_view step) {
  StepReading r;
  if (o.kind == proc::ChildOutcome::Kind::spawn_failed) {
    r.failure = o.describe();
    return r;
  }
  bool clean = o.kind == proc::ChildOutcome::Kind::exited && o.exit_code == 0;
  auto doc = parse_probe_document(o.output, step);
  if (doc.ok()) {
    r.facts = std::move(doc.value());
    // Teardown crashes after the report (CUDA at exit) keep the facts.
    if (!clean) r.exit_note = "the step reported, then ended with " + o.describe();
    return r;
  }
  if (clean) {
    r.failure = doc.error().what;
    return r;
  }
  r.failure = o.describe();
  std::string where = last_step_marker(o.error_text);
  if (!where.empty() && where != "done") r.failure += " during " + where;
  std::string line = last_error_line(o.error_text);
  if (o.kind == proc::ChildOutcome::Kind::exited && !line.empty()) r.failure += ": " + line;
  return r;
}

void read_basics(json& f, const proc::ChildOutcome& o) {
  if (o.kind == proc::ChildOutcome::Kind::spawn_failed) {
    f["found"] = false;
    f["error"] = printable(o.describe(), kMaxFactText);
    return;
  }
  f["found"] = true;
  StepReading r = read_step(o, "basics");
  if (!r.facts) {
    f["error"] = r.failure;
    return;
  }
  const json& b = *r.facts;
  for (const char* key : {"executable", "version", "implementation", "machine"})
    copy_typed(f, b, key, Want::string);
  copy_errors(f["errors"], b);
  if (!r.exit_note.empty()) f["errors"]["process"] = r.exit_note;
  json& torch = f["torch"];
  if (auto it = b.find("torch_metadata_version"); it != b.end() && it->is_string())
    torch["metadata_version"] = printable(it->get_ref<const std::string&>(), kMaxFactText);
  // Metadata without an importable module is a broken install, not no install.
  if (auto it = b.find("torch_module_found"); it != b.end() && it->is_boolean())
    torch["installed"] = it->get<bool>() || torch["metadata_version"].is_string();
  json& bnb = f["bitsandbytes"];
  if (auto it = b.find("bitsandbytes_metadata_version"); it != b.end() && it->is_string())
    bnb["version"] = printable(it->get_ref<const std::string&>(), kMaxFactText);
  if (auto it = b.find("bitsandbytes_module_found"); it != b.end() && it->is_boolean())
    bnb["installed"] = it->get<bool>() || bnb["version"].is_string();
}

void read_torch(json& torch, const proc::ChildOutcome& o) {
  StepReading r = read_step(o, "torch");
  if (!r.facts) {
    torch["error"] = r.failure;
    return;
  }
  const json& t = *r.facts;
  copy_typed(torch, t, "imported", Want::boolean);
  copy_typed(torch, t, "version", Want::string);
  copy_typed(torch, t, "cuda_build", Want::boolean);
  copy_typed(torch, t, "cuda_version", Want::string);
  copy_typed(torch, t, "cuda_available", Want::boolean);
  copy_typed(torch, t, "device_count", Want::integer);
  copy_typed(torch, t, "cudnn_version", Want::integer);
  if (auto it = t.find("device"); it != t.end() && it->is_object()) {
    json device = {{"index", nullptr}, {"name", nullptr}, {"capability", nullptr},
                   {"total_memory_bytes", nullptr}};
    copy_typed(device, *it, "index", Want::integer);
    copy_typed(device, *it, "name", Want::string);
    copy_typed(device, *it, "capability", Want::string);
    copy_typed(device, *it, "total_memory_bytes", Want::integer);
    torch["device"] = device;
  }
  copy_errors(torch["errors"], t);
  if (!r.exit_note.empty()) torch["errors"]["process"] = r.exit_note;
  if (torch["errors"].contains("import torch")) torch["error"] = torch["errors"]["import torch"];
}

void read_bitsandbytes_native(json& native, const proc::ChildOutcome& o) {
  native["checked"] = true;
  StepReading r = read_step(o, "bitsandbytes-native");
  if (!r.facts) {
    native["loads"] = false;
    native["error"] = r.failure;
    return;
  }
  const json& n = *r.facts;
  copy_typed(native, n, "loads", Want::boolean);
  copy_typed(native, n, "cuda", Want::boolean);
  copy_typed(native, n, "library", Want::string);
  copy_typed(native, n, "backend", Want::string);
  copy_typed(native, n, "error", Want::string);
  copy_errors(native["errors"], n);
  if (!r.exit_note.empty()) native["errors"]["process"] = r.exit_note;
}

std::string text_or(const json& v, std::string_view fallback) {
  return v.is_string() ? v.get<std::string>() : std::string(fallback);
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

std::string torch_label(const json& torch) {
  return "torch " + text_or(torch["version"], text_or(torch["metadata_version"], "(version unknown)"));
}

// The status rule (docs/python-runtime.md): only a CUDA build of torch that
// sees a GPU passes; a CPU-only torch on a Jetson proves nothing.
std::pair<ProbeStatus, std::string> decide(const json& f) {
  const std::string python = f["interpreter"].get<std::string>();
  if (f["found"] != true)
    return {ProbeStatus::not_run, first_line(text_or(f["error"], python + " not found")) +
                                      "; pass --python PATH"};
  if (f["error"].is_string())
    return {ProbeStatus::fail, python + " could not run jetgate's probe script: " +
                                   f["error"].get<std::string>()};
  const json& torch = f["torch"];
  std::string where = python + " (Python " + text_or(f["version"], "?") + ")";
  if (torch["installed"] == false)
    return {ProbeStatus::warn, "torch is not installed for " + where +
                                   ": no Python ML runtime to check; pass --python for the "
                                   "environment that has torch"};
  if (torch["error"].is_string() || torch["imported"] != true)
    return {ProbeStatus::fail, torch_label(torch) + " is installed for " + where +
                                   " but cannot be imported: " + text_or(torch["error"], "unknown error")};
  if (torch["cuda_build"] == false)
    return {ProbeStatus::fail, torch_label(torch) +
                                   " is a CPU-only build (torch.version.cuda is None): it proves "
                                   "nothing about the GPU; install the CUDA build of torch made for "
                                   "this platform (on a Jetson, NVIDIA's wheel for its JetPack)"};
  if (torch["cuda_build"] != true)
    return {ProbeStatus::fail, "could not tell whether " + torch_label(torch) + " is a CUDA build"};
  std::string build = torch_label(torch) + " (CUDA " + text_or(torch["cuda_version"], "?") + ")";
  if (torch["cuda_available"] != true) {
    std::string why = torch["errors"].contains("torch.cuda.is_available")
                          ? ": " + torch["errors"]["torch.cuda.is_available"].get<std::string>()
                          : "";
    return {ProbeStatus::fail, build + " cannot use the GPU: torch.cuda.is_available() is not True" +
                                   why + "; check the driver, /dev access and that torch's CUDA "
                                   "version matches the installed one"};
  }
  const json& device = torch["device"];
  std::string seen = device.is_object() ? text_or(device["name"], "device 0") : "device 0";
  if (device.is_object() && device["capability"].is_string())
    seen += ", capability " + device["capability"].get<std::string>();
  return {ProbeStatus::pass, build + " uses " + seen};
}

// bitsandbytes does not change the status; a broken native library is worth
// saying next to it.
std::string bitsandbytes_note(const json& bnb) {
  const json& native = bnb["native"];
  if (native["checked"] != true) return {};
  if (native["loads"] == true && native["cuda"] != false) return {};
  std::string label = "bitsandbytes " + text_or(bnb["version"], "");
  if (native["loads"] == true) return "; " + label + " loaded a library without CUDA support";
  return "; " + label + " is installed but its native CUDA library does not load: " +
         first_line(text_or(native["error"], "unknown error"));
}

ProbeResult make_result(const json& f, const PythonStepOutcomes& steps) {
  ProbeResult r;
  r.id = "python_runtime";
  auto [status, reason] = decide(f);
  r.status = status;
  r.reason = reason + bitsandbytes_note(f["bitsandbytes"]);
  const json& torch = f["torch"];
  if (torch["device_count"].is_number_integer())
    r.values["cuda_device_count"] = {torch["device_count"].get<double>(), "count"};
  if (torch["device"].is_object() && torch["device"]["total_memory_bytes"].is_number_integer())
    r.values["device0_total_memory"] = {torch["device"]["total_memory_bytes"].get<double>(), "bytes"};
  json step_details = json::object();
  auto note = [&](const char* name, const proc::ChildOutcome& o) {
    step_details[name] = {{"outcome", o.describe()}, {"wall_ms", o.wall_ms}};
    r.duration_ms += o.wall_ms;
  };
  note("basics", steps.basics);
  if (steps.torch) note("torch", *steps.torch);
  if (steps.bitsandbytes_native) note("bitsandbytes-native", *steps.bitsandbytes_native);
  r.details = {{"steps", step_details}};
  return r;
}

}  // namespace

Result<json> parse_probe_document(std::string_view output, std::string_view step) {
  std::string_view text = trim(output);
  if (text.empty()) return make_error("probe script output is not JSON: (no output)");
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded())
    return make_error("probe script output is not JSON: " + printable(text, kMaxShownOutput));
  auto format = doc.is_object() ? doc.find("jetgate_python_probe") : doc.end();
  if (!doc.is_object() || format == doc.end() || *format != kProbeFormat)
    return make_error("probe script output is not a jetgate probe document (format " +
                      std::to_string(kProbeFormat) + "): " + printable(text, kMaxShownOutput));
  auto answered = doc.find("step");
  if (answered == doc.end() || !answered->is_string() || *answered != step)
    return make_error(fmt::format("probe script answered step {} instead of {}",
                                  answered == doc.end() ? "(none)" : printable(answered->dump(), 100),
                                  step));
  if (auto err = doc.find("error"); err != doc.end() && err->is_string())
    return make_error("probe script: " + printable(err->get_ref<const std::string&>(), kMaxFactText));
  auto facts = doc.find("facts");
  if (facts == doc.end() || !facts->is_object())
    return make_error(fmt::format("probe script document for step {} has no \"facts\" object", step));
  return *facts;
}

PythonRuntime interpret_python_steps(const std::string& python, const PythonStepOutcomes& steps) {
  json f = blank_facts(python);
  read_basics(f, steps.basics);
  if (steps.torch) read_torch(f["torch"], *steps.torch);
  if (steps.bitsandbytes_native) read_bitsandbytes_native(f["bitsandbytes"]["native"], *steps.bitsandbytes_native);
  PythonRuntime out;
  out.result = make_result(f, steps);
  out.facts = std::move(f);
  return out;
}

}  // namespace jetgate::probes
