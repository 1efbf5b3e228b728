// SPDX-License-Identifier: Apache-2.0
#include "jetgate/claims/check.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "jetgate/evidence/evidence.hpp"
#include "jetgate/evidence/probe_document.hpp"
#include "test_support.hpp"

namespace jetgate::claims {
namespace {

using evidence::Date;
using policy::StaleException;
const std::string kSha = "3f6c2a1b9d8e7f60514233c4b5a69788f0e1d2c3";
const std::string kOtherSha = "0000000000000000000000000000000000000001";

// A repository with a two-gate policy (max age 14 days) and an evidence dir.
struct Repo {
  test::TempDir t;
  std::string policy, evidence_dir;
  explicit Repo(const std::string& waivers = "[]") {
    std::filesystem::create_directories(t.path(".git"));
    evidence_dir = t.path("conditional-evidence");
    std::filesystem::create_directories(evidence_dir);
    policy = t.write("ci/policy.json", R"({"schema_version": 1, "owner": "o", "cadence": "c",
      "evidence_retention_days": 90, "maximum_evidence_age_days": 14, "repository": "acme/robot",
      "gates": [{"id": "cuda-runtime", "probes": [{"probe": "launch", "status": "PASS"}]},
                {"id": "jetson-cuda-runtime", "probes": [{"probe": "launch", "status": "PASS"}]}],
      "environment_waivers": )" + waivers + "}");
  }
  void evidence(const std::string& gate, const std::string& generated_at,
                const std::string& sha = kSha, const std::string& status = "passed",
                evidence::Counts counts = {3, 0, 0, 0}) const {
    nlohmann::json j = {{"schema_version", 1},
                        {"gate", gate},
                        {"status", status},
                        {"generated_at", generated_at},
                        {"git_sha", sha},
                        {"reason", ""},
                        {"exit_code", 0},
                        {"dirty", false},
                        {"probes", {{"launch", {{"status", "PASS"}}}}},
                        {"counts",
                         {{"tests", counts.tests},
                          {"failures", counts.failures},
                          {"errors", counts.errors},
                          {"skipped", counts.skipped}}}};
    t.write("conditional-evidence/" + gate + ".json", j.dump());
  }
  CheckResult check(const char* today, std::vector<std::string> required = {},
                    std::optional<policy::StaleException> stale = std::nullopt) const {
    ClaimOptions o;
    o.policy = policy;
    o.evidence_dirs = {evidence_dir};
    o.candidate_sha = kSha;
    o.today = today;
    if (stale) {
      o.stale_reason = stale->reason;
      o.stale_issue = stale->issue;
      o.stale_expires = stale->expires;
    }
    auto in = resolve_claim_inputs(o);
    EXPECT_TRUE(in.ok()) << (in.ok() ? "" : in.error().message());
    return check_claim(*in, required);
  }
};

std::string lines(const CheckResult& r) {
  std::string out;
  for (const auto& v : r.violations) out += v.line() + "\n";
  return out;
}

TEST(CheckTest, FreshGreenEvidenceHolds) {
  Repo repo;
  repo.evidence("cuda-runtime", "2026-11-29T10:00:00Z");
  repo.evidence("jetson-cuda-runtime", "2026-11-28T10:00:00.5+00:00");
  auto r = repo.check("2026-11-29");
  EXPECT_TRUE(r.holds()) << lines(r);
  ASSERT_EQ(r.gates.size(), 2u);
  EXPECT_EQ(r.gates[0].state, "holds");
}

// Evidence whose facts are a recording (a recorded root's facts, pasted or
// produced by an older jetgate that ran gates with --root) never counts.
TEST(CheckTest, EvidenceFromARecordingNeverCounts) {
  Repo repo;
  repo.evidence("cuda-runtime", "2026-11-29T10:00:00Z");
  repo.evidence("jetson-cuda-runtime", "2026-11-29T10:00:00Z");
  auto path = repo.evidence_dir + "/jetson-cuda-runtime.json";
  auto j = nlohmann::json::parse(test::read_file(path));
  j["platform"] = {{"arch", "aarch64"},
                   {"tegra", {{"is_tegra", true}, {"module", "Jetson AGX Orin 64GB"}}}};
  for (const char* source : {"recorded", ""}) {
    if (*source)
      j["facts_source"] = source;
    else
      j.erase("facts_source");
    repo.t.write("conditional-evidence/jetson-cuda-runtime.json", j.dump());
    auto r = repo.check("2026-11-29");
    EXPECT_FALSE(r.holds()) << source;
    EXPECT_NE(lines(r).find(*source ? "recorded roots never back a claim" : "may be a recording"),
              std::string::npos)
        << lines(r);
  }
  j["facts_source"] = "live";
  repo.t.write("conditional-evidence/jetson-cuda-runtime.json", j.dump());
  EXPECT_TRUE(repo.check("2026-11-29").holds());
}

// Evidence from `run --host-root` (a pod reading the live host through its
// mount) is live evidence: its head, as the gate runner writes it, backs the
// claim; the same head marked "recorded" does not.
TEST(CheckTest, EvidenceFromAHostMountCountsAsLive) {
  Repo repo;
  repo.evidence("cuda-runtime", "2026-11-29T10:00:00Z");
  repo.evidence("jetson-cuda-runtime", "2026-11-29T10:00:00Z");
  auto path = repo.evidence_dir + "/jetson-cuda-runtime.json";
  auto j = nlohmann::json::parse(test::read_file(path));
  j["platform"] = {{"arch", "aarch64"},
                   {"tegra", {{"is_tegra", true}, {"module", "Jetson AGX Orin 64GB"}}}};
  auto head = evidence::facts_head(
      "/host", true, j["platform"],
      evidence::host_mount_json("/host", true, true, std::string("ghcr.io/example/app:1"),
                                "JETGATE_IMAGE"));
  for (const char* k : {"jetgate", "facts_source", "root", "host_mount", "platform"})
    j[k] = head[k];
  ASSERT_EQ(j["facts_source"], "live");
  ASSERT_EQ(j["host_mount"]["dir"], "/host");
  repo.t.write("conditional-evidence/jetson-cuda-runtime.json", j.dump());
  auto r = repo.check("2026-11-29");
  EXPECT_TRUE(r.holds()) << lines(r);
  j["facts_source"] = "recorded";
  repo.t.write("conditional-evidence/jetson-cuda-runtime.json", j.dump());
  EXPECT_FALSE(repo.check("2026-11-29").holds());
}

TEST(CheckTest, AgeBoundaryExactlyMaximumIsFreshOneMoreIsStale) {
  Repo repo;
  repo.evidence("cuda-runtime", "2026-11-15T23:59:59Z");         // 14 days before 2026-11-29
  repo.evidence("jetson-cuda-runtime", "2026-11-14T00:00:00Z");  // 15 days
  auto r = repo.check("2026-11-29");
  ASSERT_EQ(r.violations.size(), 1u) << lines(r);
  EXPECT_EQ(r.violations[0].line(),
            "jetson-cuda-runtime: evidence is stale: 15 days old (generated 2026-11-14), the "
            "freshness rule "
            "allows 14 days; run `jetgate run jetson-cuda-runtime --policy " +
                repo.policy + " --evidence-dir " + repo.evidence_dir + "` again");
}

TEST(CheckTest, FutureDatedEvidenceIsAViolation) {
  Repo repo;
  repo.evidence("cuda-runtime", "2026-11-30T00:00:01Z");
  repo.evidence("jetson-cuda-runtime", "2026-11-30T01:00:00+02:00");  // 2026-11-29 in UTC: fine
  auto r = repo.check("2026-11-29");
  ASSERT_EQ(r.violations.size(), 1u) << lines(r);
  EXPECT_NE(r.violations[0].line().find("cuda-runtime: evidence is dated in the future"),
            std::string::npos);
}

TEST(CheckTest, EveryEvidenceRule) {
  Repo repo;
  repo.evidence("cuda-runtime", "2026-11-29T10:00:00Z", kOtherSha, "failed", {3, 1, 0, 0});
  repo.evidence("jetson-cuda-runtime", "2026-11-29T10:00:00Z", kSha, "passed", {3, 0, 0, 1});
  auto r = repo.check("2026-11-29");
  auto text = lines(r);
  EXPECT_NE(text.find("cuda-runtime: the gate failed"), std::string::npos) << text;
  EXPECT_NE(text.find("cuda-runtime: evidence is for commit " + kOtherSha + ", not the candidate " +
                      kSha),
            std::string::npos)
      << text;
  EXPECT_NE(
      text.find(
          "jetson-cuda-runtime: evidence is inconsistent: status passed with 1 skipped tests"),
      std::string::npos)
      << text;
  EXPECT_EQ(r.violations.size(), 3u) << text;
}

TEST(CheckTest, PassedWithZeroTestsIsInconsistent) {
  Repo repo;
  repo.evidence("cuda-runtime", "2026-11-29T10:00:00Z", kSha, "passed", {0, 0, 0, 0});
  auto r = repo.check("2026-11-29", {"cuda-runtime"});
  ASSERT_EQ(r.violations.size(), 1u) << lines(r);
  EXPECT_NE(r.violations[0].what.find("no tests ran"), std::string::npos);
}

TEST(CheckTest, MissingCorruptAndMisnamedEvidence) {
  Repo repo;
  repo.t.write("conditional-evidence/cuda-runtime.json",
               "{\"schema_version\": 1, \"gate\": \"cuda-ru");
  repo.evidence("jetson-cuda-runtime", "2026-11-29T10:00:00Z");
  auto j = nlohmann::json::parse(test::read_file(repo.evidence_dir + "/jetson-cuda-runtime.json"));
  j["gate"] = "cuda-runtime";
  repo.t.write("conditional-evidence/jetson-cuda-runtime.json", j.dump());
  auto r = repo.check("2026-11-29");
  auto text = lines(r);
  EXPECT_NE(text.find("cuda-runtime: evidence is unreadable: "), std::string::npos) << text;
  EXPECT_NE(text.find("jetson-cuda-runtime: evidence is unreadable: "), std::string::npos) << text;
  EXPECT_NE(text.find("records gate \"cuda-runtime\""), std::string::npos) << text;
  std::filesystem::remove(repo.evidence_dir + "/cuda-runtime.json");
  r = repo.check("2026-11-29", {"cuda-runtime"});
  EXPECT_NE(lines(r).find("cuda-runtime: no evidence (no cuda-runtime.json"), std::string::npos)
      << lines(r);
}

// A file speaks for the gate it is named after only when the gate it records is
// that name whole: cuda-runtime.json recording "cuda-runtime-full" (a gate whose id
// merely starts with the file's name) or "cuda" speaks for no gate.
TEST(CheckTest, EvidenceRecordingAGateThatOnlyStartsWithItsFileNameSpeaksForNoGate) {
  for (const char* recorded : {"cuda-runtime-full", "cuda-runtim", "cuda"}) {
    Repo repo;
    repo.evidence(recorded, "2026-11-29T10:00:00Z");
    std::filesystem::rename(repo.evidence_dir + "/" + recorded + ".json",
                            repo.evidence_dir + "/cuda-runtime.json");
    auto r = repo.check("2026-11-29", {"cuda-runtime"});
    auto text = lines(r);
    EXPECT_NE(text.find(std::string("records gate \"") + recorded + "\""), std::string::npos)
        << recorded << ": " << text;
    EXPECT_FALSE(r.violations.empty()) << recorded;
  }
  Repo whole;
  whole.evidence("cuda-runtime", "2026-11-29T10:00:00Z");
  EXPECT_TRUE(whole.check("2026-11-29", {"cuda-runtime"}).violations.empty());
}

TEST(CheckTest, ActiveWaiverRemovesTheGateFromTheDefaultRequirement) {
  Repo repo(R"([{"gate": "jetson-cuda-runtime", "reason": "no runner", "issue":
      "https://github.com/acme/robot/issues/3", "opened": "2026-11-20", "expires": "2026-11-29",
      "blocked_claim": "Jetson support"}])");
  repo.evidence("cuda-runtime", "2026-11-29T10:00:00Z");
  auto r = repo.check("2026-11-29");  // expires today: still active
  EXPECT_TRUE(r.holds()) << lines(r);
  EXPECT_EQ(r.gates[1].state, "waived");
  EXPECT_EQ(r.gates[1].waiver["issue"], "https://github.com/acme/robot/issues/3");
  r = repo.check("2026-11-30");  // expired: a violation, and the gate is required again
  auto text = lines(r);
  EXPECT_NE(text.find("jetson-cuda-runtime: environment waiver expired on 2026-11-29"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("jetson-cuda-runtime: no evidence"), std::string::npos) << text;
}

TEST(CheckTest, StaleExceptionWaivesOnlyTheShaMismatch) {
  Repo repo;
  repo.evidence("cuda-runtime", "2026-11-29T10:00:00Z", kOtherSha);
  StaleException ok{"runner down", "https://github.com/acme/robot/issues/9", "2026-12-29"};
  EXPECT_TRUE(repo.check("2026-11-29", {"cuda-runtime"}, ok).holds());
  StaleException too_long{"runner down", "https://github.com/acme/robot/issues/9", "2026-12-30"};
  auto r = repo.check("2026-11-29", {"cuda-runtime"}, too_long);
  auto text = lines(r);
  EXPECT_NE(text.find("policy: stale-evidence exception is invalid"), std::string::npos) << text;
  EXPECT_NE(text.find("not the candidate"), std::string::npos) << text;
  repo.evidence("cuda-runtime", "2026-11-01T10:00:00Z", kOtherSha);
  EXPECT_NE(lines(repo.check("2026-11-29", {"cuda-runtime"}, ok)).find("stale: 28 days old"),
            std::string::npos);
}

TEST(CheckTest, StaleExceptionNeverAdmitsLocalEvidence) {
  Repo repo;
  repo.evidence("cuda-runtime", "2026-11-29T10:00:00Z", "local");
  StaleException ok{"runner down", "https://github.com/acme/robot/issues/9", "2026-12-29"};
  auto r = repo.check("2026-11-29", {"cuda-runtime"}, ok);
  EXPECT_FALSE(r.holds());
  auto text = lines(r);
  EXPECT_NE(text.find("evidence names no commit (git_sha \"local\")"), std::string::npos) << text;
}

TEST(CheckTest, UnknownRequiredGate) {
  Repo repo;
  auto r = repo.check("2026-11-29", {"warp-drive"});
  EXPECT_NE(lines(r).find("warp-drive: the policy does not define this gate"), std::string::npos);
}

TEST(CheckTest, ObliteratusEvidenceIsAcceptedLikeJetgates) {
  std::string dir = test::fixtures_dir() + "/gates/obliteratus";
  ClaimOptions o;
  o.policy = dir + "/ci/conditional-test-policy.json";
  o.repo_root = dir;
  o.evidence_dirs = {dir + "/evidence"};
  o.candidate_sha = kSha;
  o.today = "2026-11-29";
  auto in = resolve_claim_inputs(o);
  ASSERT_TRUE(in.ok()) << in.error().message();
  auto r = check_claim(*in, {"model-download-runtime"});
  EXPECT_TRUE(r.holds()) << lines(r);
  r = check_claim(*in, {"cuda-runtime"});  // their file says passed with 2 skips
  EXPECT_NE(lines(r).find("cuda-runtime: evidence is inconsistent: status passed with 2 skipped"),
            std::string::npos)
      << lines(r);
}

// End to end through the binary: exit codes, one line per violation, --json.
TEST(CheckCliTest, ExitCodesAndMessages) {
  Repo repo;
  repo.evidence("cuda-runtime", "2026-11-29T10:00:00Z");
  repo.evidence("jetson-cuda-runtime", "2026-11-29T10:00:00Z");
  auto base =
      std::vector<std::string>{"check",           "--policy",        repo.policy, "--evidence-dir",
                               repo.evidence_dir, "--candidate-sha", kSha};
  auto with = [&](std::vector<std::string> extra) {
    auto args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_jetgate(args);
  };
  auto ok = with({"--today", "2026-11-29"});
  EXPECT_EQ(ok.exit_code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("evidence holds for " + kSha), std::string::npos);

  auto stale = with({"--today", "2026-12-14"});
  EXPECT_EQ(stale.exit_code, 1) << stale.out << stale.err;
  EXPECT_NE(stale.out.find("cuda-runtime: evidence is stale: 15 days old"), std::string::npos)
      << stale.out;
  EXPECT_NE(stale.err.find("2 violation(s)"), std::string::npos) << stale.err;

  auto json = with({"--today", "2026-12-14", "--json"});
  EXPECT_EQ(json.exit_code, 1);
  auto j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["holds"], false);
  EXPECT_EQ(j["violations"].size(), 2u);
  EXPECT_EQ(j["gates"][0]["verdict"]["evidence"]["git_sha"], kSha);
  EXPECT_EQ(j["gates"][0]["verdict"]["state"], "stale");

  EXPECT_EQ(with({"--today", "2026-13-01"}).exit_code, 2);
  auto badsha = test::run_jetgate({"check", "--policy", repo.policy, "--evidence-dir",
                                   repo.evidence_dir, "--candidate-sha", "ABCDEF"});
  EXPECT_EQ(badsha.exit_code, 2);
  EXPECT_NE(badsha.err.find("is not a commit: 40 lowercase hex digits"), std::string::npos)
      << badsha.err;
  auto nosha =
      test::run_jetgate({"check", "--policy", repo.policy, "--evidence-dir", repo.evidence_dir});
  EXPECT_EQ(nosha.exit_code, 2);
  EXPECT_NE(nosha.err.find("--candidate-sha"), std::string::npos);
  auto missing = test::run_jetgate({"check", "--policy", repo.t.path("nope.json")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("nope.json"), std::string::npos) << missing.err;
  auto malformed =
      test::run_jetgate({"check", "--policy", repo.t.write("bad.json", "{\"gates\": [")});
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_NE(malformed.err.find("not valid JSON"), std::string::npos) << malformed.err;
  EXPECT_EQ(test::run_jetgate({"check"}).exit_code, 2);
  auto no_dir = test::run_jetgate({"check", "--policy", repo.policy, "--evidence-dir",
                                   repo.t.path("no-such-dir"), "--candidate-sha", kSha, "--today",
                                   "2026-11-29"});
  EXPECT_EQ(no_dir.exit_code, 2) << no_dir.out << no_dir.err;
  EXPECT_NE(no_dir.err.find("no-such-dir"), std::string::npos) << no_dir.err;
  EXPECT_NE(no_dir.err.find("not a directory"), std::string::npos) << no_dir.err;
}

TEST(CheckCliTest, PolicyRuleViolationsExitOne) {
  test::TempDir t;
  auto policy = t.write("p.json", R"({"schema_version": 1, "owner": "o", "cadence": "c",
      "evidence_retention_days": 9, "maximum_evidence_age_days": 9,
      "gates": [{"id": "g", "probes": [{"probe": "launch", "status": "PASS"}]},
                {"id": "g", "probes": [{"probe": "launch", "status": "PASS"}]}]})");
  auto r = test::run_jetgate({"check", "--policy", policy, "--today", "2026-11-29"});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("g: duplicate gate id; "), std::string::npos) << r.out;
}

TEST(CheckCliTest, ObliteratusPolicyValidatesUnchanged) {
  std::string dir = test::fixtures_dir() + "/gates/obliteratus";
  auto r = test::run_jetgate({"check", "--policy", dir + "/ci/conditional-test-policy.json",
                              "--repo-root", dir, "--today", "2026-11-29"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.err, "");
  auto expired = test::run_jetgate({"check", "--policy", dir + "/ci/conditional-test-policy.json",
                                    "--repo-root", dir, "--today", "2026-12-16"});
  EXPECT_EQ(expired.exit_code, 1);
  EXPECT_NE(expired.out.find("jetson-cuda-runtime: environment waiver expired on 2026-12-15"),
            std::string::npos)
      << expired.out;
}

}  // namespace
}  // namespace jetgate::claims
