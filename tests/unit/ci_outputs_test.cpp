// SPDX-License-Identifier: Apache-2.0
// CI outputs: JUnit files (read back with jetgate's own reader and with
// python3-junitparser), GitHub annotations and the shields.io badge.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

#include "jetgate/gate/junit.hpp"
#include "jetgate/report/annotations.hpp"
#include "jetgate/report/junit_xml.hpp"
#include "test_support.hpp"

namespace jetgate::test {
namespace {

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

// "tests failures errors skipped" as python3-junitparser reads the file, or
// empty when it is not installed.
std::string junitparser_counts(const std::string& path) {
  if (std::system("/usr/bin/python3 -c 'import junitparser' 2>/dev/null") != 0) return "";
  std::string cmd = "/usr/bin/python3 " + fixtures_dir() + "/init/read_junit.py " + path;
  std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
  std::string out;
  std::array<char, 256> buf{};
  while (p && fgets(buf.data(), buf.size(), p.get())) out += buf.data();
  return out;
}

std::string counts_text(const gate::JunitCounts& c) {
  return std::to_string(c.tests) + " " + std::to_string(c.failures) + " " +
         std::to_string(c.errors) + " " + std::to_string(c.skipped) + "\n";
}

TEST(CiOutputs, JunitOfEveryStatusReadsBackWithJetgatesReader) {
  report::JunitSuite s{"jetgate run g", {}};
  s.cases = {{"c", "requirement arch", Outcome::fail, "arch is x86_64", "run it on a Jetson"},
             {"c", "probe launch", Outcome::pass, "", ""},
             {"c", "probe bandwidth", Outcome::warn, "slow", ""},
             {"c", "probe decode", Outcome::skip, "no model", ""},
             {"c", "probe memory", Outcome::not_run, "no driver", ""},
             {"c", "command", Outcome::fail, "crashed", ""},
             {"c\x01", "name <&>\"\xff", Outcome::fail, "bytes \x02\xfe and ]]>", ""}};
  auto xml = report::render_junit_xml(s);
  auto counts = gate::parse_junit_xml(xml, "junit.xml");
  ASSERT_TRUE(counts.ok()) << counts.error().message() << "\n" << xml;
  EXPECT_EQ(counts->tests, 7);
  EXPECT_EQ(counts->failures, 3);
  EXPECT_EQ(counts->errors, 0);
  EXPECT_EQ(counts->skipped, 2);
  ASSERT_FALSE(counts->not_passed.empty());
  EXPECT_EQ(counts->not_passed[0].message, "arch is x86_64 (next: run it on a Jetson)");
}

TEST(CiOutputs, RunJunitHasACasePerRowWithTheNextStep) {
  TempDir t;
  auto junit = t.path("run.xml");
  auto r = run_jetgate(
      {"run", "jetson-cuda-runtime", "--evidence-dir", t.path("ev"), "--junit", junit, "--quiet"},
      {std::string("JETGATE_CUDA_DRIVER=") + JETGATE_FAKE_CUDA});
  ASSERT_EQ(r.exit_code, 2) << r.err << r.out;  // not a Jetson: not run
  auto counts = gate::read_junit_file(junit);
  ASSERT_TRUE(counts.ok()) << counts.error().message();
  EXPECT_GE(counts->failures, 2) << "arch and is_tegra are unmet on this machine";
  EXPECT_TRUE(has(read_file(junit), "next: run this gate on a machine that meets it"));
  auto py = junitparser_counts(junit);
  if (!py.empty()) {
    EXPECT_EQ(py, counts_text(*counts));
  }
}

TEST(CiOutputs, ProbeJunitHasACasePerProbe) {
  TempDir t;
  auto junit = t.path("probe.xml");
  auto r = run_jetgate({"probe", "--cuda", "--quiet", "--junit", junit},
                       {std::string("JETGATE_CUDA_DRIVER=") + JETGATE_FAKE_CUDA});
  EXPECT_NE(r.exit_code, 2) << r.err;
  auto counts = gate::read_junit_file(junit);
  ASSERT_TRUE(counts.ok()) << counts.error().message();
  EXPECT_EQ(counts->tests, 4) << read_file(junit);  // launch, memory, bandwidth, sync_path
  auto py = junitparser_counts(junit);
  if (!py.empty()) {
    EXPECT_EQ(py, counts_text(*counts));
  }
}

TEST(CiOutputs, CheckJunitAndAnnotationsNameTheGate) {
  TempDir t;
  auto junit = t.path("check.xml");
  auto policy =
      t.write("repo/p.json", read_file(source_dir() + "/docs/examples/jetson-policy.json"));
  std::filesystem::create_directories(t.path("repo/.git"));
  std::filesystem::create_directories(t.path("repo/ev"));
  auto r = run_jetgate({"check", "--policy", policy, "--evidence-dir", t.path("repo/ev"), "--today",
                        "2026-11-29", "--candidate-sha", std::string(40, 'a'), "--junit", junit},
                       {"GITHUB_ACTIONS=true"});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_TRUE(has(r.out, "::error file=" + policy + ",title=jetgate check::")) << r.out;
  auto counts = gate::read_junit_file(junit);
  ASSERT_TRUE(counts.ok()) << counts.error().message();
  EXPECT_EQ(counts->tests, 3) << read_file(junit);  // the policy and its two gates
  EXPECT_GE(counts->failures, 1);
  auto py = junitparser_counts(junit);
  if (!py.empty()) {
    EXPECT_EQ(py, counts_text(*counts));
  }
  auto quiet = run_jetgate({"check", "--policy", policy, "--evidence-dir", t.path("repo/ev"),
                            "--today", "2026-11-29", "--candidate-sha", std::string(40, 'a')},
                           {"GITHUB_ACTIONS=false"});
  EXPECT_FALSE(has(quiet.out, "::error")) << "annotations only on GitHub Actions";
  auto json =
      run_jetgate({"check", "--policy", policy, "--evidence-dir", t.path("repo/ev"), "--today",
                   "2026-11-29", "--candidate-sha", std::string(40, 'a'), "--json"},
                  {"GITHUB_ACTIONS=true"});
  EXPECT_FALSE(nlohmann::json::parse(json.out, nullptr, false).is_discarded())
      << "with --json the annotations go to stderr: " << json.out;
  EXPECT_TRUE(has(json.err, "::error file=")) << json.err;
  EXPECT_EQ(
      run_jetgate({"check", "--policy", policy, "--junit", t.path("missing/x.xml")}).exit_code, 2);
}

TEST(CiOutputs, AnnotationsEscapeAsGitHubDocuments) {
  EXPECT_EQ(report::github_annotation("error", "50% done\r\nnext", "a:b,c.md", "t"),
            "::error file=a%3Ab%2Cc.md,title=t::50%25 done%0D%0Anext");
  EXPECT_EQ(report::github_annotation("warning", "x: y, z"), "::warning::x: y, z");
}

TEST(CiOutputs, BadgeSaysNoSupportWithoutGreenEvidence) {
  TempDir t;
  std::filesystem::create_directories(t.path("ev"));
  auto badge = t.path("badge.json");
  auto r = run_jetgate({"support", "--evidence-dir", t.path("ev"), "--badge", badge});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(read_file(badge));
  EXPECT_EQ(doc["schemaVersion"], 1);
  EXPECT_EQ(doc["label"], "Jetson");
  EXPECT_EQ(doc["message"], "no support claimed");
  EXPECT_EQ(doc["color"], "lightgrey");
  auto green = run_jetgate({"support", "--evidence-dir", fixtures_dir() + "/claims/jetgate-orin",
                            "--today", "2026-11-29", "--badge", badge});
  ASSERT_EQ(green.exit_code, 0) << green.err;
  doc = nlohmann::json::parse(read_file(badge));
  EXPECT_EQ(doc["color"], "brightgreen") << doc.dump();
  EXPECT_NE(doc["message"], "no support claimed");
}

// Under the label Jetson an H200's green evidence is no Jetson platform; the
// Orin's is. Another label counts every platform.
TEST(CiOutputs, TheJetsonBadgeCountsOnlyJetsonPlatforms) {
  TempDir t;
  auto badge = t.path("badge.json");
  auto h200 = fixtures_dir() + "/claims/jetgate-h200";
  auto orin = fixtures_dir() + "/claims/jetgate-orin";
  // The H200 evidence backs a claim: the badge must not call it a Jetson platform.
  auto plain = run_jetgate({"support", "--evidence-dir", h200, "--today", "2026-11-29", "--json"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  ASSERT_NE(plain.out.find("H200"), std::string::npos) << plain.out;
  auto r =
      run_jetgate({"support", "--evidence-dir", h200, "--today", "2026-11-29", "--badge", badge});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(read_file(badge));
  EXPECT_EQ(doc["message"], "no support claimed") << doc.dump();
  r = run_jetgate({"support", "--evidence-dir", h200, "--evidence-dir", orin, "--today",
                   "2026-11-29", "--badge", badge});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  doc = nlohmann::json::parse(read_file(badge));
  EXPECT_EQ(doc["color"], "brightgreen");
  EXPECT_EQ(doc["message"].get<std::string>().find("H200"), std::string::npos) << doc.dump();
  EXPECT_NE(doc["message"], "2 platforms") << doc.dump();
  r = run_jetgate({"support", "--evidence-dir", h200, "--evidence-dir", orin, "--today",
                   "2026-11-29", "--badge", badge, "--badge-label", "CUDA"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(read_file(badge))["message"], "2 platforms");
}

// The badge's message is the platform's name from evidence: shields.io draws
// it, so bidi, line-separator, C1 and zero-width characters take their
// visible form and cannot reorder or hide what the README shows.
TEST(CiOutputs, TheBadgeShowsThePlatformsNameAsInertText) {
  TempDir t;
  std::filesystem::create_directories(t.path("ev"));
  auto doc =
      nlohmann::json::parse(read_file(fixtures_dir() + "/claims/jetgate-orin/cuda-runtime.json"));
  doc["platform"]["tegra"]["module"] = "Orin \u202eRLO\u2028LS\u0085NEL\u009bCSI\u200bZW\u2066";
  t.write("ev/cuda-runtime.json", doc.dump());
  auto badge = t.path("badge.json");
  auto r = run_jetgate(
      {"support", "--evidence-dir", t.path("ev"), "--today", "2026-11-29", "--badge", badge});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto message = nlohmann::json::parse(read_file(badge))["message"].get<std::string>();
  EXPECT_EQ(message, "Orin \\u202eRLO\\u2028LS\\u0085NEL\\u009bCSI\\u200bZW\\u2066") << message;
}

// The JSON of container, support and check, validated against docs/schemas.
TEST(CiOutputs, CommandJsonMatchesItsSchema) {
  if (std::system("/usr/bin/python3 -c 'import jsonschema' 2>/dev/null") != 0)
    GTEST_SKIP() << "python3-jsonschema is not installed (CI installs it)";
  TempDir t;
  auto validate = [&](const std::string& schema, const std::string& json) {
    auto file = t.write("out.json", json);
    return std::system(("/usr/bin/python3 " + fixtures_dir() + "/schemas/validate_output.py " +
                        source_dir() + "/docs/schemas/" + schema + " " + file)
                           .c_str());
  };
  const std::string claims = fixtures_dir() + "/claims/";
  const std::string sha(40, 'a');
  struct Case {
    std::string schema;
    std::vector<std::string> args;
  };
  for (const auto& c : std::vector<Case>{
           {"container.schema.json", {"container", "--l4t", "36.4.3", "--json"}},
           {"container.schema.json", {"container", "--l4t", "38.2.0", "--json"}},
           {"support.schema.json",
            {"support", "--evidence-dir", claims + "jetgate-orin", "--evidence-dir",
             claims + "troubles", "--today", "2026-11-29", "--json"}},
           {"support.schema.json",
            {"support", "--evidence-dir", claims + "jetgate-h200", "--format", "json"}},
           {"summary.schema.json",
            {"summary", "--policy", source_dir() + "/docs/examples/jetson-policy.json",
             "--evidence-dir", claims + "jetgate-orin", "--evidence-dir", claims + "troubles",
             "--today", "2026-11-29", "--json"}},
           {"summary.schema.json",
            {"summary", "--evidence-dir", claims + "jetgate-h200", "--json"}},
           {"check.schema.json",
            {"check", "--policy", source_dir() + "/docs/examples/jetson-policy.json",
             "--evidence-dir", claims + "jetgate-orin", "--today", "2026-11-29", "--candidate-sha",
             sha, "--json"}}}) {
    auto r = run_jetgate(c.args);
    ASSERT_NE(r.exit_code, 2) << r.err;
    EXPECT_EQ(validate(c.schema, r.out), 0) << c.args[0] << " " << c.args[1] << "\n" << r.out;
  }
  auto keygen = run_jetgate({"keygen", t.path("runner.key"), "--owner", "ci", "--json"});
  EXPECT_EQ(keygen.exit_code, 0) << keygen.err;
  EXPECT_EQ(validate("keygen.schema.json", keygen.out), 0) << keygen.out;
  // init: every file written, then (run again) every file kept, exit 1.
  t.write("project/README.md", "# p\n");
  for (int round = 0; round < 2; ++round) {
    auto r = run_jetgate({"init", "--dir", t.path("project"), "--json"});
    EXPECT_EQ(r.exit_code, round) << r.err;
    EXPECT_EQ(validate("init.schema.json", r.out), 0) << r.out;
    auto j = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_TRUE(j.is_object()) << r.out;
    ASSERT_EQ(j["files"].size(), 4u) << r.out;
    for (const auto& f : j["files"]) EXPECT_EQ(f["action"], round == 0 ? "written" : "kept");
  }
  // The probe document (live, with and without probes, and every recorded
  // machine's golden) and the evidence `run` writes (a failed and a not-run gate).
  const std::string fake = std::string("JETGATE_CUDA_DRIVER=") + JETGATE_FAKE_CUDA;
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"probe", "--json"}, {"probe", "--cuda", "--quiet", "--json"}}) {
    auto r = run_jetgate(args, {fake});
    ASSERT_NE(r.exit_code, 2) << r.err;
    EXPECT_EQ(validate("probe.schema.json", r.out), 0) << r.out;
  }
  std::string goldens;
  for (const auto& e : std::filesystem::directory_iterator(fixtures_dir()))
    if (std::filesystem::exists(e.path() / "expected.json"))
      goldens += " " + (e.path() / "expected.json").string();
  EXPECT_EQ(std::system(("/usr/bin/python3 " + fixtures_dir() + "/schemas/validate_output.py " +
                         source_dir() + "/docs/schemas/probe.schema.json" + goldens)
                            .c_str()),
            0);
  for (const char* gate : {"cuda-runtime", "jetson-cuda-runtime"}) {
    auto r =
        run_jetgate({"run", gate, "--evidence-dir", t.path("ev"), "--quiet", "--json"}, {fake});
    ASSERT_NE(r.exit_code, 0) << "the fake driver's figures never pass a gate: " << r.out;
    EXPECT_EQ(validate("evidence.schema.json", read_file(t.path("ev/") + gate + ".json")), 0)
        << gate;
    EXPECT_EQ(validate("evidence.schema.json", r.out), 0) << "run --json: " << r.out;
    EXPECT_EQ(nlohmann::json::parse(r.out)["gate"], gate);
    EXPECT_TRUE(has(r.err, std::string(gate) + ": ")) << "the text goes to stderr";
  }
  // The schemas can fail: a wrong schema_version is refused.
  EXPECT_NE(validate("container.schema.json",
                     "{\"schema_version\": 2, \"host\": {}, \"images\": [], \"hint\": null}"),
            0);
}

}  // namespace
}  // namespace jetgate::test
