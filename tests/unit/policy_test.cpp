// SPDX-License-Identifier: Apache-2.0
#include "jetgate/policy/policy.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "test_support.hpp"

namespace jetgate::policy {
namespace {

std::string obliteratus_dir() {
  return test::fixtures_dir() + "/gates/obliteratus";
}

bool has_issue(const LoadedPolicy& p, const std::string& subject, const std::string& text) {
  for (const auto& i : p.issues)
    if (i.subject == subject && i.line().find(text) != std::string::npos) return true;
  return false;
}

std::string dump_issues(const LoadedPolicy& p) {
  std::string out;
  for (const auto& i : p.issues) out += i.line() + "\n";
  return out;
}

TEST(PolicyTest, ObliteratusPolicyLoadsUnchanged) {
  auto p =
      load_policy_file(obliteratus_dir() + "/ci/conditional-test-policy.json", obliteratus_dir());
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_TRUE(p->issues.empty()) << dump_issues(*p);
  EXPECT_TRUE(p->warnings.empty());
  ASSERT_EQ(p->policy.gates.size(), 3u);
  EXPECT_EQ(p->policy.maximum_evidence_age_days, 14);
  const Gate* g = find_gate(p->policy, "model-download-runtime");
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(g->software_only);  // OBLITERATUS' hard-coded list
  EXPECT_FALSE(find_gate(p->policy, "cuda-runtime")->software_only);
  EXPECT_FALSE(find_gate(p->policy, "cuda-runtime")->runnable());
  EXPECT_EQ(find_gate(p->policy, "cuda-runtime")->coverage_paths.size(), 2u);
}

TEST(PolicyTest, CoveragePathsResolveAgainstTheRepositoryRoot) {
  // Without --repo-root the root is the checkout (the .git above the fixture),
  // where the fixture's coverage paths do not exist.
  auto p = load_policy_file(obliteratus_dir() + "/ci/conditional-test-policy.json");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->policy.repo_root,
            std::filesystem::path(test::source_dir()).lexically_normal().string());
  EXPECT_TRUE(has_issue(*p, "cuda-runtime", "maps missing source path: obliteratus/device.py"))
      << dump_issues(*p);
}

TEST(PolicyTest, DefaultPolicyIsEmbeddedAndValid) {
  auto p = load_default_policy();
  ASSERT_TRUE(p.ok()) << p.error().message();
  EXPECT_TRUE(p->issues.empty()) << dump_issues(*p);
  EXPECT_TRUE(p->warnings.empty());
  const Gate* cuda = find_gate(p->policy, "cuda-runtime");
  const Gate* jetson = find_gate(p->policy, "jetson-cuda-runtime");
  ASSERT_NE(cuda, nullptr);
  ASSERT_NE(jetson, nullptr);
  EXPECT_TRUE(cuda->requirements.cuda);
  EXPECT_EQ(cuda->probe_ids(),
            (std::vector<std::string>{"launch", "memory", "bandwidth", "sync_path"}));
  EXPECT_EQ(jetson->requirements.arch, std::vector<std::string>{"aarch64"});
  EXPECT_EQ(jetson->requirements.is_tegra, true);
  EXPECT_TRUE(jetson->requirements.l4t.has_value());
  auto jetson_ids = jetson->probe_ids();
  EXPECT_EQ(std::vector<std::string>(jetson_ids.end() - 2, jetson_ids.end()),
            (std::vector<std::string>{"python_runtime", "bitsandbytes"}));
}

TEST(PolicyTest, NotJsonOrNotAnObjectIsUnusable) {
  for (const char* text : {"", "{", "[]", "42", "\x01\x02garbage"}) {
    auto p = parse_policy(text, "p.json", ".");
    ASSERT_FALSE(p.ok()) << text;
    EXPECT_NE(p.error().message().find("p.json"), std::string::npos);
  }
  EXPECT_FALSE(load_policy_file("/nonexistent/jetgate/policy.json").ok());
}

TEST(PolicyTest, BrokenRulesAreIssuesNotErrors) {
  auto p = parse_policy(R"({"schema_version": 2, "gates": [
      {"id": "a", "probes": [{"probe": "launch", "status": "PASS"}]},
      {"id": "a", "probes": [{"probe": "launch", "status": "PASS"}]},
      {"id": "Bad/Id"},
      {"id": "old-style", "job": "x"}]})",
                        "p.json", ".");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(has_issue(*p, "policy", "schema_version must be 1"));
  EXPECT_TRUE(has_issue(*p, "policy", "missing non-empty string \"owner\""));
  EXPECT_TRUE(has_issue(*p, "policy", "maximum_evidence_age_days"));
  EXPECT_TRUE(has_issue(*p, "a", "duplicate gate id"));
  EXPECT_TRUE(has_issue(*p, "policy", "invalid id"));
  EXPECT_TRUE(has_issue(*p, "old-style", "is missing fields: marker, runner, prerequisites"));
  EXPECT_EQ(p->policy.gates.size(), 2u);
}

TEST(PolicyTest, EmptyGatesIsAnIssue) {
  auto p = parse_policy(R"({"schema_version": 1, "gates": []})", "p.json", ".");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(has_issue(*p, "policy", "gates must be a non-empty list"));
}

constexpr const char* kHeader = R"("schema_version": 1, "owner": "o", "cadence": "c",
    "evidence_retention_days": 30, "maximum_evidence_age_days": 7, )";

TEST(PolicyTest, JetgateAdditionsParse) {
  auto p = parse_policy(std::string("{") + kHeader + R"("repository": "acme/robot", "gates": [{
      "id": "orin", "software_only": false,
      "requires": {"arch": ["aarch64"], "is_tegra": true, "l4t": {"min": "36.0", "max": "36"},
                   "cuda": true, "min_cuda_driver": "12.2", "min_memory_gib": 8},
      "probes": [{"probe": "bandwidth", "metric": "d2d_fraction_of_peak", "min": 0.8},
                 {"probe": "sync_path", "metric": "sync_blocking_sync_cpu_fraction", "max": 0.1},
                 {"probe": "launch", "status": "PASS"}],
      "command": {"argv": ["/usr/bin/python3", "-m", "pytest"], "timeout_s": 60,
                  "junit": "out/report.xml", "cwd": "tests", "env": {"A": "1"}}}]})",
                        "p.json", ".");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->issues.empty()) << dump_issues(*p);
  EXPECT_EQ(p->policy.repository, "acme/robot");
  const Gate& g = p->policy.gates.at(0);
  EXPECT_EQ(g.requirements.min_memory_bytes, 8LL << 30);
  EXPECT_EQ(g.requirements.min_cuda_driver, "12.2");
  EXPECT_EQ(g.requirements.l4t->max, "36");
  ASSERT_EQ(g.probes.size(), 3u);
  EXPECT_EQ(g.probes[0].min, 0.8);
  EXPECT_EQ(g.probes[1].max, 0.1);
  ASSERT_TRUE(g.command);
  EXPECT_EQ(g.command->timeout_s, 60);
  EXPECT_EQ(g.command->cwd, "tests");
  EXPECT_EQ(g.command->env.at("A"), "1");
  EXPECT_TRUE(g.runnable());
}

TEST(PolicyTest, MalformedAdditionsAreIssuesOfTheirGate) {
  auto p = parse_policy(std::string("{") + kHeader + R"("repository": "not a repo", "gates": [{
      "id": "g",
      "requires": {"arch": 5, "l4t": {"min": "thirty-six"}, "min_memory_bytes": -1},
      "probes": [{"probe": "warp-drive", "status": "PASS"}, {"probe": "bandwidth", "metric": "x"},
                 {"probe": "launch", "status": "OK"}],
      "command": {"argv": [], "junit": "r.xml"}}]})",
                        "p.json", ".");
  ASSERT_TRUE(p.ok());
  for (const char* text :
       {"requires.arch", "requires.l4t.min", "min_memory_bytes", "unknown probe \"warp-drive\"",
        "probes[1] for probe bandwidth is malformed", "probes[2] for probe launch", "command.argv"})
    EXPECT_TRUE(has_issue(*p, "g", text)) << text << "\n" << dump_issues(*p);
  EXPECT_TRUE(has_issue(*p, "policy", "\"repository\" must be \"OWNER/NAME\""));
}

TEST(PolicyTest, NeverWaivableGatesCannotBeMadeWaivable) {
  for (const char* id :
       {"operator-ui", "model-download-runtime", "external-evaluation", "network-services"}) {
    auto p = parse_policy(
        std::string("{") + kHeader + R"("gates": [{"id": ")" + id +
            R"(", "software_only": false, "probes": [{"probe": "launch", "status": "PASS"}]}]})",
        "p.json", ".");
    ASSERT_TRUE(p.ok());
    EXPECT_TRUE(has_issue(*p, id, "software_only cannot be false")) << id << "\n"
                                                                    << dump_issues(*p);
    for (const auto& g : p->policy.gates) EXPECT_TRUE(g.software_only) << id;
  }
  auto ok = parse_policy(
      std::string("{") + kHeader + R"("gates": [{"id": "operator-ui", "software_only": true,
      "probes": [{"probe": "launch", "status": "PASS"}]}]})",
      "p.json", ".");
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->issues.empty()) << dump_issues(*ok);
}

TEST(PolicyTest, FieldIssuesSayWhatToDoNext) {
  auto p =
      parse_policy(std::string("{") + kHeader + R"("gates": [5, {"id": "g", "software_only": "yes",
      "requires": {"is_tegra": "yes", "cuda": 1}, "probes": [{"probe": "launch", "status": "PASS"}]}]})",
                   "p.json", ".");
  ASSERT_TRUE(p.ok());
  ASSERT_GE(p->issues.size(), 4u) << dump_issues(*p);
  for (const auto& i : p->issues) EXPECT_FALSE(i.next.empty()) << i.line();
}

TEST(PolicyTest, UnknownKeysAreErrorsWithASuggestion) {
  auto p = parse_policy(std::string("{") + kHeader + R"("gates": [{
      "id": "g", "probes": [{"probe": "launch", "status": "PASS", "statuss": "x"}],
      "requries": {"cuda": true}}], "maximum_evidence_age": 3})",
                        "p.json", ".");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->warnings.empty());
  ASSERT_EQ(p->issues.size(), 3u) << dump_issues(*p);
  std::string all = dump_issues(*p);
  EXPECT_NE(all.find("unknown key \"requries\" (did you mean \"requires\"?)"), std::string::npos)
      << all;
  EXPECT_NE(all.find("unknown key \"statuss\" (did you mean \"status\"?)"), std::string::npos)
      << all;
  EXPECT_NE(all.find("\"maximum_evidence_age\" (did you mean \"maximum_evidence_age_days\"?)"),
            std::string::npos)
      << all;
}

TEST(PolicyTest, FindRepoRootWalksUpToGit) {
  test::TempDir t;
  std::filesystem::create_directories(t.path("repo/.git"));
  std::filesystem::create_directories(t.path("repo/ci/deep"));
  EXPECT_EQ(find_repo_root(t.path("repo/ci/deep")), t.path("repo"));
}

// docs/policy.schema.json must accept every example policy and the default
// policy, and reject broken ones; checked with Debian's python3-jsonschema.
TEST(PolicySchemaTest, ExamplesAndDefaultPolicyValidate) {
  if (std::system("/usr/bin/python3 -c 'import jsonschema' 2>/dev/null") != 0)
    GTEST_SKIP() << "python3-jsonschema is not installed (CI installs it)";
  std::string script = test::fixtures_dir() + "/gates/validate_policy_schema.py";
  auto r = std::system(("/usr/bin/python3 " + script + " " + test::source_dir()).c_str());
  EXPECT_EQ(r, 0) << "see the test's output above";
}

}  // namespace
}  // namespace jetgate::policy
