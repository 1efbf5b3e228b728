// SPDX-License-Identifier: Apache-2.0
// `jetgate init`: the GitHub Actions workflow, emitted with yaml-cpp so that
// every value is quoted as YAML needs. Every jetgate command line stands on a
// line of its own (after `\` continuations), so a test can parse each one
// with jetgate's own CLI (JETGATE_PARSE_ONLY=1).
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "jetgate/init/init_templates.hpp"

namespace jetgate::init {
namespace {

using Step = std::vector<std::pair<std::string, std::string>>;  // key -> value, in order

constexpr const char* kPrefix = "$HOME/.cache/jetgate";
// The label a maintainer puts on a pull request to run its code on the boards.
constexpr const char* kBoardLabel = "jetson-ci";
// A self-hosted runner is persistent: a fork's pull request must not run its
// code there unless a maintainer asked, for this push (GitHub's guidance on
// self-hosted runners and public repositories). Push, schedule and
// workflow_dispatch always run; a pull request only on the labeled event of
// kBoardLabel, so every new push needs the label again.
const std::string& board_condition() {
  static const std::string c = fmt::format(
      "github.event_name != 'pull_request' || (github.event.action == 'labeled' && "
      "github.event.label.name == '{}')",
      kBoardLabel);
  return c;
}

// One run per board at a time: a board is one machine, and two gates on it
// at once would measure each other.
void board_concurrency(YAML::Emitter& y, const std::string& label) {
  y << YAML::Key << "concurrency" << YAML::Value << YAML::BeginMap << YAML::Key << "group"
    << YAML::Value << "jetson-board-" + label << YAML::Key << "cancel-in-progress" << YAML::Value
    << false << YAML::EndMap;
}

std::vector<bool> lanes(const InitOptions& o) {
  return container_lane(o) ? std::vector<bool>{false, true} : std::vector<bool>{false};
}

std::string job_id(const InitBoard& b, bool container) {
  return (container ? "container-" : "jetson-") + b.label;
}

std::string artifact(const InitBoard& b, bool container) {
  return "jetgate-evidence-" + b.label + (container ? "-container" : "");
}

void emit_with(YAML::Emitter& y, const std::vector<std::pair<std::string, std::string>>& with) {
  y << YAML::Key << "with" << YAML::Value << YAML::BeginMap;
  for (const auto& [k, v] : with) {
    y << YAML::Key << k << YAML::Value;
    if (v.find('\n') != std::string::npos) y << YAML::Literal;
    y << v;
  }
  y << YAML::EndMap;
}

// A condition (`if:`) is always double-quoted: yaml-cpp 0.7 (Debian 12, JetPack 6) writes
// these expressions plain and 0.8 (Debian 13) quotes them, so quoting each one makes the
// workflow the same bytes whichever yaml-cpp built jetgate (InitTemplates.DocsExamples*).
void emit_condition(YAML::Emitter& y, const std::string& condition) {
  y << YAML::Key << "if" << YAML::Value << YAML::DoubleQuoted << condition;
}

void uses_step(YAML::Emitter& y, const std::string& name, const std::string& uses,
               const std::vector<std::pair<std::string, std::string>>& with = {},
               const std::string& condition = "") {
  y << YAML::BeginMap << YAML::Key << "name" << YAML::Value << name;
  if (!condition.empty()) emit_condition(y, condition);
  y << YAML::Key << "uses" << YAML::Value << uses;
  if (!with.empty()) emit_with(y, with);
  y << YAML::EndMap;
}

void run_step(YAML::Emitter& y, const std::string& name, const std::string& script,
              const std::string& condition = "", const std::string& id = "",
              bool continue_on_error = false) {
  y << YAML::BeginMap << YAML::Key << "name" << YAML::Value << name;
  if (!id.empty()) y << YAML::Key << "id" << YAML::Value << id;
  if (!condition.empty()) emit_condition(y, condition);
  if (continue_on_error) y << YAML::Key << "continue-on-error" << YAML::Value << true;
  y << YAML::Key << "run" << YAML::Value;
  // A literal block for anything past plain words: yaml-cpp 0.7 (Debian 12, JetPack 6)
  // writes "a && b" plain and 0.8 (Debian 13, Ubuntu 24.04) quotes it, but both write a
  // literal block the same way, so the workflow is one file whichever built jetgate.
  if (script.find_first_of("\n&*!|>%@`#{}[],?:'\"") != std::string::npos)
    y << YAML::Literal << script;
  else
    y << script;
  y << YAML::EndMap;
}

// jetgate in every job: built from source once per runner, OS, architecture
// and jetgate commit, then restored from the cache (docs/building.md). The
// cache is keyed on the commit JETGATE_REF names today, never on the ref's
// name: a branch moves, and a key of "main" would restore the first build
// of main forever.
void install_steps(YAML::Emitter& y) {
  run_step(y, "Which jetgate commit JETGATE_REF names (the cache key)",
           "set -euo pipefail\n"
           "if printf '%s' \"$JETGATE_REF\" | grep -Eq '^[0-9a-f]{40}$'; then\n"
           "  sha=\"$JETGATE_REF\"\n"
           "else\n"
           "  # A branch or tag; an annotated tag's commit is the peeled (^{}) line.\n"
           "  refs=$(git ls-remote \"$JETGATE_REPO\" \"$JETGATE_REF\" \"$JETGATE_REF^{}\")\n"
           "  sha=$(printf '%s\\n' \"$refs\" | awk '/\\^\\{\\}$/ {p=$1} NR==1 {f=$1} END {print (p "
           "!= \"\" "
           "? p : f)}')\n"
           "fi\n"
           "if [ -z \"$sha\" ]; then\n"
           "  echo \"JETGATE_REF=$JETGATE_REF is no branch, tag or commit of $JETGATE_REPO\" >&2\n"
           "  exit 1\n"
           "fi\n"
           "echo \"sha=$sha\" >> \"$GITHUB_OUTPUT\"\n",
           "", "jetgate-commit");
  uses_step(y, "Restore jetgate from the cache", "actions/cache@v4",
            {{"path", "~/.cache/jetgate"},
             {"key",
              "jetgate-${{ runner.os }}-${{ runner.arch }}-${{ steps.jetgate-commit.outputs.sha "
              "}}"}});
  run_step(y, "Install jetgate (built once per runner and jetgate commit)",
           fmt::format("set -euo pipefail\n"
                       "prefix=\"{0}\"\n"
                       "sha=\"${{{{ steps.jetgate-commit.outputs.sha }}}}\"\n"
                       "if [ ! -x \"$prefix/bin/jetgate\" ]; then\n"
                       "  rm -rf \"$prefix/src\" \"$prefix/build\"\n"
                       "  git init -q \"$prefix/src\"\n"
                       "  git -C \"$prefix/src\" fetch -q --depth 1 \"$JETGATE_REPO\" \"$sha\"\n"
                       "  git -C \"$prefix/src\" checkout -q FETCH_HEAD\n"
                       "  bash \"$prefix/src/scripts/install-deps.sh\"\n"
                       "  cmake -S \"$prefix/src\" -B \"$prefix/build\" -DCMAKE_BUILD_TYPE=Release "
                       "-DJETGATE_BUILD_TESTS=OFF\n"
                       "  cmake --build \"$prefix/build\" -j\"$(nproc)\"\n"
                       "  cmake --install \"$prefix/build\" --prefix \"$prefix\" --component "
                       "runtime\n"
                       "  rm -rf \"$prefix/build\"\n"
                       "fi\n"
                       "echo \"$prefix/bin\" >> \"$GITHUB_PATH\"\n"
                       "\"$prefix/bin/jetgate\" --version\n",
                       kPrefix));
}

void checkout(YAML::Emitter& y) {
  uses_step(y, "Check out", "actions/checkout@v4");
}

void runs_on(YAML::Emitter& y, const InitOptions& o, const InitBoard& b) {
  y << YAML::Key << "runs-on" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const auto& l : o.runner_labels) y << l;
  y << b.label << YAML::EndSeq;
}

void upload(YAML::Emitter& y, const std::string& name, const std::string& artifact_name,
            const std::string& path, const std::string& if_none) {
  uses_step(y, name, "actions/upload-artifact@v4",
            {{"name", artifact_name}, {"path", path}, {"if-no-files-found", if_none}}, "always()");
}

void preflight_job(YAML::Emitter& y, const InitOptions& o) {
  y << YAML::Key << "preflight-arm64" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value
    << "ARM64 preflight (generic arm64, NOT a Jetson support claim)";
  y << YAML::Key << "runs-on" << YAML::Value << "ubuntu-24.04-arm";
  y << YAML::Key << "steps" << YAML::Value << YAML::BeginSeq;
  checkout(y);
  install_steps(y);
  run_step(y, "Validate the gate policy", "jetgate check --policy \"$JETGATE_POLICY\"");
  run_step(y, "Install and import the project on generic arm64", o.preflight_command);
  run_step(y, "Say what this job is not",
           "echo \"### ARM64 preflight: NOT a support claim\" >> \"$GITHUB_STEP_SUMMARY\"\n"
           "echo \"The project installs and imports on a hosted arm64 runner (no Jetson, no "
           "GPU). Jetson support is claimed only from the Jetson jobs' evidence.\" >> "
           "\"$GITHUB_STEP_SUMMARY\"\n");
  y << YAML::EndSeq << YAML::EndMap;
}

void board_job(YAML::Emitter& y, const InitOptions& o, const InitBoard& b) {
  const auto dir = board_evidence_dir(b, false);
  y << YAML::Key << job_id(b, false) << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << "Jetson gate on " + b.label + " (self-hosted)";
  emit_condition(y, board_condition());
  runs_on(y, o, b);
  board_concurrency(y, b.label);
  y << YAML::Key << "timeout-minutes" << YAML::Value << 90;
  y << YAML::Key << "steps" << YAML::Value << YAML::BeginSeq;
  checkout(y);
  install_steps(y);
  run_step(y, "Platform facts", "jetgate probe");
  run_step(y, "Run the gate (probes and the project's tests) and write evidence",
           fmt::format("mkdir -p conditional-evidence test-reports\n"
                       "jetgate run {} --policy \"$JETGATE_POLICY\" --evidence-dir {} --junit "
                       "test-reports/jetgate-{}.xml\n",
                       kInitGateId, dir, b.label));
  upload(y, "Upload the evidence", artifact(b, false), dir, "error");
  upload(y, "Upload the test reports (the project's and jetgate's)", "jetgate-junit-" + b.label,
         o.test_junit + "\ntest-reports/jetgate-" + b.label + ".xml\n", "warn");
  y << YAML::EndSeq << YAML::EndMap;
}

void container_job(YAML::Emitter& y, const InitOptions& o, const InitBoard& b) {
  const auto dir = board_evidence_dir(b, true);
  y << YAML::Key << job_id(b, true) << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value
    << "Jetson gate in a JetPack container on " + b.label + " (self-hosted)";
  emit_condition(y, board_condition());
  runs_on(y, o, b);
  board_concurrency(y, b.label);
  y << YAML::Key << "timeout-minutes" << YAML::Value << 120;
  y << YAML::Key << "steps" << YAML::Value << YAML::BeginSeq;
  checkout(y);
  install_steps(y);
  if (o.image)
    run_step(y, "The container image (fixed by jetgate init --image)",
             "echo \"image=" + *o.image + "\" >> \"$GITHUB_OUTPUT\"", "", "image");
  else
    run_step(y, "Pick the image that matches this runner's L4T release",
             "jetgate container --first --kind jetpack > jetgate-image.txt\n"
             "echo \"image=$(cat jetgate-image.txt)\" >> \"$GITHUB_OUTPUT\"\n",
             "", "image");
  run_step(y, "Build jetgate into the image (Dockerfile.l4t)",
           fmt::format("image=\"${{{{ steps.image.outputs.image }}}}\"\n"
                       "docker build -f \"{0}/src/Dockerfile.l4t\" --build-arg "
                       "L4T_IMAGE=\"${{image%:*}}\" --build-arg L4T_TAG=\"${{image##*:}}\" -t "
                       "jetgate-gate:local \"{0}/src\"\n",
                       kPrefix));
  run_step(y, "Run the same gate inside the container",
           fmt::format("mkdir -p conditional-evidence\n"
                       "# The container runs as root over the runner user's checkout: git\n"
                       "# would refuse it (\"dubious ownership\") and the evidence could not\n"
                       "# show a clean tree, so the checkout is named safe for this run only.\n"
                       "docker run --rm --runtime nvidia -e GITHUB_SHA -e CI -e GITHUB_ACTIONS \\\n"
                       "  -e GIT_CONFIG_COUNT=1 -e GIT_CONFIG_KEY_0=safe.directory \\\n"
                       "  -e GIT_CONFIG_VALUE_0=/src \\\n"
                       "  -v /etc/nv_tegra_release:/etc/nv_tegra_release:ro \\\n"
                       "  -v \"$PWD:/src\" -w /src jetgate-gate:local \\\n"
                       "  jetgate run {} --policy \"$JETGATE_POLICY\" --evidence-dir {}\n",
                       kInitGateId, dir));
  upload(y, "Upload the evidence", artifact(b, true), dir, "error");
  y << YAML::EndSeq << YAML::EndMap;
}

// Where the claim job finds a lane's evidence: download-artifact puts each
// artifact of a pattern in a folder named after it.
constexpr const char* kClaimEvidenceRoot = "evidence-all";
std::string claim_evidence_dir(const InitBoard& b, bool container) {
  return std::string(kClaimEvidenceRoot) + "/" + artifact(b, container);
}

std::string evidence_args(const InitOptions& o) {
  std::string out;
  for (const auto& b : o.boards)
    for (bool c : lanes(o)) out += " --evidence-dir " + claim_evidence_dir(b, c);
  return out;
}

void claim_job(YAML::Emitter& y, const InitOptions& o) {
  y << YAML::Key << "claim" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << "Support claim (check, support --verify, summary)";
  y << YAML::Key << "needs" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (const auto& b : o.boards)
    for (bool c : lanes(o)) y << job_id(b, c);
  y << YAML::EndSeq;
  // Judged whenever the boards were asked to run, even when one of them failed.
  emit_condition(y, "always() && (" + board_condition() + ")");
  y << YAML::Key << "runs-on" << YAML::Value << "ubuntu-24.04";
  y << YAML::Key << "steps" << YAML::Value << YAML::BeginSeq;
  checkout(y);
  install_steps(y);
  // By pattern: a lane that uploaded nothing must not fail the download and
  // skip the verdict; its directory is made empty and `check` names it.
  uses_step(y, "Download every lane's evidence", "actions/download-artifact@v4",
            {{"pattern", "jetgate-evidence-*"}, {"path", kClaimEvidenceRoot}});
  std::string dirs_made = "mkdir -p";
  for (const auto& b : o.boards)
    for (bool c : lanes(o)) dirs_made += " " + claim_evidence_dir(b, c);
  run_step(y, "A lane that uploaded nothing is named by check, not skipped", dirs_made + "\n");
  uses_step(y, "Download the test reports", "actions/download-artifact@v4",
            {{"pattern", "jetgate-junit-*"}, {"path", "test-reports-all"}});
  const auto dirs = evidence_args(o);
  run_step(y, "May this commit claim Jetson support? (check)",
           "mkdir -p test-reports-all\n"
           "jetgate check --policy \"$JETGATE_POLICY\"" +
               dirs +
               " --candidate-sha \"$GITHUB_SHA\" --junit test-reports-all/jetgate-check.xml\n",
           "", "check", true);
  run_step(y, "Step summary",
           "jetgate summary --policy \"$JETGATE_POLICY\"" + dirs +
               " --candidate-sha \"$GITHUB_SHA\" >> \"$GITHUB_STEP_SUMMARY\"\n"
               "echo \"The ARM64 preflight job is NOT a support claim.\" >> "
               "\"$GITHUB_STEP_SUMMARY\"\n",
           "always()");
  run_step(y, "The README claims only what the evidence backs (support --verify)",
           "jetgate support --policy \"$JETGATE_POLICY\"" + dirs +
               " --candidate-sha \"$GITHUB_SHA\" --readme README.md --verify");
  uses_step(y, "Publish the test reports", "mikepenz/action-junit-report@v5",
            {{"report_paths", "test-reports-all/**/*.xml"}, {"require_tests", "false"}},
            "always()");
  // check may fail without stopping the steps above (the summary and the
  // README check still run); the job's colour is its verdict all the same.
  run_step(y, "The claim job is red when check is",
           "echo \"jetgate check found violations: see its step above\" >&2\nexit 1\n",
           "always() && steps.check.outcome == 'failure'");
  y << YAML::EndSeq << YAML::EndMap;
}

}  // namespace

std::string render_init_workflow(const InitOptions& o) {
  YAML::Emitter y;
  y.SetIndent(2);
  y << YAML::Comment(
      "Generated by `jetgate init` (docs/conditional-testing.md). Board jobs run on self-hosted "
      "Jetson runners;\nthe claim job decides, from their evidence, what the README may claim.");
  y << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << "jetson-gates";
  // "on" is a boolean to YAML 1.1 readers (PyYAML): quoted, it stays a key.
  y << YAML::Key << YAML::DoubleQuoted << "on" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "push" << YAML::Value << YAML::BeginMap << YAML::Key << "branches"
    << YAML::Value << YAML::Flow << YAML::BeginSeq << "main" << YAML::EndSeq;
  if (!o.coverage_paths.empty()) {
    // The gate's coverage paths, and what defines the gate: a push that
    // changes none of them does not occupy the boards (the schedule still
    // re-proves the claim).
    y << YAML::Key << "paths" << YAML::Value << YAML::BeginSeq;
    for (const auto& p : o.coverage_paths) y << p;
    y << kInitPolicyPath << kInitWorkflowPath << YAML::EndSeq;
  }
  y << YAML::EndMap;
  // Pull requests: the hosted preflight on every push to one; the boards only
  // when a maintainer labels it (board_condition).
  y << YAML::Key << "pull_request" << YAML::Value << YAML::BeginMap << YAML::Key << "types"
    << YAML::Value << YAML::Flow << YAML::BeginSeq << "opened"
    << "synchronize"
    << "reopened"
    << "labeled" << YAML::EndSeq << YAML::EndMap;
  y << YAML::Key << "schedule" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key
    << "cron" << YAML::Value << YAML::DoubleQuoted << o.cron << YAML::EndMap << YAML::EndSeq;
  y << YAML::Key << "workflow_dispatch" << YAML::Value << YAML::BeginMap << YAML::EndMap;
  y << YAML::EndMap;
  y << YAML::Key << "permissions" << YAML::Value << YAML::BeginMap << YAML::Key << "contents"
    << YAML::Value << "read" << YAML::Key << "checks" << YAML::Value << "write" << YAML::EndMap;
  y << YAML::Key << "env" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "JETGATE_REPO" << YAML::Value << o.jetgate_repo;
  y << YAML::Key << "JETGATE_REF" << YAML::Value << o.jetgate_ref;
  y << YAML::Key << "JETGATE_POLICY" << YAML::Value << kInitPolicyPath;
  y << YAML::EndMap;
  y << YAML::Key << "jobs" << YAML::Value << YAML::BeginMap;
  preflight_job(y, o);
  for (const auto& b : o.boards) {
    board_job(y, o, b);
    if (container_lane(o)) container_job(y, o, b);
  }
  claim_job(y, o);
  y << YAML::EndMap << YAML::EndMap;
  return std::string(y.c_str()) + "\n";
}

}  // namespace jetgate::init
