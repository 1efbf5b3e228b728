// SPDX-License-Identifier: Apache-2.0
// jetgate's per-gate additions: "requires", "probes" and "command".
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "jetgate/core/did_you_mean.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/policy/policy_parse_detail.hpp"
#include "jetgate/probes/registry.hpp"

namespace jetgate::policy::detail {
namespace {

std::optional<std::string> version_field(const nlohmann::json& j, const char* key,
                                         const std::string& gate, const std::string& where,
                                         const IssueSink& sink) {
  if (!j.contains(key)) return std::nullopt;
  const auto& v = j[key];
  std::string text = v.is_string() ? v.get<std::string>() : v.is_number() ? v.dump() : "";
  if (text.empty() || !parse_version(text)) {
    sink.issue(gate, fmt::format("{}.{} {} is not a dotted version", where, key, v.dump()),
               "write it as a string such as \"36.4\"");
    return std::nullopt;
  }
  return text;
}

// "aarch64" or ["aarch64", "x86_64"]: any of them. `where` names the object
// in messages ("requires", "probes[3].when").
std::vector<std::string> string_or_list(const nlohmann::json& j, const char* key,
                                        const char* example, const std::string& gate,
                                        const IssueSink& sink,
                                        const std::string& where = "requires") {
  std::vector<std::string> out;
  if (!j.contains(key)) return out;
  const auto& a = j[key];
  if (a.is_string() && !a.get<std::string>().empty()) {
    out.push_back(a.get<std::string>());
  } else if (a.is_array() && !a.empty() && std::all_of(a.begin(), a.end(), [](const auto& x) {
               return x.is_string() && !x.empty();
             })) {
    for (const auto& x : a) out.push_back(x.get<std::string>());
  } else {
    sink.issue(gate,
               fmt::format("{}.{} must be a string or a non-empty list of strings", where, key),
               example);
  }
  return out;
}

std::optional<VersionRange> parse_l4t(const nlohmann::json& j, const std::string& gate,
                                      const IssueSink& sink, const std::string& key) {
  const std::string where = "requires." + key;
  if (!j.is_object()) {
    sink.issue(gate, where + " must be an object {\"min\", \"max\"}",
               key == "l4t" ? "use {} for any L4T release, or {\"min\": \"36.0\"}"
                            : "use {} for any known JetPack, or {\"min\": \"6.0\"}");
    return std::nullopt;
  }
  reject_unknown_keys(j, {"min", "max"}, where, gate, sink);
  VersionRange r;
  r.min = version_field(j, "min", gate, where.c_str(), sink);
  r.max = version_field(j, "max", gate, where.c_str(), sink);
  return r;
}

std::optional<std::int64_t> memory_bound(const nlohmann::json& j, const std::string& gate,
                                         const IssueSink& sink) {
  if (j.contains("min_memory_bytes")) {
    const auto& v = j["min_memory_bytes"];
    if (auto bytes = integer_in_range(v, 0, std::numeric_limits<std::int64_t>::max()))
      return *bytes;
    sink.issue(gate, "requires.min_memory_bytes must be a non-negative integer",
               "e.g. 8589934592 for 8 GiB");
  }
  if (j.contains("min_memory_gib")) {
    const auto& v = j["min_memory_gib"];
    if (v.is_number() && v.get<double>() >= 0 && v.get<double>() < 1e9)
      return static_cast<std::int64_t>(std::llround(v.get<double>() * 1073741824.0));
    sink.issue(gate, "requires.min_memory_gib must be a non-negative number", "e.g. 8");
  }
  return std::nullopt;
}

constexpr const char* kModuleExample =
    "a module name or part number, e.g. \"Jetson AGX Orin 64GB\" or "
    "[\"p3701-0005\", \"p3767-0000\"]";
constexpr const char* kSocExample = "e.g. \"tegra234\" (Orin) or [\"tegra234\", \"tegra264\"]";
constexpr const char* kPowerModeExample =
    "an nvpmodel mode name or id, e.g. \"MAXN\" or [\"MAXN\", \"0\"]";

// A probe check's "when": the platform facts it applies on (module, soc,
// power_mode), matched as "requires" matches them. False when malformed.
bool parse_when(const nlohmann::json& j, const std::string& where, const std::string& gate,
                const IssueSink& sink, Requirements& when) {
  const std::string at = where + ".when";
  if (!j.is_object() || j.empty()) {
    sink.issue(gate, at + " must be a non-empty object of module, soc and/or power_mode",
               "e.g. \"when\": {\"module\": [\"p3701-0005\"], \"power_mode\": \"MAXN\"}");
    return false;
  }
  const std::size_t issues_before = sink.issues->size();
  reject_unknown_keys(j, {"module", "soc", "power_mode"}, at, gate, sink);
  when.module = string_or_list(j, "module", kModuleExample, gate, sink, at);
  when.soc = string_or_list(j, "soc", kSocExample, gate, sink, at);
  when.power_mode = string_or_list(j, "power_mode", kPowerModeExample, gate, sink, at);
  return sink.issues->size() == issues_before && when.any();
}

}  // namespace

std::optional<std::vector<long>> parse_version(const std::string& v) {
  std::vector<long> parts;
  std::size_t pos = 0;
  while (pos <= v.size()) {
    std::size_t dot = v.find('.', pos);
    std::string part = v.substr(pos, dot == std::string::npos ? std::string::npos : dot - pos);
    if (part.empty() || part.size() > 9 ||
        part.find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    parts.push_back(std::stol(part));
    if (dot == std::string::npos) break;
    pos = dot + 1;
  }
  if (parts.empty()) return std::nullopt;
  return parts;
}

void reject_unknown_keys(const nlohmann::json& obj, std::initializer_list<const char*> known,
                         const std::string& where, const std::string& subject,
                         const IssueSink& sink) {
  if (!obj.is_object()) return;
  std::vector<std::string> names(known.begin(), known.end());
  for (const auto& [key, value] : obj.items()) {
    if (key.rfind("x-", 0) == 0) continue;
    if (std::find(names.begin(), names.end(), key) != names.end()) continue;
    sink.issue(
        subject,
        fmt::format("{}: unknown key {}{}", where, quoted_text(key), did_you_mean(key, names)),
        "fix the spelling or remove the key; keys of your own start with \"x-\" (docs/gates.md)");
  }
}

Requirements parse_requirements(const nlohmann::json& j, const std::string& gate,
                                const IssueSink& sink) {
  Requirements r;
  if (!j.is_object()) {
    sink.issue(gate, "\"requires\" must be an object", "see docs/gates.md, section requires");
    return r;
  }
  reject_unknown_keys(j,
                      {"arch", "is_tegra", "l4t", "jetpack", "module", "soc", "power_mode", "cuda",
                       "min_cuda_driver", "min_memory_bytes", "min_memory_gib"},
                      "requires", gate, sink);
  r.arch = string_or_list(j, "arch", "e.g. \"aarch64\" or [\"aarch64\", \"x86_64\"]", gate, sink);
  r.module = string_or_list(j, "module", kModuleExample, gate, sink);
  r.soc = string_or_list(j, "soc", kSocExample, gate, sink);
  r.power_mode = string_or_list(j, "power_mode", kPowerModeExample, gate, sink);
  if (j.contains("is_tegra")) {
    if (j["is_tegra"].is_boolean())
      r.is_tegra = j["is_tegra"].get<bool>();
    else
      sink.issue(gate, "requires.is_tegra must be true or false",
                 "write \"is_tegra\": true or false, or remove it to accept either");
  }
  if (j.contains("cuda")) {
    if (j["cuda"].is_boolean())
      r.cuda = j["cuda"].get<bool>();
    else
      sink.issue(gate, "requires.cuda must be true or false",
                 "write \"cuda\": true or false, or remove it to accept either");
  }
  if (j.contains("l4t")) r.l4t = parse_l4t(j["l4t"], gate, sink, "l4t");
  if (j.contains("jetpack")) r.jetpack = parse_l4t(j["jetpack"], gate, sink, "jetpack");
  r.min_cuda_driver = version_field(j, "min_cuda_driver", gate, "requires", sink);
  r.min_memory_bytes = memory_bound(j, gate, sink);
  return r;
}

std::vector<ProbeCheck> parse_probe_checks(const nlohmann::json& j, const std::string& gate,
                                           const IssueSink& sink) {
  std::vector<ProbeCheck> out;
  if (!j.is_array()) {
    sink.issue(gate, "\"probes\" must be a list of {\"probe\", ...} objects", "see docs/gates.md");
    return out;
  }
  for (std::size_t i = 0; i < j.size(); ++i) {
    const auto& p = j[i];
    std::string where = fmt::format("probes[{}]", i);
    if (!p.is_object() || !p.contains("probe") || !p["probe"].is_string()) {
      sink.issue(gate, where + " needs a string \"probe\"",
                 "e.g. {\"probe\": \"launch\", \"status\": \"PASS\"}");
      continue;
    }
    reject_unknown_keys(p, {"probe", "metric", "min", "max", "status", "when"}, where, gate, sink);
    ProbeCheck c;
    c.probe = p["probe"].get<std::string>();
    const probes::ProbeSpec* spec = probes::find_probe_spec(c.probe);
    if (spec == nullptr) {
      auto ids = probes::registered_probe_ids();
      sink.issue(gate,
                 fmt::format("{} names unknown probe {}{}", where, quoted_text(c.probe),
                             did_you_mean(c.probe, ids)),
                 fmt::format("built-in probes: {} (docs/probes.md)", fmt::join(ids, ", ")));
      continue;
    }
    bool ok = true;
    if (p.contains("metric")) {
      if (p["metric"].is_string())
        c.metric = p["metric"].get<std::string>();
      else
        ok = false;
    }
    for (const char* bound : {"min", "max"}) {
      if (!p.contains(bound)) continue;
      if (!p[bound].is_number())
        ok = false;
      else
        (std::string(bound) == "min" ? c.min : c.max) = p[bound].get<double>();
    }
    if (p.contains("status")) {
      if (p["status"].is_string() && p["status"].get<std::string>() == "PASS")
        c.status = "PASS";
      else
        ok = false;
    }
    if (p.contains("when") && !parse_when(p["when"], where, gate, sink, c.when)) continue;
    if (!ok || (c.metric.has_value() != (c.min || c.max)) || (!c.metric && !c.status)) {
      sink.issue(gate, fmt::format("{} for probe {} is malformed", where, c.probe),
                 "write {\"probe\", \"metric\", \"min\" and/or \"max\" (numbers)} or "
                 "{\"probe\", \"status\": \"PASS\"}");
      continue;
    }
    if (c.metric && probes::find_metric(*spec, *c.metric) == nullptr) {
      // A threshold on a metric the probe never reports could only fail on the board.
      auto names = probes::metric_names(*spec);
      sink.issue(gate,
                 fmt::format("{}: probe {} reports no metric {}{}", where, c.probe,
                             quoted_text(*c.metric), did_you_mean(*c.metric, names)),
                 fmt::format("{}'s metrics: {} (docs/probes.md)", c.probe, fmt::join(names, ", ")));
      continue;
    }
    out.push_back(std::move(c));
  }
  return out;
}

std::optional<CommandSpec> parse_command(const nlohmann::json& j, const std::string& gate,
                                         const IssueSink& sink) {
  const char* shape =
      "write {\"argv\": [\"python3\", \"-m\", \"pytest\", ...], \"timeout_s\": 600, "
      "\"junit\": \"report.xml\"}";
  if (!j.is_object()) {
    sink.issue(gate, "\"command\" must be an object", shape);
    return std::nullopt;
  }
  reject_unknown_keys(j, {"argv", "timeout_s", "junit", "cwd", "env", "user"}, "command", gate,
                      sink);
  CommandSpec c;
  const auto& argv = j.value("argv", nlohmann::json());
  if (!argv.is_array() || argv.empty() ||
      !std::all_of(argv.begin(), argv.end(), [](const auto& a) { return a.is_string(); })) {
    sink.issue(gate, "command.argv must be a non-empty list of strings", shape);
    return std::nullopt;
  }
  for (const auto& a : argv) c.argv.push_back(a.get<std::string>());
  if (c.argv.front().empty()) {
    sink.issue(gate, "command.argv[0] is empty", shape);
    return std::nullopt;
  }
  const auto& junit = j.value("junit", nlohmann::json());
  if (!junit.is_string() || junit.get<std::string>().empty()) {
    sink.issue(gate, "command.junit must name the JUnit XML file the command writes",
               "a gate passes only on JUnit counts; e.g. pass --junitxml=report.xml to pytest and "
               "\"junit\": \"report.xml\"");
    return std::nullopt;
  }
  c.junit = junit.get<std::string>();
  if (j.contains("timeout_s")) {
    const auto& t = j["timeout_s"];
    if (!t.is_number() || t.get<double>() <= 0 || t.get<double>() > 7 * 86400) {
      sink.issue(gate, "command.timeout_s must be a number of seconds in (0, 604800]", shape);
      return std::nullopt;
    }
    c.timeout_s = t.get<double>();
  }
  if (j.contains("cwd")) {
    if (!j["cwd"].is_string()) {
      sink.issue(gate, "command.cwd must be a string",
                 "a directory relative to the repository root");
      return std::nullopt;
    }
    c.cwd = j["cwd"].get<std::string>();
  }
  if (j.contains("env")) {
    const auto& env = j["env"];
    if (!env.is_object() ||
        !std::all_of(env.begin(), env.end(), [](const auto& v) { return v.is_string(); })) {
      sink.issue(gate, "command.env must be an object of string values",
                 "e.g. {\"CUDA_VISIBLE_DEVICES\": \"0\"}");
      return std::nullopt;
    }
    for (const auto& [k, v] : env.items()) c.env[k] = v.get<std::string>();
  }
  if (j.contains("user")) {
    if (!j["user"].is_string() || j["user"].get<std::string>().empty()) {
      sink.issue(gate, "command.user must be a user name or uid",
                 "e.g. \"user\": \"gate-runner\": the tests run as that user, jetgate as root "
                 "(docs/trust.md)");
      return std::nullopt;
    }
    c.user = j["user"].get<std::string>();
  }
  return c;
}

}  // namespace jetgate::policy::detail
