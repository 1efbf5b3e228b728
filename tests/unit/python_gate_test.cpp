// SPDX-License-Identifier: Apache-2.0
// bitsandbytes as a probe a policy can require: known to the policy parser,
// run by `jetgate run` when a gate names it, required by the built-in Jetson
// gate, and reported by `jetgate probe --ml`.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>

#include "jetgate/evidence/evidence.hpp"
#include "jetgate/gate/gate_runner.hpp"
#include "jetgate/policy/policy.hpp"
#include "test_support.hpp"

namespace jetgate::gate {
// The policy model these tests build gates from.
using namespace jetgate::policy;  // NOLINT(google-build-using-namespace)
namespace {

using probes::ProbeResult;
using probes::ProbeStatus;

Result<LoadedPolicy> policy_with_probes(const std::string& probes) {
  return parse_policy(
      R"({"schema_version": 1, "owner": "o", "cadence": "c", "evidence_retention_days": 9,
      "maximum_evidence_age_days": 9, "gates": [{"id": "ml", "probes": )" +
          probes + "}]}",
      "p.json", ".");
}

TEST(PythonGate, PoliciesCanRequireBitsandbytes) {
  auto p = policy_with_probes(R"([{"probe": "bitsandbytes", "status": "PASS"},
                                  {"probe": "bitsandbytes", "metric": "int8_matmul_max_error_ratio", "max": 0.5}])");
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_TRUE(p->issues.empty()) << p->issues.at(0).line();
  EXPECT_EQ(p->policy.gates.at(0).probe_ids(), std::vector<std::string>{"bitsandbytes"});
}

TEST(PythonGate, UnknownProbeNamesEveryBuiltInProbe) {
  auto p = policy_with_probes(R"([{"probe": "bitsandbites", "status": "PASS"}])");
  ASSERT_TRUE(p.ok());
  ASSERT_FALSE(p->issues.empty());
  EXPECT_NE(p->issues[0].line().find("names unknown probe \"bitsandbites\""), std::string::npos)
      << p->issues[0].line();
  EXPECT_NE(p->issues[0].line().find("built-in probes: launch, memory, bandwidth, sync_path, "
                                     "decode, nvhost_ctrl, python_runtime, "
                                     "bitsandbytes"),
            std::string::npos)
      << p->issues[0].line();
}

TEST(PythonGate, TheBuiltInJetsonGateRequiresBothPythonProbesToPass) {
  auto p = load_default_policy();
  ASSERT_TRUE(p.ok()) << p.error().message();
  const auto& gates = p->policy.gates;
  auto jetson = std::find_if(gates.begin(), gates.end(),
                             [](const Gate& g) { return g.id == "jetson-cuda-runtime"; });
  ASSERT_NE(jetson, gates.end());
  for (const char* id : {"python_runtime", "bitsandbytes"}) {
    auto check = std::find_if(jetson->probes.begin(), jetson->probes.end(),
                              [&](const ProbeCheck& c) { return c.probe == id && c.status; });
    ASSERT_NE(check, jetson->probes.end()) << id;
    EXPECT_EQ(*check->status, "PASS") << id;
  }
}

// run_gate with recorded platform facts and a fake Python probe.
struct PythonFakes {
  std::optional<probes::PythonOptions> asked;
  ProbeStatus bitsandbytes = ProbeStatus::pass;

  RunDeps deps() {
    RunDeps d;
    d.platform = [](const std::string&) {
      return PlatformFacts{
          {{"arch", "aarch64"}, {"tegra", {{"is_tegra", true}, {"l4t", "36.4.3"}}}}, {}};
    };
    d.cuda = [](const probes::CudaOptions&) {
      probes::CudaSection s;
      s.gpu = {
          {"driver", {{"loaded", true}}}, {"device_count", 1}, {"devices", {{{"name", "Orin"}}}}};
      return s;
    };
    d.python = [this](const probes::PythonOptions& o) {
      asked = o;
      probes::PythonRuntime rt;
      rt.facts = {{"torch", {{"cuda_available", true}}}};
      rt.result.id = "python_runtime";
      rt.result.status = ProbeStatus::pass;
      rt.result.reason = "torch computes right";
      if (o.bitsandbytes) {
        rt.bitsandbytes = ProbeResult{};
        rt.bitsandbytes->id = "bitsandbytes";
        rt.bitsandbytes->status = bitsandbytes;
        rt.bitsandbytes->reason = "bitsandbytes 0.45.5: its int8 matmul is off";
      }
      return rt;
    };
    d.process = proc::run_process;
    d.git_sha = [](const std::string&) {
      evidence::GitSha s;
      s.sha = "0123456789abcdef0123456789abcdef01234567";
      return s;
    };
    d.git_state = [](const std::string&) {
      return evidence::GitState{"0123456789abcdef0123456789abcdef01234567", false, {}};
    };
    d.now = [] { return std::string("2026-11-29T16:23:05Z"); };
    d.interrupted = [] { return 0; };
    return d;
  }
};

RunOutcome run_ml_gate(const std::string& probes, PythonFakes& f, const test::TempDir& t) {
  auto p = policy_with_probes(probes);
  EXPECT_TRUE(p.ok() && p->issues.empty());
  Policy policy;
  policy.source = "p.json";
  policy.repo_root = t.dir();
  RunOptions o;
  o.evidence_dir = t.path("evidence");
  o.python = "/opt/venv/bin/python3";
  auto r = run_gate(p->policy.gates.at(0), {}, policy, o, f.deps());
  EXPECT_TRUE(r.ok()) << r.error().message();
  return r.ok() ? *r : RunOutcome{};
}

TEST(PythonGate, AGateNamingBitsandbytesRunsItAndRecordsIt) {
  test::TempDir t;
  PythonFakes f;
  auto out = run_ml_gate(R"([{"probe": "python_runtime", "status": "PASS"},
                             {"probe": "bitsandbytes", "status": "PASS"}])",
                         f, t);
  ASSERT_TRUE(f.asked.has_value());
  EXPECT_TRUE(f.asked->bitsandbytes);
  EXPECT_EQ(f.asked->python, "/opt/venv/bin/python3");
  EXPECT_EQ(out.exit_code, 0) << out.evidence.reason;
  EXPECT_EQ(out.evidence.counts.tests, 2);
  auto back = evidence::read_evidence(out.path);
  ASSERT_TRUE(back.ok()) << back.error().message();
  EXPECT_EQ(back->extra["probes"]["bitsandbytes"]["status"], "PASS");
  EXPECT_EQ(back->extra["probes"]["python_runtime"]["status"], "PASS");
}

TEST(PythonGate, AFailingBitsandbytesFailsTheGate) {
  test::TempDir t;
  PythonFakes f;
  f.bitsandbytes = ProbeStatus::fail;
  auto out = run_ml_gate(R"([{"probe": "bitsandbytes", "status": "PASS"}])", f, t);
  EXPECT_EQ(out.exit_code, 1);
  EXPECT_NE(out.evidence.reason.find("bitsandbytes"), std::string::npos) << out.evidence.reason;
  // Only the probe the gate named is in its evidence.
  EXPECT_FALSE(out.evidence.extra["probes"].contains("python_runtime"));
}

TEST(PythonGate, AGateWithoutBitsandbytesDoesNotAskForIt) {
  test::TempDir t;
  PythonFakes f;
  auto out = run_ml_gate(R"([{"probe": "python_runtime", "status": "PASS"}])", f, t);
  ASSERT_TRUE(f.asked.has_value());
  EXPECT_FALSE(f.asked->bitsandbytes);
  EXPECT_FALSE(out.evidence.extra["probes"].contains("bitsandbytes"));
  EXPECT_EQ(out.exit_code, 0) << out.evidence.reason;
}

// `jetgate probe --ml` runs both Python probes: the fake Jetson torch and the
// fake bitsandbytes under the real interpreter.
TEST(PythonGate, ProbeMlReportsBothPythonProbes) {
  std::string python = ::access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3";
  std::string fixtures = test::fixtures_dir() + "/python/";
  auto r = test::run_jetgate(
      {"probe", "--json", "--python", python},
      {"PYTHONPATH=" + fixtures + "fake_torch_cuda:" + fixtures + "fake_bnb_cuda"});
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out << r.err;
  EXPECT_EQ(doc["probes"]["python_runtime"]["status"], "PASS") << doc["probes"].dump(2);
  EXPECT_EQ(doc["probes"]["bitsandbytes"]["status"], "PASS") << doc["probes"].dump(2);
  EXPECT_EQ(doc["python"]["bitsandbytes"]["compute"]["int8_matmul"]["ran"], true);

  auto broken =
      test::run_jetgate({"probe", "--ml", "--python", python},
                        {"PYTHONPATH=" + fixtures + "fake_torch_cuda:" + fixtures + "fake_bnb_cuda",
                         "FAKE_BNB_FAULT=int8-matmul-wrong"});
  EXPECT_EQ(broken.exit_code, 1) << broken.out << broken.err;
  EXPECT_NE(broken.out.find("  bitsandbytes  FAIL: bitsandbytes 0.45.5: its int8 matmul"),
            std::string::npos)
      << broken.out;
  EXPECT_NE(broken.out.find("  python_runtime  PASS: "), std::string::npos) << broken.out;
}

}  // namespace
}  // namespace jetgate::gate
