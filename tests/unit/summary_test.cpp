// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>

#include "claims_test_helpers.hpp"
#include "jetgate/claims/gate_summary.hpp"
#include "jetgate/report/summary_markdown.hpp"

namespace jetgate::claims {
namespace {

using test::loaded;
using test::orin_evidence_json;

constexpr const char* kPolicy = R"({
  "schema_version": 1, "owner": "robotics", "cadence": "nightly", "maximum_evidence_age_days": 14,
  "repository": "acme/robot-stack",
  "gates": [
    {"id": "jetson-cuda-runtime", "job": "j", "marker": "jetson", "runner": "jetson",
     "coverage_paths": ["README.md"],
     "requires": {"arch": "aarch64", "is_tegra": true, "l4t": {"min": "36.0", "max": "36"}, "cuda": true,
                  "min_cuda_driver": "12.2", "min_memory_gib": 30}},
    {"id": "cuda-runtime", "job": "j", "marker": "cuda", "runner": "gpu", "coverage_paths": ["README.md"],
     "requires": {"cuda": true}},
    {"id": "packaging-aarch64", "job": "j", "marker": "pkg", "runner": "arm", "coverage_paths": ["README.md"],
     "software_only": true}
  ],
  "environment_waivers": [
    {"gate": "cuda-runtime", "reason": "the GPU runner is being re-flashed",
     "issue": "https://github.com/acme/robot-stack/issues/412", "opened": "2026-11-20", "expires": "2026-12-10",
     "blocked_claim": "x86 CUDA support"},
    {"gate": "packaging-aarch64", "reason": "no arm runner", "issue": "https://github.com/acme/robot-stack/issues/7",
     "opened": "2026-11-20", "expires": "2026-12-10", "blocked_claim": "arm packages"}
  ]
})";

policy::LoadedPolicy policy() {
  auto p = policy::parse_policy(kPolicy, "policy.json", JETGATE_SOURCE_DIR);
  if (!p) throw std::runtime_error(p.error().message());
  return *p;
}

Date today() {
  return *evidence::parse_iso_date("2026-11-29");
}

EvidenceSet evidence_set() {
  EvidenceSet set;
  set.loaded.push_back(
      loaded("e/jetson-cuda-runtime.json", orin_evidence_json("2026-11-27T08:00:00Z")));
  set.loaded.push_back(loaded(
      "e/extra-gate.json",
      orin_evidence_json("2026-11-29T08:00:00Z", {{"gate", "extra-gate"},
                                                  {"status", "failed"},
                                                  {"reason", "pytest exit 1: 2 failures"}})));
  set.skipped.push_back(
      {"e/bad.json", "e/bad.json: not valid JSON (empty, truncated or corrupt)", "bad"});
  return set;
}

// `set` holds the documents whole (test::loaded); they are judged here, as the loader judges files.
ClaimInputs inputs(EvidenceSet set, std::optional<policy::LoadedPolicy> p) {
  ClaimInputs in;
  in.policy = std::move(p);
  in.rules = JudgeRules{today(), 14, "", false};
  in.evidence = judge_set(std::move(set.loaded), in.rules);
  in.evidence.skipped = std::move(set.skipped);
  in.evidence_dirs = {"e"};
  in.commands.policy = in.policy ? "policy.json" : "";
  in.commands.evidence_dirs = in.evidence_dirs;
  return in;
}

TEST(ClaimsSummary, RequirementsInWords) {
  policy::Requirements r;
  EXPECT_EQ(describe_requirements(r), "");
  r.arch = {"aarch64", "x86_64"};
  r.is_tegra = true;
  r.l4t = policy::VersionRange{"36.0", "36"};
  r.cuda = true;
  r.min_cuda_driver = "12.2";
  r.min_memory_bytes = 32LL * 1024 * 1024 * 1024;
  EXPECT_EQ(describe_requirements(r),
            "aarch64 or x86_64; Jetson (Tegra); L4T 36.0 to 36; a CUDA device; CUDA driver >= "
            "12.2; GPU memory >= 32 GiB");
  policy::Requirements board;
  board.jetpack = policy::VersionRange{"6.0", std::nullopt};
  board.module = {"p3701-0005", "Jetson AGX Orin 32GB"};
  board.soc = {"tegra234"};
  board.power_mode = {"MAXN"};
  EXPECT_EQ(
      describe_requirements(board),
      "JetPack >= 6.0; module p3701-0005 or Jetson AGX Orin 32GB; SoC tegra234; power mode MAXN");
}

TEST(ClaimsSummary, RowsFollowThePolicyThenOtherEvidence) {
  const auto in = inputs(evidence_set(), policy());
  auto s = build_gate_summary(in);
  ASSERT_EQ(s.rows.size(), 4u);
  EXPECT_EQ(s.rows[0].gate, "jetson-cuda-runtime");
  EXPECT_EQ(s.rows[0].constraint,
            "aarch64; Jetson (Tegra); L4T 36.0 to 36; a CUDA device; CUDA driver >= 12.2; GPU "
            "memory >= 30 GiB");
  EXPECT_EQ(s.rows[0].decision.verdict.state, GateState::fresh_green);
  ASSERT_TRUE(s.rows[0].platform);
  EXPECT_EQ(s.rows[0].platform->platform, "Jetson AGX Orin 64GB");
  EXPECT_EQ(s.rows[1].decision.verdict.state, GateState::missing);
  EXPECT_EQ(s.rows[1].next,
            "run `jetgate run cuda-runtime --policy policy.json --evidence-dir e` on the target "
            "platform");
  ASSERT_TRUE(s.rows[1].waiver);
  EXPECT_TRUE(s.rows[1].waiver->active);
  EXPECT_EQ(s.rows[1].waiver->expires, "2026-12-10");
  ASSERT_TRUE(s.rows[2].waiver);
  EXPECT_FALSE(s.rows[2].waiver->active);  // software-only gates are never waivable
  EXPECT_NE(s.rows[2].constraint.find("software only"), std::string::npos);
  EXPECT_EQ(s.rows[3].gate, "extra-gate");
  EXPECT_FALSE(s.rows[3].in_policy);
}

TEST(ClaimsSummary, StepSummaryTableThenOneLinePerReason) {
  const auto in = inputs(evidence_set(), policy());
  std::string md = report::render_step_summary(build_gate_summary(in));
  EXPECT_NE(md.find("| Gate | Status | Commit | Platform | Evidence |"), std::string::npos) << md;
  EXPECT_NE(
      md.find("| jetson-cuda-runtime | PASS | 3f1c2a9d8e7b | Jetson AGX Orin 64GB · JetPack 6.2 "
              "(L4T 36.4.3), "
              "CUDA 12.6, torch 2.5.0a0+872d972e41.nv24.08 | 2026-11-27, 2 days old (max 14) |"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("| cuda-runtime | NOT_RUN: no evidence (waived) | \\- | \\- | none |"),
            std::string::npos)
      << md;
  EXPECT_NE(
      md.find(
          "- **cuda-runtime**: NOT_RUN: no evidence (waived)\n  - requires: a CUDA device\n  - "
          "waived until "
          "2026-12-10, tracked in https\\://github.com/acme/robot-stack/issues/412: the GPU runner "
          "is being "
          "re-flashed\n"),
      std::string::npos)
      << md;
  EXPECT_NE(md.find("  - invalid waiver: environment waiver waives a software-only gate"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- **extra-gate**: FAIL: the gate failed\n  - not in the policy: nothing "
                    "requires it\n  - the "
                    "gate failed: "
                    "pytest exit 1: 2 failures\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("- e/bad.json: not valid JSON"), std::string::npos) << md;
}

TEST(ClaimsSummary, WithoutPolicyEveryEvidencedGateIsListed) {
  const auto in = inputs(evidence_set(), std::nullopt);
  std::string md = report::render_step_summary(build_gate_summary(in));
  EXPECT_NE(md.find("with no policy"), std::string::npos);
  EXPECT_NE(md.find("| extra-gate | FAIL: the gate failed | 3f1c2a9d8e7b |"), std::string::npos)
      << md;
  EXPECT_NE(md.find("| jetson-cuda-runtime | PASS | 3f1c2a9d8e7b |"), std::string::npos) << md;
}

TEST(ClaimsSummary, IssueBodyCarriesFactsAndIsSanitized) {
  EvidenceSet set;
  auto j = orin_evidence_json(
      "2026-11-29T08:00:00Z",
      {{"status", "failed"},
       {"reason",
        "pytest failed in /home/alice/robot/tests, see 192.168.55.1 and "
        "ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R"},
       {"platform", {{"hostname", "orin-lab-07"}, {"tegra", {{"serial_number", "1422921234567"}}}}},
       {"probes", {{"bandwidth", {{"status", "PASS"}, {"reason", "171 GB/s on orin-lab-07"}}}}}});
  set.loaded.push_back(loaded("e/jetson-cuda-runtime.json", j));
  const auto in = inputs(set, std::nullopt);
  auto s = build_gate_summary(in);
  report::SanitizeOptions o;
  o.users = {"alice"};
  std::string body = report::render_issue_body(s, o);
  for (const char* secret : {"alice", "192.168.55.1", "ghp_", "orin-lab-07", "1422921234567"})
    EXPECT_EQ(body.find(secret), std::string::npos) << secret << " leaked:\n" << body;
  for (const char* fact :
       {"- L4T: 36.4.3", "- JetPack: 6.2", "- torch: 2.5.0a0+872d972e41.nv24.08, CUDA 12.6",
        "- module: Jetson AGX Orin 64GB", "- CUDA toolkit: 12.6.68",
        "- GPU: Orin, compute capability 8.7", "- probe bandwidth: PASS",
        "- verdict: FAIL: the gate failed", "tests 12, failures 0"})
    EXPECT_NE(body.find(fact), std::string::npos) << fact << " missing:\n" << body;
}

// A reason that quotes a JSON setting and a webhook: the Markdown escaping
// ("https\\://", a JSON string's \\") must not hide them from the redaction.
TEST(ClaimsSummary, IssueBodyRedactsJsonQuotedSecretsAndWebhooks) {
  EvidenceSet set;
  const std::string slack =
      "https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx";
  const std::string discord =
      "https://discord.com/api/webhooks/123456789012345678/"
      "abcdefghijklmnopqrstuvwxyzABCDEFGH_0123456789";
  const std::string teams =
      "https://acme.webhook.office.com/webhookb2/1111-2222@3333/IncomingWebhook/abcdef/4444";
  auto j =
      orin_evidence_json("2026-11-29T08:00:00Z",
                         {{"status", "failed"},
                          {"reason",
                           "config {\"password\": \"hunter2-Secret\", \"api_key\": \"k3y-V4lue\"} "
                           "and {\\\"token\\\": \\\"esc4ped-T0ken\\\"} posted to " +
                               slack + " " + discord + " " + teams}});
  set.loaded.push_back(loaded("e/jetson-cuda-runtime.json", j));
  const auto in = inputs(set, std::nullopt);
  auto s = build_gate_summary(in);
  std::string body = report::render_issue_body(s, {});
  for (const char* secret : {"hunter2-Secret", "k3y-V4lue", "esc4ped-T0ken", "T0AAAAAAA",
                             "123456789012345678", "IncomingWebhook/abcdef"})
    EXPECT_EQ(body.find(secret), std::string::npos) << secret << " leaked:\n" << body;
  EXPECT_NE(body.find("redacted:webhook"), std::string::npos) << body;
}

TEST(ClaimsSummary, ObliteratusEvidenceSaysFactsWereNotRecorded) {
  EvidenceSet set;
  set.loaded.push_back(loaded("o.json", {{"schema_version", 1},
                                         {"gate", "jetson-cuda-runtime"},
                                         {"status", "passed"},
                                         {"generated_at", "2026-11-29T16:23:05.123456+00:00"},
                                         {"git_sha", "local"},
                                         {"counts", {{"tests", 9}}}}));
  const auto in = inputs(set, std::nullopt);
  std::string body = report::render_issue_body(build_gate_summary(in), {});
  EXPECT_NE(body.find("platform facts: not recorded"), std::string::npos) << body;
}

}  // namespace
}  // namespace jetgate::claims
