// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include "jetgate/evidence/evidence.hpp"
#include "jetgate/gate/gate_runner.hpp"
#include "jetgate/policy/gate_definition.hpp"
#include "test_support.hpp"

namespace jetgate::gate {
// The policy model these tests build gates from.
using namespace jetgate::policy;  // NOLINT(google-build-using-namespace)
namespace {

using evidence::GateStatus;
using probes::ProbeResult;
using probes::ProbeStatus;

const std::string kSha = "0123456789abcdef0123456789abcdef01234567";

ProbeResult probe(const std::string& id, ProbeStatus st,
                  std::map<std::string, double> values = {}) {
  ProbeResult r;
  r.id = id;
  r.status = st;
  r.reason = "measured";
  for (const auto& [k, v] : values) r.values[k] = {v, "fraction"};
  return r;
}

nlohmann::json jetson_platform() {
  return {{"arch", "aarch64"}, {"tegra", {{"is_tegra", true}, {"l4t", "36.4.3"}}}};
}

nlohmann::json gpu_with_device() {
  return {{"driver", {{"loaded", true}, {"version", "12.6"}}},
          {"device_count", 1},
          {"devices", {{{"name", "Orin"}, {"total_memory_bytes", 64LL << 30}}}}};
}

// Fakes for everything outside: recorded facts, canned probe results.
struct Fakes {
  nlohmann::json platform = jetson_platform();
  std::vector<facts::Warning> platform_warnings;
  nlohmann::json gpu = gpu_with_device();
  std::vector<ProbeResult> cuda_probes;
  ProbeResult python = probe("python_runtime", ProbeStatus::pass);
  int cuda_calls = 0;
  probes::CudaOptions last_cuda_options;

  RunDeps deps() {
    RunDeps d;
    d.platform = [this](const std::string&) { return PlatformFacts{platform, platform_warnings}; };
    d.cuda = [this](const probes::CudaOptions& o) {
      ++cuda_calls;
      last_cuda_options = o;
      probes::CudaSection s;
      s.gpu = gpu;
      for (const auto& p : cuda_probes)
        if (std::find(o.only.begin(), o.only.end(), p.id) != o.only.end()) s.probes.push_back(p);
      return s;
    };
    d.python = [this](const probes::PythonOptions&) {
      probes::PythonRuntime rt;
      rt.facts = {{"torch", {{"cuda_available", true}}}};
      rt.result = python;
      return rt;
    };
    d.process = proc::run_process;
    d.git_sha = [](const std::string&) {
      evidence::GitSha s;
      s.sha = kSha;
      return s;
    };
    d.git_state = [](const std::string&) { return evidence::GitState{kSha, false, {}}; };
    d.now = [] { return std::string("2026-11-29T16:23:05Z"); };
    d.interrupted = [] { return 0; };
    return d;
  }
};

Gate gate_from(const std::string& json) {
  auto p = parse_policy(
      R"({"schema_version": 1, "owner": "o", "cadence": "c", "evidence_retention_days": 9,
      "maximum_evidence_age_days": 9, "gates": [)" +
          json + "]}",
      "p.json", ".");
  EXPECT_TRUE(p.ok());
  EXPECT_TRUE(p->issues.empty()) << p->issues.at(0).line();
  return p->policy.gates.at(0);
}

RunOutcome run(const Gate& g, Fakes& f, const test::TempDir& t) {
  Policy policy;
  policy.source = "p.json";
  policy.repo_root = t.dir();
  RunOptions o;
  o.evidence_dir = t.path("evidence");
  auto r = run_gate(g, {}, policy, o, f.deps());
  EXPECT_TRUE(r.ok()) << r.error().message();
  return r.ok() ? *r : RunOutcome{};
}

const char* kJetsonGate = R"({"id": "jetson-cuda-runtime",
    "requires": {"arch": "aarch64", "is_tegra": true, "l4t": {"min": "36.0"}, "cuda": true, "min_memory_gib": 8},
    "probes": [{"probe": "launch", "status": "PASS"},
               {"probe": "bandwidth", "metric": "d2d_fraction_of_peak", "min": 0.8},
               {"probe": "sync_path", "metric": "sync_blocking_sync_cpu_fraction", "max": 0.1},
               {"probe": "python_runtime", "status": "PASS"}]})";

void add_good_probes(Fakes& f) {
  f.cuda_probes = {
      probe("launch", ProbeStatus::pass),
      probe("bandwidth", ProbeStatus::pass, {{"d2d_fraction_of_peak", 0.8}}),
      probe("sync_path", ProbeStatus::warn, {{"sync_blocking_sync_cpu_fraction", 0.1}})};
}

TEST(GateRunTest, ProbesAtTheirThresholdsPass) {
  test::TempDir t;
  Fakes f;
  add_good_probes(f);
  auto out = run(gate_from(kJetsonGate), f, t);
  EXPECT_EQ(out.exit_code, 0) << out.evidence.reason;
  EXPECT_EQ(out.evidence.status, GateStatus::passed);
  EXPECT_EQ(out.evidence.counts.tests, 4);  // one per probe: consistent for `check`
  EXPECT_EQ(f.last_cuda_options.only,
            (std::vector<std::string>{"launch", "bandwidth", "sync_path"}));
  EXPECT_TRUE(f.last_cuda_options.run_probes);
  auto back = evidence::read_evidence(out.path);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->git_sha, kSha);
  EXPECT_EQ(back->extra["probes"]["bandwidth"]["status"], "PASS");
  EXPECT_EQ(back->extra["python"]["torch"]["cuda_available"], true);
  EXPECT_EQ(back->extra["platform"]["tegra"]["l4t"], "36.4.3");
  EXPECT_EQ(back->extra["requirements"].size(), 5u);
  EXPECT_TRUE(back->extra.contains("jetgate"));
  // The gate's evidence is the probe document's head plus the gate's fields.
  EXPECT_EQ(back->extra["facts_source"], "live");
  EXPECT_EQ(back->extra["root"], "/");
  EXPECT_TRUE(back->extra["jetgate"].contains("kernels"));
  // One check row per requirement and per probe, all passing.
  ASSERT_EQ(back->extra["checks"].size(), 5u + 4u) << back->extra["checks"].dump(1);
  for (const auto& c : back->extra["checks"])
    EXPECT_TRUE(c["status"] == "PASS" || c["status"] == "WARN") << c.dump();
}

// run's evidence goes through the same facts-meet-GPU step as probe's document: inside
// a JetPack container, /platform/container/l4t_check is there too.
TEST(GateRunTest, EvidenceInsideAContainerCarriesTheL4tCheck) {
  test::TempDir t;
  Fakes f;
  add_good_probes(f);
  f.platform["kernel"] = {{"release", "5.15.148-tegra"}};
  f.platform["cuda"] = {{"toolkit_version", "12.6.68"}};
  f.platform["container"] = {{"detected", true},
                             {"image_l4t", "35.4.1"},
                             {"host_l4t", nullptr},
                             {"host_l4t_majors", {36}}};
  auto out = run(gate_from(kJetsonGate), f, t);
  auto back = evidence::read_evidence(out.path);
  ASSERT_TRUE(back.ok()) << back.error().message();
  const auto& check = back->extra["platform"]["container"]["l4t_check"];
  ASSERT_TRUE(check.is_object()) << back->extra["platform"].dump(1);
  EXPECT_EQ(check["status"], "FAIL") << check.dump(1);
}

// In a container whose driver library did not arrive, the evidence's /notes name the
// injection to check, not only "install the driver" (issue 40); on a machine itself no
// such note is added.
TEST(GateRunTest, NoDriverInAContainerNamesTheInjectionInTheNotes) {
  for (bool contained : {true, false}) {
    test::TempDir t;
    Fakes f;
    f.platform["container"] = {{"detected", contained}};
    f.gpu = {{"driver", {{"loaded", false}, {"error", "libcuda.so.1 not found"}}}};
    auto out = run(gate_from(kJetsonGate), f, t);
    auto back = evidence::read_evidence(out.path);
    ASSERT_TRUE(back.ok()) << back.error().message();
    const std::string notes = back->extra.value("notes", nlohmann::json::array()).dump();
    EXPECT_EQ(notes.find("runtimeClassName") != std::string::npos, contained) << notes;
    EXPECT_EQ(notes.find("nvidia.com/gpu resource") != std::string::npos, contained) << notes;
  }
}

// /warnings has one shape everywhere: run writes the {fact, source, message} objects
// probe writes, for the facts' warnings and for its own.
TEST(GateRunTest, WarningsHaveTheShapeProbeWrites) {
  test::TempDir t;
  Fakes f;
  add_good_probes(f);
  f.platform_warnings = {{"/platform/tegra/l4t", "/etc/nv_tegra_release", "unreadable"}};
  auto out = run(gate_from(kJetsonGate), f, t);
  auto back = evidence::read_evidence(out.path);
  ASSERT_TRUE(back.ok()) << back.error().message();
  const auto& w = back->extra["warnings"];
  ASSERT_TRUE(w.is_array());
  ASSERT_FALSE(w.empty());
  for (const auto& x : w) {
    ASSERT_TRUE(x.is_object()) << x.dump();
    EXPECT_TRUE(x["fact"].is_string() && x["source"].is_string() && x["message"].is_string())
        << x.dump();
  }
  EXPECT_EQ(w[0]["fact"], "/platform/tegra/l4t");
  EXPECT_EQ(w[0]["source"], "/etc/nv_tegra_release");
  ASSERT_EQ(out.warnings.size(), w.size());
}

TEST(GateRunTest, MissedThresholdsFailWithReasons) {
  test::TempDir t;
  Fakes f;
  add_good_probes(f);
  f.cuda_probes[1].values["d2d_fraction_of_peak"].value = 0.79;
  f.cuda_probes[2].values.clear();
  f.python = probe("python_runtime", ProbeStatus::warn);
  auto out = run(gate_from(kJetsonGate), f, t);
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_EQ(out.evidence.status, GateStatus::failed);
  EXPECT_EQ(out.evidence.counts.failures, 3);
  EXPECT_NE(out.evidence.reason.find(
                "d2d_fraction_of_peak = 0.79 fraction misses d2d_fraction_of_peak >= 0.8"),
            std::string::npos)
      << out.evidence.reason;
  EXPECT_NE(out.evidence.reason.find("did not report sync_blocking_sync_cpu_fraction"),
            std::string::npos);
  EXPECT_NE(out.evidence.reason.find("python_runtime: status is WARN, the gate requires PASS"),
            std::string::npos);
}

// A floor with a "when" holds on the module and power mode it names, read
// from the platform facts the run collected, and nowhere else.
TEST(GateRunTest, AFloorForOneModuleAppliesOnThatModuleOnly) {
  const char* gate = R"({"id": "g", "requires": {"cuda": true},
    "probes": [{"probe": "bandwidth", "metric": "d2d_fraction_of_peak", "min": 0.5},
               {"probe": "bandwidth", "metric": "d2d_fraction_of_peak", "min": 0.75,
                "when": {"module": "p3701-0005", "power_mode": ["MAXN", "0"]}}]})";
  auto run_on = [&](const nlohmann::json& part, const nlohmann::json& mode) {
    test::TempDir t;
    Fakes f;
    f.platform["tegra"]["part_number"] = part;
    f.platform["power"] = {{"nvpmodel", {{"mode_name", mode}, {"mode_id", 3}}}};
    f.cuda_probes = {probe("bandwidth", ProbeStatus::pass, {{"d2d_fraction_of_peak", 0.7}})};
    return run(gate_from(gate), f, t);
  };
  auto on_module = run_on("P3701-0005", "MAXN");
  EXPECT_EQ(on_module.exit_code, 1);
  EXPECT_NE(on_module.evidence.reason.find("misses d2d_fraction_of_peak >= 0.75 (the gate's floor "
                                           "for module in [p3701-0005] and power_mode in [MAXN, "
                                           "0])"),
            std::string::npos)
      << on_module.evidence.reason;
  EXPECT_EQ(run_on("p3701-0004", "MAXN").exit_code, 0);   // another module
  EXPECT_EQ(run_on("p3701-0005", "15W").exit_code, 0);    // another power mode
  EXPECT_EQ(run_on("p3701-0005", nullptr).exit_code, 0);  // mode unknown
  EXPECT_EQ(run_on("p3701-00050", "MAXN").exit_code, 0);  // whole match, not prefix
}

TEST(GateRunTest, ProbeThatDidNotRunCountsAsSkippedAndFails) {
  test::TempDir t;
  Fakes f;
  add_good_probes(f);
  f.cuda_probes[0].status = ProbeStatus::not_run;
  auto out = run(gate_from(kJetsonGate), f, t);
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_EQ(out.evidence.counts.skipped, 1);
}

TEST(GateRunTest, UnmetPlatformRequirementsAreNotRunWithoutTouchingTheGpu) {
  test::TempDir t;
  Fakes f;
  f.platform = {{"arch", "x86_64"}, {"tegra", {{"is_tegra", false}, {"l4t", nullptr}}}};
  auto out = run(gate_from(kJetsonGate), f, t);
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_EQ(out.evidence.status, GateStatus::not_run);
  EXPECT_EQ(f.cuda_calls, 0);
  EXPECT_EQ(out.evidence.reason,
            "requirements not met: arch in [aarch64] (arch is x86_64); is_tegra = true (is_tegra "
            "is false); "
            "an L4T release >= 36.0 (no L4T release detected)");
  EXPECT_TRUE(evidence::read_evidence(out.path).ok());  // not_run evidence is still written
}

TEST(GateRunTest, NoCudaDriverIsNotRun) {
  test::TempDir t;
  Fakes f;
  f.gpu = {
      {"driver", {{"loaded", false}, {"error", "libcuda.so.1: cannot open shared object file"}}},
      {"device_count", 0}};
  auto out = run(gate_from(kJetsonGate), f, t);
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_NE(out.evidence.reason.find("a CUDA driver and device (no CUDA driver: libcuda.so.1"),
            std::string::npos)
      << out.evidence.reason;
}

TEST(GateRunTest, L4tRangeAndMemoryBounds) {
  test::TempDir t;
  Fakes f;
  add_good_probes(f);
  f.platform["tegra"]["l4t"] = "35.6.0";
  EXPECT_EQ(run(gate_from(kJetsonGate), f, t).exit_code, 2);
  f.platform["tegra"]["l4t"] = "36.0";
  f.gpu["devices"][0]["total_memory_bytes"] = (8LL << 30) - 1;
  auto out = run(gate_from(kJetsonGate), f, t);
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_NE(out.evidence.reason.find("device memory >= 8589934592 bytes"), std::string::npos);
}

TEST(GateRunTest, GateIssuesMakeItUnusable) {
  test::TempDir t;
  Fakes f;
  Policy policy;
  auto r =
      run_gate(gate_from(kJetsonGate), {{"jetson-cuda-runtime", "command.argv must be ...", ""}},
               policy, RunOptions{}, f.deps());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("cannot run"), std::string::npos);
  Gate plain;
  plain.id = "obliteratus-only";
  r = run_gate(plain, {}, policy, RunOptions{}, f.deps());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("neither \"probes\" nor a \"command\""), std::string::npos);
}

// Real pytest runs (Debian's /usr/bin/python3 with python3-pytest).
bool have_pytest() {
  return std::system("/usr/bin/python3 -c 'import pytest' 2>/dev/null") == 0;
}

// The fixture project, copied into the repository t (command paths are
// confined to the repository).
std::string pytest_gate(const std::string& subdir, const test::TempDir& t) {
  if (!std::filesystem::exists(t.path("project")))
    std::filesystem::copy(test::fixtures_dir() + "/gates/pytest-project", t.path("project"),
                          std::filesystem::copy_options::recursive);
  std::string id = "pytest-" + subdir;
  std::replace(id.begin(), id.end(), '_', '-');
  nlohmann::json g = {{"id", id},
                      {"command",
                       {{"argv",
                         {"/usr/bin/python3", "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "--junitxml=out/" + id + ".xml", subdir}},
                        {"timeout_s", 120},
                        {"cwd", "project"},
                        {"junit", "out/" + id + ".xml"},
                        {"env", {{"PYTHONDONTWRITEBYTECODE", "1"}}}}}};
  return g.dump();
}

std::string log_of(const RunOutcome& out) {
  return out.log_path.empty() ? "" : test::read_file(out.log_path);
}

TEST(GateRunTest, PytestOnlyPassingTestsPasses) {
  if (!have_pytest()) GTEST_SKIP() << "Debian python3-pytest is not installed";
  test::TempDir t;
  Fakes f;
  auto out = run(gate_from(pytest_gate("passing", t)), f, t);
  EXPECT_EQ(out.exit_code, 0) << out.evidence.reason << log_of(out);
  EXPECT_EQ(out.evidence.counts.tests, 2);
  EXPECT_EQ(out.evidence.exit_code, 0);
  EXPECT_EQ(out.evidence.extra["command"]["junit_counts"]["tests"], 2);
}

TEST(GateRunTest, PytestFailureSkipAndXfailFail) {
  if (!have_pytest()) GTEST_SKIP() << "Debian python3-pytest is not installed";
  test::TempDir t;
  Fakes f;
  auto out = run(gate_from(pytest_gate("mixed", t)), f, t);
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_EQ(out.evidence.exit_code, 1);
  EXPECT_EQ(out.evidence.counts.tests, 4);
  EXPECT_EQ(out.evidence.counts.failures, 1);
  EXPECT_EQ(out.evidence.counts.skipped, 2);
  EXPECT_NE(out.evidence.reason.find("exited with status 1"), std::string::npos)
      << out.evidence.reason;
}

TEST(GateRunTest, PytestGreenWithSkipsStillFails) {
  if (!have_pytest()) GTEST_SKIP() << "Debian python3-pytest is not installed";
  test::TempDir t;
  Fakes f;
  auto out = run(gate_from(pytest_gate("skips_only", t)), f, t);
  EXPECT_EQ(out.evidence.exit_code, 0);  // pytest itself is happy
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_NE(
      out.evidence.reason.find("2 test(s) skipped or xfailed: a gate passes only without skips"),
      std::string::npos)
      << out.evidence.reason;
}

TEST(GateRunTest, StaleReportIsNeverReusedAndTimeoutsFail) {
  test::TempDir t;
  Fakes f;
  t.write("report.xml", test::read_file(test::fixtures_dir() + "/gates/junit/pytest-passing.xml"));
  nlohmann::json g = {
      {"id", "sleepy"},
      {"command",
       {{"argv", {"/bin/sh", "-c", "sleep 30"}}, {"timeout_s", 0.5}, {"junit", "report.xml"}}}};
  auto out = run(gate_from(g.dump()), f, t);
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_NE(out.evidence.reason.find("did not finish"), std::string::npos) << out.evidence.reason;
  EXPECT_NE(out.evidence.reason.find("cannot read the JUnit report"), std::string::npos)
      << out.evidence.reason;
  EXPECT_FALSE(out.evidence.exit_code.has_value());
}

TEST(GateRunTest, MissingProgramFails) {
  test::TempDir t;
  Fakes f;
  nlohmann::json g = {
      {"id", "ghost"},
      {"command", {{"argv", {"/nonexistent/jetgate-no-such-program"}}, {"junit", "r.xml"}}}};
  auto out = run(gate_from(g.dump()), f, t);
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_EQ(out.evidence.status, GateStatus::failed);
}

// End to end through the binary.
struct CliRepo {
  test::TempDir t;
  std::string policy;
  CliRepo() {
    std::filesystem::create_directories(t.path(".git"));
    nlohmann::json p = {{"schema_version", 1},
                        {"owner", "o"},
                        {"cadence", "c"},
                        {"evidence_retention_days", 9},
                        {"maximum_evidence_age_days", 9},
                        {"gates",
                         {nlohmann::json::parse(pytest_gate("passing", t)),
                          nlohmann::json::parse(pytest_gate("mixed", t)),
                          {{"id", "riscv-only"},
                           {"requires", {{"arch", "riscv64"}}},
                           {"probes", {{{"probe", "launch"}, {"status", "PASS"}}}}}}}};
    policy = t.write("ci/policy.json", p.dump(2));
  }
  test::CliRun run(const std::string& gate, std::vector<std::string> env = {}) const {
    // The temporary repository may lie inside a real checkout (ctest puts it
    // under build/): keep git from finding that checkout's HEAD.
    env.push_back("GIT_CEILING_DIRECTORIES=" +
                  std::filesystem::path(t.dir()).parent_path().string());
    return test::run_jetgate({"run", gate, "--policy", policy, "--evidence-dir", t.path("ev")},
                             std::move(env));
  }
};

TEST(GateRunCliTest, ExitCodesAndEvidence) {
  if (!have_pytest()) GTEST_SKIP() << "Debian python3-pytest is not installed";
  CliRepo repo;
  auto pass = repo.run("pytest-passing", {"GITHUB_SHA=" + kSha});
  EXPECT_EQ(pass.exit_code, 0) << pass.out << pass.err;
  EXPECT_NE(pass.out.find("pytest-passing: passed"), std::string::npos) << pass.out;
  auto e = evidence::read_evidence(repo.t.path("ev/pytest-passing.json"));
  ASSERT_TRUE(e.ok()) << e.error().message();
  EXPECT_EQ(e->git_sha, kSha);

  auto fail = repo.run("pytest-mixed");
  EXPECT_EQ(fail.exit_code, 1) << fail.out << fail.err;
  // The command's output, live and prefixed (and saved as GATE.log).
  EXPECT_NE(fail.err.find("[pytest-mixed] "), std::string::npos) << fail.err;
  EXPECT_NE(fail.out.find("log: " + repo.t.path("ev/pytest-mixed.log")), std::string::npos)
      << fail.out;

  auto not_run = repo.run("riscv-only");
  EXPECT_EQ(not_run.exit_code, 2) << not_run.out << not_run.err;
  // One line per check, each with what was found and the next step.
  EXPECT_NE(
      not_run.out.find("riscv-only: not_run\n  FAIL    requirement arch in [riscv64]: arch is "),
      std::string::npos)
      << not_run.out;
  auto not_run_e = evidence::read_evidence(repo.t.path("ev/riscv-only.json"));
  ASSERT_TRUE(not_run_e.ok());
  ASSERT_TRUE(not_run_e->extra.contains("checks"));
  EXPECT_EQ(not_run_e->extra["checks"][0]["status"], "FAIL");
  EXPECT_EQ(not_run_e->extra["checks"][0]["kind"], "requirement");
  EXPECT_FALSE(not_run_e->extra["checks"][0]["next"].get<std::string>().empty());

  auto bad_sha = repo.run("riscv-only", {"GITHUB_SHA=NOT-A-SHA"});
  EXPECT_NE(bad_sha.err.find("warning: the commit under test: GITHUB_SHA is \"NOT-A-SHA\""),
            std::string::npos)
      << bad_sha.err;
  EXPECT_EQ(evidence::read_evidence(repo.t.path("ev/riscv-only.json"))->git_sha, "local");

  // Only whole evidence files and logs after all runs: no temporaries, no lock files.
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(repo.t.path("ev")))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"pytest-mixed.json", "pytest-mixed.log",
                                             "pytest-passing.json", "pytest-passing.log",
                                             "riscv-only.json"}));
}

TEST(GateRunCliTest, UnusableInput) {
  CliRepo repo;
  auto bad_id = repo.run("../etc/passwd");
  EXPECT_EQ(bad_id.exit_code, 2);
  EXPECT_NE(bad_id.err.find("invalid gate id"), std::string::npos) << bad_id.err;
  auto unknown = repo.run("no-such-gate");
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(
      unknown.err.find("no gate \"no-such-gate\" (gates: pytest-passing pytest-mixed riscv-only)"),
      std::string::npos)
      << unknown.err;
  auto no_policy = test::run_jetgate({"run", "x", "--policy", repo.t.path("missing.json")});
  EXPECT_EQ(no_policy.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(repo.t.path("ev")));
}

TEST(GateRunCliTest, DefaultPolicyJetsonGateIsNotRunOffJetson) {
  test::TempDir t;
  // A recorded Raspberry Pi root: aarch64 but not Tegra.
  std::string root = test::fixtures_dir() + "/rpi5-arm64/root";
  auto r = test::run_jetgate({"run", "jetson-cuda-runtime", "--root", root, "--dry-run"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("FAIL    requirement is_tegra = true: is_tegra is false"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("no evidence written"), std::string::npos) << r.out;
}

// Issue "Holds means the project's own gate ran", item 3: a CI variable that
// names another commit than the checkout's HEAD never becomes the evidence's
// commit. run refuses before writing anything.
TEST(GateRunTest, ACiCommitThatIsNotTheCheckedOutHeadIsRefused) {
  test::TempDir t;
  Fakes f;
  add_good_probes(f);
  RunDeps d = f.deps();
  const std::string head = "fedcba9876543210fedcba9876543210fedcba98";
  d.git_sha = [](const std::string&) {
    evidence::GitSha s;
    s.sha = kSha;
    s.source = "GITHUB_SHA";
    return s;
  };
  d.git_state = [&](const std::string&) { return evidence::GitState{head, false, {}}; };
  Policy policy;
  policy.source = "p.json";
  policy.repo_root = t.dir();
  RunOptions o;
  o.evidence_dir = t.path("evidence");
  auto r = run_gate(gate_from(kJetsonGate), {}, policy, o, d);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find("GITHUB_SHA is " + kSha), std::string::npos) << r.error().what;
  EXPECT_NE(r.error().what.find("HEAD is " + head), std::string::npos) << r.error().what;
  EXPECT_FALSE(std::filesystem::exists(t.path("evidence/jetson-cuda-runtime.json")));
  // Whole commits are compared: one that differs only in its last digit is another commit.
  const std::string near = kSha.substr(0, 39) + (kSha.back() == '7' ? "8" : "7");
  d.git_state = [&](const std::string&) { return evidence::GitState{near, false, {}}; };
  auto near_miss = run_gate(gate_from(kJetsonGate), {}, policy, o, d);
  ASSERT_FALSE(near_miss.ok());
  EXPECT_NE(near_miss.error().what.find("HEAD is " + near), std::string::npos);
  // The same commit in both, or no CI variable at all: the run goes ahead.
  d.git_state = [](const std::string&) { return evidence::GitState{kSha, false, {}}; };
  EXPECT_TRUE(run_gate(gate_from(kJetsonGate), {}, policy, o, d).ok());
  d.git_sha = [](const std::string&) {
    evidence::GitSha s;
    s.sha = kSha;
    s.source = "git rev-parse HEAD";
    return s;
  };
  d.git_state = [&](const std::string&) { return evidence::GitState{head, false, {}}; };
  EXPECT_TRUE(run_gate(gate_from(kJetsonGate), {}, policy, o, d).ok());
}

// Item 2: when git cannot answer, the evidence records "dirty": null and why,
// and the run warns that it cannot back a claim; unknown after the command
// (a tree clean before) is not shown clean either.
TEST(GateRunTest, GitThatCannotAnswerLeavesTheTreeNotShownClean) {
  for (bool before : {true, false}) {
    SCOPED_TRACE(before ? "git failed before the command" : "git failed after the command");
    test::TempDir t;
    Fakes f;
    add_good_probes(f);
    RunDeps d = f.deps();
    auto calls = std::make_shared<int>(0);
    d.git_state = [calls, before](const std::string&) {
      bool fail = before ? *calls == 0 : *calls == 1;
      ++*calls;
      if (!fail) return evidence::GitState{kSha, false, {}};
      return evidence::GitState{
          kSha, std::nullopt,
          "git refused the checkout (fatal: detected dubious ownership in repository at "
          "'/src'): ... git config --global --add safe.directory /src"};
    };
    Policy policy;
    policy.source = "p.json";
    policy.repo_root = t.dir();
    RunOptions o;
    o.evidence_dir = t.path("evidence");
    auto r = run_gate(gate_from(kJetsonGate), {}, policy, o, d);
    ASSERT_TRUE(r.ok()) << r.error().message();
    auto back = evidence::read_evidence(r->path);
    ASSERT_TRUE(back.ok());
    EXPECT_TRUE(back->extra.contains("dirty"));
    EXPECT_TRUE(back->extra["dirty"].is_null());
    EXPECT_NE(back->extra["git"]["problem"].get<std::string>().find("safe.directory"),
              std::string::npos);
    bool warned = false;
    for (const auto& w : r->warnings)
      warned = warned ||
               (w.fact == "/dirty" && w.message.find("cannot back a claim") != std::string::npos &&
                w.message.find("safe.directory") != std::string::npos);
    EXPECT_TRUE(warned);
  }
}

// Item 1: evidence names the definition of the gate that made it.
TEST(GateRunTest, EvidenceRecordsTheDigestOfTheGateDefinitionThatRan) {
  test::TempDir t;
  Fakes f;
  add_good_probes(f);
  Gate g = gate_from(kJetsonGate);
  auto out = run(g, f, t);
  auto back = evidence::read_evidence(out.path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->extra["gate_definition"]["sha256"], definition_sha256(g));
  EXPECT_EQ(back->extra["gate_definition"]["policy"], "p.json");
  EXPECT_EQ(definition_sha256(g).size(), 64u);
}

// A recording of a real board must never produce evidence that claims it:
// `run --root` is a dry run, and asking it to run probes or a command is
// refused (exit 2) with nothing written.
TEST(GateRunCliTest, ARecordedRootNeverWritesEvidence) {
  test::TempDir t;
  std::string orin = test::fixtures_dir() + "/agx-orin-64gb-jp62/root";
  auto refused = test::run_jetgate(
      {"run", "jetson-cuda-runtime", "--root", orin, "--evidence-dir", t.path("ev")});
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("a recorded root cannot run probes or a command"), std::string::npos)
      << refused.err;
  EXPECT_FALSE(std::filesystem::exists(t.path("ev"))) << "a recorded root wrote evidence";
  auto dry = test::run_jetgate(
      {"run", "jetson-cuda-runtime", "--root", orin, "--dry-run", "--evidence-dir", t.path("ev")});
  EXPECT_EQ(dry.exit_code, 0) << dry.out
                              << dry.err;  // the recording meets every platform requirement
  EXPECT_NE(dry.out.find("would run"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("NOT_RUN step probe bandwidth: would run"), std::string::npos) << dry.out;
  EXPECT_FALSE(std::filesystem::exists(t.path("ev")));
  // And evidence whose facts are a recording (say, written by hand from one) never backs a claim.
  auto doc = test::run_jetgate({"probe", "--root", orin, "--json"});
  ASSERT_EQ(doc.exit_code, 0) << doc.err;
  EXPECT_EQ(nlohmann::json::parse(doc.out)["facts_source"], "recorded");
}

}  // namespace
}  // namespace jetgate::gate
