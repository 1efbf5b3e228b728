// SPDX-License-Identifier: Apache-2.0
// Keys, encodings and the secret key file (issue 9, requirement 4). Public
// test vectors: RFC 8032 section 7.1 (Ed25519 TEST 1), RFC 4648 section 10
// (base64), DSSE protocol.md's PAE example
// (https://github.com/secure-systems-lab/dsse/blob/master/protocol.md).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "jetgate/trust/encoding.hpp"
#include "jetgate/trust/envelope.hpp"
#include "jetgate/trust/keys.hpp"
#include "test_support.hpp"

namespace jetgate::trust {
namespace {

std::string unhex(const std::string& hex) {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

std::array<unsigned char, 32> seed_of(const std::string& hex) {
  std::array<unsigned char, 32> s{};
  std::string raw = unhex(hex);
  std::copy(raw.begin(), raw.end(), s.begin());
  return s;
}

mode_t mode_of(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

TEST(TrustKeys, Rfc8032TestVectorOne) {
  auto key = SigningKey::from_seed(
      seed_of("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"));
  EXPECT_EQ(to_hex(key.public_key()),
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
  EXPECT_EQ(to_hex(key.sign("")),
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e3"
            "9701cf9b46bd25bf5f0595bbe24655141438e7a100b");
}

TEST(TrustKeys, KeyIdIsTheSha256OfTheRawPublicKeyAsSha256sumComputesIt) {
  test::TempDir t;
  auto key = SigningKey::from_seed(seed_of(std::string(64, '7')));
  std::string file = t.write("pk.bin", key.public_key());
  std::string out;
  if (FILE* p = ::popen(("sha256sum '" + file + "'").c_str(), "r")) {
    char buf[256];
    while (std::fgets(buf, sizeof buf, p)) out += buf;
    ::pclose(p);
  }
  ASSERT_GE(out.size(), 64u) << "sha256sum (coreutils) did not run";
  EXPECT_EQ(key.key_id(), out.substr(0, 64));
  EXPECT_TRUE(is_key_id(key.key_id()));
  EXPECT_FALSE(is_key_id(std::string(64, 'A')));
  EXPECT_FALSE(is_key_id(std::string(63, 'a')));
}

TEST(TrustKeys, Base64IsRfc4648AndOnlyItsCanonicalSpellingDecodes) {
  const std::vector<std::pair<std::string, std::string>> vectors = {{"", ""},
                                                                    {"f", "Zg=="},
                                                                    {"fo", "Zm8="},
                                                                    {"foo", "Zm9v"},
                                                                    {"foob", "Zm9vYg=="},
                                                                    {"fooba", "Zm9vYmE="},
                                                                    {"foobar", "Zm9vYmFy"}};
  for (const auto& [bytes, text] : vectors) {
    EXPECT_EQ(to_base64(bytes), text);
    auto back = from_base64(text);
    ASSERT_TRUE(back) << text;
    EXPECT_EQ(*back, bytes);
  }
  for (const char* bad :
       {"Zg", "Zg=", "Zh==", "Zm9=", "Zm9v\n", " Zm9v", "Zm9v=", "Zm-v", "Zm_v", "Zm9vYg==Zg==",
        "Zm\xff"
        "v",
        "===="})
    EXPECT_FALSE(from_base64(bad)) << bad;
  auto all = std::string("\x00\xff\xfe\x01\xfb\xef", 6);
  EXPECT_EQ(from_base64(to_base64(all)), all);
}

TEST(TrustKeys, PaeIsTheDsseSpecsExample) {
  EXPECT_EQ(pae("http://example.com/HelloWorld", "hello world"),
            "DSSEv1 29 http://example.com/HelloWorld 11 hello world");
  EXPECT_EQ(pae("", ""), "DSSEv1 0  0 ");
  // Lengths count bytes, not characters.
  EXPECT_EQ(pae("t", "\xc3\xa9"), "DSSEv1 1 t 2 \xc3\xa9");
}

TEST(TrustKeys, KeygenCreatesTheSecretFile0600EvenUnderAPermissiveUmask) {
  test::TempDir t;
  mode_t old = ::umask(0);
  auto written = write_key_pair(t.path("runner.key"), "jetson-runner-1", false);
  ::umask(old);
  ASSERT_TRUE(written.ok()) << written.error().message();
  EXPECT_EQ(mode_of(t.path("runner.key")), 0600u);
  EXPECT_EQ(written->public_path, t.path("runner.key.pub.json"));
  auto pub = nlohmann::json::parse(test::read_file(written->public_path));
  EXPECT_EQ(pub["key_id"], written->key_id);
  EXPECT_EQ(pub["owner"], "jetson-runner-1");
  auto raw = decode_public_key(pub["public_key"].get<std::string>());
  ASSERT_TRUE(raw);
  EXPECT_EQ(key_id_of(*raw), written->key_id);
  auto secret = nlohmann::json::parse(test::read_file(t.path("runner.key")));
  EXPECT_EQ(secret["format"], kSecretKeyFormat);
  EXPECT_EQ(secret["key_id"], written->key_id);
  EXPECT_EQ(secret.size(), 3u);
  auto key = load_signing_key(t.path("runner.key"));
  ASSERT_TRUE(key.ok()) << key.error().message();
  EXPECT_EQ(key->key_id(), written->key_id);
  EXPECT_EQ(key->public_key(), *raw);
}

TEST(TrustKeys, KeygenRefusesToOverwriteUnlessForced) {
  test::TempDir t;
  auto first = write_key_pair(t.path("k"), "o", false);
  ASSERT_TRUE(first.ok());
  auto again = write_key_pair(t.path("k"), "o", false);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().message().find("--force"), std::string::npos);
  EXPECT_EQ(load_signing_key(t.path("k"))->key_id(), first->key_id);  // untouched
  // Only the public file left behind still stops it: a pair is replaced whole or not at all.
  std::filesystem::remove(t.path("k"));
  EXPECT_FALSE(write_key_pair(t.path("k"), "o", false).ok());
  auto forced = write_key_pair(t.path("k"), "o", true);
  ASSERT_TRUE(forced.ok()) << forced.error().message();
  EXPECT_NE(forced->key_id, first->key_id);
  EXPECT_EQ(mode_of(t.path("k")), 0600u);
  EXPECT_FALSE(write_key_pair(t.path("k2"), "", false).ok());  // an owner is required
  // Never through a link left at the secret's path.
  std::filesystem::create_symlink(t.path("elsewhere"), t.path("k3"));
  EXPECT_FALSE(write_key_pair(t.path("k3"), "o", false).ok());
  EXPECT_FALSE(std::filesystem::exists(t.path("elsewhere")));
}

TEST(TrustKeys, ASecretKeyOthersCanReadIsRefusedWithTheFix) {
  test::TempDir t;
  ASSERT_TRUE(write_key_pair(t.path("k"), "o", false).ok());
  for (mode_t m : {0640, 0604, 0620, 0602, 0644, 0660}) {
    ASSERT_EQ(::chmod(t.path("k").c_str(), m), 0);
    auto key = load_signing_key(t.path("k"));
    ASSERT_FALSE(key.ok()) << std::oct << m;
    EXPECT_NE(key.error().message().find("chmod 600 " + t.path("k")), std::string::npos)
        << key.error().message();
  }
  ASSERT_EQ(::chmod(t.path("k").c_str(), 0400), 0);
  EXPECT_TRUE(load_signing_key(t.path("k")).ok());
}

TEST(TrustKeys, SecretKeyFilesThatAreNotKeysAreRefused) {
  test::TempDir t;
  ASSERT_TRUE(write_key_pair(t.path("k"), "o", false).ok());
  auto good = nlohmann::json::parse(test::read_file(t.path("k")));
  auto write_secret = [&](const std::string& name, const std::string& text) {
    std::string p = t.write(name, text);
    ::chmod(p.c_str(), 0600);
    return p;
  };
  auto patched = [&](const nlohmann::json& patch) {
    auto j = good;
    j.merge_patch(patch);
    return j.dump();
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "seed=abc"},
      {"not utf-8", "{\"format\": \"\xff\xfe\"}"},
      {"array", "[]"},
      {"format", patched({{"format", "openssh"}})},
      {"seed not base64", patched({{"seed", "!!!"}})},
      {"seed short", patched({{"seed", to_base64(std::string(31, 'a'))}})},
      {"seed number", patched({{"seed", 5}})},
      {"key id of another key", patched({{"key_id", std::string(64, 'a')}})},
      {"no key id", patched({{"key_id", nullptr}})},
      {"unknown key", patched({{"comment", "x"}})},
      {"public file", test::read_file(t.path("k.pub.json"))},
      {"too large", std::string(5000, ' ') + good.dump()},
      {"empty", ""},
  };
  for (const auto& [name, text] : cases) {
    auto key = load_signing_key(write_secret(name, text));
    EXPECT_FALSE(key.ok()) << name;
  }
  EXPECT_FALSE(load_signing_key(t.path("missing")).ok());
  std::filesystem::create_directories(t.path("dir"));
  ::chmod(t.path("dir").c_str(), 0700);
  EXPECT_FALSE(load_signing_key(t.path("dir")).ok());
}

}  // namespace
}  // namespace jetgate::trust
