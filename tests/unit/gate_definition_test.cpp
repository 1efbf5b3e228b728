// SPDX-License-Identifier: Apache-2.0
// Evidence is bound to the definition of the gate that made it: the digest
// of the definition changes with everything the gate checks and with nothing
// else, and the verdict refuses evidence of another definition, re-checks the
// policy's requirements on the facts the evidence records, and wants every
// probe and the command the policy's gate names.
#include "jetgate/policy/gate_definition.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "claims_test_helpers.hpp"
#include "gate_command_support.hpp"
#include "jetgate/claims/evidence_verdict.hpp"

namespace jetgate::claims {
namespace {

policy::Gate gate_of(const std::string& gate_json) {
  auto p = policy::parse_policy(
      R"({"schema_version": 1, "owner": "o", "cadence": "c", "evidence_retention_days": 9,
      "maximum_evidence_age_days": 9, "gates": [)" +
          gate_json + "]}",
      "ci/policy.json", ".");
  EXPECT_TRUE(p.ok()) << (p.ok() ? "" : p.error().message());
  return p->policy.gates.at(0);
}

const char* kGate = R"({"id": "jetson-cuda-runtime", "description": "first words",
  "requires": {"arch": "aarch64", "is_tegra": true, "cuda": true},
  "probes": [{"probe": "launch", "status": "PASS"},
             {"probe": "bandwidth", "metric": "d2d_fraction_of_peak", "min": 0.6}],
  "command": {"argv": ["python3", "-m", "pytest", "--junitxml=r.xml"], "junit": "r.xml"}})";

TEST(GateDefinition, TheDigestFollowsWhatTheGateChecksAndNothingElse) {
  const std::string base = policy::definition_sha256(gate_of(kGate));
  EXPECT_EQ(base.size(), 64u);
  // Same definition, other spacing, key order and description: same digest.
  EXPECT_EQ(policy::definition_sha256(gate_of(R"({"description": "other words",
    "command": {"junit": "r.xml", "argv": ["python3", "-m", "pytest", "--junitxml=r.xml"]},
    "probes": [{"status": "PASS", "probe": "launch"},
               {"min": 0.6, "metric": "d2d_fraction_of_peak", "probe": "bandwidth"}],
    "requires": {"cuda": true, "is_tegra": true, "arch": "aarch64"},
    "id": "jetson-cuda-runtime"})")),
            base);
  auto changed = [&](const std::string& from, const std::string& to) {
    std::string g = kGate;
    auto at = g.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    g.replace(at, from.size(), to);
    return policy::definition_sha256(gate_of(g));
  };
  EXPECT_NE(changed("\"min\": 0.6", "\"min\": 0.5"), base);                  // a threshold
  EXPECT_NE(changed("\"status\": \"PASS\"", "\"status\": \"WARN\""), base);  // a probe status
  EXPECT_NE(changed("\"junit\": \"r.xml\"", "\"junit\": \"other.xml\""), base);
  EXPECT_NE(changed("\"-m\", \"pytest\"", "\"-m\", \"pytest\", \"-k\", \"smoke\""), base);
  EXPECT_NE(changed("\"arch\": \"aarch64\"", "\"arch\": \"x86_64\""), base);
  EXPECT_NE(changed("{\"probe\": \"launch\", \"status\": \"PASS\"},", ""), base);
}

policy::GateExpectation expectation(const std::string& gate_json = kGate) {
  return policy::expectation_of(gate_of(gate_json), "ci/policy.json");
}

// Evidence of kGate, made by it: green.
nlohmann::json made_by(const policy::GateExpectation& want, nlohmann::json patch = {}) {
  nlohmann::json p = {
      {"gate_definition", {{"sha256", want.sha256}, {"policy", "ci/policy.json"}}},
      {"probes", {{"launch", {{"status", "PASS"}}}, {"bandwidth", {{"status", "PASS"}}}}},
      {"command", {{"exit_code", 0}}},
      {"gpu", {{"driver", {{"loaded", true}, {"version", "12.6"}}}, {"device_count", 1}}}};
  if (!patch.is_null()) p.merge_patch(patch);
  return test::orin_evidence_json("2026-11-29T16:23:05Z", p);
}

GateVerdict judge_with(const nlohmann::json& j, const policy::GateExpectation& want) {
  JudgeRules rules;
  rules.today = *evidence::parse_iso_date("2026-11-29");
  rules.definitions.emplace("jetson-cuda-runtime", want);
  return judge_evidence(test::evidence_of(j), rules);
}

TEST(GateDefinition, EvidenceOfThePolicysDefinitionIsGreen) {
  auto want = expectation();
  auto v = judge_with(made_by(want), want);
  EXPECT_EQ(v.state, GateState::fresh_green) << v.detail;
  EXPECT_TRUE(v.warnings.empty());
}

TEST(GateDefinition, EvidenceOfAnotherDefinitionWithTheSameIdIsRefused) {
  auto want = expectation();
  // Made by a small pytest-only gate of the same id (the README tour's kind).
  auto small = expectation(R"({"id": "jetson-cuda-runtime",
    "command": {"argv": ["python3", "-m", "pytest"], "junit": "r.xml"}})");
  auto v = judge_with(made_by(small), want);
  EXPECT_EQ(v.state, GateState::other_definition);
  EXPECT_NE(v.detail.find("another definition of gate jetson-cuda-runtime"), std::string::npos)
      << v.detail;
  EXPECT_NE(v.detail.find("run it again"), std::string::npos) << v.detail;
  EXPECT_EQ(to_string(v.state), std::string("other_definition"));
  EXPECT_EQ(status_of(v.state), Outcome::fail);
}

// The message shows a digest's first 12 digits; the comparison uses all 64.
TEST(GateDefinition, ADigestSharingTheDigitsTheMessageShowsIsAnotherDefinition) {
  auto want = expectation();
  ASSERT_EQ(want.sha256.size(), 64u);
  std::string near = want.sha256;
  near.back() = near.back() == '0' ? '1' : '0';
  auto v = judge_with(made_by(want, {{"gate_definition", {{"sha256", near}}}}), want);
  EXPECT_EQ(v.state, GateState::other_definition) << v.detail;
  v = judge_with(made_by(want, {{"gate_definition", {{"sha256", want.sha256.substr(0, 12)}}}}),
                 want);
  EXPECT_EQ(v.state, GateState::other_definition) << v.detail;
  v = judge_with(made_by(want, {{"gate_definition", {{"sha256", want.sha256 + "0"}}}}), want);
  EXPECT_EQ(v.state, GateState::other_definition) << v.detail;
}

TEST(GateDefinition, EvidenceWithoutADigestIsReCheckedAndWarned) {
  auto want = expectation();
  nlohmann::json old = made_by(want);
  old.erase("gate_definition");
  auto green = judge_with(old, want);
  EXPECT_EQ(green.state, GateState::fresh_green) << green.detail;
  ASSERT_EQ(green.warnings.size(), 1u);
  EXPECT_NE(green.warnings[0].find("does not record which definition"), std::string::npos);
  // x86_64 facts against an aarch64, Tegra requirement: not met.
  nlohmann::json x86 = old;
  x86["platform"]["arch"] = "x86_64";
  x86["platform"]["tegra"]["is_tegra"] = false;
  auto v = judge_with(x86, want);
  EXPECT_EQ(v.state, GateState::requirements_unmet) << v.detail;
  EXPECT_NE(v.detail.find("arch"), std::string::npos) << v.detail;
  EXPECT_EQ(v.problems.size(), 2u) << v.detail;  // arch and is_tegra, each named
  // No facts at all (another tool's evidence): nothing meets a requirement.
  nlohmann::json bare = old;
  bare.erase("platform");
  bare.erase("gpu");
  EXPECT_EQ(judge_with(bare, want).state, GateState::requirements_unmet);
}

TEST(GateDefinition, EveryProbeAndTheCommandMustHaveAResult) {
  auto want = expectation();
  for (const char* missing : {"launch", "bandwidth"}) {
    nlohmann::json j = made_by(want);
    j["probes"].erase(missing);
    auto v = judge_with(j, want);
    EXPECT_EQ(v.state, GateState::incomplete) << missing;
    EXPECT_NE(v.detail.find(std::string("probe ") + missing), std::string::npos) << v.detail;
  }
  nlohmann::json no_command = made_by(want);
  no_command.erase("command");
  auto v = judge_with(no_command, want);
  EXPECT_EQ(v.state, GateState::incomplete);
  EXPECT_NE(v.detail.find("command"), std::string::npos) << v.detail;
  // A probe object without a status is not a result either.
  nlohmann::json no_status = made_by(want);
  no_status["probes"]["launch"] = nlohmann::json::object();
  EXPECT_EQ(judge_with(no_status, want).state, GateState::incomplete);
}

TEST(GateDefinition, GatesThePolicyDoesNotRunAreJudgedAsBefore) {
  // No definition for the gate (another tool runs it): no digest wanted, no warning.
  JudgeRules rules;
  rules.today = *evidence::parse_iso_date("2026-11-29");
  rules.definitions.emplace("some-other-gate", expectation());
  auto v = judge_evidence(test::evidence_of(test::orin_evidence_json()), rules);
  EXPECT_EQ(v.state, GateState::fresh_green) << v.detail;
  EXPECT_TRUE(v.warnings.empty());
}

// Item 2: a tree not shown clean never backs a claim, whether "dirty" is
// null (git could not answer) or absent; the reason git gave is carried.
TEST(GateDefinition, ATreeNotShownCleanNeverBacksAClaim) {
  JudgeRules rules;
  rules.today = *evidence::parse_iso_date("2026-11-29");
  nlohmann::json null_dirty = test::orin_evidence_json();
  null_dirty["dirty"] = nullptr;
  null_dirty["git"] = {{"problem", "git refused the checkout (dubious ownership)"}};
  auto v = judge_evidence(test::evidence_of(null_dirty), rules);
  EXPECT_EQ(v.state, GateState::not_shown_clean);
  EXPECT_NE(v.detail.find("\"dirty\" is null"), std::string::npos) << v.detail;
  EXPECT_NE(v.detail.find("dubious ownership"), std::string::npos) << v.detail;
  nlohmann::json absent = test::orin_evidence_json();
  absent.erase("dirty");
  auto a = judge_evidence(test::evidence_of(absent), rules);
  EXPECT_EQ(a.state, GateState::not_shown_clean);
  EXPECT_NE(a.detail.find("absent"), std::string::npos) << a.detail;
  nlohmann::json dirty = test::orin_evidence_json();
  dirty["dirty"] = true;
  EXPECT_EQ(judge_evidence(test::evidence_of(dirty), rules).state, GateState::dirty);
  EXPECT_FALSE(backs_claim(v));
  EXPECT_FALSE(backs_claim(a));
  // Another tool's evidence (no jetgate facts) that does not record "dirty" is
  // judged without it, and warned about; null is never clean, whoever wrote it.
  nlohmann::json other = {
      {"schema_version", 1},
      {"gate", "cuda-runtime"},
      {"status", "passed"},
      {"generated_at", "2026-11-29T09:20:44+00:00"},
      {"git_sha", "3f6c2a1b9d8e7f60514233c4b5a69788f0e1d2c3"},
      {"reason", ""},
      {"exit_code", 0},
      {"counts", {{"tests", 5}, {"failures", 0}, {"errors", 0}, {"skipped", 0}}}};
  auto o = judge_evidence(test::evidence_of(other), rules);
  EXPECT_EQ(o.state, GateState::fresh_green) << o.detail;
  ASSERT_EQ(o.warnings.size(), 1u);
  EXPECT_NE(o.warnings[0].find("does not record whether the working tree was clean"),
            std::string::npos);
  other["dirty"] = nullptr;
  EXPECT_EQ(judge_evidence(test::evidence_of(other), rules).state, GateState::not_shown_clean);
}

}  // namespace
}  // namespace jetgate::claims

namespace jetgate::claims {
namespace {

// The whole path, as a maintainer meets it: evidence made under a small
// pytest-only policy does not hold under a policy whose gate of the same id
// checks more, and holds under its own. A real git checkout, so the tree is
// shown clean; GITHUB_SHA naming another commit than HEAD is refused.
TEST(GateDefinitionCli, EvidenceHoldsOnlyUnderTheDefinitionThatMadeIt) {
  test::GateRepo repo(/*fake_git=*/false);
  repo.add_shell_gate("jetson-cuda-runtime",
                      "printf '%s' '" + test::kPassingJunit + "' > report.xml");
  const std::string small = repo.policy();
  test::TempDir other;
  nlohmann::json big = nlohmann::json::parse(test::read_file(small));
  big["gates"][0]["requires"] = {{"arch", "aarch64"}, {"is_tegra", true}};
  big["gates"][0]["probes"] = {{{"probe", "launch"}, {"status", "PASS"}}};
  const std::string init_like = other.write("policy.json", big.dump(2));
  ASSERT_EQ(std::system(("cd '" + repo.t.dir() +
                         "' && git init -q . && git add -A && git -c user.name=t -c "
                         "user.email=t@t commit -qm init")
                            .c_str()),
            0);
  std::string commit;
  if (FILE* git = ::popen(("git -C '" + repo.t.dir() + "' rev-parse HEAD").c_str(), "r")) {
    char buf[64] = {};
    if (std::fgets(buf, sizeof buf, git)) commit.assign(buf, 40);
    ::pclose(git);
  }
  ASSERT_EQ(commit.size(), 40u);

  // GITHUB_SHA of another commit: refused, both named, nothing written.
  const std::string wrong = "0123456789abcdef0123456789abcdef01234567";
  auto refused = repo.run("jetson-cuda-runtime", {"GITHUB_SHA=" + wrong});
  EXPECT_EQ(refused.exit_code, 2) << refused.out << refused.err;
  EXPECT_NE(refused.err.find(wrong), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find(commit), std::string::npos) << refused.err;
  EXPECT_FALSE(std::filesystem::exists(repo.t.path("ev/jetson-cuda-runtime.json")));

  auto ran = repo.run("jetson-cuda-runtime", {"GITHUB_SHA=" + commit});
  ASSERT_EQ(ran.exit_code, 0) << ran.out << ran.err;
  auto e = nlohmann::json::parse(test::read_file(repo.t.path("ev/jetson-cuda-runtime.json")));
  EXPECT_EQ(e["dirty"], false);
  EXPECT_EQ(e["gate_definition"]["policy"], small);

  auto check = [&](const std::string& policy) {
    return test::run_jetgate(
        {"check", "--policy", policy, "--evidence-dir", repo.t.path("ev"), "--candidate-sha",
         commit, "--today", e["generated_at"].get<std::string>().substr(0, 10)},
        {repo.ceiling()});
  };
  auto own = check(small);
  EXPECT_EQ(own.exit_code, 0) << own.out << own.err;
  auto under_big = check(init_like);
  EXPECT_EQ(under_big.exit_code, 1) << under_big.out << under_big.err;
  EXPECT_NE((under_big.out + under_big.err).find("another definition of gate jetson-cuda-runtime"),
            std::string::npos)
      << under_big.out << under_big.err;
}

}  // namespace
}  // namespace jetgate::claims
