// SPDX-License-Identifier: Apache-2.0
// Every field of the envelope and of the statement it signs, tampered one at
// a time, is rejected with a reason (issue 9, requirement 7). Fields the
// signature covers are tampered twice: without re-signing (the signature
// breaks) and re-signed with the trusted key (the statement check catches
// it), so neither check hides a gap in the other.
#include <gtest/gtest.h>

#include <functional>

#include "claims_test_helpers.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/trust/encoding.hpp"
#include "jetgate/trust/envelope.hpp"
#include "jetgate/trust/verify.hpp"
#include "test_support.hpp"

namespace jetgate::trust {
namespace {

const std::string kRepo = "acme/robot";

SigningKey key_from(char c) {
  std::array<unsigned char, 32> seed{};
  seed.fill(static_cast<unsigned char>(c));
  return SigningKey::from_seed(seed);
}

TrustedKey trusted(const SigningKey& k, const std::string& owner) {
  return {k.key_id(), k.public_key(), owner, std::nullopt};
}

struct Signed {
  SigningKey key = key_from('a');
  SigningKey other_trusted = key_from('b');
  SigningKey stranger = key_from('c');
  std::vector<TrustedKey> keys = {trusted(key, "orin-runner"), trusted(other_trusted, "thor")};
  nlohmann::json doc = test::orin_evidence_json();
  std::string sha = doc["git_sha"].get<std::string>();
  nlohmann::json statement = make_statement(kRepo, sha, doc);
  nlohmann::json envelope = sign_statement(statement, key);

  SignatureCheck check(const nlohmann::json& env) const { return check_text(env.dump()); }
  SignatureCheck check_text(const std::string& text) const {
    return verify_envelope(text, SignedSubject{&doc, sha, kRepo}, keys);
  }
};

void expect_rejected(const SignatureCheck& c, const std::string& reason, const std::string& what) {
  EXPECT_EQ(c.outcome, Signature::rejected) << what;
  EXPECT_NE(c.why.find(reason), std::string::npos) << what << ": " << c.why;
}

std::string payload_of(const nlohmann::json& env) {
  return *from_base64(env["payload"].get<std::string>());
}

TEST(TrustEnvelope, TheUntouchedEnvelopeVerifies) {
  Signed s;
  auto c = s.check(s.envelope);
  EXPECT_EQ(c.outcome, Signature::verified) << c.why;
  EXPECT_EQ(c.key_id, s.key.key_id());
  EXPECT_EQ(c.owner, "orin-runner");
  EXPECT_EQ(s.envelope["payloadType"], "application/vnd.in-toto+json");
  auto st = nlohmann::json::parse(payload_of(s.envelope));
  EXPECT_EQ(st["_type"], "https://in-toto.io/Statement/v1");
  EXPECT_EQ(st["subject"][0]["name"], kRepo);
  EXPECT_EQ(st["subject"][0]["digest"]["gitCommit"], s.sha);
  EXPECT_EQ(st["predicate"], s.doc);
}

TEST(TrustEnvelope, EveryEnvelopeFieldTamperedIsRejected) {
  Signed s;
  using Edit = std::function<void(nlohmann::json&)>;
  auto flip_payload = [&](nlohmann::json& e) {
    std::string p = payload_of(e);
    p[p.size() / 2] = static_cast<char>(p[p.size() / 2] ^ 1);
    e["payload"] = to_base64(p);
  };
  auto flip_sig = [](nlohmann::json& e) {
    std::string sig = *from_base64(e["signatures"][0]["sig"].get<std::string>());
    sig[10] = static_cast<char>(sig[10] ^ 0x40);
    e["signatures"][0]["sig"] = to_base64(sig);
  };
  std::string unpadded = s.envelope["signatures"][0]["sig"].get<std::string>();
  while (!unpadded.empty() && unpadded.back() == '=') unpadded.pop_back();
  const std::vector<std::tuple<std::string, Edit, std::string>> cases = {
      {"payloadType changed", [](nlohmann::json& e) { e["payloadType"] = "application/json"; },
       "payloadType is"},
      {"payloadType missing", [](nlohmann::json& e) { e.erase("payloadType"); },
       "no \"payloadType\""},
      {"payloadType not a string", [](nlohmann::json& e) { e["payloadType"] = 7; },
       "payloadType is"},
      {"payload bytes changed", flip_payload, "does not verify"},
      {"payload truncated",
       [](nlohmann::json& e) { e["payload"] = to_base64(payload_of(e).substr(1)); },
       "does not verify"},
      {"payload missing", [](nlohmann::json& e) { e.erase("payload"); }, "no \"payload\""},
      {"payload not base64", [](nlohmann::json& e) { e["payload"] = "not base64!"; },
       "canonical base64"},
      {"payload url-safe alphabet",
       [](nlohmann::json& e) {
         std::string p = e["payload"];
         for (auto& ch : p) ch = ch == '+' ? '-' : ch == '/' ? '_' : ch;
         if (p == e["payload"].get<std::string>()) p[0] = '-';
         e["payload"] = p;
       },
       "canonical base64"},
      {"payload with a newline",
       [](nlohmann::json& e) {
         std::string p = e["payload"];
         e["payload"] = p.substr(0, 8) + "\n" + p.substr(8);
       },
       "canonical base64"},
      {"payload padding stripped",
       [](nlohmann::json& e) {
         std::string p = e["payload"];
         if (p.back() != '=') p = to_base64(payload_of(e) + " ");
         while (p.back() == '=') p.pop_back();
         e["payload"] = p;
       },
       "canonical base64"},
      {"payload as a JSON object",
       [](nlohmann::json& e) { e["payload"] = nlohmann::json::object(); }, "canonical base64"},
      {"signature bytes changed", flip_sig, "does not verify"},
      {"signature truncated",
       [](nlohmann::json& e) {
         std::string sig = *from_base64(e["signatures"][0]["sig"].get<std::string>());
         e["signatures"][0]["sig"] = to_base64(sig.substr(0, 63));
       },
       "64-byte Ed25519 signature"},
      {"signature padding stripped",
       [&](nlohmann::json& e) { e["signatures"][0]["sig"] = unpadded; }, "canonical base64"},
      {"signature non-canonical trailing bits",
       [](nlohmann::json& e) {
         std::string sig = e["signatures"][0]["sig"];
         // 64 bytes end in "==": the character before them carries 4 unused bits.
         // Setting its lowest bit keeps the decoded bytes but breaks canonical form.
         const std::string alphabet =
             "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
         char& last = sig[sig.size() - 3];
         last = alphabet[alphabet.find(last) | 1];
         e["signatures"][0]["sig"] = sig;
       },
       "sig is not"},
      {"signature missing", [](nlohmann::json& e) { e["signatures"][0].erase("sig"); },
       "no \"sig\""},
      {"keyid of another trusted key",
       [&](nlohmann::json& e) { e["signatures"][0]["keyid"] = s.other_trusted.key_id(); },
       "does not verify"},
      {"keyid of an unknown key",
       [&](nlohmann::json& e) { e["signatures"][0]["keyid"] = s.stranger.key_id(); },
       "not in the policy's trusted_keys"},
      {"keyid uppercase",
       [](nlohmann::json& e) {
         std::string id = e["signatures"][0]["keyid"];
         for (auto& ch : id) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
         e["signatures"][0]["keyid"] = id;
       },
       "not a key id"},
      {"keyid missing", [](nlohmann::json& e) { e["signatures"][0].erase("keyid"); },
       "no \"keyid\""},
      {"keyid empty", [](nlohmann::json& e) { e["signatures"][0]["keyid"] = ""; }, "not a key id"},
      {"extra signature (the same again)",
       [](nlohmann::json& e) { e["signatures"].push_back(e["signatures"][0]); },
       "carries 2 signatures"},
      {"extra signature by an unknown key",
       [&](nlohmann::json& e) {
         auto other = sign_statement(nlohmann::json::parse(payload_of(e)), s.stranger);
         e["signatures"].push_back(other["signatures"][0]);
       },
       "carries 2 signatures"},
      {"no signatures", [](nlohmann::json& e) { e["signatures"] = nlohmann::json::array(); },
       "carries 0 signatures"},
      {"signatures not a list", [](nlohmann::json& e) { e["signatures"] = e["signatures"][0]; },
       "no list of signatures"},
      {"extra key in the signature", [](nlohmann::json& e) { e["signatures"][0]["cert"] = "x"; },
       "unexpected key \"cert\""},
      {"extra key in the envelope", [](nlohmann::json& e) { e["payloadEncoding"] = "base64"; },
       "unexpected key \"payloadEncoding\""},
  };
  for (const auto& [what, edit, reason] : cases) {
    auto env = s.envelope;
    edit(env);
    ASSERT_NE(env, s.envelope) << what << ": the edit changed nothing";
    expect_rejected(s.check(env), reason, what);
  }
  for (const std::string& text : {std::string("not json"), std::string("[]"), std::string(""),
                                  std::string("{\"payload\": \"\xff\"}")})
    expect_rejected(s.check_text(text), "", "text " + text);
}

TEST(TrustEnvelope, EveryStatementFieldTamperedIsRejectedSignedOrNot) {
  Signed s;
  using Edit = std::function<void(nlohmann::json&)>;
  const std::vector<std::tuple<std::string, Edit, std::string>> cases = {
      {"_type", [](nlohmann::json& st) { st["_type"] = "https://in-toto.io/Statement/v0.1"; },
       "_type is"},
      {"_type missing", [](nlohmann::json& st) { st.erase("_type"); }, "no \"_type\""},
      {"subject name", [](nlohmann::json& st) { st["subject"][0]["name"] = "evil/fork"; },
       "repository \"evil/fork\""},
      {"subject name empty", [](nlohmann::json& st) { st["subject"][0]["name"] = ""; },
       "not a repository"},
      {"subject name missing", [](nlohmann::json& st) { st["subject"][0].erase("name"); },
       "no \"name\""},
      {"subject gitCommit",
       [](nlohmann::json& st) {
         st["subject"][0]["digest"]["gitCommit"] = "0000000000000000000000000000000000000001";
       },
       "another run"},
      {"subject gitCommit not a string",
       [](nlohmann::json& st) { st["subject"][0]["digest"]["gitCommit"] = 1; }, "another run"},
      {"subject digest other algorithm",
       [](nlohmann::json& st) {
         st["subject"][0]["digest"] = {{"sha256", std::string(64, 'a')}};
       },
       "unexpected key \"sha256\""},
      {"subject digest extra algorithm",
       [](nlohmann::json& st) { st["subject"][0]["digest"]["sha1"] = std::string(40, 'a'); },
       "unexpected key \"sha1\""},
      {"subject extra field", [](nlohmann::json& st) { st["subject"][0]["uri"] = "x"; },
       "unexpected key \"uri\""},
      {"two subjects", [](nlohmann::json& st) { st["subject"].push_back(st["subject"][0]); },
       "exactly one subject"},
      {"no subject", [](nlohmann::json& st) { st["subject"] = nlohmann::json::array(); },
       "exactly one subject"},
      {"predicateType",
       [](nlohmann::json& st) { st["predicateType"] = "https://slsa.dev/provenance/v1"; },
       "predicateType is"},
      {"predicate status", [](nlohmann::json& st) { st["predicate"]["status"] = "failed"; },
       "first at \"/status\""},
      {"predicate count as a float",
       [](nlohmann::json& st) { st["predicate"]["counts"]["tests"] = 12.0; },
       "first at \"/counts/tests\""},
      {"predicate key added", [](nlohmann::json& st) { st["predicate"]["waived"] = true; },
       "first at \"/waived\""},
      {"predicate key removed", [](nlohmann::json& st) { st["predicate"].erase("facts_source"); },
       "first at \"/facts_source\""},
      {"predicate of another gate",
       [](nlohmann::json& st) { st["predicate"]["gate"] = "cuda-runtime"; }, "another gate's"},
      {"predicate missing", [](nlohmann::json& st) { st.erase("predicate"); }, "no \"predicate\""},
      {"statement extra field", [](nlohmann::json& st) { st["x"] = 1; }, "unexpected key \"x\""},
      {"statement not an object", [](nlohmann::json& st) { st = nlohmann::json::array({st}); },
       "not a JSON object"},
  };
  for (const auto& [what, edit, reason] : cases) {
    auto st = s.statement;
    edit(st);
    ASSERT_NE(dump_json(st), dump_json(s.statement)) << what;
    // Not re-signed: the bytes under the signature changed.
    auto env = s.envelope;
    env["payload"] = to_base64(dump_json(st));
    expect_rejected(s.check(env), "does not verify", what + " (not re-signed)");
    // Re-signed by the trusted key itself: only the statement check stands between.
    expect_rejected(s.check(sign_statement(st, s.key)), reason, what + " (re-signed)");
  }
  // A payload that is not JSON, signed.
  auto env = s.envelope;
  env["payload"] = to_base64("not json");
  env["signatures"][0]["sig"] = to_base64(s.key.sign(pae(kPayloadType, "not json")));
  expect_rejected(s.check(env), "payload is not JSON", "signed non-JSON payload");
}

TEST(TrustEnvelope, ResignedByAnUnknownKeyOrSwappedEnvelopesAreRejected) {
  Signed s;
  expect_rejected(s.check(sign_statement(s.statement, s.stranger)),
                  "not in the policy's trusted_keys", "re-signed by an unknown key");
  // Another run of the same gate: signed, valid, but not this document.
  auto older = test::orin_evidence_json("2026-11-20T10:00:00Z");
  expect_rejected(s.check(sign_statement(make_statement(kRepo, s.sha, older), s.key)),
                  "first at \"/generated_at\"", "another run's envelope");
  // Another gate's envelope, copied over.
  auto other_gate = test::orin_evidence_json("2026-11-29T16:23:05Z", {{"gate", "cuda-runtime"}});
  expect_rejected(s.check(sign_statement(make_statement(kRepo, s.sha, other_gate), s.key)),
                  "another gate's", "another gate's envelope");
  // Without a repository in the policy, any repository name is accepted; the commit is not.
  auto c = verify_envelope(sign_statement(make_statement("fork/robot", s.sha, s.doc), s.key).dump(),
                           SignedSubject{&s.doc, s.sha, std::nullopt}, s.keys);
  EXPECT_EQ(c.outcome, Signature::verified) << c.why;
}

// An envelope the independent implementation made (tests/fixtures/trust/README.md),
// checked the way the evidence loader checks it, and then tampered with on disk.
TEST(TrustEnvelope, ARecordedPyNaclEnvelopeVerifies) {
  const std::string dir = test::fixtures_dir() + "/trust/pynacl";
  std::string pub = test::read_file(dir + "/public_key.txt");
  pub.erase(pub.find_last_not_of("\n") + 1);
  auto raw = decode_public_key(pub);
  ASSERT_TRUE(raw);
  std::vector<TrustedKey> keys = {{key_id_of(*raw), *raw, "pynacl", std::nullopt}};
  const std::string sha = "3f1c2a9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39";
  auto c = check_evidence_file(dir + "/jetson-cuda-runtime.json", sha, keys, "acme/robot");
  EXPECT_EQ(c.outcome, Signature::verified) << c.why;
  EXPECT_EQ(c.key_id, key_id_of(*raw));

  test::TempDir t;
  auto doc = nlohmann::json::parse(test::read_file(dir + "/jetson-cuda-runtime.json"));
  doc["probes"]["bandwidth"]["gbps"] = 900.0;
  t.write("jetson-cuda-runtime.json", doc.dump());
  t.write("jetson-cuda-runtime.dsse.json", test::read_file(dir + "/jetson-cuda-runtime.dsse.json"));
  c = check_evidence_file(t.path("jetson-cuda-runtime.json"), sha, keys, "acme/robot");
  EXPECT_EQ(c.outcome, Signature::rejected);
  EXPECT_NE(c.why.find("first at \"/probes/bandwidth/gbps\""), std::string::npos) << c.why;
}

}  // namespace
}  // namespace jetgate::trust
