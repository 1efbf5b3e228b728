// SPDX-License-Identifier: Apache-2.0
// `jetgate init`: the files it writes, that it never overwrites without
// --force, that the workflow is valid for GitHub (SchemaStore's schema) and
// that its jetgate lines parse, and the workflow's commands run step by step
// in a scratch repository (tests/fixtures/init/workflow_tool.py).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "jetgate/init/init_templates.hpp"
#include "test_support.hpp"

namespace jetgate::test {
namespace {

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

bool python_has(const char* modules) {
  return std::system(
             ("/usr/bin/python3 -c 'import " + std::string(modules) + "' 2>/dev/null").c_str()) ==
         0;
}

std::string tool() {
  return fixtures_dir() + "/init/workflow_tool.py";
}

int sh(const std::string& command) {
  return std::system(command.c_str());
}

// A scratch project: a git repository with a README that has the support block.
void make_project(const TempDir& t) {
  t.write("README.md",
          "# demo\n\n## Support\n\n<!-- jetgate:support:begin -->\n<!-- jetgate:support:end "
          "-->\n");
  t.write("tests/test_ok.py", "def test_ok():\n    assert True\n");
}

void commit(const TempDir& t) {
  ASSERT_EQ(sh("cd '" + t.dir() +
               "' && git init -q . && git add -A && git -c user.name=t -c user.email=t@t "
               "commit -qm init"),
            0);
}

TEST(InitTemplates, DefaultsRenderThreeFilesWithTheGate) {
  auto o = init::default_init_options();
  o.tracking_issue = "https://github.com/acme/robot/issues/7";
  o.boards = {{"agx-orin", std::string("Jetson AGX Orin 64GB")}, {"orin-nx", "p3767-0000"}};
  o.jetpacks = {"6.2", "6.0"};
  auto files = init::render_init_files(o);
  ASSERT_TRUE(files.ok()) << files.error().message();
  ASSERT_EQ(files->size(), 4u);
  auto policy = nlohmann::json::parse((*files)[0].text);
  const auto& gate = policy["gates"][0];
  EXPECT_EQ(gate["id"], "jetson-cuda-runtime");
  EXPECT_EQ(gate["x-tracking-issue"], o.tracking_issue);
  EXPECT_EQ(gate["requires"]["jetpack"]["min"], "6.0");
  EXPECT_EQ(gate["requires"]["jetpack"]["max"], "6.2");
  EXPECT_EQ(gate["requires"]["module"], nlohmann::json({"Jetson AGX Orin 64GB", "p3767-0000"}));
  EXPECT_EQ(gate["command"]["junit"], "test-reports/jetson-junit.xml");
  EXPECT_EQ(policy["maximum_evidence_age_days"], 14);
  EXPECT_TRUE(has(policy["cadence"].get<std::string>(), "17 4 * * 1"));
  const auto& wf = (*files)[1].text;
  EXPECT_TRUE(has(wf, "runs-on: [self-hosted, linux, ARM64, jetson, agx-orin]")) << wf;
  EXPECT_TRUE(has(wf, "runs-on: [self-hosted, linux, ARM64, jetson, orin-nx]"));
  EXPECT_TRUE(has(wf, "ubuntu-24.04-arm"));
  EXPECT_TRUE(has(wf, "NOT a Jetson support claim"));
  EXPECT_TRUE(has(wf, "cron: \"17 4 * * 1\""));
  EXPECT_TRUE(has(wf, "jetgate container --first --kind jetpack"));
  EXPECT_TRUE(has(wf, "jetgate-evidence-agx-orin-container"));
  // Inside the container jetgate still knows it runs under GitHub Actions
  // (annotations; controls in visible form on the runner's log).
  EXPECT_TRUE(has(wf, "  -e GITHUB_SHA -e CI -e GITHUB_ACTIONS \\\n")) << wf;
  // As the runner's user: what it writes in the checkout, the next checkout can clean.
  EXPECT_TRUE(has(wf, "docker run --rm --runtime nvidia --user \"$(id -u):$(id -g)\""));
  const auto& docs = (*files)[2].text;
  EXPECT_TRUE(has(docs, "| 6.2 | 36.4.")) << docs;
  EXPECT_TRUE(has(docs, "nvcr.io/nvidia/l4t-jetpack:r36.4.0"));
  EXPECT_TRUE(has(docs, "NOT a support claim"));
  EXPECT_TRUE(has(docs, "## Add a board"));
}

// docs/conditional-testing.md's example command; its output is in docs/examples/.
init::InitOptions docs_example_options() {
  auto o = init::default_init_options();
  o.boards = {{"agx-orin", std::string("p3701-0005")}, {"orin-nano", std::nullopt}};
  o.jetpacks = {"6.2"};
  o.tracking_issue = "https://github.com/acme/robot/issues/7";
  o.test_command = {"python3", "-m", "pytest", "--junitxml=test-reports/jetson-junit.xml",
                    "tests/gpu"};
  return o;
}

TEST(InitTemplates, DocsExamplesAreWhatInitWrites) {
  auto files = init::render_init_files(docs_example_options());
  ASSERT_TRUE(files.ok());
  EXPECT_EQ(read_file(source_dir() + "/docs/examples/init-policy.json"), (*files)[0].text)
      << "regenerate docs/examples/init-policy.json with the command in "
         "docs/conditional-testing.md";
  EXPECT_EQ(read_file(source_dir() + "/docs/examples/jetson-gates.yml"), (*files)[1].text);
  EXPECT_EQ(read_file(source_dir() + "/docs/examples/install-jetgate/action.yml"),
            (*files)[3].text);
}

// The workflow builds jetgate on the board; JetPack 5's GCC 9.4 cannot, so
// init refuses instead of writing an install step that fails on every run.
TEST(InitTemplates, JetPack5IsRefusedWithTheWayThatWorks) {
  auto o = init::default_init_options();
  for (const char* jp : {"5.1.2", "5.1", "4.6.4"}) {
    o.jetpacks = {jp, "6.2"};
    auto st = init::validate_init_options(o);
    ASSERT_FALSE(st.ok()) << jp;
    EXPECT_EQ(st.error().where, "--jetpack");
    EXPECT_TRUE(has(st.error().what, std::string("JetPack ") + jp)) << st.error().what;
    EXPECT_TRUE(has(st.error().what, "docs/building.md")) << st.error().what;
    EXPECT_TRUE(has(st.error().hint, "release binary")) << st.error().hint;
    EXPECT_FALSE(init::render_init_files(o).ok()) << jp;
  }
  TempDir t;
  auto r = run_jetgate({"init", "--dir", t.dir(), "--jetpack", "5.1.2"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "cannot build jetgate")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(t.path(".github/workflows/jetson-gates.yml")));
  o.jetpacks = {"6.0", "6.2"};
  auto files = init::render_init_files(o);
  ASSERT_TRUE(files.ok());
  EXPECT_TRUE(has((*files)[1].text, "container-jetson-orin"));
  o.image = "nvcr.io/nvidia/l4t-jetpack:r36.4.0";
  o.jetpacks = {"6.1"};
  files = init::render_init_files(o);
  ASSERT_TRUE(files.ok());
  EXPECT_TRUE(has((*files)[1].text, "image=nvcr.io/nvidia/l4t-jetpack:r36.4.0"));
}

// Each board runs one job at a time; jetgate is the pinned release (no
// build, so no cache key of a commit); the preflight installs into a venv
// (PEP 668) and, hosted, has no condition.
TEST(InitTemplates, BoardsRunOneAtATimeOnThePinnedRelease) {
  auto o = init::default_init_options();
  o.boards = {{"agx-orin", std::nullopt}, {"orin-nano", std::nullopt}};
  auto files = init::render_init_files(o);
  ASSERT_TRUE(files.ok());
  const auto& wf = (*files)[1].text;
  EXPECT_TRUE(has(wf,
                  "concurrency:\n      group: jetson-board-agx-orin\n      "
                  "cancel-in-progress: false"))
      << wf;
  EXPECT_TRUE(has(wf, "group: jetson-board-orin-nano"));
  EXPECT_FALSE(has(wf, "JETGATE_REF")) << "no branch is built on a board";
  EXPECT_TRUE(has(wf, "JETGATE_VERSION: \"" + o.jetgate_version + "\""));
  EXPECT_TRUE(has(wf, "python3 -m venv .preflight-venv")) << wf;
  EXPECT_FALSE(has(wf, "run: python3 -m pip install"));
  auto preflight = wf.substr(wf.find("preflight-arm64:"),
                             wf.find("jetson-agx-orin:") - wf.find("preflight-arm64:"));
  EXPECT_FALSE(has(preflight, "if:")) << preflight;
}

// Push runs the boards only for changes the gate covers, when it names them.
TEST(InitTemplates, CoveragePathsFilterPushesAndAreTheGatesOwn) {
  auto o = init::default_init_options();
  auto files = init::render_init_files(o);
  ASSERT_TRUE(files.ok());
  EXPECT_TRUE(has((*files)[1].text, "  push:\n    branches: [main]\n  schedule:"));
  o.coverage_paths = {"src/robot/cuda_ops.py", "tests/gpu/test_ops.py"};
  files = init::render_init_files(o);
  ASSERT_TRUE(files.ok()) << files.error().message();
  auto policy = nlohmann::json::parse((*files)[0].text);
  EXPECT_EQ(policy["gates"][0]["coverage_paths"],
            nlohmann::json({"src/robot/cuda_ops.py", "tests/gpu/test_ops.py"}));
  const auto& wf = (*files)[1].text;
  EXPECT_TRUE(has(wf,
                  "    paths:\n      - src/robot/cuda_ops.py\n      - tests/gpu/test_ops.py\n"
                  "      - ci/conditional-test-policy.json\n"
                  "      - .github/workflows/jetson-gates.yml\n"
                  "      - .github/actions/install-jetgate/action.yml\n"))
      << wf;
  for (const char* bad : {"../outside.py", "/etc/passwd", "-rf"}) {
    o.coverage_paths = {bad};
    auto st = init::validate_init_options(o);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_EQ(st.error().where, "--coverage-path") << bad;
  }
}

// --coverage-path takes a directory (every file under it: DIR/** in the
// policy and in the push filter, as GitHub reads `paths:`) and globs; check
// says "is a directory" where a policy names a bare directory.
TEST(InitCli, CoveragePathsTakeDirectoriesAndGlobs) {
  TempDir t;
  make_project(t);
  t.write("src/acme/ops.py", "x = 1\n");
  auto r = run_jetgate({"init", "--dir", t.dir(), "--coverage-path", "src/acme", "--coverage-path",
                        "tests/**/test_*.py"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto wf = read_file(t.path(".github/workflows/jetson-gates.yml"));
  EXPECT_TRUE(has(wf, "    paths:\n      - src/acme/**\n      - tests/**/test_*.py\n")) << wf;
  auto policy = nlohmann::json::parse(read_file(t.path("ci/conditional-test-policy.json")));
  EXPECT_EQ(policy["gates"][0]["coverage_paths"],
            nlohmann::json({"src/acme/**", "tests/**/test_*.py"}));
  auto ok = run_jetgate(
      {"check", "--policy", t.path("ci/conditional-test-policy.json"), "--repo-root", t.dir()});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  // A bare directory in a policy: said as what it is, with the way to write it.
  policy["gates"][0]["coverage_paths"] = {"src/acme", "src/nothing/*.py"};
  t.write("ci/conditional-test-policy.json", policy.dump(2));
  auto bad = run_jetgate(
      {"check", "--policy", t.path("ci/conditional-test-policy.json"), "--repo-root", t.dir()});
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_TRUE(has(bad.out + bad.err, "src/acme, which is a directory")) << bad.out << bad.err;
  EXPECT_TRUE(has(bad.out + bad.err, "write src/acme/**")) << bad.out << bad.err;
  EXPECT_FALSE(has(bad.out + bad.err, "missing source path: src/acme")) << bad.out << bad.err;
  EXPECT_TRUE(has(bad.out + bad.err, "glob that matches no file: src/nothing/*.py"))
      << bad.out << bad.err;
}

TEST(InitTemplates, BadOptionsNameTheOption) {
  auto check = [](auto change, const char* option) {
    auto o = init::default_init_options();
    change(o);
    auto st = init::validate_init_options(o);
    ASSERT_FALSE(st.ok()) << option;
    EXPECT_EQ(st.error().where, option) << st.error().message();
  };
  check([](auto& o) { o.boards = {{"AGX Orin", std::nullopt}}; }, "--board");
  check([](auto& o) { o.boards = {{"agx", std::string("Jetson Banana")}}; }, "--board");
  check([](auto& o) { o.boards = {{"a", std::nullopt}, {"a", std::nullopt}}; }, "--board");
  check([](auto& o) { o.jetpacks = {"9.9"}; }, "--jetpack");
  check([](auto& o) { o.runner_labels = {"self hosted"}; }, "--runner-label");
  check([](auto& o) { o.test_junit = "../out.xml"; }, "--test-junit");
  check([](auto& o) { o.test_junit = "/tmp/out.xml"; }, "--test-junit");
  check([](auto& o) { o.tracking_issue = "https://example.com/7"; }, "--tracking-issue");
  check([](auto& o) { o.cron = "weekly"; }, "--cron");
  check([](auto& o) { o.image = "no-tag"; }, "--image");
  check([](auto& o) { o.repository = "not a repo"; }, "--repository");
  check([](auto& o) { o.test_command = {"py\xfftest"}; }, "--test-command");
}

TEST(InitCli, WritesNothingOverAnExistingFileWithoutForce) {
  TempDir t;
  make_project(t);
  t.write("ci/conditional-test-policy.json", "{\"mine\": true}\n");
  auto r = run_jetgate({"init", "--dir", t.dir()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(has(r.out, "ci/conditional-test-policy.json: exists, kept")) << r.out;
  EXPECT_EQ(read_file(t.path("ci/conditional-test-policy.json")), "{\"mine\": true}\n");
  EXPECT_TRUE(std::filesystem::exists(t.path(".github/workflows/jetson-gates.yml")));
  r = run_jetgate({"init", "--dir", t.dir(), "--force"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(read_file(t.path("ci/conditional-test-policy.json")), "jetson-cuda-runtime"));
  EXPECT_EQ(run_jetgate({"init", "--dir", t.dir(), "--board", "Bad Label", "--force"}).exit_code,
            2);
  EXPECT_EQ(run_jetgate({"init", "--dir", t.path("missing")}).exit_code, 2);
}

TEST(InitCli, WorkflowIsValidForGitHubAndEveryJetgateLineParses) {
  if (!python_has("yaml, jsonschema"))
    GTEST_SKIP() << "python3-yaml or python3-jsonschema is not installed (CI installs them)";
  TempDir t;
  make_project(t);
  auto r = run_jetgate({"init", "--dir", t.dir(), "--board", "agx-orin=p3701-0005", "--board",
                        "orin-nano", "--jetpack", "6.2", "--tracking-issue",
                        "https://github.com/acme/robot/issues/7"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto wf = t.path(".github/workflows/jetson-gates.yml");
  auto schema = fixtures_dir() + "/schemas/github-workflow.json";
  EXPECT_EQ(sh("/usr/bin/python3 " + tool() + " validate " + wf + " " + schema), 0);
  EXPECT_EQ(sh("/usr/bin/python3 " + tool() + " parse " + wf + " " + jetgate_command()), 0);
  // The checker can fail: a workflow without jobs is not valid.
  auto broken = t.write("broken.yml", "name: x\n\"on\": push\n");
  EXPECT_NE(sh("/usr/bin/python3 " + tool() + " validate " + broken + " " + schema + " >/dev/null"),
            0);
}

// A misspelt option or command is named with the nearest one (core/did_you_mean).
TEST(InitCli, MisspeltFlagsAndCommandsSayTheNearest) {
  TempDir t;
  auto r = run_jetgate({"init", "--dir", t.dir(), "--bord", "agx-orin"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "jetgate init: unknown option --bord (did you mean --board?)")) << r.err;
  r = run_jetgate({"check", "--polcy=p.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "unknown option --polcy (did you mean --policy?)")) << r.err;
  r = run_jetgate({"chek", "--policy", "p.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(has(r.err, "unknown command chek (did you mean check?)")) << r.err;
  // Nothing near: no guess.
  r = run_jetgate({"init", "--dir", t.dir(), "--zzzzzzzz"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(has(r.err, "did you mean")) << r.err;
}

TEST(InitCli, ParseOnlyModeReportsUsageErrors) {
  auto ok = run_jetgate({"check", "--policy", "p.json"}, {"JETGATE_PARSE_ONLY=1"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  auto bad = run_jetgate({"check", "--polcy", "p.json"}, {"JETGATE_PARSE_ONLY=1"});
  EXPECT_EQ(bad.exit_code, 2);
}

// Done when: init, then the generated workflow's commands, job by job; on this
// machine (no Jetson) the gate is honestly not run, nothing is claimed, and
// `support --verify` holds.
TEST(InitCli, GeneratedWorkflowRunsStepByStepInAScratchRepo) {
  if (!python_has("yaml")) GTEST_SKIP() << "python3-yaml is not installed (CI installs it)";
  TempDir t;
  make_project(t);
  auto r = run_jetgate({"init", "--dir", t.dir(), "--board", "agx-orin", "--jetpack", "6.2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  commit(t);
  EXPECT_EQ(sh("/usr/bin/python3 " + tool() + " e2e " + t.dir() + " " + jetgate_command() + " " +
               JETGATE_FAKE_CUDA),
            0);
}

// Issue 43, item 3: the board job, step by step as a runner runs it, for a
// pytest project whose tests import the project (a src/ layout: importable
// only once pip has installed it). The job's venv keeps the system's
// packages, the project is installed from a clean copy of the commit, and
// the gate's command passes. The gate's requirements and probes are taken
// out (this machine is no Jetson), so the project's own tests run.
TEST(InitCli, TheBoardJobRunsAPytestProjectThatNeedsInstalling) {
  if (!python_has("yaml, setuptools, pytest"))
    GTEST_SKIP() << "python3-yaml, python3-setuptools or python3-pytest is missing";
  TempDir t;
  t.write("README.md", "# acme\n");
  t.write(".gitignore", "conditional-evidence/\ntest-reports/\n");
  t.write("pyproject.toml",
          "[build-system]\nrequires = [\"setuptools\"]\nbuild-backend = "
          "\"setuptools.build_meta\"\n\n[project]\nname = \"acme-robot\"\nversion = "
          "\"0.1.0\"\n\n[tool.setuptools.packages.find]\nwhere = [\"src\"]\n");
  t.write("src/acme_robot/__init__.py", "def answer():\n    return 42\n");
  t.write("tests/test_acme.py",
          "import acme_robot\n\n\ndef test_answer():\n    assert acme_robot.answer() == 42\n");
  // Offline here: the build backend is the system's (no build isolation), no index.
  auto r = run_jetgate({"init", "--dir", t.dir(), "--board", "agx-orin", "--pip-install",
                        "--no-build-isolation --no-index ."});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto policy = nlohmann::json::parse(read_file(t.path("ci/conditional-test-policy.json")));
  policy["gates"][0].erase("requires");
  policy["gates"][0].erase("probes");
  t.write("ci/conditional-test-policy.json", policy.dump(2) + "\n");
  commit(t);
  // Without the job's install the tests cannot import the project.
  EXPECT_NE(sh("cd '" + t.dir() + "' && /usr/bin/python3 -c 'import acme_robot' 2>/dev/null"), 0);
  EXPECT_EQ(sh("/usr/bin/python3 " + tool() + " board " + t.dir() + " " + test::jetgate_command() +
               " " + JETGATE_FAKE_CUDA),
            0);
  // The checkout stays clean for the evidence: the venv and the copy are in RUNNER_TEMP.
  EXPECT_FALSE(std::filesystem::exists(t.path("build")));
  EXPECT_FALSE(std::filesystem::exists(t.path("src/acme_robot.egg-info")));
}

// A project that already has ci/conditional-test-policy.json keeps it; when it
// has no runnable jetson-cuda-runtime, init says so and prints the gate to merge.
TEST(InitCli, AKeptPolicyWithoutTheGateIsSaidWithTheGateToMerge) {
  TempDir t;
  make_project(t);
  t.write("ci/conditional-test-policy.json",
          read_file(fixtures_dir() + "/gates/obliteratus/ci/"
                                     "conditional-test-policy.json"));
  auto r = run_jetgate({"init", "--dir", t.dir(), "--board", "agx-orin", "--jetpack", "6.2"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "ci/conditional-test-policy.json: exists, kept")) << r.out;
  EXPECT_TRUE(has(r.err, "has no gate jetson-cuda-runtime with probes or a command")) << r.err;
  auto json_at = r.err.find('{');
  ASSERT_NE(json_at, std::string::npos) << r.err;
  auto gate = nlohmann::json::parse(r.err.substr(json_at), nullptr, false);
  ASSERT_FALSE(gate.is_discarded()) << r.err;
  EXPECT_EQ(gate["id"], "jetson-cuda-runtime");
  EXPECT_TRUE(gate.contains("probes") && gate.contains("command")) << gate.dump();
  // A kept policy that does define the gate: nothing to say.
  TempDir ok;
  make_project(ok);
  ASSERT_EQ(run_jetgate({"init", "--dir", ok.dir(), "--board", "agx-orin"}).exit_code, 0);
  auto again = run_jetgate({"init", "--dir", ok.dir(), "--board", "agx-orin"});
  EXPECT_EQ(again.exit_code, 1);  // kept files
  EXPECT_FALSE(has(again.err, "has no gate")) << again.err;
}

// Issue "Holds means the project's own gate ran", done-when: the claim job of
// the workflow init writes, run step by step over two days, two boards and two
// lanes each, on evidence as the board jobs would upload it: green while every
// lane passes (and a day later with nothing changed), red naming the board and
// lane when one fails, red naming the lane when one uploads nothing.
TEST(InitCli, SimulatedTwoDaysTwoBoardsTwoLanes) {
  if (!python_has("yaml")) GTEST_SKIP() << "python3-yaml is not installed (CI installs it)";
  TempDir t;
  make_project(t);
  auto r = run_jetgate({"init", "--dir", t.dir(), "--board", "agx-orin", "--board", "agx-orin-2",
                        "--jetpack", "6.2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  commit(t);
  EXPECT_EQ(sh("/usr/bin/python3 " + tool() + " simulate " + t.dir() + " " + jetgate_command()), 0);
}

}  // namespace
}  // namespace jetgate::test
