// SPDX-License-Identifier: Apache-2.0
// `jetgate init`: the options, their checks and the gate policy.
#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "jetgate/core/json_text.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/core/version.hpp"
#include "jetgate/facts/jetpack_table.hpp"
#include "jetgate/facts/module_table.hpp"
#include "jetgate/facts/text.hpp"
#include "jetgate/init/init_grammar.hpp"
#include "jetgate/init/init_templates.hpp"
#include "jetgate/policy/policy.hpp"
#include "jetgate/policy/waivers.hpp"
#include "jetgate/probes/registry.hpp"

namespace jetgate::init {
namespace {

bool is_label(const std::string& s) {
  if (s.empty() || s.size() > 40 || s[0] == '-') return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

// Runner labels are free text in GitHub; letters, digits, '-', '_' and '.'
// keep them safe inside YAML and shell lines.
bool is_runner_label(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
}

bool known_module(const std::string& m) {
  const auto& table = facts::builtin_module_table();
  if (!table) return false;
  auto same = [&](const std::string& s) {
    return s.size() == m.size() && facts::starts_with_icase(s, m);
  };
  for (const auto& p : table->parts())
    if (p.kind == facts::PartKind::module && (same(p.part) || same(p.name))) return true;
  return false;
}

// A JetPack the table knows ("6.2", "5.1.2"), compared without markers.
bool known_jetpack(const std::string& jp) {
  const auto& table = facts::builtin_jetpack_table();
  if (!table) return false;
  for (const auto& r : table->releases())
    for (const auto& j : r.jetpack)
      if (facts::jetpack_number(j) == jp) return true;
  return false;
}

bool is_relative_inside(const std::string& p) {
  if (p.empty() || p[0] == '/' || p.find('\\') != std::string::npos) return false;
  for (std::size_t i = 0; i < p.size();) {
    auto end = p.find('/', i);
    auto part = p.substr(i, end == std::string::npos ? std::string::npos : end - i);
    if (part == ".." || part.empty()) return false;
    if (end == std::string::npos) break;
    i = end + 1;
  }
  return facts::is_printable_text(p);
}

std::vector<std::string> sorted_jetpacks(const InitOptions& o) {
  auto v = o.jetpacks;
  std::sort(v.begin(), v.end(),
            [](const auto& a, const auto& b) { return facts::compare_versions(a, b) < 0; });
  return v;
}

nlohmann::ordered_json probe_checks(bool ml) {
  nlohmann::ordered_json p = nlohmann::ordered_json::array();
  for (const auto& spec : probes::probe_registry())
    if (spec.kind == probes::ProbeKind::cuda && spec.by_default)
      p.push_back({{"probe", spec.id}, {"status", "PASS"}});
  p.push_back({{"probe", "bandwidth"}, {"metric", "d2d_fraction_of_peak"}, {"min", 0.6}});
  p.push_back(
      {{"probe", "sync_path"}, {"metric", "sync_blocking_sync_cpu_fraction"}, {"max", 0.10}});
  if (ml)
    for (const auto& id : probes::registered_probe_ids(probes::ProbeKind::python))
      p.push_back({{"probe", id}, {"status", "PASS"}});
  return p;
}

}  // namespace

InitOptions default_init_options() {
  InitOptions o;
  o.boards = {{"jetson-orin", std::nullopt}};
  o.jetpacks = {"6.2"};
  o.runner_labels = {"self-hosted", "linux", "ARM64", "jetson"};
  o.test_junit = "test-reports/jetson-junit.xml";
  o.test_command = {"python3", "-m", "pytest", "--junitxml=" + o.test_junit, "tests"};
  // A venv: ubuntu-24.04's system Python is externally managed (PEP 668) and
  // refuses `pip install` outside one.
  o.preflight_command =
      "python3 -m venv .preflight-venv && .preflight-venv/bin/python -m pip install . && "
      ".preflight-venv/bin/python -m pip check";
  o.owner = "the project's maintainers";
  o.jetgate_repo = "https://github.com/jetgate/jetgate";
  o.jetgate_version = jetgate::version();
  return o;
}

Status validate_init_options(const InitOptions& o) {
  if (o.boards.empty())
    return make_error("no board", "--board", "name at least one, e.g. --board agx-orin");
  for (const auto& b : o.boards) {
    if (!is_label(b.label))
      return make_error("board label \"" + b.label + "\" is not [a-z0-9][a-z0-9-]* (at most 40)",
                        "--board", "it names the runner label, the job and the evidence");
    if (b.module && !known_module(*b.module))
      return make_error(
          "board " + b.label + ": module \"" + *b.module + "\" is not in jetgate's table",
          "--board",
          "use a module's name (\"Jetson AGX Orin 64GB\") or part number "
          "(\"p3701-0005\") from data/jetson-modules.json");
    if (std::count_if(o.boards.begin(), o.boards.end(),
                      [&](const auto& x) { return x.label == b.label; }) > 1)
      return make_error("board " + b.label + " is named twice", "--board");
  }
  if (o.jetpacks.empty()) return make_error("no JetPack", "--jetpack", "e.g. --jetpack 6.2");
  for (const auto& jp : o.jetpacks)
    if (!known_jetpack(jp))
      return make_error("JetPack \"" + jp + "\" is not a release jetgate knows", "--jetpack",
                        "name one as X.Y or X.Y.Z, e.g. 6.2 or 6.1 (data/l4t-jetpack.json)");
  // The workflow installs jetgate's release binary, which needs glibc 2.34;
  // JetPack 5 has 2.31 and its GCC 9.4 cannot build jetgate (docs/building.md).
  // A release built for it (on a glibc 2.31 machine) and named with
  // --jetgate-release-url is the way that works.
  for (const auto& jp : o.jetpacks)
    if (facts::compare_versions(jp, "6") < 0 && !o.jetgate_release_url)
      return make_error(
          "JetPack " + jp +
              " runs Ubuntu 20.04 or older: jetgate's release binary needs glibc 2.34 (JetPack "
              "5 has 2.31) and its GCC (9.4 or older) cannot build jetgate (C++20) from "
              "source, so the workflow's install step would fail on every board "
              "(docs/building.md)",
          "--jetpack",
          "build a release binary on a machine with glibc 2.31 or older and GCC 10 or newer "
          "(docs/building.md, \"JetPack 5\"), publish its jetgate-VERSION-linux-aarch64.tar.gz, "
          "and run jetgate init --jetgate-release-url URL --jetgate-sha256 aarch64=SHA256; or "
          "generate the workflow for JetPack 6 or later");
  for (const auto& l : o.runner_labels)
    if (!is_runner_label(l))
      return make_error("runner label \"" + l +
                            "\" has characters other than letters, digits, "
                            "'-', '_' and '.'",
                        "--runner-label");
  if (o.test_command.empty()) return make_error("empty test command", "--test-command");
  for (const auto& a : o.test_command)
    if (a.empty() || !is_valid_utf8(a) || a.find('\n') != std::string::npos)
      return make_error("test command words must be non-empty single-line UTF-8", "--test-command");
  if (!is_relative_inside(o.test_junit) || !is_repository_relative_path(o.test_junit))
    return make_error(quoted_text(o.test_junit) +
                          " must be a relative path inside the repository: segments of letters, "
                          "digits, '.', '_', '+' and '-', none '..' or starting with '-'",
                      "--test-junit");
  for (const auto& path : o.coverage_paths) {
    // A glob's '*' and '?' stand where a path's letters would.
    std::string as_path = path;
    for (auto& c : as_path)
      if (c == '*' || c == '?') c = 'x';
    if (!is_relative_inside(path) || !is_repository_relative_path(as_path))
      return make_error(quoted_text(path) +
                            " must be a relative path of a file, a directory (DIR/**) or a glob "
                            "inside the repository: segments of letters, digits, '.', '_', '+', "
                            "'-', '*' and '?', none '..' or starting with '-'",
                        "--coverage-path");
  }
  if (!o.tracking_issue.empty() && !policy::is_canonical_issue_url(o.tracking_issue, std::nullopt))
    return make_error("\"" + o.tracking_issue + "\" is not https://github.com/OWNER/NAME/issues/N",
                      "--tracking-issue");
  if (o.preflight_command.empty() || o.preflight_command.find('\n') != std::string::npos ||
      !is_valid_utf8(o.preflight_command))
    return make_error("the preflight command must be one non-empty line", "--preflight-command");
  if (!o.repository.empty() &&
      !policy::is_canonical_issue_url("https://github.com/" + o.repository + "/issues/1",
                                      std::nullopt))
    return make_error("\"" + o.repository + "\" is not OWNER/NAME", "--repository");
  if (o.max_age_days < 1 || o.max_age_days > 365)
    return make_error("must be 1 to 365 days", "--max-age-days");
  if (!is_cron_schedule(o.cron))
    return make_error(quoted_text(o.cron) +
                          " is not a 5-field cron schedule: minute (0-59) hour (0-23) "
                          "day-of-month (1-31) month (1-12) day-of-week (0-6), each * or N, N-M, "
                          "lists with ',' and steps with '/', one space between fields",
                      "--cron", "e.g. \"17 4 * * 1\", Mondays at 04:17 UTC");
  if (o.image && !is_image_reference(*o.image))
    return make_error(
        quoted_text(*o.image) + " is not an image reference [HOST[:PORT]/]NAME:TAG or NAME@DIGEST",
        "--image", "e.g. nvcr.io/nvidia/l4t-jetpack:r36.4.0");
  if (!is_https_repository_url(o.jetgate_repo))
    return make_error(quoted_text(o.jetgate_repo) + " is not an https URL of a git repository",
                      "--jetgate-repo", "e.g. https://github.com/jetgate/jetgate");
  if (!is_release_version(o.jetgate_version))
    return make_error(quoted_text(o.jetgate_version) +
                          " is not a release version (digits and '.', then optionally '-' and "
                          "letters, digits or '.')",
                      "--jetgate-version", "e.g. 0.1.0");
  if (o.jetgate_release_url && !is_https_repository_url(*o.jetgate_release_url))
    return make_error(quoted_text(*o.jetgate_release_url) +
                          " is not an https URL (https://HOST/PATH, PATH of letters, digits, "
                          "'.', '_', '~' and '-')",
                      "--jetgate-release-url",
                      "e.g. https://github.com/jetgate/jetgate/releases/download/v0.1.0");
  for (const auto& [arch, sum] : o.jetgate_sha256) {
    if (arch != "aarch64" && arch != "x86_64")
      return make_error("architecture " + quoted_text(arch) + " has no jetgate release",
                        "--jetgate-sha256", "aarch64=SHA256 or x86_64=SHA256");
    if (!is_sha256_hex(sum))
      return make_error(quoted_text(sum) + " is not a SHA-256 (64 lowercase hex digits)",
                        "--jetgate-sha256", "sha256sum jetgate-VERSION-linux-ARCH.tar.gz");
  }
  if (o.pip_install.empty())
    return make_error("nothing to install into the project's venv", "--pip-install",
                      "e.g. --pip-install \". pytest\"");
  for (const auto& w : o.pip_install)
    if (!is_pip_word(w))
      return make_error(quoted_text(w) +
                            " is not a pip argument jetgate init writes (letters, digits and "
                            "._-+=/:@[],<>~!; no quote, '$', space or shell operator)",
                        "--pip-install");
  return Ok{};
}

bool container_lane(const InitOptions& o) {
  return std::all_of(o.jetpacks.begin(), o.jetpacks.end(),
                     [](const auto& jp) { return facts::compare_versions(jp, "6") >= 0; });
}

std::string board_evidence_dir(const InitBoard& b, bool container) {
  return "conditional-evidence/" + b.label + (container ? "-container" : "");
}

std::string render_init_policy(const InitOptions& o) {
  auto jps = sorted_jetpacks(o);
  nlohmann::ordered_json requires_ = {{"arch", "aarch64"},
                                      {"is_tegra", true},
                                      {"jetpack", {{"min", jps.front()}, {"max", jps.back()}}},
                                      {"cuda", true}};
  nlohmann::json modules = nlohmann::json::array();
  for (const auto& b : o.boards)
    if (b.module) modules.push_back(*b.module);
  if (!modules.empty() && modules.size() == o.boards.size()) requires_["module"] = modules;
  nlohmann::ordered_json gate = {
      {"id", kInitGateId},
      {"description",
       "CUDA works at full speed on a real Jetson (aarch64, Tegra, JetPack " + jps.front() +
           (jps.size() > 1 ? " to " + jps.back() : "") +
           "), and the project's own tests pass there. Generated by `jetgate init`."},
  };
  if (!o.tracking_issue.empty()) gate["x-tracking-issue"] = o.tracking_issue;
  gate["requires"] = requires_;
  gate["probes"] = probe_checks(o.ml);
  gate["command"] = {{"argv", o.test_command}, {"timeout_s", 1800}, {"junit", o.test_junit}};
  if (!o.coverage_paths.empty()) gate["coverage_paths"] = o.coverage_paths;
  nlohmann::ordered_json policy = {
      {"$schema", "https://github.com/jetgate/jetgate/docs/policy.schema.json"},
      {"schema_version", 1},
      {"description", fmt::format("Conditional Jetson gates, generated by `jetgate init`; see {}.",
                                  kInitDocsPath)},
      {"owner", o.owner},
      {"cadence", fmt::format("on every push to main, on the schedule '{}' (UTC) and on pull "
                              "requests a maintainer labels jetson-ci, on each Jetson runner",
                              o.cron)},
      {"evidence_retention_days", 90},
      {"maximum_evidence_age_days", o.max_age_days}};
  if (!o.repository.empty()) policy["repository"] = o.repository;
  policy["gates"] = nlohmann::ordered_json::array({gate});
  return policy.dump(2) + "\n";
}

std::string render_kubernetes_policy(const KubernetesOptions& k) {
  nlohmann::ordered_json gate = {
      {"id", k.gate},
      {"description",
       "CUDA works at full speed on this node's GPU: the driver loads, kernels give the right "
       "answers, memory bandwidth reaches its floor and the host waits for the GPU without "
       "spinning. Generated by `jetgate init --kubernetes`."},
      {"probes", probe_checks(false)}};
  nlohmann::ordered_json policy = {
      {"$schema", "https://github.com/jetgate/jetgate/docs/policy.schema.json"},
      {"schema_version", 1},
      {"description",
       "The GPU node gate of a Kubernetes cluster, generated by `jetgate init "
       "--kubernetes`; see docs/kubernetes.md."},
      {"owner", "the cluster's operators"},
      {"cadence", fmt::format("once per node by the Job, then every {} minutes on every GPU node "
                              "by the DaemonSet or node-problem-detector",
                              k.interval_minutes)},
      {"evidence_retention_days", 90},
      {"maximum_evidence_age_days", 14}};
  policy["gates"] = nlohmann::ordered_json::array({gate});
  return policy.dump(2) + "\n";
}

std::optional<std::string> kept_policy_problem(std::string_view existing_text,
                                               const InitOptions& o) {
  auto kept = policy::parse_policy(existing_text, kInitPolicyPath, ".");
  if (kept) {
    const policy::Gate* g = policy::find_gate(kept->policy, kInitGateId);
    if (g && g->runnable()) return std::nullopt;
  }
  nlohmann::json ours = nlohmann::json::parse(render_init_policy(o));
  std::string why = !kept ? "cannot be read as a policy (" + kept.error().message() + ")"
                          : fmt::format("has no gate {} with probes or a command", kInitGateId);
  return fmt::format(
      "{} exists and was kept, but it {}: every board job of the workflow runs `jetgate run {}` "
      "from it and would fail. Merge this gate into its \"gates\" (or run init again with "
      "--force to replace the file):\n{}",
      kInitPolicyPath, to_valid_utf8(why), kInitGateId, ours["gates"][0].dump(2));
}

Result<std::vector<InitFile>> render_init_files(const InitOptions& o) {
  if (auto st = validate_init_options(o); !st) return st.error();
  return std::vector<InitFile>{{kInitPolicyPath, render_init_policy(o)},
                               {kInitWorkflowPath, render_init_workflow(o)},
                               {kInitDocsPath, render_init_docs(o)},
                               {kInitActionPath, render_init_action(o)}};
}

}  // namespace jetgate::init
