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

// No self-hosted job runs on `pull_request`: GitHub runs the workflow file of
// a pull request's merge commit, so a pull request could delete any `if:` that
// kept its code off a board. The boards run on push to main, the schedule and
// workflow_dispatch (only people with write access can dispatch), which may
// name a pull request whose head a maintainer wants on the boards
// (kInitPullRequestInput). GitHub's hardening guide:
// https://docs.github.com/en/actions/security-for-github-actions/security-guides/security-hardening-for-github-actions#hardening-for-self-hosted-runners
const std::string& checkout_ref() {
  static const std::string r =
      fmt::format("${{{{ inputs.{0} && format('refs/pull/{{0}}/head', inputs.{0}) || '' }}}}",
                  kInitPullRequestInput);
  return r;
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

// jetgate in every job: the pinned release, through the one composite action
// (kInitActionPath); no build, no package manager, no service on a board.
void install_steps(YAML::Emitter& y) {
  uses_step(y, "Install jetgate (the pinned release, checksum verified)",
            std::string("./") +
                std::string(kInitActionPath).substr(0, std::string(kInitActionPath).rfind('/')),
            {{"version", "${{ env.JETGATE_VERSION }}"},
             {"release-url", "${{ env.JETGATE_RELEASE_URL }}"},
             {"sha256-aarch64", "${{ env.JETGATE_SHA256_AARCH64 }}"},
             {"sha256-x86_64", "${{ env.JETGATE_SHA256_X86_64 }}"}});
}

// The token is not left in .git/config (a board keeps the checkout between
// jobs); a dispatched pull request's head when a maintainer named one.
void checkout(YAML::Emitter& y) {
  uses_step(y, "Check out (a pull request's head only when a maintainer dispatched it)",
            "actions/checkout@v4", {{"ref", checkout_ref()}, {"persist-credentials", "false"}});
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

// The script that makes the project's environment and runs a command in it,
// on the board and inside the container alike: a venv that sees the system's
// (or the image's) torch (--system-site-packages), the project installed with
// pip from a clean copy of the commit (the checkout stays clean for the
// evidence), pip constrained to the torch already there so it never replaces
// NVIDIA's build with a PyPI wheel. Usage: project-env.sh COPY VENV COMMAND...
std::string project_env_script(const InitOptions& o) {
  std::string words;
  for (const auto& w : o.pip_install) words += " '" + w + "'";
  return "#!/bin/bash\n"
         "set -euo pipefail\n"
         "copy=$1 venv=$2\n"
         "shift 2\n"
         "python3 -m venv --system-site-packages \"$venv\" 2>/dev/null ||\n"
         "  python3 -m venv --system-site-packages --without-pip \"$venv\"\n"
         "\"$venv/bin/python\" -m pip freeze --all 2>/dev/null |\n"
         "  grep -Ei '^(torch|torchvision|torchaudio)==' > \"$venv/keep-torch.txt\" || true\n"
         "(cd \"$copy\" && \"$venv/bin/python\" -m pip install --disable-pip-version-check "
         "-c \"$venv/keep-torch.txt\"" +
         words +
         ")\n"
         "PATH=\"$venv/bin:$PATH\" exec \"$@\"\n";
}

void project_env_step(YAML::Emitter& y, const InitOptions& o) {
  run_step(y, "The project's environment (a venv that keeps the system's torch)",
           "set -euo pipefail\n"
           "rm -rf \"$RUNNER_TEMP/project\"\n"
           "mkdir -p \"$RUNNER_TEMP/project\"\n"
           "git archive HEAD | tar -x -C \"$RUNNER_TEMP/project\"\n"
           "cat > \"$RUNNER_TEMP/project-env.sh\" <<'JETGATE_EOF'\n" +
               project_env_script(o) +
               "JETGATE_EOF\n"
               "chmod +x \"$RUNNER_TEMP/project-env.sh\"\n");
}

// A maintainer's dispatched run of a pull request's head: the evidence names
// the commit checked out, not the branch's head GITHUB_SHA names.
constexpr const char* kPullRequestSha =
    "if [ -n \"$JETGATE_PULL_REQUEST\" ]; then GITHUB_SHA=$(git rev-parse HEAD); export "
    "GITHUB_SHA; fi\n";

void board_job(YAML::Emitter& y, const InitOptions& o, const InitBoard& b) {
  const auto dir = board_evidence_dir(b, false);
  y << YAML::Key << job_id(b, false) << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << "Jetson gate on " + b.label + " (self-hosted)";
  runs_on(y, o, b);
  board_concurrency(y, b.label);
  y << YAML::Key << "timeout-minutes" << YAML::Value << 90;
  y << YAML::Key << "steps" << YAML::Value << YAML::BeginSeq;
  checkout(y);
  install_steps(y);
  run_step(y, "Platform facts", "jetgate probe");
  project_env_step(y, o);
  run_step(y, "Run the gate (probes and the project's tests) and write evidence",
           fmt::format("mkdir -p conditional-evidence test-reports\n{}"
                       "\"$RUNNER_TEMP/project-env.sh\" \"$RUNNER_TEMP/project\" "
                       "\"$RUNNER_TEMP/venv\" \\\n"
                       "  jetgate run {} --policy \"$JETGATE_POLICY\" --evidence-dir {} --junit "
                       "test-reports/jetgate-{}.xml\n",
                       kPullRequestSha, kInitGateId, dir, b.label));
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
             "jetgate container --first --kind jetpack > \"$RUNNER_TEMP/jetgate-image.txt\"\n"
             "echo \"image=$(cat \"$RUNNER_TEMP/jetgate-image.txt\")\" >> \"$GITHUB_OUTPUT\"\n",
             "", "image");
  project_env_step(y, o);
  // The release binary and the environment script go in read-only; the
  // container runs as the runner's user, so every file it writes in the
  // checkout is the runner's and the next checkout can clean it.
  y << YAML::BeginMap << YAML::Key << "name" << YAML::Value
    << "Run the same gate inside the container (as the runner's user)";
  y << YAML::Key << "env" << YAML::Value << YAML::BeginMap << YAML::Key << "JETGATE_IMAGE"
    << YAML::Value << "${{ steps.image.outputs.image }}" << YAML::EndMap;
  y << YAML::Key << "run" << YAML::Value << YAML::Literal
    << fmt::format(
           "mkdir -p conditional-evidence\n{}"
           "docker run --rm --runtime nvidia --user \"$(id -u):$(id -g)\" -e HOME=/tmp \\\n"
           "  -e GITHUB_SHA -e CI -e GITHUB_ACTIONS \\\n"
           "  -v /etc/nv_tegra_release:/etc/nv_tegra_release:ro \\\n"
           "  -v \"$JETGATE_BIN:/usr/local/bin/jetgate:ro\" \\\n"
           "  -v \"$RUNNER_TEMP/project-env.sh:/usr/local/bin/project-env:ro\" \\\n"
           "  -v \"$RUNNER_TEMP/project:/tmp/project\" \\\n"
           "  -v \"$PWD:/src\" -w /src \"$JETGATE_IMAGE\" \\\n"
           "  project-env /tmp/project /tmp/venv \\\n"
           "  jetgate run {} --policy \"$JETGATE_POLICY\" --evidence-dir {}\n",
           kPullRequestSha, kInitGateId, dir);
  y << YAML::EndMap;
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
  // Judged whenever the boards ran, even when one of them failed.
  emit_condition(y, "always()");
  y << YAML::Key << "runs-on" << YAML::Value << "ubuntu-24.04";
  // Only this job publishes a check (the test reports); every other job reads.
  y << YAML::Key << "permissions" << YAML::Value << YAML::BeginMap << YAML::Key << "contents"
    << YAML::Value << "read" << YAML::Key << "checks" << YAML::Value << "write" << YAML::EndMap;
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
           std::string("mkdir -p test-reports-all\n") + kPullRequestSha +
               "jetgate check --policy \"$JETGATE_POLICY\"" + dirs +
               " --candidate-sha \"$GITHUB_SHA\" --junit test-reports-all/jetgate-check.xml\n",
           "", "check", true);
  run_step(y, "Step summary",
           std::string(kPullRequestSha) + "jetgate summary --policy \"$JETGATE_POLICY\"" + dirs +
               " --candidate-sha \"$GITHUB_SHA\" >> \"$GITHUB_STEP_SUMMARY\"\n"
               "# A blank line first: right after the table a line would be one more row.\n"
               "printf '\\n%s\\n' \"The ARM64 preflight job is NOT a support claim.\" >> "
               "\"$GITHUB_STEP_SUMMARY\"\n",
           "always()");
  run_step(y, "The README claims only what the evidence backs (support --verify)",
           std::string(kPullRequestSha) + "jetgate support --policy \"$JETGATE_POLICY\"" + dirs +
               " --candidate-sha \"$GITHUB_SHA\" --readme README.md --verify\n");
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

// The install step, as bash runs it on a runner (`shell: bash`): the release
// tarball of the pinned version, its SHA-256 checked against the pinned one
// (or, unpinned, the .sha256 the release publishes, with a warning), unpacked
// into ~/.cache/jetgate/VERSION and kept there; a runner that has the version
// with the same checksum downloads nothing, and every other version in the
// cache is removed, so a version change replaces the binary. Nothing else is
// installed: no compiler, no package, no service.
std::string install_script() {
  return R"SH(set -euo pipefail
case "$JETGATE_VERSION" in
  ''|*[!A-Za-z0-9.+_-]*|.*) echo "::error::jetgate version '$JETGATE_VERSION' is not a release version (digits, letters, '.', '+', '_', '-')"; exit 1 ;;
esac
case "$(uname -m)" in
  aarch64|arm64) arch=aarch64; want="$JETGATE_SHA256_AARCH64" ;;
  x86_64|amd64) arch=x86_64; want="$JETGATE_SHA256_X86_64" ;;
  *) echo "::error::no jetgate release for $(uname -m) (aarch64 and x86_64 are built)"; exit 1 ;;
esac
name="jetgate-$JETGATE_VERSION-linux-$arch"
url="${JETGATE_RELEASE_URL%/}/$name.tar.gz"
root="$HOME/.cache/jetgate"
dir="$root/$JETGATE_VERSION"
if [ -z "$want" ]; then
  want=$(curl -fsSL --retry 3 "$url.sha256" | awk 'NR==1 {print $1}')
  echo "::warning::the jetgate $arch tarball's checksum is not pinned: using $url.sha256 ($want); pin it in the workflow's JETGATE_SHA256_${arch^^} (jetgate init --jetgate-sha256 $arch=$want)"
fi
if ! printf '%s' "$want" | grep -Eq '^[0-9a-f]{64}$'; then
  echo "::error::'$want' is not a SHA-256 (64 lowercase hex digits) for $name.tar.gz"
  exit 1
fi
mkdir -p "$root"
if [ -x "$dir/bin/jetgate" ] && [ "$(cat "$dir/.tarball-sha256" 2>/dev/null)" = "$want" ]; then
  echo "jetgate $JETGATE_VERSION ($arch): kept in $dir"
else
  tmp=$(mktemp -d "$root/.download.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  curl -fsSL --retry 3 -o "$tmp/$name.tar.gz" "$url"
  got=$(sha256sum "$tmp/$name.tar.gz" | awk '{print $1}')
  if [ "$got" != "$want" ]; then
    echo "::error::$url has SHA-256 $got, not the pinned $want: not installed"
    exit 1
  fi
  tar -xzf "$tmp/$name.tar.gz" -C "$tmp"
  [ -f "$tmp/$name/bin/jetgate" ] || { echo "::error::$name.tar.gz holds no $name/bin/jetgate"; exit 1; }
  printf '%s\n' "$want" > "$tmp/$name/.tarball-sha256"
  rm -rf "$dir"
  mv "$tmp/$name" "$dir"
  echo "jetgate $JETGATE_VERSION ($arch): installed in $dir from $url"
fi
for old in "$root"/*; do
  [ "$old" = "$dir" ] || rm -rf "$old"
done
if ! "$dir/bin/jetgate" --version; then
  glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null || echo "glibc unknown")
  echo "::error::$dir/bin/jetgate does not start here ($glibc). jetgate's release binaries need glibc 2.34 (JetPack 6 and later); for JetPack 5 (glibc 2.31) build a release tarball as docs/building.md says (JetPack 5) and point JETGATE_RELEASE_URL and the checksum at it"
  exit 1
fi
echo "$dir/bin" >> "$GITHUB_PATH"
echo "JETGATE_BIN=$dir/bin/jetgate" >> "$GITHUB_ENV"
)SH";
}

}  // namespace

// A coverage path as a push filter: a directory (written DIR/ or DIR/**) is
// every file under it, DIR/**; a file or a glob stays as it is.
std::string workflow_path_filter(const std::string& p) {
  if (!p.empty() && p.back() == '/') return p + "**";
  return p;
}

std::string release_url(const InitOptions& o) {
  if (o.jetgate_release_url) return *o.jetgate_release_url;
  auto repo = o.jetgate_repo;
  while (!repo.empty() && repo.back() == '/') repo.pop_back();
  return repo + "/releases/download/v" + o.jetgate_version;
}

std::vector<std::string> repository_safety_settings() {
  return {
      "Settings > Actions > General > \"Approval for running fork pull request workflows\": "
      "require approval for all external contributors (a pull request's own workflow file "
      "could otherwise reach a runner; "
      "https://docs.github.com/en/actions/managing-workflow-runs/"
      "approving-workflow-runs-from-public-forks)",
      "each board's runner registered ephemeral (./config.sh --ephemeral) or just-in-time, "
      "so no job leaves anything for the next "
      "(https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/"
      "autoscaling-with-self-hosted-runners#using-ephemeral-runners-for-autoscaling)",
      "the boards' runners in a runner group limited to this repository "
      "(https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/"
      "managing-access-to-self-hosted-runners-using-groups)",
      "main protected (a pull request review before merge): a push to main runs on the boards "
      "(https://docs.github.com/en/actions/security-for-github-actions/security-guides/"
      "security-hardening-for-github-actions#hardening-for-self-hosted-runners)"};
}

std::string render_init_workflow(const InitOptions& o) {
  YAML::Emitter y;
  y.SetIndent(2);
  y << YAML::Comment(
      "Generated by `jetgate init` (docs/conditional-testing.md). Board jobs run on self-hosted "
      "Jetson runners;\nthe claim job decides, from their evidence, what the README may claim. "
      "No job runs on\npull_request: a pull request's head reaches the boards only when a "
      "maintainer dispatches\nthis workflow with its number.");
  y << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << "jetson-gates";
  // "on" is a boolean to YAML 1.1 readers (PyYAML): quoted, it stays a key.
  y << YAML::Key << YAML::DoubleQuoted << "on" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "push" << YAML::Value << YAML::BeginMap << YAML::Key << "branches"
    << YAML::Value << YAML::Flow << YAML::BeginSeq << "main" << YAML::EndSeq;
  if (!o.coverage_paths.empty()) {
    // The gate's coverage paths, and what defines the gate: a push that
    // changes none of them does not occupy the boards (the schedule still
    // re-proves the claim). A directory D is D/** (every file under it).
    y << YAML::Key << "paths" << YAML::Value << YAML::BeginSeq;
    for (const auto& p : o.coverage_paths) y << workflow_path_filter(p);
    y << kInitPolicyPath << kInitWorkflowPath << kInitActionPath << YAML::EndSeq;
  }
  y << YAML::EndMap;
  y << YAML::Key << "schedule" << YAML::Value << YAML::BeginSeq << YAML::BeginMap << YAML::Key
    << "cron" << YAML::Value << YAML::DoubleQuoted << o.cron << YAML::EndMap << YAML::EndSeq;
  y << YAML::Key << "workflow_dispatch" << YAML::Value << YAML::BeginMap << YAML::Key << "inputs"
    << YAML::Value << YAML::BeginMap << YAML::Key << kInitPullRequestInput << YAML::Value
    << YAML::BeginMap << YAML::Key << "description" << YAML::Value
    << "Run the boards on this pull request's head (its number; review its code first: it "
       "runs on the boards)"
    // A string, not a number: actionlint builds before 1.6.26 refuse `type: number`.
    // The value reaches no script: the checkout's ref only, and JETGATE_PULL_REQUEST.
    << YAML::Key << "required" << YAML::Value << false << YAML::Key << "type" << YAML::Value
    << "string" << YAML::Key << "default" << YAML::Value << YAML::DoubleQuoted << "" << YAML::EndMap
    << YAML::EndMap << YAML::EndMap;
  y << YAML::EndMap;
  y << YAML::Key << "permissions" << YAML::Value << YAML::BeginMap << YAML::Key << "contents"
    << YAML::Value << "read" << YAML::EndMap;
  y << YAML::Key << "env" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "JETGATE_VERSION" << YAML::Value << YAML::DoubleQuoted << o.jetgate_version;
  y << YAML::Key << "JETGATE_RELEASE_URL" << YAML::Value << release_url(o);
  for (const auto& [arch, key] : std::vector<std::pair<std::string, std::string>>{
           {"aarch64", "JETGATE_SHA256_AARCH64"}, {"x86_64", "JETGATE_SHA256_X86_64"}}) {
    std::string sum;
    for (const auto& [a, h] : o.jetgate_sha256)
      if (a == arch) sum = h;
    y << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << sum;
  }
  y << YAML::Key << "JETGATE_POLICY" << YAML::Value << kInitPolicyPath;
  // Expressions reach scripts only through the environment, never spliced
  // into a run: line (actionlint's and zizmor's injection rules).
  y << YAML::Key << "JETGATE_PULL_REQUEST" << YAML::Value
    << fmt::format("${{{{ inputs.{} }}}}", kInitPullRequestInput);
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

std::string render_init_action(const InitOptions& o) {
  (void)o;
  YAML::Emitter y;
  y.SetIndent(2);
  y << YAML::Comment(
      "Generated by `jetgate init` (docs/conditional-testing.md): installs the pinned jetgate "
      "release\nin every job of .github/workflows/jetson-gates.yml.");
  y << YAML::BeginMap;
  y << YAML::Key << "name" << YAML::Value << "Install jetgate";
  y << YAML::Key << "description" << YAML::Value
    << "A pinned jetgate release, its checksum verified, kept per version in ~/.cache/jetgate";
  y << YAML::Key << "inputs" << YAML::Value << YAML::BeginMap;
  for (const auto& [k, d] : std::vector<std::pair<std::string, std::string>>{
           {"version", "The release (JETGATE_VERSION)"},
           {"release-url", "Where its tarballs are (JETGATE_RELEASE_URL)"},
           {"sha256-aarch64", "The aarch64 tarball's SHA-256 (empty: the release's .sha256)"},
           {"sha256-x86_64", "The x86_64 tarball's SHA-256 (empty: the release's .sha256)"}}) {
    y << YAML::Key << k << YAML::Value << YAML::BeginMap << YAML::Key << "description"
      << YAML::Value << d << YAML::Key << "required" << YAML::Value
      << (k == "version" || k == "release-url");
    if (k != "version" && k != "release-url")
      y << YAML::Key << "default" << YAML::Value << YAML::DoubleQuoted << "";
    y << YAML::EndMap;
  }
  y << YAML::EndMap;
  y << YAML::Key << "runs" << YAML::Value << YAML::BeginMap << YAML::Key << "using" << YAML::Value
    << "composite" << YAML::Key << "steps" << YAML::Value << YAML::BeginSeq;
  y << YAML::BeginMap << YAML::Key << "name" << YAML::Value
    << "Install jetgate (the pinned release, checksum verified, kept per version)";
  y << YAML::Key << "shell" << YAML::Value << "bash";
  y << YAML::Key << "env" << YAML::Value << YAML::BeginMap;
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"JETGATE_VERSION", "version"},
           {"JETGATE_RELEASE_URL", "release-url"},
           {"JETGATE_SHA256_AARCH64", "sha256-aarch64"},
           {"JETGATE_SHA256_X86_64", "sha256-x86_64"}})
    y << YAML::Key << k << YAML::Value << "${{ inputs." + v + " }}";
  y << YAML::EndMap;
  y << YAML::Key << "run" << YAML::Value << YAML::Literal << install_script();
  y << YAML::EndMap << YAML::EndSeq << YAML::EndMap;
  y << YAML::EndMap;
  return std::string(y.c_str()) + "\n";
}

}  // namespace jetgate::init
