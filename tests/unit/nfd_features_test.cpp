// SPDX-License-Identifier: Apache-2.0
// `--nfd-features FILE`: a feature file for node-feature-discovery's local source. Its
// format is NFD's (source/local/local.go of kubernetes-sigs/node-feature-discovery:
// `<key>[=<value>]` lines, `#` comments, `# +expiry-time=<RFC3339>`), every key in
// jetgate.feature.node.kubernetes.io/ (a sub-namespace of feature.node.kubernetes.io,
// which NFD allows without -extra-label-ns: docs/usage/customization-guide.md), every
// name and value in the Kubernetes label grammar (apimachinery's IsValidLabelValue and
// IsQualifiedName: at most 63 of [A-Za-z0-9._-], alphanumeric at both ends) whatever
// the evidence's strings hold.
#include "jetgate/report/nfd_features.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <random>
#include <regex>

#include "test_support.hpp"

namespace jetgate {
namespace {

using nlohmann::json;
using report::is_label_value;
using report::sanitize_label_value;

json evidence() {
  return json::parse(R"({
    "schema_version": 1,
    "jetgate": {"version": "0.1.0"},
    "generated_at": "2026-12-03T07:00:00Z",
    "gate": "gpu-node", "status": "passed",
    "platform": {"arch": "aarch64",
                 "tegra": {"is_tegra": true, "l4t": "36.4.3", "jetpack": "6.2",
                           "module": "Jetson Orin NX 16GB"}},
    "gpu": {"driver": {"loaded": true, "version": "12.6"}, "device_count": 1},
    "probes": {
      "launch": {"status": "PASS"},
      "bandwidth": {"status": "PASS"},
      "sync_path": {"status": "WARN",
                    "details": {"modes": [{"mode": "blocking_sync", "wait": "interrupt_driven"},
                                          {"mode": "spin", "wait": "busy_polling"}]}}
    }
  })");
}

std::string render(const json& doc, int hours = 24) {
  report::NfdFeaturesInput in;
  in.document = &doc;
  in.expiry_hours = hours;
  return report::render_nfd_features(in);
}

TEST(NfdFeatures, LabelsFromTheEvidence) {
  EXPECT_EQ(render(evidence(), 12),
            "# Node labels from jetgate's evidence, for node-feature-discovery's local source\n"
            "# (docs/kubernetes.md). Written by jetgate; the next run replaces this file.\n"
            "# +expiry-time=2026-12-03T19:00:00Z\n"
            "jetgate.feature.node.kubernetes.io/arch=aarch64\n"
            "jetgate.feature.node.kubernetes.io/cuda-driver=12.6\n"
            "jetgate.feature.node.kubernetes.io/cuda-verified=true\n"
            "jetgate.feature.node.kubernetes.io/gate=gpu-node\n"
            "jetgate.feature.node.kubernetes.io/gate-status=passed\n"
            "jetgate.feature.node.kubernetes.io/gpu-count=1\n"
            "jetgate.feature.node.kubernetes.io/jetgate-version=0.1.0\n"
            "jetgate.feature.node.kubernetes.io/jetpack=6.2\n"
            "jetgate.feature.node.kubernetes.io/l4t=36.4.3\n"
            "jetgate.feature.node.kubernetes.io/module=Jetson-Orin-NX-16GB\n"
            "jetgate.feature.node.kubernetes.io/probe.bandwidth=PASS\n"
            "jetgate.feature.node.kubernetes.io/probe.launch=PASS\n"
            "jetgate.feature.node.kubernetes.io/probe.sync_path=WARN\n"
            "jetgate.feature.node.kubernetes.io/sync-wait.blocking_sync=interrupt_driven\n"
            "jetgate.feature.node.kubernetes.io/sync-wait.spin=busy_polling\n");
}

// The labels read the evidence record (record/codec.hpp) as every other output
// does: /gpu/driver/version is the driver's CUDA version as a string ("12.6"),
// and a value of another type is unknown, so no label, not a guess.
TEST(NfdFeatures, AFactOfAnotherTypeIsNoLabel) {
  json doc = evidence();
  doc["gpu"]["driver"]["version"] = 12060;
  doc["platform"]["tegra"]["l4t"] = 36;
  const std::string labels = render(doc);
  EXPECT_EQ(labels.find("cuda-driver="), std::string::npos) << labels;
  EXPECT_EQ(labels.find("/l4t="), std::string::npos) << labels;
  EXPECT_NE(labels.find("/jetpack=6.2\n"), std::string::npos) << labels;
}

TEST(NfdFeatures, CudaIsVerifiedOnlyWhenAKernelRanRight) {
  auto e = evidence();
  e["probes"]["launch"]["status"] = "FAIL";
  EXPECT_NE(render(e).find("/cuda-verified=false\n"), std::string::npos);
  e = evidence();
  e["gpu"]["driver"]["loaded"] = false;
  EXPECT_NE(render(e).find("/cuda-verified=false\n"), std::string::npos);
  e = evidence();
  e["probes"].erase("launch");
  EXPECT_NE(render(e).find("/cuda-verified=false\n"), std::string::npos);
  // A probe document (no gate) has no gate labels.
  e = evidence();
  e.erase("gate");
  auto text = render(e);
  EXPECT_EQ(text.find("/gate"), std::string::npos) << text;
  // Undated: every line hidden behind an expiry in the past.
  e = evidence();
  e["generated_at"] = "yesterday";
  EXPECT_NE(render(e).find("# +expiry-time=1970-01-01T00:00:00Z\n"), std::string::npos);
}

TEST(NfdFeatures, SanitisedIntoTheLabelGrammar) {
  struct Case {
    std::string in, out;
  };
  const std::vector<Case> cases = {
      {"6.2", "6.2"},
      {"Jetson AGX Orin 64GB", "Jetson-AGX-Orin-64GB"},
      {"-leading and trailing-", "leading-and-trailing"},
      {"__x__", "x"},
      {"a=b\nc", "a-b-c"},
      {"$(id);`rm`", "id---rm"},
      {"caf\xc3\xa9", "caf"},
      {"\xff\xfe", ""},
      {"", ""},
      {"...", ""},
      {std::string(70, 'a'), std::string(63, 'a')},
      {std::string(62, 'a') + "-b", std::string(62, 'a')},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(sanitize_label_value(c.in), c.out) << c.in;
    EXPECT_TRUE(is_label_value(sanitize_label_value(c.in))) << c.in;
  }
  for (const char* ok : {"", "a", "6.2", "A-b_c.d", "x1"}) EXPECT_TRUE(is_label_value(ok)) << ok;
  for (const char* bad : {"-a", "a-", ".a", "a b", "a/b", "a=b", "\xc3\xa9"})
    EXPECT_FALSE(is_label_value(bad)) << bad;
  EXPECT_FALSE(is_label_value(std::string(64, 'a')));
}

// sanitize_label_value looks at no more than it keeps: the same value as mapping
// every character, trimming and cutting the whole string, on random strings.
TEST(NfdFeatures, SanitisingLooksOnlyAtWhatCanSurvive) {
  auto whole = [](std::string_view raw) {
    auto alnum = [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    };
    auto trim = [&](std::string& s) {
      std::size_t b = 0, e = s.size();
      while (b < e && !alnum(s[b])) ++b;
      while (e > b && !alnum(s[e - 1])) --e;
      s = s.substr(b, e - b);
    };
    std::string s;
    for (char c : raw) s += alnum(c) || c == '-' || c == '_' || c == '.' ? c : '-';
    trim(s);
    if (s.size() > 63) {
      s.resize(63);
      trim(s);
    }
    return s;
  };
  std::mt19937 rng(6);
  const std::string alphabet = "aZ9-_. =/\n\xff";
  for (int i = 0; i < 20000; ++i) {
    std::string raw(std::uniform_int_distribution<int>(0, 140)(rng), ' ');
    for (char& c : raw)
      c = alphabet[std::uniform_int_distribution<std::size_t>(0, alphabet.size() - 1)(rng)];
    ASSERT_EQ(sanitize_label_value(raw), whole(raw)) << raw;
  }
}

// Whatever the document holds, each line is a comment, the expiry directive or
// PREFIX/NAME=VALUE in the label grammar, and the file stays under NFD's 64 KiB limit.
void expect_nfd_lines(const std::string& text) {
  static const std::regex directive("# \\+expiry-time=\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
  EXPECT_LE(text.size(), report::kNfdMaxFileBytes);
  std::size_t pos = 0;
  int directives = 0;
  while (pos < text.size()) {
    auto end = text.find('\n', pos);
    ASSERT_NE(end, std::string::npos) << "every line ends";
    const std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.rfind("# +", 0) == 0) {
      EXPECT_TRUE(std::regex_match(line, directive)) << line;
      ++directives;
      continue;
    }
    if (line.rfind("# ", 0) == 0) continue;
    ASSERT_EQ(line.rfind(report::kNfdLabelPrefix, 0), 0u) << line;
    auto rest = line.substr(report::kNfdLabelPrefix.size());
    auto eq = rest.find('=');
    ASSERT_NE(eq, std::string::npos) << line;
    EXPECT_TRUE(report::is_label_name(rest.substr(0, eq))) << line;
    auto value = rest.substr(eq + 1);
    EXPECT_FALSE(value.empty()) << line;
    EXPECT_TRUE(is_label_value(value)) << line;
  }
  EXPECT_EQ(directives, 1);
}

TEST(NfdFeatures, HostileStringsStayInTheGrammar) {
  auto e = evidence();
  e["gate"] = "x\n# +expiry-time=2099-01-01T00:00:00Z\nevil.io/root=true";
  e["platform"]["tegra"]["module"] = "\xff\xfe\x1b[31m" + std::string(300, 'M');
  e["platform"]["tegra"]["jetpack"] = "6.2=evil";
  e["probes"]["a=b\nc"] = {{"status", "PASS\nfoo=bar"}};
  e["probes"][std::string(200, 'p')] = {{"status", "PASS"}};
  e["probes"]["sync_path"]["details"]["modes"].push_back({{"mode", "../../x"}, {"wait", "\n"}});
  const auto text = render(e);
  expect_nfd_lines(text);
  // The injected key stays inside the gate's value: no line of its own.
  EXPECT_EQ(text.find("\nevil.io"), std::string::npos) << text;
  EXPECT_NE(text.find("/gate=x----expiry-time-2099-01-01T00-00-00Z-evil.io-root-true\n"),
            std::string::npos)
      << text;
  // Many probes: cut before NFD's limit, never over it.
  for (int i = 0; i < 3000; ++i) e["probes"]["probe" + std::to_string(i)] = {{"status", "PASS"}};
  expect_nfd_lines(render(e));
  // Random bytes in every string.
  std::mt19937 rng(7);
  for (int round = 0; round < 200; ++round) {
    std::string s(rng() % 100, '\0');
    for (auto& c : s) c = static_cast<char>(rng() % 256);
    auto r = evidence();
    r["gate"] = s;
    r["platform"]["tegra"]["l4t"] = s;
    r["probes"][s] = {{"status", s}};
    expect_nfd_lines(render(r));
  }
  // Not a JSON object at all.
  json odd = json::array({1, 2});
  expect_nfd_lines(render(odd));
}

TEST(NfdFeatures, ProbeWritesTheFileAtomicallyAndRefusesBadOptions) {
  test::TempDir t;
  const auto file = t.path("features.d/jetgate");
  std::filesystem::create_directories(t.path("features.d"));
  auto r = test::run_jetgate({"probe", "--nfd-features", file, "--nfd-expiry-hours", "48"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto text = test::read_file(file);
  expect_nfd_lines(text);
  EXPECT_NE(text.find("/cuda-verified="), std::string::npos) << text;
  // Only the file: the temporary one (hidden, so NFD never reads it) is gone.
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(t.path("features.d"))) {
    ++entries;
    EXPECT_EQ(e.path().filename(), "jetgate");
  }
  EXPECT_EQ(entries, 1);
  // An output that cannot be written stops the command before anything runs.
  auto bad = test::run_jetgate({"probe", "--nfd-features", t.path("missing/dir/jetgate")});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--nfd-features"), std::string::npos) << bad.err;
  for (const char* hours : {"0", "8761", "1e3", "twelve"})
    EXPECT_EQ(
        test::run_jetgate({"probe", "--nfd-features", file, "--nfd-expiry-hours", hours}).exit_code,
        2)
        << hours;
  auto run_bad = test::run_jetgate({"run", "cuda-runtime", "--nfd-features",
                                    t.path("missing/dir/x"), "--evidence-dir", t.dir()});
  EXPECT_EQ(run_bad.exit_code, 2) << run_bad.err;
}

}  // namespace
}  // namespace jetgate
