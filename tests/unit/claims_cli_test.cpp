// SPDX-License-Identifier: Apache-2.0
// End-to-end: the built jetgate binary on the evidence sets in
// tests/fixtures/claims (SOURCE.md there says what each holds).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace jetgate::test {
namespace {

std::string claims_dir(const char* name) {
  return fixtures_dir() + "/claims/" + name;
}

std::vector<std::string> all_dirs() {
  return {"--evidence-dir",           claims_dir("jetgate-orin"), "--evidence-dir",
          claims_dir("jetgate-h200"), "--evidence-dir",           claims_dir("obliteratus"),
          "--evidence-dir",           claims_dir("troubles")};
}

std::vector<std::string> args(std::vector<std::string> head, const std::vector<std::string>& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

const char* kReadme =
    "# robot-stack\n\n## Support\n\n<!-- jetgate:support:begin -->\n<!-- jetgate:support:end "
    "-->\n\nLicense: MIT\n";

TEST(ClaimsCli, SupportMarkdownFromEveryKindOfEvidence) {
  auto r = run_jetgate(args({"support", "--today", "2026-11-29"}, all_dirs()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out,
                  "| Jetson AGX Orin 64GB | JetPack 6.2 (L4T 36.4.3), CUDA 12.6, torch "
                  "2.5.0a0+872d972e41.nv24.08 | "
                  "cuda-runtime (2026-11-28), jetson-cuda-runtime (2026-11-29) |"))
      << r.out;
  EXPECT_TRUE(has(r.out,
                  "| NVIDIA H200 (x86_64) | driver 580.159.04, CUDA 13.0, torch 2.11.0+cu130 | "
                  "cuda-runtime (2026-11-29) |"))
      << r.out;
  EXPECT_TRUE(has(r.out,
                  "| platform not recorded | not recorded | jetson-cuda-runtime | platform not "
                  "recorded in the evidence |"))
      << r.out;
  EXPECT_TRUE(has(r.out, "| jetson-cuda-runtime | stale (evidence of 2026-11-01) |")) << r.out;
  EXPECT_TRUE(has(r.out, "| bitsandbytes-runtime | dated in the future (evidence of 2026-12-05) |"))
      << r.out;
  EXPECT_TRUE(has(r.out, "| memory-pressure | inconsistent counts (evidence of 2026-11-29) |"))
      << r.out;
  // Nothing on the Orin Nano holds, so it appears only below "Not claimed".
  auto not_claimed = r.out.find("Not claimed:");
  ASSERT_NE(not_claimed, std::string::npos);
  EXPECT_FALSE(has(r.out.substr(0, not_claimed), "Orin Nano")) << r.out;
  // Each unreadable file is named once on stderr, and none stops the others.
  for (const char* bad :
       {"corrupt-truncated.json", "empty.json", "binary.json", "not-evidence.json"})
    EXPECT_TRUE(has(r.err, bad)) << r.err;
  EXPECT_FALSE(has(r.err, "notes.txt"));
}

TEST(ClaimsCli, SupportJson) {
  auto r = run_jetgate(
      args({"support", "--today", "2026-11-29", "--format", "json", "--max-age-days", "30"},
           all_dirs()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["max_age_days"], 30);
  EXPECT_EQ(j["skipped"].size(), 4u);
  int supported = 0;
  for (const auto& row : j["rows"]) supported += static_cast<int>(row["supported_gates"].size());
  EXPECT_EQ(supported, 4);  // Orin x2, H200 x1, and the Nano's 28-day-old gate under a 30-day rule
}

TEST(ClaimsCli, FreshnessFromThePolicyAndItsBoundary) {
  TempDir t;
  auto policy = t.write("policy.json", R"({"schema_version": 1, "owner": "o", "cadence": "c",
      "maximum_evidence_age_days": 1, "gates": [{"id": "jetson-cuda-runtime", "job": "j", "marker": "m",
      "runner": "r", "coverage_paths": ["p"]}]})");
  auto run = [&](const char* today) {
    return run_jetgate({"support", "--evidence-dir", claims_dir("jetgate-orin"), "--policy", policy,
                        "--today", today, "--format", "json"});
  };
  auto at_boundary = run("2026-11-30");  // jetson-cuda-runtime is 1 day old, cuda-runtime 2
  ASSERT_EQ(at_boundary.exit_code, 0) << at_boundary.err;
  auto j = nlohmann::json::parse(at_boundary.out);
  EXPECT_EQ(j["rows"][0]["supported_gates"], nlohmann::json({"jetson-cuda-runtime"}));
  auto beyond = nlohmann::json::parse(run("2026-12-01").out);
  EXPECT_TRUE(beyond["rows"][0]["supported_gates"].empty());
  auto conflict = run_jetgate({"support", "--evidence-dir", claims_dir("jetgate-orin"), "--policy",
                               policy, "--max-age-days", "3"});
  EXPECT_EQ(conflict.exit_code, 2);
  auto missing_policy = run_jetgate(
      {"support", "--evidence-dir", claims_dir("jetgate-orin"), "--policy", t.path("nope.json")});
  EXPECT_EQ(missing_policy.exit_code, 2);
  EXPECT_TRUE(has(missing_policy.err, "nope.json")) << missing_policy.err;
}

TEST(ClaimsCli, ReadmeRoundTrip) {
  TempDir t;
  auto readme = t.write("README.md", kReadme);
  auto write =
      run_jetgate(args({"support", "--today", "2026-11-29", "--readme", readme}, all_dirs()));
  ASSERT_EQ(write.exit_code, 0) << write.err;
  std::string written = read_file(readme);
  EXPECT_TRUE(has(
      written, "# robot-stack\n\n## Support\n\n<!-- jetgate:support:begin -->\n<!-- Generated by"));
  EXPECT_TRUE(has(written, "<!-- jetgate:support:end -->\n\nLicense: MIT\n"));
  EXPECT_TRUE(has(written, "| NVIDIA H200 (x86_64) |"));

  auto verify = run_jetgate(
      args({"support", "--today", "2026-11-29", "--readme", readme, "--verify"}, all_dirs()));
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  EXPECT_EQ(read_file(readme), written);

  // Writing again changes nothing: the block is deterministic.
  auto again =
      run_jetgate(args({"support", "--today", "2026-11-29", "--readme", readme}, all_dirs()));
  EXPECT_EQ(again.exit_code, 0);
  EXPECT_TRUE(has(again.out, "already up to date")) << again.out;
  EXPECT_EQ(read_file(readme), written);

  // A row added by hand claims more than the evidence: one violation line.
  std::string row =
      "| Jetson Orin Nano 8GB | JetPack 6.0 (L4T 36.3.0), CUDA 12.2, torch 2.3.0 | cuda-runtime "
      "(2026-11-29) |\n";
  std::string edited = written;
  edited.insert(edited.find("| NVIDIA H200"), row);
  t.write("README.md", edited);
  auto violated = run_jetgate(
      args({"support", "--today", "2026-11-29", "--readme", readme, "--verify"}, all_dirs()));
  EXPECT_EQ(violated.exit_code, 1);
  EXPECT_TRUE(has(violated.out, "README.md:")) << violated.out;
  EXPECT_TRUE(has(violated.out, "claims gate cuda-runtime on \"Jetson Orin Nano 8GB\""))
      << violated.out;
  EXPECT_TRUE(has(violated.out, "is failed")) << violated.out;
  EXPECT_EQ(read_file(readme), edited);  // --verify never writes

  // Only the Orin evidence left: the H200 row is now unbacked.
  t.write("README.md", written);
  auto fewer = run_jetgate({"support", "--today", "2026-11-29", "--readme", readme, "--verify",
                            "--evidence-dir", claims_dir("jetgate-orin")});
  EXPECT_EQ(fewer.exit_code, 1);
  EXPECT_TRUE(has(fewer.out, "NVIDIA H200")) << fewer.out;

  // Three weeks later every claim has gone stale.
  auto later = run_jetgate(
      args({"support", "--today", "2026-12-20", "--readme", readme, "--verify"}, all_dirs()));
  EXPECT_EQ(later.exit_code, 1);
}

TEST(ClaimsCli, ReadmeMarkersMissingDuplicatedOrMisorderedIsUnusableInput) {
  TempDir t;
  for (const char* text : {"# no markers\n",
                           "<!-- jetgate:support:begin -->\n<!-- jetgate:support:begin -->\n<!-- "
                           "jetgate:support:end -->\n",
                           "<!-- jetgate:support:end -->\n<!-- jetgate:support:begin -->\n"}) {
    auto readme = t.write("README.md", text);
    for (bool verify : {false, true}) {
      auto cmd =
          args({"support", "--readme", readme}, {"--evidence-dir", claims_dir("jetgate-orin")});
      if (verify) cmd.push_back("--verify");
      auto r = run_jetgate(cmd);
      EXPECT_EQ(r.exit_code, 2) << text;
      EXPECT_TRUE(has(r.err, "README.md")) << r.err;
      EXPECT_EQ(read_file(readme), text);
    }
  }
  auto missing = run_jetgate(
      {"support", "--readme", t.path("absent.md"), "--evidence-dir", claims_dir("jetgate-orin")});
  EXPECT_EQ(missing.exit_code, 2);
}

TEST(ClaimsCli, EmptyBinaryAndOversizedReadmesAreRefusedUntouched) {
  TempDir t;
  std::string binary;
  for (int i = 0; i < 4096; ++i) binary += static_cast<char>((i * 7) % 256);
  std::string oversized = std::string(kReadme) + std::string(5u << 20, 'x');
  for (const std::string& text : {std::string(), binary, oversized}) {
    auto readme = t.write("README.md", text);
    auto r =
        run_jetgate({"support", "--readme", readme, "--evidence-dir", claims_dir("jetgate-orin")});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(has(r.err, "README.md")) << r.err;
    EXPECT_EQ(read_file(readme).size(), text.size());
  }
  // Garbage between intact markers is not a claim jetgate can check.
  auto readme = t.write("README.md", "<!-- jetgate:support:begin -->\n" + binary +
                                         "\n<!-- jetgate:support:end -->\n");
  auto r = run_jetgate(
      {"support", "--readme", readme, "--verify", "--evidence-dir", claims_dir("jetgate-orin")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
}

TEST(ClaimsCli, UnusableArguments) {
  EXPECT_EQ(run_jetgate({"support"}).exit_code, 2);
  EXPECT_EQ(run_jetgate({"support", "--evidence-dir", claims_dir("no-such-dir")}).exit_code, 2);
  EXPECT_EQ(run_jetgate(
                {"support", "--evidence-dir", claims_dir("jetgate-orin"), "--today", "2026-02-30"})
                .exit_code,
            2);
  EXPECT_EQ(
      run_jetgate({"support", "--evidence-dir", claims_dir("jetgate-orin"), "--verify"}).exit_code,
      2);
  EXPECT_EQ(
      run_jetgate({"support", "--evidence-dir", claims_dir("jetgate-orin"), "--format", "xml"})
          .exit_code,
      2);
  EXPECT_EQ(
      run_jetgate({"support", "--evidence-dir", claims_dir("jetgate-orin"), "--max-age-days", "-1"})
          .exit_code,
      2);
  EXPECT_EQ(
      run_jetgate({"summary", "--evidence-dir", claims_dir("jetgate-orin"), "--format", "html"})
          .exit_code,
      2);
  EXPECT_EQ(
      run_jetgate({"summary", "--evidence-dir", claims_dir("jetgate-orin"), "--today", "tomorrow"})
          .exit_code,
      2);
}

TEST(ClaimsCli, SummaryStepAndIssue) {
  auto step = run_jetgate({"summary", "--evidence-dir", claims_dir("jetgate-orin"),
                           "--evidence-dir", claims_dir("troubles"), "--today", "2026-11-29"});
  ASSERT_EQ(step.exit_code, 0) << step.err;
  // The AGX Orin's evidence is fresh green, the Orin Nano's newest is stale: each
  // board is judged on its own and the gate is its worst board.
  EXPECT_TRUE(
      has(step.out,
          "| jetson-cuda-runtime | FAIL: stale | 3f1c2a9d8e7b | Jetson Orin Nano 8GB · JetPack "
          "6.0 (L4T 36.3.0), CUDA 12.2, torch 2.3.0 | 2026-11-01, 28 days old (max 14) |"))
      << step.out;
  auto orin_only = run_jetgate(
      {"summary", "--evidence-dir", claims_dir("jetgate-orin"), "--today", "2026-11-29"});
  EXPECT_TRUE(has(
      orin_only.out,
      "| jetson-cuda-runtime | PASS | 3f1c2a9d8e7b | Jetson AGX Orin 64GB · JetPack 6.2 (L4T "
      "36.4.3), CUDA 12.6, torch 2.5.0a0+872d972e41.nv24.08 | 2026-11-29, 0 days old (max 14) |"))
      << orin_only.out;
  EXPECT_TRUE(has(step.out, "| bitsandbytes-runtime | FAIL: dated in the future | 3f1c2a9d8e7b |"))
      << step.out;

  auto issue =
      run_jetgate({"summary", "--format", "issue", "--evidence-dir", claims_dir("jetgate-orin"),
                   "--evidence-dir", claims_dir("troubles"), "--today", "2026-11-29"});
  ASSERT_EQ(issue.exit_code, 0) << issue.err;
  EXPECT_TRUE(has(issue.out, "- L4T: 36.4.3")) << issue.out;
  EXPECT_TRUE(has(issue.out, "- torch: 2.5.0a0+872d972e41.nv24.08")) << issue.out;
  EXPECT_TRUE(has(issue.out, "- corrupt-truncated.json:1:301: not valid JSON")) << issue.out;
  EXPECT_TRUE(has(issue.out, "- binary.json:1:1: not valid JSON: a NUL byte")) << issue.out;
  EXPECT_FALSE(has(issue.out, fixtures_dir())) << "directories of the machine must not leak";
}

TEST(ClaimsCli, ANumberBeyondADoubleInThePolicyIsUnusableInputNotACrash) {
  TempDir t;
  auto policy = t.write("policy.json", R"({"schema_version": 1, "owner": "o", "cadence": "c",
      "maximum_evidence_age_days": 1e999, "gates": []})");
  for (const char* cmd : {"support", "summary"}) {
    auto r = run_jetgate({cmd, "--evidence-dir", claims_dir("jetgate-orin"), "--policy", policy,
                          "--today", "2026-11-29"});
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.out << r.err;
    EXPECT_TRUE(has(r.err, "policy.json:2:36: not valid JSON: a number too large for a double"))
        << cmd << "\n"
        << r.err;
  }
}

TEST(ClaimsCli, APolicyWithoutAValidMaxAgeIsUnusableInput) {
  TempDir t;
  const char* gates =
      R"("gates": [{"id": "jetson-cuda-runtime", "job": "j", "marker": "m", "runner": "r",
      "coverage_paths": ["p"]}]})";
  for (const char* age :
       {"", R"("maximum_evidence_age_days": "7", )", R"("maximum_evidence_age_days": -3, )"}) {
    auto policy = t.write(
        "policy.json",
        std::string(R"({"schema_version": 1, "owner": "o", "cadence": "c", )") + age + gates);
    for (const char* cmd : {"support", "summary"}) {
      auto r = run_jetgate({cmd, "--evidence-dir", claims_dir("jetgate-orin"), "--policy", policy,
                            "--today", "2026-11-29"});
      EXPECT_EQ(r.exit_code, 2) << cmd << " " << age << "\n" << r.out << r.err;
      EXPECT_TRUE(has(r.err, "maximum_evidence_age_days")) << cmd << " " << age << "\n" << r.err;
    }
  }
}

TEST(ClaimsCli, SummaryWithTheDefaultPolicyShapeAndItsWaivers) {
  TempDir t;
  auto policy = t.write("policy.json", R"({"schema_version": 1, "owner": "o", "cadence": "c",
      "maximum_evidence_age_days": 14, "repository": "acme/robot-stack",
      "gates": [{"id": "jetson-cuda-runtime", "job": "j", "marker": "m", "runner": "r", "coverage_paths": ["p"],
                 "requires": {"arch": "aarch64", "is_tegra": true}},
                {"id": "cuda-runtime", "job": "j", "marker": "m", "runner": "r", "coverage_paths": ["p"]}],
      "environment_waivers": [{"gate": "cuda-runtime", "reason": "runner down",
        "issue": "https://github.com/acme/robot-stack/issues/3", "opened": "2026-11-29", "expires": "2026-11-29",
        "blocked_claim": "x86"}]})");
  auto r = run_jetgate({"summary", "--policy", policy, "--evidence-dir", claims_dir("jetgate-orin"),
                        "--today", "2026-11-29"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "| jetson-cuda-runtime | PASS | 3f1c2a9d8e7b | Jetson AGX Orin 64GB"))
      << r.out;
  // A waiver expiring today is still active.
  EXPECT_TRUE(has(
      r.out, "waived until 2026-11-29, tracked in https\\://github.com/acme/robot-stack/issues/3"))
      << r.out;
}

}  // namespace
}  // namespace jetgate::test
