// SPDX-License-Identifier: Apache-2.0
// A gate policy: OBLITERATUS' ci/conditional-test-policy.json (schema_version
// 1, https://github.com/elder-plinius/OBLITERATUS) plus jetgate's optional additions ("repository";
// per gate "software_only", "requires", "probes", "command"). docs/gates.md documents every field;
// docs/policy.schema.json is the JSON Schema.
//
// Loading separates two kinds of trouble: a file that cannot be used at all
// (missing, not JSON, not an object) is an Error (exit 2); a rule the policy
// breaks (duplicate gate id, missing owner, bad waiver, missing coverage path)
// is a PolicyIssue, reported by `check` as a violation (exit 1).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jetgate/core/result.hpp"
#include "jetgate/policy/regression_thresholds.hpp"
#include "jetgate/trust/keys.hpp"

namespace jetgate::policy {

// Dotted versions compared on the components the bound gives: max "36"
// admits 36.4.3, min "36.4" admits 36.4.0 and later.
// The bounds of the policy's day counts, the one place they are written: the
// parser refuses a policy outside them, and `check`, `support` and `summary` accept
// exactly what the parser accepts (--max-age-days included).
inline constexpr long kMaxEvidenceAgeDays = 3650;  // ten years
inline constexpr long kMaxRetentionDays = 36500;   // far from date arithmetic's overflow

struct VersionRange {
  std::optional<std::string> min, max;
};

// Constraints on the platform facts, checked before anything runs.
struct Requirements {
  std::vector<std::string> arch;  // any of; empty: any
  std::optional<bool> is_tegra;
  std::optional<VersionRange> l4t;  // present: an L4T release must be known
  std::optional<VersionRange>
      jetpack;  // present: a JetPack must be known (any of an ambiguous release's)
  std::vector<std::string>
      module;  // any of: module name or part number (/tegra/module, /tegra/part_number)
  std::vector<std::string> soc;                // any of: /tegra/soc, e.g. "tegra234"
  std::vector<std::string> power_mode;         // any of: nvpmodel mode name or id (/power/nvpmodel)
  bool cuda = false;                           // a CUDA driver that loads, >= 1 device
  std::optional<std::string> min_cuda_driver;  // "12.2": the driver's CUDA version
  std::optional<std::int64_t> min_memory_bytes;  // largest device's total memory
  bool any() const {
    return !arch.empty() || is_tegra || l4t || jetpack || !module.empty() || !soc.empty() ||
           !power_mode.empty() || cuda || min_cuda_driver || min_memory_bytes;
  }
};

// One threshold on a built-in probe: its status, or one of its metrics.
struct ProbeCheck {
  std::string probe;  // "launch", "memory", "bandwidth", "sync_path", "python_runtime"
  std::optional<std::string> metric;  // a key of ProbeResult::values
  std::optional<double> min, max;     // inclusive bounds on the metric
  std::optional<std::string> status;  // "PASS": nothing else (not even WARN) is accepted
  // "when": the check applies only where the platform facts meet all of these
  // (module, soc, power_mode; any of each list), so a gate can hold one floor per
  // Jetson module and power mode. Empty: everywhere.
  Requirements when;
};

// An external test command whose JUnit XML decides the gate.
struct CommandSpec {
  std::vector<std::string> argv;
  double timeout_s = 1800;
  std::string junit;               // relative to cwd unless absolute
  std::optional<std::string> cwd;  // relative to the repository root; default: the root
  std::map<std::string, std::string> env;
  // Run the command as this user (a name or uid); jetgate must run as root.
  std::optional<std::string> user;
};

struct Gate {  // NOLINT(bugprone-exception-escape): see .clang-tidy
  std::string id;
  // OBLITERATUS' fields, kept as written (jetgate does not interpret them).
  std::string job, marker, runner;
  nlohmann::json prerequisites, expected_cost;
  std::vector<std::string> coverage_paths;
  // jetgate's additions.
  bool software_only = false;  // never waivable
  Requirements requirements;   // "requires"
  std::vector<ProbeCheck> probes;
  std::optional<CommandSpec> command;
  nlohmann::json raw;  // the gate object as written

  // Probe ids named by "probes", in first-mention order, without duplicates.
  std::vector<std::string> probe_ids() const;
  // jetgate can run it: it names probes or a command.
  bool runnable() const { return !probes.empty() || command.has_value(); }
};

struct Policy {
  int schema_version = 0;
  std::string owner, cadence;
  std::optional<std::int64_t> evidence_retention_days, maximum_evidence_age_days;
  std::optional<std::string> repository;  // "OWNER/NAME"
  // Set (even when every entry was invalid): only evidence signed by one of
  // these keys counts (docs/trust.md).
  std::optional<std::vector<trust::TrustedKey>> trusted_keys;
  std::vector<Gate> gates;
  nlohmann::json environment_waivers = nlohmann::json::array();  // validated by waivers.hpp
  // "regressions": thresholds of `jetgate history regressions`; defaults when absent.
  RegressionThresholds regressions{};
  std::string source;     // the file as the user named it, or "embedded default-policy.json"
  std::string repo_root;  // coverage_paths and command cwd are relative to it
};

// A broken rule: SUBJECT ("policy" or a gate id) + what is wrong + what to do.
struct PolicyIssue {
  std::string subject;
  std::string what;
  std::string next;
  std::string line() const;  // "SUBJECT: what; next"
};

struct LoadedPolicy {
  Policy policy;
  std::vector<PolicyIssue> issues;
  std::vector<std::string> warnings;  // unknown keys (likely typos) and similar
};

// Parses policy text. Errors only when the text is not a JSON object.
Result<LoadedPolicy> parse_policy(std::string_view text, const std::string& source,
                                  const std::string& repo_root);
// Reads PATH (capped); repo_root empty: the nearest directory above PATH that
// holds .git, else PATH's directory. Coverage paths are checked against it.
Result<LoadedPolicy> load_policy_file(const std::string& path, const std::string& repo_root = {});
// The policy compiled into the binary (data/default-policy.json).
Result<LoadedPolicy> load_default_policy(const std::string& repo_root = ".");

const Gate* find_gate(const Policy& p, std::string_view id);
// Issues whose subject is this gate.
std::vector<PolicyIssue> issues_of(const LoadedPolicy& p, std::string_view gate_id);
// Walks up from start to the first directory containing .git; empty if none.
std::string find_repo_root(const std::string& start);

// The gate ids OBLITERATUS' checker hard-codes as software-only; jetgate
// treats them so unless the gate says "software_only": false.
bool is_obliteratus_software_only(std::string_view id);

}  // namespace jetgate::policy
