// SPDX-License-Identifier: Apache-2.0
// The nvhost_ctrl probe against a fake /dev/nvhost-ctrl: jetgate runs with
// tests/fake_nvhost preloaded (LD_PRELOAD), which answers the L4T uapi
// header's requests as a working nvhost interface does, or in one of its
// broken ways (FAKE_NVHOST_MODE).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "jetgate/probes/nvhost_ctrl.hpp"
#include "test_support.hpp"

namespace jetgate::probes {
namespace {

using nlohmann::json;

// The interposer is preloaded into the jetgate binary: not possible under an
// emulator (cross-built tests) or with AddressSanitizer's runtime first in line.
bool can_preload() {
#if defined(__SANITIZE_ADDRESS__)
  return false;
#else
  return test::jetgate_command() == test::jetgate_binary();
#endif
}

#define REQUIRE_PRELOAD() \
  if (!can_preload()) GTEST_SKIP() << "LD_PRELOAD is not possible in this build"

json run_probe(const std::string& mode) {
  auto r = test::run_jetgate({"probe", "--probe", "nvhost_ctrl", "--probe-timeout", "3", "--json"},
                             {"LD_PRELOAD=" JETGATE_FAKE_NVHOST, "FAKE_NVHOST_MODE=" + mode,
                              "JETGATE_CUDA_DRIVER=/nonexistent/libcuda.so.1"});
  auto doc = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.err;
  if (doc.is_discarded()) return json();
  return doc["probes"]["nvhost_ctrl"];
}

std::string outcome(const json& probe, const std::string& name) {
  for (const auto& c : probe["details"]["ioctls"])
    if (c["name"] == name) return c["outcome"].get<std::string>();
  return "absent";
}

TEST(NvhostCtrlProbe, AWorkingInterfaceAnswersEveryIoctl) {
  REQUIRE_PRELOAD();
  auto p = run_probe("good");
  ASSERT_TRUE(p.is_object()) << p.dump();
  EXPECT_EQ(p["status"], "PASS") << p.dump(2);
  EXPECT_EQ(p["details"]["ioctls"].size(), 8u);
  for (const char* n :
       {"GET_VERSION", "GET_CHARACTERISTICS", "SYNCPT_READ", "SYNCPT_READ_MAX", "SYNCPT_WAITMEX",
        "SYNC_FENCE_CREATE", "SYNC_FILE_EXTRACT", "POLL_FD_CREATE"})
    EXPECT_EQ(outcome(p, n), "answered") << n;
  EXPECT_EQ(p["values"]["nvhost_ioctls_answered"]["value"], 8);
}

TEST(NvhostCtrlProbe, EachBrokenVariantIsNamedWithWhatItMeansForCuda) {
  REQUIRE_PRELOAD();
  auto missing = run_probe("no_extract");
  EXPECT_EQ(missing["status"], "FAIL");
  EXPECT_EQ(outcome(missing, "SYNC_FILE_EXTRACT"), "not_implemented");
  EXPECT_EQ(outcome(missing, "SYNC_FENCE_CREATE"), "answered");
  EXPECT_NE(missing["reason"].get<std::string>().find("ENOTTY"), std::string::npos);

  auto version = run_probe("wrong_version");
  EXPECT_EQ(outcome(version, "GET_VERSION"), "wrong");
  EXPECT_NE(version["reason"].get<std::string>().find("version 99"), std::string::npos);

  auto never = run_probe("never_signals");
  EXPECT_EQ(outcome(never, "SYNCPT_WAITMEX"), "wrong");
  EXPECT_EQ(outcome(never, "SYNC_FENCE_CREATE"), "wrong") << "a fence that never polls readable";
  EXPECT_NE(never["reason"].get<std::string>().find("already passed"), std::string::npos);

  auto back = run_probe("backwards");
  EXPECT_EQ(outcome(back, "SYNCPT_READ"), "wrong");
  EXPECT_EQ(outcome(back, "SYNCPT_WAITMEX"), "not_tried");

  auto denied = run_probe("eperm");
  EXPECT_EQ(outcome(denied, "GET_VERSION"), "refused");
  EXPECT_NE(denied["reason"].get<std::string>().find("polling"), std::string::npos);
}

TEST(NvhostCtrlProbe, AWaitThatNeverReturnsIsATimedOutChildNotAHang) {
  REQUIRE_PRELOAD();
  auto p = run_probe("hang");
  EXPECT_EQ(p["status"], "FAIL");
  EXPECT_NE(p["reason"].get<std::string>().find("hung"), std::string::npos) << p["reason"];
}

TEST(NvhostCtrlProbe, NoNodeIsASkipThatSaysWhatThatMeans) {
  NvhostCtrlOptions o;
  o.node = "/nonexistent/nvhost-ctrl";
  auto r = probe_nvhost_ctrl(o);
  EXPECT_EQ(r.status, ProbeStatus::skip);
  EXPECT_NE(r.reason.find("does not exist"), std::string::npos);
  EXPECT_NE(r.reason.find("polling"), std::string::npos);
  // A node that is not an nvhost interface answers nothing: every request ENOTTY.
  o.node = "/dev/null";
  auto null = probe_nvhost_ctrl(o);
  EXPECT_EQ(null.status, ProbeStatus::fail);
  EXPECT_EQ(null.details["ioctls"][0]["outcome"], "not_implemented");
}

}  // namespace
}  // namespace jetgate::probes
