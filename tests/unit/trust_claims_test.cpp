// SPDX-License-Identifier: Apache-2.0
// Signed evidence through the one verdict (issue 9, requirement 5): with
// trusted_keys in the policy, check, support and summary count only evidence
// a trusted, unexpired key signed, over exactly that evidence; without them
// nothing changes but check warns. And "trusted_keys" is parsed as strictly
// as the rest of the policy.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "claims_test_helpers.hpp"
#include "jetgate/claims/check.hpp"
#include "jetgate/claims/gate_summary.hpp"
#include "jetgate/claims/support_matrix.hpp"
#include "jetgate/trust/encoding.hpp"
#include "jetgate/trust/envelope.hpp"
#include "test_support.hpp"

namespace jetgate::claims {
namespace {

const std::string kGate = "jetson-cuda-runtime";

trust::SigningKey key_from(char c) {
  std::array<unsigned char, 32> seed{};
  seed.fill(static_cast<unsigned char>(c));
  return trust::SigningKey::from_seed(seed);
}

nlohmann::json entry_of(const trust::SigningKey& k, const std::string& owner) {
  return {
      {"key_id", k.key_id()}, {"public_key", trust::to_base64(k.public_key())}, {"owner", owner}};
}

nlohmann::json policy_json(const nlohmann::json& trusted_keys) {
  nlohmann::json p = {
      {"schema_version", 1},
      {"owner", "o"},
      {"cadence", "c"},
      {"evidence_retention_days", 90},
      {"maximum_evidence_age_days", 14},
      {"repository", "acme/robot"},
      {"gates",
       {{{"id", kGate}, {"probes", {{{"probe", "launch"}, {"status", "PASS"}}}}},
        {{"id", "cuda-runtime"}, {"probes", {{{"probe", "launch"}, {"status", "PASS"}}}}}}}};
  if (!trusted_keys.is_null()) p["trusted_keys"] = trusted_keys;
  return p;
}

struct Project {
  test::TempDir t;
  trust::SigningKey key = key_from('k');
  trust::SigningKey stranger = key_from('s');
  // The policy's gates name the launch probe: the evidence has its result.
  nlohmann::json doc = test::orin_evidence_json("2026-11-29T10:00:00Z",
                                                {{"probes", {{"launch", {{"status", "PASS"}}}}}});
  Project() { std::filesystem::create_directories(t.path(".git")); }

  std::string write_evidence(const nlohmann::json& d, const std::string& gate = kGate) const {
    return t.write("ev/" + gate + ".json", d.dump(2));
  }
  void sign(const trust::SigningKey& k, const std::string& gate = kGate,
            const std::string& repo = "acme/robot") const {
    auto sha = doc["git_sha"].get<std::string>();
    auto env = trust::sign_evidence_text(
        t.path("ev"), gate, test::read_file(t.path("ev/" + gate + ".json")), repo, sha, k);
    ASSERT_TRUE(env.ok()) << env.error().message();
  }
  Result<ClaimInputs> inputs(const nlohmann::json& trusted_keys) const {
    ClaimOptions o;
    o.policy = t.write("ci/policy.json", policy_json(trusted_keys).dump(2));
    o.evidence_dirs = {t.path("ev")};
    o.today = "2026-11-29";
    return resolve_claim_inputs(o);
  }
};

// check's, summary's and support's state of kGate, which must agree.
std::string state_everywhere(const ClaimInputs& in, std::string* why = nullptr) {
  auto checked = check_claim(in, {kGate});
  const GateRow* row = nullptr;
  for (const auto& g : checked.gates)
    if (g.gate == kGate) row = &g;
  EXPECT_TRUE(row && row->decision);
  if (!row || !row->decision) return "?";
  std::string state = to_string(row->decision->verdict.state);
  if (why) *why = row->decision->verdict.detail;
  EXPECT_EQ(checked.holds(), state == "fresh_green");
  auto summary = build_gate_summary(in);
  for (const auto& r : summary.rows) {
    if (r.gate == kGate) {
      EXPECT_EQ(to_string(r.decision.verdict.state), state);
    }
  }
  auto matrix = build_support_matrix(in.evidence);
  int found = 0;
  for (const auto& m : matrix.rows)
    for (const auto& g : m.gates)
      if (g.gate == kGate) {
        ++found;
        EXPECT_EQ(to_string(g.verdict.state), state);
      }
  EXPECT_EQ(found, 1);
  bool claimed = false;
  for (const auto& cl : supported_claims(matrix)) claimed = claimed || cl.gate == kGate;
  EXPECT_EQ(claimed, state == "fresh_green");
  return state;
}

// check's and support's JSON "signature" of kGate, which must be the same.
nlohmann::json signature_everywhere(const ClaimInputs& in) {
  nlohmann::json from_check, from_support;
  const auto checked = to_json(check_claim(in, {kGate}), in);
  const auto matrix = to_json(build_support_matrix(in.evidence));
  for (const auto& g : checked.at("gates"))
    if (g["gate"] == kGate) from_check = g["verdict"]["signature"];
  for (const auto& row : matrix.at("rows"))
    for (const auto& g : row["gates"])
      if (g["gate"] == kGate) from_support = g["signature"];
  EXPECT_EQ(from_check, from_support);
  return from_check;
}

TEST(TrustClaims, OnlyEvidenceATrustedUnexpiredKeySignedOverExactlyItCounts) {
  struct Case {
    std::string name;
    std::function<void(Project&)> arrange;
    nlohmann::json expires;  // of the trusted key
    std::string state, reason;
    std::string signature;  // the JSON's signature outcome: what the loader found, not the verdict
  };
  const std::vector<Case> cases = {
      {"signed",
       [](Project& p) {
         p.write_evidence(p.doc);
         p.sign(p.key);
       },
       nullptr, "fresh_green", "", "verified"},
      {"unsigned", [](Project& p) { p.write_evidence(p.doc); }, nullptr, "untrusted",
       "unsigned (no jetson-cuda-runtime.dsse.json beside it)", "unsigned"},
      {"edited after signing",
       [](Project& p) {
         auto failed = p.doc;
         failed["status"] = "failed";
         p.write_evidence(failed);
         p.sign(p.key);
         p.write_evidence(p.doc);  // turned green by hand
       },
       nullptr, "untrusted", "first at \"/status\"", "rejected"},
      {"re-signed by an unknown key",
       [](Project& p) {
         p.write_evidence(p.doc);
         p.sign(p.stranger);
       },
       nullptr, "untrusted", "not in the policy's trusted_keys", "rejected"},
      {"expired key",
       [](Project& p) {
         p.write_evidence(p.doc);
         p.sign(p.key);
       },
       "2026-11-28", "untrusted", "which expired on 2026-11-28", "verified"},
      {"key expiring today",
       [](Project& p) {
         p.write_evidence(p.doc);
         p.sign(p.key);
       },
       "2026-11-29", "fresh_green", "", "verified"},
      {"another gate's envelope",
       [](Project& p) {
         auto other = p.doc;
         other["gate"] = "cuda-runtime";
         p.write_evidence(other, "cuda-runtime");
         p.sign(p.key, "cuda-runtime");
         std::filesystem::copy_file(p.t.path("ev/cuda-runtime.dsse.json"),
                                    p.t.path("ev/jetson-cuda-runtime.dsse.json"));
         p.write_evidence(p.doc);
       },
       nullptr, "untrusted", "another gate's", "rejected"},
      {"another run's envelope",
       [](Project& p) {
         auto older = p.doc;
         older["generated_at"] = "2026-11-28T10:00:00Z";
         p.write_evidence(older);
         p.sign(p.key);
         p.write_evidence(p.doc);
       },
       nullptr, "untrusted", "first at \"/generated_at\"", "rejected"},
      {"another repository's envelope",
       [](Project& p) {
         p.write_evidence(p.doc);
         p.sign(p.key, kGate, "evil/fork");
       },
       nullptr, "untrusted", "repository \"evil/fork\"", "rejected"},
      {"envelope that is not JSON",
       [](Project& p) {
         p.write_evidence(p.doc);
         p.t.write("ev/jetson-cuda-runtime.dsse.json", "\xff\xfe not json");
       },
       nullptr, "untrusted", "not JSON", "rejected"},
      // Signed but failed: the signature is fine, the verdict is the gate's.
      {"signed failure",
       [](Project& p) {
         auto failed = p.doc;
         failed["status"] = "failed";
         p.write_evidence(failed);
         p.sign(p.key);
       },
       nullptr, "failed", "the gate failed", "verified"},
  };
  for (const auto& c : cases) {
    Project p;
    c.arrange(p);
    auto entry = entry_of(p.key, "orin-runner");
    if (!c.expires.is_null()) entry["expires"] = c.expires;
    auto in = p.inputs(nlohmann::json::array({entry, entry_of(key_from('t'), "thor")}));
    ASSERT_TRUE(in.ok()) << in.error().message();
    EXPECT_TRUE(in->policy->issues.empty()) << in->policy->issues.front().line();
    EXPECT_TRUE(in->evidence.skipped.empty()) << c.name << ": envelopes are not evidence";
    std::string why;
    EXPECT_EQ(state_everywhere(*in, &why), c.state) << c.name << ": " << why;
    EXPECT_NE(why.find(c.reason), std::string::npos) << c.name << ": " << why;
    auto sig = signature_everywhere(*in);
    EXPECT_EQ(sig["outcome"], c.signature) << c.name << ": " << sig;
    EXPECT_EQ(sig["envelope"], c.signature != "unsigned") << c.name;
    if (c.signature == "verified") {
      EXPECT_EQ(sig["key_id"], p.key.key_id()) << c.name;
      EXPECT_EQ(sig["owner"], "orin-runner") << c.name;
      EXPECT_EQ(sig["key_expires"], c.expires) << c.name;  // the verdict, not the JSON, judges it
      EXPECT_EQ(sig["why"], nullptr) << c.name;
    } else {
      EXPECT_EQ(sig["key_id"], nullptr) << c.name;
      EXPECT_NE(sig.value("why", "").find(c.reason), std::string::npos) << c.name << ": " << sig;
    }
  }
}

TEST(TrustClaims, WithoutTrustedKeysNothingChangesButCheckWarns) {
  Project p;
  p.write_evidence(p.doc);
  auto in = p.inputs(nullptr);
  ASSERT_TRUE(in.ok()) << in.error().message();
  EXPECT_EQ(state_everywhere(*in), "fresh_green");
  auto checked = check_claim(*in, {kGate});
  EXPECT_TRUE(checked.holds());
  // The unsigned warning, and (this evidence records no gate definition) that
  // it was judged by the re-check alone.
  ASSERT_EQ(checked.warnings.size(), 2u);
  EXPECT_NE(checked.warnings.back().find("evidence is unsigned (1 of 1 files"), std::string::npos)
      << checked.warnings.back();
  EXPECT_NE(checked.warnings.front().find("does not record which definition"), std::string::npos)
      << checked.warnings.front();
  EXPECT_EQ(signature_everywhere(*in), (nlohmann::json{{"outcome", "not_checked"},
                                                       {"envelope", false},
                                                       {"key_id", nullptr},
                                                       {"owner", nullptr},
                                                       {"key_expires", nullptr},
                                                       {"why", nullptr}}));
  // Signed, but nothing to check it against: holds, and says the signature went unchecked.
  p.sign(p.stranger);
  in = p.inputs(nullptr);
  ASSERT_TRUE(in.ok());
  checked = check_claim(*in, {kGate});
  EXPECT_TRUE(checked.holds());
  ASSERT_EQ(checked.warnings.size(), 2u);  // and: no gate definition recorded
  EXPECT_NE(checked.warnings.back().find("signatures are not checked"), std::string::npos);
  EXPECT_EQ(signature_everywhere(*in)["outcome"], "not_checked");
  EXPECT_EQ(signature_everywhere(*in)["envelope"], true);
  EXPECT_TRUE(in->evidence.skipped.empty());
}

// A fleet has thousands of unsigned files: ten are named, the rest counted.
TEST(TrustClaims, TheUnsignedWarningNamesTenFilesAndCountsTheRest) {
  Project p;
  std::vector<std::string> dirs;
  for (int i = 0; i < 13; ++i) {
    std::string dir = p.t.path("lane-" + std::to_string(i));
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/" + kGate + ".json") << p.doc.dump(2);
    dirs.push_back(dir);
  }
  ClaimOptions o;
  o.policy = p.t.write("policy.json", policy_json(nullptr).dump());
  o.repo_root = p.t.dir();
  o.evidence_dirs = dirs;
  o.today = "2026-11-29";
  auto in = resolve_claim_inputs(o);
  ASSERT_TRUE(in.ok()) << in.error().message();
  const std::string w = check_claim(*in, {kGate}).warnings.back();
  EXPECT_NE(w.find("evidence is unsigned (13 of 13 files: "), std::string::npos) << w;
  // In file order: lane-0, lane-1, lane-10 ... lane-6; lane-7 to lane-9 are counted.
  EXPECT_NE(w.find("lane-6/" + kGate + ".json and 3 more): "), std::string::npos) << w;
  EXPECT_EQ(w.find("lane-9/"), std::string::npos) << w;
}

TEST(TrustClaims, TrustedKeysAreParsedStrictly) {
  auto k = key_from('k');
  auto good = entry_of(k, "orin-runner");
  auto patched = [&](const nlohmann::json& patch) {
    auto e = good;
    e.merge_patch(patch);
    return e;
  };
  auto issues_of = [](const nlohmann::json& trusted) {
    auto p = policy::parse_policy(policy_json(trusted).dump(), "policy.json", ".");
    EXPECT_TRUE(p.ok());
    std::string all;
    for (const auto& i : p->issues) all += i.line() + "\n";
    return all;
  };
  auto spare = entry_of(key_from('x'), "spare runner");
  spare["x-note"] = "kept for a rebuild";
  EXPECT_EQ(issues_of(nlohmann::json::array({good, spare})), "");
  auto loaded = policy::parse_policy(
      policy_json(nlohmann::json::array({patched({{"expires", "2027-01-31"}})})).dump(),
      "policy.json", ".");
  ASSERT_TRUE(loaded->policy.trusted_keys);
  ASSERT_EQ(loaded->policy.trusted_keys->size(), 1u);
  EXPECT_EQ(loaded->policy.trusted_keys->front().owner, "orin-runner");
  EXPECT_EQ(evidence::to_string(*loaded->policy.trusted_keys->front().expires), "2027-01-31");
  EXPECT_FALSE(policy::parse_policy(policy_json(nullptr).dump(), "p", ".")->policy.trusted_keys);
  const std::vector<std::pair<nlohmann::json, std::string>> cases = {
      {nlohmann::json::array({patched({{"expiry", "2027-01-01"}})}),
       "unknown key \"expiry\" (did you mean \"expires\"?)"},
      {nlohmann::json::array({patched({{"key_id", key_from('z').key_id()}})}),
       "not the SHA-256 of \"public_key\""},
      {nlohmann::json::array({patched({{"key_id", "ABC"}})}), "not 64 lowercase hex digits"},
      {nlohmann::json::array({patched({{"public_key", "AAAA"}})}), "32-byte Ed25519 key"},
      {nlohmann::json::array({patched({{"public_key", 5}})}), "32-byte Ed25519 key"},
      {nlohmann::json::array({patched({{"owner", nullptr}})}), "\"owner\""},
      {nlohmann::json::array({patched({{"owner", ""}})}), "\"owner\""},
      {nlohmann::json::array({patched({{"expires", "2027-02-30"}})}), "not a date"},
      {nlohmann::json::array({patched({{"expires", 20270101}})}), "not a date"},
      {nlohmann::json::array({good, good}), "listed twice"},
      {nlohmann::json::array({"not an object"}), "trusted_keys[0] is not an object"},
      {nlohmann::json::array(), "non-empty list"},
      {good, "non-empty list"},
  };
  for (const auto& [trusted, expected] : cases) {
    auto issues = issues_of(trusted);
    EXPECT_NE(issues.find(expected), std::string::npos) << trusted.dump() << "\n" << issues;
  }
  // A misspelt top-level key is an issue too.
  auto p = policy_json(nullptr);
  p["trusted_key"] = nlohmann::json::array({good});
  auto parsed = policy::parse_policy(p.dump(), "p", ".");
  ASSERT_FALSE(parsed->issues.empty());
  EXPECT_NE(parsed->issues[0].what.find("did you mean \"trusted_keys\""), std::string::npos)
      << parsed->issues[0].what;
}

// Every trusted key invalid still means "signed only": a typo in a key must
// not turn the policy back into one that accepts unsigned evidence.
TEST(TrustClaims, APolicyWhoseKeysAreAllInvalidStillCountsNothingUnsigned) {
  Project p;
  p.write_evidence(p.doc);
  auto bad = entry_of(p.key, "o");
  bad["key_id"] = std::string(64, 'a');
  auto in = p.inputs(nlohmann::json::array({bad}));
  ASSERT_TRUE(in.ok());
  EXPECT_FALSE(in->policy->issues.empty());
  EXPECT_EQ(state_everywhere(*in), "untrusted");
}

}  // namespace
}  // namespace jetgate::claims
