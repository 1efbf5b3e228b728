// SPDX-License-Identifier: Apache-2.0
// Hostile input to the fact readers (issue: "nothing crashes, hangs or turns
// red into green"): bytes that are not UTF-8 anywhere a string enters the
// facts, jetgate-root.json nested 200 000 levels, YAML alias bombs in CDI specs.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "jetgate/core/utf8.hpp"
#include "jetgate/evidence/probe_document.hpp"
#include "jetgate/facts/cdi.hpp"
#include "jetgate/facts/platform.hpp"
#include "jetgate/facts/text.hpp"
#include "jetgate/facts/utf8_guard.hpp"
#include "test_support.hpp"

namespace jetgate::facts {
namespace {

using nlohmann::json;
using namespace std::string_literals;

bool warned_at(const PlatformReport& r, const std::string& fact_prefix) {
  for (const auto& w : r.warnings)
    if (w.fact.rfind(fact_prefix, 0) == 0 && w.message.find("U+FFFD") != std::string::npos)
      return true;
  return false;
}

TEST(Utf8, ValidationAndReplacement) {
  EXPECT_TRUE(is_valid_utf8("Jetson Orin — 8 GB, µs"));
  EXPECT_FALSE(is_valid_utf8("\xff"s));
  EXPECT_FALSE(is_valid_utf8("\xc0\xaf"s));          // overlong "/"
  EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"s));      // surrogate
  EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"s));  // above U+10FFFF
  EXPECT_FALSE(is_valid_utf8("\xe2\x82"s));          // cut in the middle
  EXPECT_EQ(to_valid_utf8("a\xff"
                          "b"s),
            "a\xEF\xBF\xBD"
            "b");
  EXPECT_EQ(to_valid_utf8("\xe2\x82"s), "\xEF\xBF\xBD");  // one maximal subpart
  EXPECT_EQ(to_valid_utf8("ok µ"), "ok µ");
  json j = {{"a", "x\xfe"s}, {"b", {1, "\xc3"s}}, {"k\xff"s, "v"}};
  auto changed = replace_invalid_utf8(j, "/platform");
  EXPECT_EQ(changed.size(), 3u);
  EXPECT_NO_THROW(j.dump());
}

// Every string that enters the facts from outside, at once: a module name and
// users in /proc/modules, a dpkg version, a CDI file name and device path, a
// device-tree model, library file names and a root directory name.
TEST(Utf8, NothingThatIsNotUtf8ReachesTheEvidence) {
  test::TempDir t;
  std::string root = t.path("root-\xff\xfe-dir"s);
  auto w = [&](const std::string& rel, const std::string& text) {
    return t.write("root-\xff\xfe-dir/"s + rel, text);
  };
  w("jetgate-root.json", R"({"machine": "aarch64"})");
  w("etc/nv_tegra_release", "# R36 (release), REVISION: 4.3, BOARD: gen\xe9ric\n"s);
  w("proc/modules", "nvgpu 2760704 22 host1x\xff,nvmap, Live\xfe 0x0 (O)\n"s);
  w("var/lib/dpkg/status",
    "Package: nvidia-l4t-core\nStatus: install ok installed\nVersion: 36.\xff\n\n"
    "Package: libcudnn9-cuda-12\nStatus: install ok installed\nVersion: 9.3.0\xff-1\n"s);
  w("etc/cdi/nvidia-\xff.yaml"s,
    "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: \"all\xc3\"\n"
    "  containerEdits:\n    deviceNodes:\n    - path: /dev/nvhost-\xff\n"s);
  w("proc/device-tree/model", "NVIDIA Jetson \xff\0"s);
  w("usr/lib/aarch64-linux-gnu/libnvinfer.so.10.3.0\xff"s, "");
  auto fsroot = fs::RootFs::open(root);
  ASSERT_TRUE(fsroot.ok());
  auto r = collect_platform(*fsroot, {});
  EXPECT_TRUE(is_valid_utf8(r.root));
  evidence::ProbeDocumentInput in;
  in.root = r.root;
  in.platform = &r;
  auto doc = evidence::build_probe_document(in);
  std::string text;
  ASSERT_NO_THROW(text = doc.dump(2));
  EXPECT_TRUE(is_valid_utf8(text));
  EXPECT_TRUE(warned_at(r, "/platform/tegra/driver/modules")) << text;
  EXPECT_TRUE(warned_at(r, "/platform/tegra/driver/cdi")) << text;
  // The release line itself is refused as binary, so it is null rather than replaced.
  EXPECT_TRUE(doc["platform"]["tegra"]["release_line"].is_null());
  EXPECT_EQ(doc["platform"]["tegra"]["l4t"], "36.4.3");
}

// Every kind of error the JSON reader returns, with a position or without one
// (negative zero names its pointer, not a line), becomes a warning about the
// sidecar: "-0E1111" once ended `probe --root` in std::out_of_range (found by
// fuzz_root_json).
TEST(SidecarErrors, EveryJsonErrorIsAWarningNeverACrash) {
  for (const std::string& text :
       {std::string("-0E1111"), std::string("{\"machine\": -0.0}"), std::string("1e999"),
        std::string("{\"a\":\0}", 7), std::string(""), std::string("[1,"), std::string("\"x\""),
        std::string(40, '[')}) {
    test::TempDir t;
    t.write("jetgate-root.json", text);
    auto root = fs::RootFs::open(t.dir());
    ASSERT_TRUE(root.ok());
    PlatformReport r;
    ASSERT_NO_THROW(r = collect_platform(*root, {})) << text;
    EXPECT_TRUE(r.platform["arch"].is_null()) << text;
    bool named = false;
    for (const auto& w : r.warnings)
      named = named || (w.source.find("jetgate-root.json") != std::string::npos &&
                        w.message.find("(not read)") != std::string::npos);
    EXPECT_TRUE(named) << text;
  }
}

TEST(SidecarDepth, TwoHundredThousandLevelsAreRefusedWithThePosition) {
  test::TempDir t;
  t.write("jetgate-root.json", "{\"machine\": \"aarch64\", \"nodes\": " + std::string(200000, '[') +
                                   std::string(200000, ']') + "}");
  auto root = fs::RootFs::open(t.dir());
  ASSERT_TRUE(root.ok());
  auto r = collect_platform(*root, {});
  EXPECT_TRUE(r.platform["arch"].is_null());
  bool named = false;
  for (const auto& w : r.warnings)
    named = named || (w.source.find("jetgate-root.json") != std::string::npos &&
                      w.message.find("JSON nested deeper than 16 levels at ") != std::string::npos);
  EXPECT_TRUE(named);
}

TEST(CdiAliasBomb, RefusedQuicklyAsUnreadable) {
  // "Billion laughs": nine levels of nine aliases expand to 9^9 nodes.
  std::string bomb =
      "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\na0: &a0 [x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 9; ++i) {
    bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 9; ++k) bomb += std::string(k ? ", " : "") + "*a" + std::to_string(i - 1);
    bomb += "]\n";
  }
  bomb += "devices:\n- name: all\n  containerEdits:\n    deviceNodes: *a8\n";
  auto start = std::chrono::steady_clock::now();
  auto spec = parse_cdi_spec(bomb);
  auto elapsed = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.error().what.find("aliases"), std::string::npos) << spec.error().what;
  // Not a timing claim: a hang would run for minutes; this bound only catches that.
  EXPECT_LT(elapsed, std::chrono::seconds(20));

  // Deep block nesting (no brackets) is bounded too.
  std::string deep = "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\nx:\n";
  for (int i = 0; i < 300; ++i) deep += std::string(static_cast<std::size_t>(i + 1), ' ') + "- \n";
  EXPECT_FALSE(parse_cdi_spec(deep).ok());

  // A spec with a few honest aliases still parses.
  auto ok = parse_cdi_spec(
      "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\nnodes: &n\n- path: /dev/nvmap\n"
      "devices:\n- name: all\n  containerEdits:\n    deviceNodes: *n\n");
  ASSERT_TRUE(ok.ok()) << ok.error().message();
  EXPECT_EQ(ok->device_nodes.size(), 1u);
}

TEST(CdiAliasBomb, ARecordedRootWithABombGetsAWarningNotAHang) {
  test::TempDir t;
  std::string bomb =
      "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\na: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 0; i < 8; ++i)
    bomb += "b" + std::to_string(i) + ": &" + (i ? "b" + std::to_string(i) : std::string("b0")) +
            " [" + std::string(i ? "*b" + std::to_string(i - 1) : "*a") + ", " +
            (i ? "*b" + std::to_string(i - 1) : "*a") + ", " +
            (i ? "*b" + std::to_string(i - 1) : "*a") + ", " +
            (i ? "*b" + std::to_string(i - 1) : "*a") + "]\n";
  t.write("etc/cdi/bomb.yaml", bomb);
  auto root = fs::RootFs::open(t.dir());
  auto r = collect_platform(*root, {});
  const auto& cdi = r.platform["tegra"]["driver"]["cdi"];
  ASSERT_EQ(cdi.size(), 1u);
  EXPECT_NE(cdi[0]["error"].get<std::string>().find("too large"), std::string::npos);
}

// A pod that mounts the host's /etc alone sees /etc/os-release as a link whose target
// (../usr/lib/os-release) is not there: the OS is not "unknown" without a word.
TEST(FactsHostileInput, AnOsReleaseLinkWithoutItsTargetIsSaid) {
  test::TempDir t;
  t.write("etc/hostname", "board\n");
  std::filesystem::create_symlink("../usr/lib/os-release", t.path("etc/os-release"));
  auto fsroot = fs::RootFs::open(t.dir());
  ASSERT_TRUE(fsroot.ok());
  auto os_warning = [](const PlatformReport& r) {
    for (const auto& w : r.warnings)
      if (w.fact == "/platform/os/id" && w.message.find("/usr/lib/os-release") != std::string::npos)
        return true;
    return false;
  };
  EXPECT_TRUE(os_warning(collect_platform(*fsroot, {})));
  // With its target there, it is read and nothing is said; without any os-release
  // (many recordings), nothing is said either.
  t.write("usr/lib/os-release", "ID=ubuntu\nVERSION_ID=\"22.04\"\n");
  auto linked = collect_platform(*fsroot, {});
  EXPECT_FALSE(os_warning(linked));
  EXPECT_EQ(linked.platform["os"]["id"], "ubuntu");
  std::filesystem::remove(t.path("etc/os-release"));
  std::filesystem::remove(t.path("usr/lib/os-release"));
  EXPECT_FALSE(os_warning(collect_platform(*fsroot, {})));
}

}  // namespace
}  // namespace jetgate::facts
