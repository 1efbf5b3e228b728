// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/sanitize.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "jetgate/report/sanitize_rules.hpp"

namespace jetgate::report {
namespace {

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

void expect_redacted(const std::string& input, const std::string& secret, const std::string& cls,
                     const SanitizeOptions& o = {}) {
  std::string out = sanitize(input, o);
  EXPECT_FALSE(contains(out, secret)) << "input: " << input << "\noutput: " << out;
  EXPECT_TRUE(contains(out, "[redacted:" + cls + "]")) << "input: " << input << "\noutput: " << out;
  EXPECT_EQ(sanitize(out, o), out) << "not idempotent on: " << input;
}

void expect_kept(const std::string& input) {
  EXPECT_EQ(sanitize(input), input);
}

TEST(Sanitize, KeepsVersionsShasDatesAndPublicUrls) {
  for (const char* s :
       {"L4T 36.4.3, JetPack 6.2.1",
        "torch 2.5.0a0+872d972e41.nv24.08",
        "torch==2.11.0+cu130",
        "NVIDIA driver 580.159.04",
        "cuDNN 9.3.0.75",
        "TensorRT: 10.3.0.30",
        "libnvinfer version=10.3.0.30",
        "CUDA toolkit 12.6.68",
        "compute capability 8.7",
        "git sha 3f1c2a9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a39",
        "generated at 2026-11-29T16:23:05Z",
        "2026-11-29T16:23:05.123456+00:00",
        "https://github.com/elder-plinius/OBLITERATUS/issues/31",
        "nvidia,p3737-0000+p3701-0005",
        "Jetson AGX Orin 64GB (p3701-0005, tegra234)",
        "| cuda-runtime | passed | aarch64; Jetson (Tegra); L4T >= 36.0 | none |",
        "probe bandwidth: PASS (83.6% of the 204.8 GB/s peak)",
        "jetgate::claims::sanitize",
        "# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic, EABI: aarch64",
        "host memory 64 GiB",
        "serial console",
        "counts.tests=12",
        "/usr/local/cuda-12.6/lib64",
        "/etc/nv_tegra_release",
        "max_tokens=128",
        "nvidia-l4t-core 36.3.0-20240506102626"})
    expect_kept(s);
}

TEST(Sanitize, EnvironmentVariableValues) {
  expect_redacted("env: LD_LIBRARY_PATH=/usr/local/cuda/lib64:/opt/x", "/opt/x", "env");
  expect_redacted("CUDA_VISIBLE_DEVICES=0 HF_HOME=\"/data/hf cache\" python", "/data/hf cache",
                  "env");
  std::string out = sanitize("export AWS_REGION=eu-west-1");
  EXPECT_EQ(out, "export AWS_REGION=[redacted:env]");
}

TEST(Sanitize, Tokens) {
  expect_redacted("token ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R",
                  "ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R", "token");
  expect_redacted(
      "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEF0123456789abcdefghijklmn",
      "github_pat_11ABCDEFG", "token");
  expect_redacted("CI_JOB_TOKEN glpat-x2Yz3AbCdEfGh4IjKlMn", "glpat-x2Yz3AbCdEfGh4IjKlMn", "token");
  expect_redacted("slack xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "xoxb-1234",
                  "token");
  expect_redacted("key AKIAIOSFODNN7EXAMPLE in use", "AKIAIOSFODNN7EXAMPLE", "token");
  expect_redacted("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
                  "wJalrXUtnFEMI", "token");
  expect_redacted("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", "eyJhbGci",
                  "token");
  expect_redacted("curl -H 'authorization: token abcdef0123456789abcdef'", "abcdef0123456789abcdef",
                  "token");
  expect_redacted("GITHUB_TOKEN=ghs_16C7e42F292c6912E7710c838347Ae178B4a", "ghs_16C7e42F", "token");
  expect_redacted("password: hunter2-correct-horse", "hunter2", "token");
}

TEST(Sanitize, EmailAddresses) {
  expect_redacted("contact jane.doe+ci@example.co.uk for access", "jane.doe", "email");
  expect_redacted("Author: J Doe <jdoe@nvidia.com>", "jdoe@", "email");
}

TEST(Sanitize, LocalPaths) {
  expect_redacted("ImportError: /home/alice/venv/lib/python3.10/site-packages/torch/_C.so", "alice",
                  "path");
  expect_redacted("wrote /Users/bob/work/evidence.json", "bob", "path");
  expect_redacted("cwd=/root/jetgate", "/root/jetgate", "path");
  expect_redacted("junit at /tmp/pytest-of-runner/pytest-3/junit.xml: 3 tests", "pytest-of-runner",
                  "path");
  expect_redacted("see ~/projects/secret-plan/notes.md", "secret-plan", "path");
  expect_redacted("open file:///home/carol/report.html", "carol", "path");
  expect_redacted(R"(C:\Users\dave\AppData\Local\Temp\x.log)", "dave", "path");
  std::string out = sanitize("at /home/alice/x.py:12: error");
  EXPECT_EQ(out, "at [redacted:path]:12: error");
  expect_kept("https://example.com/home/index.html");
  expect_kept("/usr/tmp-like/thing");
}

TEST(Sanitize, EveryNonSystemAbsolutePathIsRedacted) {
  expect_redacted("cache in /data/alice/hf/models", "alice", "path");
  expect_redacted("evidence at /work/acme-robot/conditional-evidence/cuda-runtime.json",
                  "acme-robot", "path");
  expect_redacted("mounted /mnt/bobs-ssd/venv", "bobs-ssd", "path");
  expect_redacted("/srv/secret-project/run.log: 3 tests", "secret-project", "path");
  expect_redacted("open file:///opt/carol-tools/x.html", "carol-tools", "path");
  expect_redacted("(/homework/dave/x.py)", "dave", "path");
  for (const char* s :
       {"/dev/nvhost-ctrl-gpu", "/proc/device-tree/model", "/sys/class/devfreq", "/lib/firmware",
        "/usr/lib/aarch64-linux-gnu/tegra/libcuda.so", "/opt/nvidia/l4t-packages", "/lib64/ld.so",
        "83.6% of the 204.8 GB/s peak", "./build/jetgate", "tests/unit/x.cpp", "and/or",
        "https://github.com/elder-plinius/OBLITERATUS/issues/31"})
    expect_kept(s);
  expect_redacted("inet 192.168.55.1/24 and /scratch/eve/x", "eve", "path");
}

TEST(Sanitize, IpAndMacAddresses) {
  expect_redacted("inet 192.168.55.1/24 brd 192.168.55.255", "192.168.55", "ip");
  expect_redacted("connect to 10.0.0.7:8080 failed", "10.0.0.7", "ip");
  expect_redacted("inet6 fe80::1ff:fe23:4567:890a%eth0", "fe80::1ff", "ip");
  expect_redacted("server 2001:db8:85a3:0:0:8a2e:370:7334 up", "2001:db8", "ip");
  expect_redacted("listening on ::1", "::1", "ip");
  expect_redacted("link/ether 48:b0:2d:5e:aa:01 brd ff:ff:ff:ff:ff:ff", "48:b0:2d", "mac");
  expect_redacted("HWaddr 48-B0-2D-5E-AA-01", "48-B0-2D", "mac");
  expect_kept("time 16:23:05 and ratio 3:2");
  expect_kept("999.1.1.1 is not an address");
}

TEST(Sanitize, HostNames) {
  expect_redacted("Hostname: jetson-lab-07", "jetson-lab-07", "host");
  expect_redacted("ssh to orin-07.lab.internal failed", "orin-07", "host");
  expect_redacted("mdns agx-orin.local responded", "agx-orin", "host");
  expect_redacted("nvidia@agx-orin-07:~$ jetgate run", "agx-orin-07", "host");
  SanitizeOptions o;
  o.hostnames = {"buildbox-42"};
  expect_redacted("runner buildbox-42.corp.example.com ready", "buildbox-42", "host", o);
  expect_kept("download from developer.nvidia.com and github.com");
  expect_kept("settings.local.json");
}

TEST(Sanitize, UserNames) {
  expect_redacted("user: alice", "alice", "user");
  expect_redacted("username=bob_smith", "bob_smith", "user");
  SanitizeOptions o;
  o.users = {"ghuser42"};
  expect_redacted("owned by ghuser42 since", "ghuser42", "user", o);
  // Generic names would mangle the report without hiding anyone.
  SanitizeOptions generic;
  generic.users = {"nvidia", "root", "ci"};
  generic.hostnames = {"ubuntu"};
  EXPECT_EQ(sanitize("ubuntu 22.04 on an nvidia board, root filesystem", generic),
            "ubuntu 22.04 on an nvidia board, root filesystem");
}

TEST(Sanitize, SerialsAndUuids) {
  expect_redacted("serial-number: 1422921234567", "1422921234567", "serial");
  expect_redacted("Serial Number 1424321051234", "1424321051234", "serial");
  expect_redacted("S/N: TQ4B12345", "TQ4B12345", "serial");
  expect_redacted("GPU-5f1c2d3e-4a5b-6c7d-8e9f-0a1b2c3d4e5f", "5f1c2d3e", "serial");
  SanitizeOptions o;
  o.serials = {"ABC123XYZ"};
  expect_redacted("board ABC123XYZ rev 2", "ABC123XYZ", "serial", o);
}

// A rule's length bound is not a limit on what it hides: a value longer than any
// bound the table ever had (1024, 2048 or 4096 bytes) is hidden whole, never cut
// with its tail left in the text. Lines are at most kMaxSanitizedLine bytes.
TEST(Sanitize, ALongSecretIsHiddenWholeNotUpToABound) {
  std::string value;
  for (int i = 0; value.size() < 3000; ++i) value += "Zq9" + std::to_string(i);
  const std::string tail = value.substr(value.size() - 40);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"--token " + value, "token"},
      {"password=" + value, "token"},
      {"\"api_key\": \"" + value + "\"", "token"},
      {"Authorization: token " + value, "token"},
      {"Bearer " + value, "token"},
      {"https://bucket.example.com/o?X-Amz-Signature=" + value, "token"},
      {"HF_HOME=" + value, "env"},
      {"saved to /data/" + value, "path"},
  };
  for (const auto& [line, cls] : cases) {
    ASSERT_LT(line.size(), kMaxSanitizedLine);
    std::string out = sanitize(line);
    EXPECT_FALSE(contains(out, tail))
        << line.substr(0, 40) << "...\noutput: " << out.substr(0, 200);
    EXPECT_TRUE(contains(out, "[redacted:" + cls + "]")) << out.substr(0, 200);
  }
}

TEST(Sanitize, MalformedInputIsBoundedAndNeverCrashes) {
  std::string binary;
  for (int i = 0; i < 1024; ++i) binary += static_cast<char>(i % 256);
  std::string out = sanitize(binary);
  for (char c : out)
    EXPECT_TRUE(c == '\n' || static_cast<unsigned char>(c) >= 0x20) << static_cast<int>(c);
  EXPECT_EQ(sanitize(""), "");
  EXPECT_EQ(sanitize("\n\n"), "\n\n");
  EXPECT_EQ(sanitize("a\r\nb"), "a\nb");
  // A huge line: cut, and the partial word at the cut dropped so no fragment
  // of a token survives.
  std::string huge(kMaxSanitizedLine - 10, 'x');
  huge += " ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R more";
  std::string cut = sanitize(huge);
  EXPECT_LT(cut.size(), kMaxSanitizedLine + 64);
  EXPECT_FALSE(contains(cut, "ghp_"));
  EXPECT_TRUE(contains(cut, "[line cut: "));
  std::string spaceless(1u << 20, 'a');
  EXPECT_LT(sanitize(spaceless).size(), 64u);
  std::string many_lines;
  for (int i = 0; i < 2000; ++i)
    many_lines += "inet 10.1.2." + std::to_string(i % 250) + " /home/u" + std::to_string(i) + "\n";
  std::string many = sanitize(many_lines);
  EXPECT_FALSE(contains(many, "10.1.2."));
  EXPECT_FALSE(contains(many, "/home/"));
  // A whole text over the limit: cut at a line boundary, saying how much went.
  std::string long_text;
  std::string long_line;
  while (long_line.size() < 1000) long_line += "step ok ";
  long_line.back() = '\n';  // few lines: the rule table's cost is per line
  while (long_text.size() < kMaxSanitizedText + 1000) long_text += long_line;
  long_text += "token ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R\n";
  std::string bounded = sanitize(long_text);
  EXPECT_LE(bounded.size(), kMaxSanitizedText + 80);
  EXPECT_FALSE(contains(bounded, "ghp_"));
  EXPECT_TRUE(contains(bounded, "[text cut: ")) << bounded.substr(bounded.size() - 100);
  EXPECT_EQ(bounded.find("[text cut: ") % long_line.size(), 0u);  // whole lines kept
  EXPECT_EQ(sanitize(std::string(kMaxSanitizedText, '\n')).size(), kMaxSanitizedText);
}

}  // namespace
}  // namespace jetgate::report

namespace jetgate::report {
namespace {

struct SecretCase {
  std::string rule, secret, line;
};

std::vector<std::string> corpus_lines(const std::string& name) {
  std::ifstream f(std::string(JETGATE_FIXTURES_DIR) + "/sanitize/" + name);
  std::vector<std::string> lines;
  for (std::string l; std::getline(f, l);)
    if (!l.empty() && l[0] != '#') lines.push_back(l);
  return lines;
}

std::vector<SecretCase> secret_cases() {
  std::vector<SecretCase> cases;
  for (const auto& l : corpus_lines("secrets.tsv")) {
    auto tab1 = l.find('\t'), tab2 = l.find('\t', tab1 + 1);
    cases.push_back({l.substr(0, tab1), l.substr(tab1 + 1, tab2 - tab1 - 1), l.substr(tab2 + 1)});
  }
  return cases;
}

TEST(SanitizeCorpus, EverySecretIsRedacted) {
  auto cases = secret_cases();
  ASSERT_GE(cases.size(), 60u);
  for (const auto& c : cases) {
    std::string out = sanitize(c.line);
    EXPECT_FALSE(contains(out, c.secret))
        << c.rule << "\ninput:  " << c.line << "\noutput: " << out;
    EXPECT_TRUE(contains(out, "[redacted:")) << c.rule << ": " << out;
    EXPECT_EQ(sanitize(out), out) << "not idempotent: " << c.line;
  }
}

TEST(SanitizeCorpus, EveryRuleHasACaseAndFiresOnIt) {
  std::set<std::string> covered;
  for (const auto& c : secret_cases()) {
    auto r = sanitize_counting(c.line);
    EXPECT_TRUE(r.redactions.count(c.rule))
        << c.rule << " did not fire on: " << c.line << "\noutput: " << r.text;
    covered.insert(c.rule);
  }
  std::set<std::string> ids;
  for (const auto& rule : redaction_rules()) {
    EXPECT_TRUE(ids.insert(rule.id).second) << "duplicate rule id " << rule.id;
    EXPECT_TRUE(covered.count(rule.id))
        << rule.id << " has no case in tests/fixtures/sanitize/secrets.tsv";
    EXPECT_FALSE(rule.what.empty()) << rule.id;
  }
  for (const auto& id : covered)
    EXPECT_TRUE(ids.count(id)) << "secrets.tsv names an unknown rule " << id;
}

// The sanitizer skips a row whose literals a line does not hold; that is exact only
// if every match of the row's pattern holds one. Checked on every secret and
// look-alike, the repository's documents, and each of those lines upper- and
// lower-cased (the case-insensitive rows).
TEST(SanitizeCorpus, EveryMatchContainsItsRowsLiteral) {
  std::vector<std::string> lines;
  for (const auto& c : secret_cases()) lines.push_back(c.line);
  for (const auto& l : corpus_lines("lookalikes.txt")) lines.push_back(l);
  for (const char* doc : {"/README.md", "/docs/claims.md", "/docs/trust.md", "/docs/building.md"}) {
    std::ifstream f(std::string(JETGATE_SOURCE_DIR) + doc);
    for (std::string l; std::getline(f, l);) lines.push_back(l);
  }
  const std::size_t originals = lines.size();
  ASSERT_GE(originals, 300u);
  for (std::size_t i = 0; i < originals; ++i) {
    std::string up = lines[i], low = lines[i];
    for (auto& c : up) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (auto& c : low) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    lines.push_back(up);
    lines.push_back(low);
  }
  std::size_t matches = 0;
  for (const auto& row : detail::rule_table()) {
    const char* literals = row.literals;
    ASSERT_NE(literals, nullptr) << row.id << " names no literals";
    for (const auto& l : lines)
      for (const auto& m : detail::row_matches(row, l)) {
        ++matches;
        EXPECT_TRUE(detail::holds_any_literal(m.view(), literals))
            << row.id << " matched \"" << m.str() << "\" without any of " << literals;
      }
  }
  EXPECT_GE(matches, 500u);
  EXPECT_TRUE(detail::holds_any_literal("x GHP_abc", "zz|ghp_"));
  EXPECT_FALSE(detail::holds_any_literal("gh p_", "ghp_"));
  EXPECT_TRUE(detail::holds_any_literal("", nullptr));
  EXPECT_FALSE(detail::holds_any_literal("", "a"));

  // The sanitizer's one-pass prefilter gives the same answer as holds_any_literal
  // for every row, on these lines and on bytes where Latin-1 case folding could
  // differ from ASCII's (0xC0-0xFE fold among themselves, never onto ASCII).
  for (std::string extra : {std::string("\xC9\xE9 GHP_\xFF"), std::string("\xB5\xDF\xFF gh\xD0p_"),
                            std::string("PASSWORD\x00=x", 12), std::string(5000, 'a') + "Bearer"})
    lines.push_back(extra);
  for (const auto& l : lines) {
    const std::vector<bool> present = detail::rows_with_literals_in(l);
    ASSERT_EQ(present.size(), detail::rule_table().size());
    for (std::size_t i = 0; i < present.size(); ++i)
      EXPECT_EQ(present[i], detail::holds_any_literal(l, detail::rule_table()[i].literals))
          << detail::rule_table()[i].id << " on \"" << l.substr(0, 80) << "\"";
  }
}

TEST(SanitizeCorpus, LookAlikesAreKeptByteForByte) {
  auto lines = corpus_lines("lookalikes.txt");
  ASSERT_GE(lines.size(), 40u);
  for (const auto& l : lines) EXPECT_EQ(sanitize(l), l);
}

TEST(Sanitize, PrivateKeyBlocksOverSeveralLines) {
  std::string text =
      "before\nkey follows: -----BEGIN OPENSSH PRIVATE "
      "KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB\n"
      "AAAAMwAAAAtzc2gtZWQyNTUxOQAAACDv0Ad2o7FQ1\n-----END OPENSSH PRIVATE KEY----- after\nlast\n";
  std::string out = sanitize(text);
  EXPECT_FALSE(contains(out, "b3BlbnNzaC1rZXkt")) << out;
  EXPECT_FALSE(contains(out, "AAAAMwAAAAtzc2gt")) << out;
  EXPECT_TRUE(contains(out, "before\n")) << out;
  EXPECT_TRUE(contains(out, "after\nlast\n")) << out;
  EXPECT_EQ(sanitize(out), out);
  // Without its END line the rest of the text may be key material: all of it goes.
  std::string open = sanitize("x\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nmore\n");
  EXPECT_FALSE(contains(open, "MIIEow")) << open;
  EXPECT_FALSE(contains(open, "more")) << open;
}

TEST(Sanitize, InvisibleCharactersAndBytesThatAreNotUtf8) {
  // A zero-width space inside a token must not hide it from the token rule.
  std::string token = "ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R";
  std::string split = token.substr(0, 10) + "\xE2\x80\x8B" + token.substr(10);
  std::string out = sanitize("token " + split);
  EXPECT_FALSE(contains(out, "ghp_1a2B3c")) << out;
  std::string bidi = sanitize("gate \xE2\x80\xAEok\xE2\x81\xA6 x");
  EXPECT_FALSE(contains(bidi, "\xE2\x80\xAE"));
  EXPECT_FALSE(contains(bidi, "\xE2\x81\xA6"));
  std::string bytes = sanitize("name \xff\xfe tail \xC3");
  EXPECT_TRUE(contains(bytes, "tail")) << bytes;
  EXPECT_FALSE(contains(bytes, "\xff"));
  EXPECT_EQ(sanitize(bytes), bytes);
}

}  // namespace
}  // namespace jetgate::report

namespace jetgate::report {
namespace {

// Issue 21, class 8: a JSON secret keeps neither its value nor, escaped
// inside another JSON string (as evidence text quotes it), its value.
TEST(Sanitize, JsonSecretValuesAreRedactedNotOnlyTheirKeys) {
  for (const char* text : {R"({"password": "hunter2"})", R"({"password":"hunter2","user":"x"})",
                           R"(reason: {\"password\": \"hunter2\"})", R"("api_key": "hunter2")",
                           R"(\"client_secret\":\"hunter2\")"}) {
    std::string out = sanitize(text);
    EXPECT_EQ(out.find("hunter2"), std::string::npos) << text << " -> " << out;
    EXPECT_NE(out.find("[redacted:token]"), std::string::npos) << text << " -> " << out;
  }
}

}  // namespace
}  // namespace jetgate::report
