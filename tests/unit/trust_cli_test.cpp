// SPDX-License-Identifier: Apache-2.0
// The signing workflow as a user runs it (issue 9, requirements 4 and 5):
// `jetgate keygen`, `jetgate run --sign-key` (or JETGATE_SIGNING_KEY), then
// `jetgate check` with the key in the policy's trusted_keys.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "gate_command_support.hpp"

namespace jetgate {
namespace {

struct SignedRepo : test::GateRepo {
  nlohmann::json trusted = nlohmann::json::array();
  std::string sha;  // HEAD of the scratch checkout, which the runs test
  SignedRepo() : GateRepo(/*fake_git=*/false) {
    add_shell_gate("unit", "printf '%s' '" + test::kPassingJunit + "' > report.xml");
    policy();
    sha = git_commit_all();
  }
  std::string signed_policy() const {
    nlohmann::json p = nlohmann::json::parse(test::read_file(policy()));
    p["repository"] = "acme/robot";
    if (!trusted.empty()) p["trusted_keys"] = trusted;
    return t.write("ci/signed-policy.json", p.dump(2));
  }
  test::CliRun run_signed(std::vector<std::string> extra, std::vector<std::string> env = {}) const {
    std::vector<std::string> args = {"run",           "unit",           "--policy",
                                     signed_policy(), "--evidence-dir", t.path("ev")};
    args.insert(args.end(), extra.begin(), extra.end());
    env.push_back(ceiling());
    env.push_back("GITHUB_SHA=" + sha);
    return test::run_jetgate(args, env);
  }
  test::CliRun check(std::vector<std::string> extra = {}) const {
    std::vector<std::string> args = {
        "check",           "--policy", signed_policy(), "--evidence-dir", t.path("ev"),
        "--candidate-sha", sha};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_jetgate(args);
  }
  // check --json's and support --format json's "signature" of the unit gate,
  // which must be the same object.
  nlohmann::json signature() const {
    auto c = check({"--json"});
    auto s = test::run_jetgate({"support", "--evidence-dir", t.path("ev"), "--policy",
                                signed_policy(), "--format", "json"});
    EXPECT_EQ(s.exit_code, 0) << s.err;
    auto checked = nlohmann::json::parse(c.out, nullptr, false);
    auto matrix = nlohmann::json::parse(s.out, nullptr, false);
    EXPECT_FALSE(checked.is_discarded() || matrix.is_discarded()) << c.out << s.out;
    if (checked.is_discarded() || matrix.is_discarded()) return nullptr;
    nlohmann::json from_check, from_support;
    for (const auto& g : checked["gates"])
      if (g["gate"] == "unit") from_check = g["verdict"]["signature"];
    for (const auto& row : matrix["rows"])
      for (const auto& g : row["gates"])
        if (g["gate"] == "unit") from_support = g["signature"];
    EXPECT_EQ(from_check, from_support);
    return from_check;
  }
};

TEST(TrustCli, KeygenWritesA0600SecretAndRefusesToOverwriteIt) {
  test::TempDir t;
  auto r = test::run_jetgate({"keygen", t.path("runner.key"), "--owner", "orin-runner"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat(t.path("runner.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  auto pub = nlohmann::json::parse(test::read_file(t.path("runner.key.pub.json")));
  EXPECT_NE(r.out.find("key id: " + pub["key_id"].get<std::string>()), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("trusted_keys"), std::string::npos);
  std::string secret = test::read_file(t.path("runner.key"));
  EXPECT_EQ(r.out.find(nlohmann::json::parse(secret)["seed"].get<std::string>()), std::string::npos)
      << "the secret must never be printed";
  r = test::run_jetgate({"keygen", t.path("runner.key"), "--owner", "orin-runner"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--force"), std::string::npos) << r.err;
  EXPECT_EQ(test::read_file(t.path("runner.key")), secret);
  r = test::run_jetgate({"keygen", t.path("runner.key"), "--owner", "orin-runner", "--force"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(test::read_file(t.path("runner.key")), secret);
  EXPECT_EQ(test::run_jetgate({"keygen", t.path("k2")}).exit_code, 2);  // --owner is required
}

TEST(TrustCli, RunSignsAndCheckCountsOnlyTheSignedUneditedEvidence) {
  SignedRepo repo;
  auto k = test::run_jetgate({"keygen", repo.t.path("runner.key"), "--owner", "orin-runner"});
  ASSERT_EQ(k.exit_code, 0) << k.err;
  repo.trusted.push_back(
      nlohmann::json::parse(test::read_file(repo.t.path("runner.key.pub.json"))));

  auto r = repo.run_signed({"--sign-key", repo.t.path("runner.key")});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("signed: " + repo.t.path("ev/unit.dsse.json")), std::string::npos) << r.out;
  auto c = repo.check();
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  auto sig = repo.signature();
  EXPECT_EQ(sig["outcome"], "verified") << sig;
  EXPECT_EQ(sig["envelope"], true);
  EXPECT_EQ(sig["key_id"], repo.trusted[0]["key_id"]);
  EXPECT_EQ(sig["owner"], "orin-runner");
  EXPECT_EQ(sig["why"], nullptr);

  // A pull request that turns a red run green by editing the file.
  auto doc = nlohmann::json::parse(test::read_file(repo.t.path("ev/unit.json")));
  doc["counts"]["tests"] = 500;
  repo.t.write("ev/unit.json", doc.dump(2));
  c = repo.check();
  EXPECT_EQ(c.exit_code, 1);
  EXPECT_NE(c.out.find("signature is rejected"), std::string::npos) << c.out << c.err;
  EXPECT_NE(c.out.find("/counts/tests"), std::string::npos) << c.out;
  sig = repo.signature();
  EXPECT_EQ(sig["outcome"], "rejected") << sig;
  EXPECT_EQ(sig["key_id"], nullptr);
  EXPECT_NE(sig.value("why", "").find("first at \"/counts/tests\""), std::string::npos) << sig;

  // The same run signed through the environment variable; and a run without
  // a key removes the old envelope, so its evidence is unsigned.
  r = repo.run_signed({}, {"JETGATE_SIGNING_KEY=" + repo.t.path("runner.key")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(repo.check().exit_code, 0);
  r = repo.run_signed({});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(repo.t.path("ev/unit.dsse.json")));
  c = repo.check();
  EXPECT_EQ(c.exit_code, 1);
  EXPECT_NE(c.out.find("unsigned"), std::string::npos) << c.out;
  sig = repo.signature();
  EXPECT_EQ(sig["outcome"], "unsigned") << sig;
  EXPECT_EQ(sig["envelope"], false);
}

TEST(TrustCli, AKeyOthersCanReadStopsTheRunBeforeAnythingRuns) {
  SignedRepo repo;
  ASSERT_EQ(test::run_jetgate({"keygen", repo.t.path("k"), "--owner", "o"}).exit_code, 0);
  ASSERT_EQ(::chmod(repo.t.path("k").c_str(), 0644), 0);
  auto r = repo.run_signed({"--sign-key", repo.t.path("k")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("chmod 600 " + repo.t.path("k")), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(repo.t.path("ev/unit.json")));
  EXPECT_FALSE(std::filesystem::exists(repo.t.path("report.xml"))) << "the command ran";
  r = repo.run_signed({"--sign-key", repo.t.path("missing.key")});
  EXPECT_EQ(r.exit_code, 2);
}

TEST(TrustCli, CheckWithoutTrustedKeysWarnsThatEvidenceIsUnsigned) {
  SignedRepo repo;
  ASSERT_EQ(repo.run_signed({}).exit_code, 0);
  auto c = repo.check();
  EXPECT_EQ(c.exit_code, 0) << c.out << c.err;
  EXPECT_NE((c.out + c.err).find("evidence is unsigned (1 of 1 files"), std::string::npos)
      << c.out << c.err;
  auto sig = repo.signature();
  EXPECT_EQ(sig["outcome"], "not_checked") << sig;
  EXPECT_EQ(sig["envelope"], false);
}

}  // namespace
}  // namespace jetgate
