// SPDX-License-Identifier: Apache-2.0
// Interoperability (issue 9, requirement 6): jetgate's envelopes verify with
// an independent implementation (PyNaCl, Debian's python3-nacl, with its own
// DSSE PAE code: tests/fixtures/trust/dsse_interop.py), and an envelope that
// implementation makes verifies with jetgate.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>

#include "claims_test_helpers.hpp"
#include "jetgate/trust/encoding.hpp"
#include "jetgate/trust/envelope.hpp"
#include "jetgate/trust/keys.hpp"
#include "jetgate/trust/verify.hpp"
#include "test_support.hpp"

namespace jetgate::trust {
namespace {

const std::string kRepo = "acme/robot";

struct Ran {
  int exit_code = -1;
  std::string out;
};

std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The first Python that has PyNaCl: $JETGATE_TEST_PYTHON, python3 on PATH (a
// pyenv one may lack Debian's packages), Debian's /usr/bin/python3.
std::string python_with_nacl() {
  std::vector<std::string> candidates;
  if (const char* p = std::getenv("JETGATE_TEST_PYTHON")) candidates.push_back(p);
  candidates.push_back("python3");
  candidates.push_back("/usr/bin/python3");
  for (const auto& c : candidates)
    if (std::system((quoted(c) + " -c 'import nacl.signing' >/dev/null 2>&1").c_str()) == 0)
      return c;
  return {};
}

Ran python(const std::vector<std::string>& args) {
  std::string cmd =
      quoted(python_with_nacl()) + " " + quoted(test::fixtures_dir() + "/trust/dsse_interop.py");
  for (const auto& a : args) cmd += " " + quoted(a);
  cmd += " 2>&1";
  Ran r;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[512];
    while (std::fgets(buf, sizeof buf, p)) r.out += buf;
    int status = ::pclose(p);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  return r;
}

void require_pynacl() {
  ASSERT_FALSE(python_with_nacl().empty())
      << "python3-nacl is missing: scripts/install-deps.sh installs it";
}

// Evidence with text outside ASCII and a fraction: the two JSON writers spell
// them differently, and only the parsed documents must agree.
nlohmann::json evidence_doc() {
  return test::orin_evidence_json(
      "2026-11-29T16:23:05Z",
      {{"reason", "réussi — 12 tests"}, {"probes", {{"bandwidth", {{"gbps", 187.25}}}}}});
}

TEST(TrustInterop, JetgatesEnvelopeVerifiesWithPyNacl) {
  require_pynacl();
  test::TempDir t;
  auto doc = evidence_doc();
  std::string sha = doc["git_sha"];
  std::string evidence_file = t.write("ev/jetson-cuda-runtime.json", doc.dump(2));
  auto pair = write_key_pair(t.path("runner.key"), "orin-runner", false);
  ASSERT_TRUE(pair.ok()) << pair.error().message();
  auto key = load_signing_key(t.path("runner.key"));
  ASSERT_TRUE(key.ok()) << key.error().message();
  auto env = sign_evidence_text(t.path("ev"), "jetson-cuda-runtime", test::read_file(evidence_file),
                                kRepo, sha, *key);
  ASSERT_TRUE(env.ok()) << env.error().message();
  std::string pub = pair->public_entry["public_key"];
  auto r = python({"verify", *env, pub, evidence_file, sha, kPredicateType});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "verified " + key->key_id() + " " + kRepo + "\n");
  // The other implementation can say no: an edited evidence file fails there too.
  auto edited = doc;
  edited["status"] = "failed";
  t.write("ev/jetson-cuda-runtime.json", edited.dump(2));
  r = python({"verify", *env, pub, evidence_file, sha, kPredicateType});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("predicate is not the evidence"), std::string::npos) << r.out;
}

TEST(TrustInterop, PyNaclsEnvelopeVerifiesWithJetgate) {
  require_pynacl();
  test::TempDir t;
  auto doc = evidence_doc();
  std::string sha = doc["git_sha"];
  std::string evidence_file = t.write("ev/jetson-cuda-runtime.json", doc.dump());
  std::string env_file = t.path("ev/jetson-cuda-runtime.dsse.json");
  const std::string seed(64, '5');
  auto r = python({"sign", seed, evidence_file, kRepo, sha, kPredicateType, env_file});
  ASSERT_EQ(r.exit_code, 0) << r.out;
  std::string pub_b64 = r.out.substr(0, r.out.find('\n'));
  auto raw = decode_public_key(pub_b64);
  ASSERT_TRUE(raw) << r.out;
  // The same seed gives the same key in both implementations.
  std::array<unsigned char, 32> s{};
  s.fill(0x55);
  EXPECT_EQ(SigningKey::from_seed(s).public_key(), *raw);
  std::vector<TrustedKey> keys = {{key_id_of(*raw), *raw, "python", std::nullopt}};
  auto c = check_evidence_file(evidence_file, sha, keys, kRepo);
  EXPECT_EQ(c.outcome, Signature::verified) << c.why;
  EXPECT_EQ(c.owner, "python");
  // And jetgate can say no to it: another commit.
  c = check_evidence_file(evidence_file, "0000000000000000000000000000000000000001", keys, kRepo);
  EXPECT_EQ(c.outcome, Signature::rejected);
}

}  // namespace
}  // namespace jetgate::trust
