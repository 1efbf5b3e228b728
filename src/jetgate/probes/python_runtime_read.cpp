// SPDX-License-Identifier: Apache-2.0
// Turns what the Python probe's steps printed (or how they died) into the
// /python facts. Nothing here starts a process, so every outcome, a segfault
// or garbage on stdout included, is tested with recorded outputs. Every key is
// in docs/python-runtime.md; the status rules are in python_runtime_decide.cpp
// and bitsandbytes.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <span>
#include <string>
#include <string_view>

#include "jetgate/probes/python_runtime.hpp"
#include "jetgate/probes/python_runtime_detail.hpp"

namespace jetgate::probes {
namespace detail {

using nlohmann::json;

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

std::string text_or(const json& v, std::string_view fallback) {
  return v.is_string() ? v.get<std::string>() : std::string(fallback);
}

// Facts hold newlines as "\x0a" (printable()); a reason shows the first line.
std::string first_line(const std::string& s) {
  return s.substr(0, std::min(s.find('\n'), s.find("\\x0a")));
}

std::string short_number(double v) {
  return fmt::format("{:.3g}", v);
}

bool has_wanted_type(const json& v, Want want) {
  switch (want) {
    case Want::string:
      return v.is_string();
    case Want::boolean:
      return v.is_boolean();
    case Want::integer:
      return v.is_number_integer() || v.is_number_unsigned();
    case Want::number:
      return v.is_number() && std::isfinite(v.get<double>());
  }
  return false;
}

void copy_typed(json& dst, const json& src, const char* key, Want want) {
  auto it = src.find(key);
  if (it == src.end() || !has_wanted_type(*it, want)) return;
  if (want != Want::string)
    dst[key] = *it;
  else if (!it->get_ref<const std::string&>().empty())
    // An empty string is unknown, and unknown is null in the evidence.
    dst[key] = printable(it->get_ref<const std::string&>(), kMaxFactText);
}

void copy_fields(json& dst, const json& src, std::initializer_list<TypedField> fields,
                 bool null_first) {
  for (const auto& f : fields) {
    if (null_first) dst[f.key] = nullptr;
    copy_typed(dst, src, f.key, f.want);
  }
}

json read_check(const json& src) {
  json c = json::object();
  copy_fields(c, src.is_object() ? src : json::object(),
              {{"ran", Want::boolean},
               {"elements", Want::integer},
               {"max_abs_error", Want::number},
               {"tolerance", Want::number},
               {"max_error_ratio", Want::number},
               {"beyond_tolerance", Want::integer},
               {"non_finite", Want::integer},
               {"error", Want::string}},
              /*null_first=*/true);
  if (!src.is_object()) return c;
  if (src.contains("backend")) {
    c["backend"] = nullptr;
    copy_typed(c, src, "backend", Want::string);
  }
  for (const char* key : {"blocksize", "packed_bytes", "expected_packed_bytes"}) {
    if (!src.contains(key)) continue;
    c[key] = nullptr;
    copy_typed(c, src, key, Want::integer);
  }
  return c;
}

}  // namespace detail

namespace {

using detail::copy_fields;
using detail::copy_typed;
using detail::kMaxFactText;
using detail::printable;
using detail::Want;
using nlohmann::json;

constexpr int kProbeFormat = 1;
constexpr std::size_t kMaxShownOutput = 200;
constexpr std::size_t kMaxErrorEntries = 50;
constexpr std::string_view kStepMarker = "jetgate-step: ";

std::string_view trim(std::string_view s) {
  while (!s.empty() &&
         (s.front() == ' ' || s.front() == '\n' || s.front() == '\r' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() &&
         (s.back() == ' ' || s.back() == '\n' || s.back() == '\r' || s.back() == '\t'))
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

// The last stderr line after the last step marker (a traceback's last line,
// or what a native library said before it aborted); what came before the
// marker (a banner) says nothing about how the step ended.
std::string last_error_line(std::string_view err) {
  if (auto at = err.rfind(kStepMarker); at != std::string_view::npos) {
    auto eol = err.find('\n', at);
    err = eol == std::string_view::npos ? std::string_view() : err.substr(eol + 1);
  }
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

constexpr std::array<const char*, 3> kTorchChecks = {"elementwise", "matmul", "conv"};
constexpr std::array<const char*, 4> kBitsandbytesChecks = {"nf4", "fp4", "int8_blockwise",
                                                            "int8_matmul"};

json blank_compute(std::span<const char* const> checks) {
  json c = {{"checked", false}, {"error", nullptr}, {"errors", json::object()}};
  for (const char* name : checks) c[name] = nullptr;
  return c;
}

json blank_facts(const std::string& python) {
  json native = {{"checked", false},        {"loads", nullptr},   {"cuda", nullptr},
                 {"library", nullptr},      {"backend", nullptr}, {"error", nullptr},
                 {"errors", json::object()}};
  json torch = {{"installed", nullptr},
                {"metadata_version", nullptr},
                {"imported", nullptr},
                {"version", nullptr},
                {"cuda_build", nullptr},
                {"cuda_version", nullptr},
                {"cuda_available", nullptr},
                {"device_count", nullptr},
                {"device", nullptr},
                {"arch_list", nullptr},
                {"cudnn_available", nullptr},
                {"cudnn_version", nullptr},
                {"error", nullptr},
                {"errors", json::object()},
                {"compute", blank_compute(kTorchChecks)}};
  json bnb = {{"installed", nullptr},
              {"version", nullptr},
              {"native", native},
              {"compute", blank_compute(kBitsandbytesChecks)}};
  return {{"interpreter", printable(python, kMaxFactText)},
          {"found", nullptr},
          {"executable", nullptr},
          {"version", nullptr},
          {"implementation", nullptr},
          {"machine", nullptr},
          {"error", nullptr},
          {"errors", json::object()},
          {"torch", torch},
          {"bitsandbytes", bnb}};
}

// One step as read: its facts, or why there are none.
struct StepReading {
  std::optional<json> facts;
  std::string failure;    // no facts: what happened
  std::string exit_note;  // facts, but the process then ended badly
};

// The step's own "errors" object, and how its process ended when that was bad.
void copy_errors(json& dst, const StepReading& r) {
  auto it = r.facts->find("errors");
  if (it != r.facts->end() && it->is_object()) {
    for (const auto& [name, message] : it->items()) {
      if (dst.size() >= kMaxErrorEntries) break;
      if (message.is_string())
        dst[printable(name, 100)] = printable(message.get_ref<const std::string&>(), kMaxFactText);
    }
  }
  if (!r.exit_note.empty()) dst["process"] = r.exit_note;
}

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
  // A traceback's last line, or what a native library said before it
  // aborted ("Could not load library libcudnn_cnn_infer.so.8 ..."); a timeout
  // has nothing more to say than where it was.
  std::string line = last_error_line(o.error_text);
  if (o.kind != proc::ChildOutcome::Kind::timed_out && !line.empty()) r.failure += ": " + line;
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
  copy_errors(f["errors"], r);
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

json read_arch_list(const json& t) {
  auto it = t.find("arch_list");
  if (it == t.end() || !it->is_array()) return nullptr;
  json list = json::array();
  for (const auto& entry : *it)
    if (entry.is_string() && list.size() < 64)
      list.push_back(printable(entry.get<std::string>(), 40));
  return list;
}

void read_torch(json& torch, const proc::ChildOutcome& o) {
  StepReading r = read_step(o, "torch");
  if (!r.facts) {
    torch["error"] = r.failure;
    return;
  }
  const json& t = *r.facts;
  copy_fields(torch, t,
              {{"imported", Want::boolean},
               {"version", Want::string},
               {"cuda_build", Want::boolean},
               {"cuda_version", Want::string},
               {"cuda_available", Want::boolean},
               {"device_count", Want::integer},
               {"cudnn_available", Want::boolean},
               {"cudnn_version", Want::integer}});
  torch["arch_list"] = read_arch_list(t);
  if (auto it = t.find("device"); it != t.end() && it->is_object()) {
    json device = json::object();
    copy_fields(device, *it,
                {{"index", Want::integer},
                 {"name", Want::string},
                 {"capability", Want::string},
                 {"total_memory_bytes", Want::integer},
                 {"integrated", Want::boolean}},
                /*null_first=*/true);
    torch["device"] = device;
  }
  copy_errors(torch["errors"], r);
  if (torch["errors"].contains("import torch")) torch["error"] = torch["errors"]["import torch"];
}

// torch-compute and bitsandbytes-compute: one check object per name.
void read_compute(json& compute, const proc::ChildOutcome& o, std::string_view step,
                  std::span<const char* const> checks) {
  compute["checked"] = true;
  StepReading r = read_step(o, step);
  if (!r.facts) {
    compute["error"] = r.failure;
    return;
  }
  for (const char* name : checks)
    if (auto it = r.facts->find(name); it != r.facts->end() && it->is_object())
      compute[name] = detail::read_check(*it);
  copy_errors(compute["errors"], r);
}

void read_bitsandbytes_native(json& native, const proc::ChildOutcome& o) {
  native["checked"] = true;
  StepReading r = read_step(o, "bitsandbytes-native");
  if (!r.facts) {
    native["loads"] = false;
    native["error"] = r.failure;
    return;
  }
  copy_fields(native, *r.facts,
              {{"loads", Want::boolean},
               {"cuda", Want::boolean},
               {"library", Want::string},
               {"backend", Want::string},
               {"module_version", Want::string},
               {"error", Want::string}});
  copy_errors(native["errors"], r);
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
    return make_error(
        fmt::format("probe script answered step {} instead of {}",
                    answered == doc.end() ? "(none)" : printable(answered->dump(), 100), step));
  if (auto err = doc.find("error"); err != doc.end() && err->is_string())
    return make_error("probe script: " +
                      printable(err->get_ref<const std::string&>(), kMaxFactText));
  auto facts = doc.find("facts");
  if (facts == doc.end() || !facts->is_object())
    return make_error(
        fmt::format("probe script document for step {} has no \"facts\" object", step));
  return *facts;
}

PythonRuntime interpret_python_steps(const std::string& python, const PythonStepOutcomes& steps) {
  json f = blank_facts(python);
  read_basics(f, steps.basics);
  if (steps.torch) read_torch(f["torch"], *steps.torch);
  if (steps.torch_compute)
    read_compute(f["torch"]["compute"], *steps.torch_compute, "torch-compute", kTorchChecks);
  json& bnb = f["bitsandbytes"];
  if (steps.bitsandbytes_native) {
    read_bitsandbytes_native(bnb["native"], *steps.bitsandbytes_native);
    // Without package metadata (a source checkout on PYTHONPATH), the module's own __version__.
    if (!bnb["version"].is_string() && bnb["native"].contains("module_version") &&
        bnb["native"]["module_version"].is_string())
      bnb["version"] = bnb["native"]["module_version"];
  }
  if (steps.bitsandbytes_compute)
    read_compute(bnb["compute"], *steps.bitsandbytes_compute, "bitsandbytes-compute",
                 kBitsandbytesChecks);
  PythonRuntime out;
  out.result = detail::python_runtime_result(f, steps);
  if (steps.bitsandbytes_probe)
    out.bitsandbytes = detail::bitsandbytes_result(f, steps, out.result);
  out.facts = std::move(f);
  return out;
}

}  // namespace jetgate::probes
