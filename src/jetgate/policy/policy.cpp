// SPDX-License-Identifier: Apache-2.0
#include "jetgate/policy/policy.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "jetgate/core/embedded.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/core/pattern.hpp"
#include "jetgate/evidence/gate_id.hpp"
#include "jetgate/fs/root_fs.hpp"
#include "jetgate/policy/policy_parse_detail.hpp"

namespace jetgate::policy {
namespace {

using detail::IssueSink;

constexpr std::size_t kMaxPolicyBytes = 4u << 20;

// OBLITERATUS' check_conditional_policy.py requires these on every gate.
const char* const kObliteratusGateFields[] = {
    "id", "job", "marker", "runner", "prerequisites", "expected_cost", "coverage_paths"};

const char* const kSoftwareOnlyIds[] = {"model-download-runtime", "external-evaluation",
                                        "network-services", "operator-ui"};

void check_top_level(const nlohmann::json& j, Policy& p, const IssueSink& sink) {
  detail::reject_unknown_keys(
      j,
      {"$schema", "schema_version", "owner", "cadence", "evidence_retention_days",
       "maximum_evidence_age_days", "gates", "environment_waivers", "repository", "description",
       "trusted_keys", "regressions"},
      "top level", "policy", sink);
  // Read without narrowing: 4294967297 must not wrap to 1.
  auto version =
      j.contains("schema_version") ? integer_in_range(j["schema_version"], 1, 1) : std::nullopt;
  if (version)
    p.schema_version = 1;
  else
    sink.issue(
        "policy",
        fmt::format(
            "schema_version must be 1, not {}",
            j.contains("schema_version") ? quoted_text(dump_json(j["schema_version"])) : "missing"),
        "this is the OBLITERATUS policy format version 1");
  for (const char* key : {"owner", "cadence"}) {
    if (j.contains(key) && j[key].is_string() && !j[key].get<std::string>().empty())
      (std::string(key) == "owner" ? p.owner : p.cadence) = j[key].get<std::string>();
    else
      sink.issue("policy", fmt::format("missing non-empty string \"{}\"", key),
                 "say who maintains the gates and how often they run");
  }
  for (const char* key : {"evidence_retention_days", "maximum_evidence_age_days"}) {
    auto& field = std::string(key) == "evidence_retention_days" ? p.evidence_retention_days
                                                                : p.maximum_evidence_age_days;
    const long most =
        std::string(key) == "evidence_retention_days" ? kMaxRetentionDays : kMaxEvidenceAgeDays;
    if (auto days = j.contains(key) ? integer_in_range(j[key], 1, most) : std::nullopt)
      field = *days;
    else
      sink.issue("policy",
                 fmt::format("\"{}\" must be a whole number of days from 1 to {}", key, most),
                 "e.g. 30");
  }
  if (j.contains("repository")) {
    const auto& r = j["repository"];
    std::string s = r.is_string() ? r.get<std::string>() : "";
    auto slash = s.find('/');
    bool ok =
        slash != std::string::npos && slash > 0 && slash + 1 < s.size() &&
        s.find('/', slash + 1) == std::string::npos &&
        s.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_./") ==
            std::string::npos;
    if (ok)
      p.repository = s;
    else
      sink.issue("policy", "\"repository\" must be \"OWNER/NAME\"",
                 "e.g. \"elder-plinius/OBLITERATUS\"");
  }
  if (j.contains("environment_waivers")) p.environment_waivers = j["environment_waivers"];
  if (j.contains("trusted_keys"))
    p.trusted_keys = detail::parse_trusted_keys(j["trusted_keys"], sink);
  if (j.contains("regressions")) p.regressions = detail::parse_regressions(j["regressions"], sink);
}

bool has_obliteratus_fields(const nlohmann::json& g, std::vector<std::string>* missing) {
  for (const char* f : kObliteratusGateFields)
    if (!g.contains(f)) missing->push_back(f);
  return missing->empty();
}

void read_obliteratus_fields(const nlohmann::json& g, Gate& gate, const IssueSink& sink) {
  for (const char* key : {"job", "marker", "runner"}) {
    if (!g.contains(key)) continue;
    std::string& field = std::string(key) == "job"      ? gate.job
                         : std::string(key) == "marker" ? gate.marker
                                                        : gate.runner;
    if (g[key].is_string())
      field = g[key].get<std::string>();
    else
      field = g[key].dump();
  }
  gate.prerequisites = g.value("prerequisites", nlohmann::json());
  gate.expected_cost = g.value("expected_cost", nlohmann::json());
  if (!g.contains("coverage_paths")) return;
  const auto& paths = g["coverage_paths"];
  if (!paths.is_array() ||
      !std::all_of(paths.begin(), paths.end(), [](const auto& x) { return x.is_string(); })) {
    sink.issue(gate.id, "coverage_paths must be a list of file paths",
               "paths are relative to the repository root");
    return;
  }
  if (paths.empty())
    sink.issue(gate.id, "has no coverage paths", "list the source files this gate covers");
  for (const auto& x : paths) gate.coverage_paths.push_back(x.get<std::string>());
}

void read_jetgate_fields(const nlohmann::json& g, Gate& gate, const IssueSink& sink) {
  gate.software_only = is_obliteratus_software_only(gate.id);
  if (g.contains("software_only")) {
    if (!g["software_only"].is_boolean()) {
      sink.issue(gate.id, "software_only must be true or false",
                 "write \"software_only\": true or false, or remove the field");
    } else if (!g["software_only"].get<bool>() && is_obliteratus_software_only(gate.id)) {
      // OBLITERATUS never waives these gates; a policy must not be able to make them waivable.
      sink.issue(
          gate.id,
          "software_only cannot be false: this gate is always software-only and never waivable",
          "remove \"software_only\" or set it to true");
    } else {
      gate.software_only = g["software_only"].get<bool>();
    }
  }
  if (g.contains("requires"))
    gate.requirements = detail::parse_requirements(g["requires"], gate.id, sink);
  if (g.contains("probes")) gate.probes = detail::parse_probe_checks(g["probes"], gate.id, sink);
  if (g.contains("command")) {
    gate.command = detail::parse_command(g["command"], gate.id, sink);
    if (!gate.command)  // keep the gate "runnable" so `run` reports the issue, not "nothing to run"
      gate.command = CommandSpec{};
  }
}

std::optional<Gate> parse_gate(const nlohmann::json& g, std::size_t index, const IssueSink& sink) {
  std::string label = fmt::format("gate {}", index);
  if (!g.is_object()) {
    sink.issue("policy", label + " must be an object",
               "write each gate as an object {\"id\", \"job\", \"coverage_paths\", ...}; see "
               "docs/gates.md");
    return std::nullopt;
  }
  if (!g.contains("id") || !g["id"].is_string()) {
    sink.issue("policy", label + " has no string \"id\"",
               "give every gate an id such as cuda-runtime");
    return std::nullopt;
  }
  Gate gate;
  gate.id = g["id"].get<std::string>();
  gate.raw = g;
  if (!evidence::is_valid_gate_id(gate.id)) {
    sink.issue("policy", fmt::format("{} has invalid id \"{}\"", label, gate.id.substr(0, 80)),
               "ids are [a-z0-9][a-z0-9-]*, at most 64 characters");
    return std::nullopt;
  }
  detail::reject_unknown_keys(
      g,
      {"id", "job", "marker", "runner", "prerequisites", "expected_cost", "coverage_paths",
       "software_only", "requires", "probes", "command", "description"},
      "gate", gate.id, sink);
  read_obliteratus_fields(g, gate, sink);
  read_jetgate_fields(g, gate, sink);
  std::vector<std::string> missing;
  // A gate jetgate cannot run is run by OBLITERATUS' runner: hold it to their rules.
  if (!gate.runnable() && !has_obliteratus_fields(g, &missing))
    sink.issue(gate.id, fmt::format("is missing fields: {}", fmt::join(missing, ", ")),
               "a gate without jetgate \"probes\" or \"command\" needs OBLITERATUS' fields "
               "(id, job, marker, runner, prerequisites, expected_cost, coverage_paths)");
  return gate;
}

void parse_gates(const nlohmann::json& j, Policy& p, const IssueSink& sink) {
  if (!j.contains("gates") || !j["gates"].is_array() || j["gates"].empty()) {
    sink.issue("policy", "gates must be a non-empty list", "define at least one gate");
    return;
  }
  std::set<std::string> seen;
  const auto& gates = j["gates"];
  for (std::size_t i = 0; i < gates.size(); ++i) {
    auto gate = parse_gate(gates[i], i, sink);
    if (!gate) continue;
    if (!seen.insert(gate->id).second) {
      sink.issue(gate->id, "duplicate gate id",
                 "give each gate a unique id; the later one is ignored");
      continue;
    }
    p.gates.push_back(std::move(*gate));
  }
}

// A coverage path with '*' or '?' is a glob as GitHub's `paths:` filters read
// it: '*' any characters but '/', '**' any characters, '?' one character.
bool is_glob(const std::string& path) {
  return path.find_first_of("*?") != std::string::npos;
}

std::string glob_regex(const std::string& glob) {
  std::string out;
  for (std::size_t i = 0; i < glob.size(); ++i) {
    char c = glob[i];
    if (c == '*' && i + 1 < glob.size() && glob[i + 1] == '*') {
      // "**/" also matches no directory at all.
      if (i + 2 < glob.size() && glob[i + 2] == '/') {
        out += "(?:.*/)?";
        i += 2;
      } else {
        out += ".*";
        ++i;
      }
    } else if (c == '*') {
      out += "[^/]*";
    } else if (c == '?') {
      out += "[^/]";
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '-') {
      out += c;
    } else {
      out += '\\';
      out += c;
    }
  }
  return out;
}

// Whether a file of the repository (outside .git) matches the glob.
bool glob_matches_a_file(const std::string& root, const std::string& glob) {
  namespace fsys = std::filesystem;
  auto error = Pattern::compile_error(glob_regex(glob).c_str());
  if (error) return false;
  Pattern re(glob_regex(glob).c_str());
  std::error_code ec;
  fsys::recursive_directory_iterator it(root, fsys::directory_options::skip_permission_denied, ec),
      end;
  std::size_t seen = 0;
  for (; !ec && it != end && seen < 200000; it.increment(ec), ++seen) {
    if (it->path().filename() == ".git") {
      it.disable_recursion_pending();
      continue;
    }
    std::error_code fec;
    if (!it->is_regular_file(fec)) continue;
    auto rel = it->path().lexically_relative(root).generic_string();
    if (re.full_matches(rel)) return true;
  }
  return false;
}

void check_coverage_paths(const Policy& p, const IssueSink& sink) {
  namespace fsys = std::filesystem;
  const auto next =
      fmt::format("fix coverage_paths (relative to the repository root {})", p.repo_root);
  for (const auto& g : p.gates) {
    for (const auto& path : g.coverage_paths) {
      std::error_code ec;
      if (path.empty()) {
        sink.issue(g.id, "maps an empty source path", next);
      } else if (is_glob(path)) {
        if (!glob_matches_a_file(p.repo_root, path))
          sink.issue(g.id, fmt::format("maps a glob that matches no file: {}", path), next);
      } else if (fsys::is_directory(fsys::path(p.repo_root) / path, ec)) {
        std::string dir = path;
        while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
        sink.issue(g.id, fmt::format("maps {}, which is a directory", path),
                   fmt::format("write {}/** for every file under it (relative to the repository "
                               "root {})",
                               dir, p.repo_root));
      } else if (!fsys::is_regular_file(fsys::path(p.repo_root) / path, ec)) {
        sink.issue(g.id, fmt::format("maps missing source path: {}", path), next);
      }
    }
  }
}

}  // namespace

std::string PolicyIssue::line() const {
  std::string out = subject + ": " + what;
  if (!next.empty()) out += "; " + next;
  return out;
}

std::vector<std::string> Gate::probe_ids() const {
  std::vector<std::string> ids;
  for (const auto& c : probes)
    if (std::find(ids.begin(), ids.end(), c.probe) == ids.end()) ids.push_back(c.probe);
  return ids;
}

bool is_obliteratus_software_only(std::string_view id) {
  for (const char* s : kSoftwareOnlyIds)
    if (id == s) return true;
  return false;
}

Result<LoadedPolicy> parse_policy(std::string_view text, const std::string& source,
                                  const std::string& repo_root) {
  auto parsed = parse_json_text(text, source);
  if (!parsed) return parsed.error();
  const nlohmann::json& j = *parsed;
  if (!j.is_object())
    return make_error("the policy must be a JSON object", source, "see docs/gates.md");
  LoadedPolicy out;
  out.policy.source = source;
  out.policy.repo_root = repo_root.empty() ? "." : repo_root;
  IssueSink sink{&out.issues, &out.warnings};
  check_top_level(j, out.policy, sink);
  parse_gates(j, out.policy, sink);
  check_coverage_paths(out.policy, sink);
  return out;
}

Result<LoadedPolicy> load_policy_file(const std::string& path, const std::string& repo_root) {
  namespace fsys = std::filesystem;
  fsys::path p(path);
  std::string dir = p.has_parent_path() ? p.parent_path().string() : ".";
  auto root = fs::RootFs::open(dir);
  if (!root) return make_error("cannot open the policy's directory", path, "check --policy");
  auto text = root->read(p.filename().string(), kMaxPolicyBytes);
  if (!text)
    return make_error("cannot read the policy: " + text.error().what, path, "check --policy");
  std::string repo = repo_root;
  if (repo.empty()) {
    repo = find_repo_root(dir);
    if (repo.empty()) repo = dir;
  }
  return parse_policy(*text, path, repo);
}

Result<LoadedPolicy> load_default_policy(const std::string& repo_root) {
  auto bytes = embedded_file("default-policy.json");
  if (!bytes)
    return make_error("no embedded default-policy.json in this build", "jetgate",
                      "rebuild jetgate");
  return parse_policy(*bytes, "embedded default-policy.json", repo_root);
}

const Gate* find_gate(const Policy& p, std::string_view id) {
  for (const auto& g : p.gates)
    if (g.id == id) return &g;
  return nullptr;
}

std::vector<PolicyIssue> issues_of(const LoadedPolicy& p, std::string_view gate_id) {
  std::vector<PolicyIssue> out;
  for (const auto& i : p.issues)
    if (i.subject == gate_id) out.push_back(i);
  return out;
}

std::string find_repo_root(const std::string& start) {
  namespace fsys = std::filesystem;
  std::error_code ec;
  fsys::path dir = fsys::absolute(start.empty() ? "." : start, ec);
  if (ec) return {};
  dir = dir.lexically_normal();
  for (int depth = 0; depth < 256; ++depth) {
    if (fsys::exists(dir / ".git", ec)) return dir.string();
    if (!dir.has_parent_path() || dir.parent_path() == dir) break;
    dir = dir.parent_path();
  }
  return {};
}

}  // namespace jetgate::policy
