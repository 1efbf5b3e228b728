// SPDX-License-Identifier: Apache-2.0
// The nvhost_ctrl probe against a fake /dev/nvhost-ctrl: jetgate runs with
// tests/fake_nvhost preloaded (LD_PRELOAD), which answers the L4T uapi
// header's requests as a working nvhost interface does, or in one of its
// broken ways (FAKE_NVHOST_MODE).
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "jetgate/probes/nvhost_ctrl.hpp"
#include "jetgate/probes/probe_result.hpp"
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
  // (a probe that asked nothing has no list: a failed expectation, never a crash)
  if (!probe.is_object() || !probe.contains("details") || !probe["details"].contains("ioctls"))
    return "no ioctls asked";
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
  EXPECT_EQ(denied["status"], "FAIL");
  EXPECT_NE(denied["reason"].get<std::string>().find("--probe sync_path"), std::string::npos)
      << "the measurement, not a prediction";
}

// host1x syncpoints are 32-bit counters that wrap: 0xffffffff then 0 is one step
// forward, not backwards (the L4T kernel compares them the same way).
TEST(NvhostCtrlProbe, ASyncpointThatWrapsFromTheTopToZeroWentForward) {
  REQUIRE_PRELOAD();
  auto p = run_probe("wraps");
  EXPECT_EQ(outcome(p, "SYNCPT_READ"), "answered") << p.dump(2);
  EXPECT_EQ(outcome(p, "SYNCPT_READ_MAX"), "answered") << p.dump(2);
  EXPECT_EQ(p["status"], "PASS") << p.dump(2);
  EXPECT_EQ(p["reason"].get<std::string>().find("backwards"), std::string::npos) << p["reason"];
}

// SYNC_FILE_EXTRACT must give back the syncpoint and threshold the fence was made of.
TEST(NvhostCtrlProbe, AnExtractedFenceWithAnotherThresholdIsWrong) {
  REQUIRE_PRELOAD();
  auto p = run_probe("extract_other_thresh");
  EXPECT_EQ(outcome(p, "SYNC_FILE_EXTRACT"), "wrong") << p.dump(2);
  EXPECT_EQ(p["status"], "FAIL");
  EXPECT_NE(p["reason"].get<std::string>().find("thresh 41"), std::string::npos) << p["reason"];
}

// Only ENOENT means the node does not exist; permission and other errors say what they are.
TEST(NvhostCtrlProbe, OpenErrorsOtherThanENOENTAreNotANodeThatDoesNotExist) {
  REQUIRE_PRELOAD();
  auto denied = run_probe("open_eacces");
  EXPECT_EQ(denied["status"], "FAIL") << denied.dump(2);
  EXPECT_EQ(outcome(denied, "open"), "refused") << denied.dump(2);
  auto why = denied["reason"].get<std::string>();
  EXPECT_EQ(why.find("does not exist"), std::string::npos) << why;
  EXPECT_NE(why.find("EACCES"), std::string::npos) << why;
  auto io = run_probe("open_eio");
  EXPECT_EQ(io["status"], "FAIL") << io.dump(2);
  EXPECT_EQ(outcome(io, "open"), "failed") << io.dump(2);
  why = io["reason"].get<std::string>();
  EXPECT_EQ(why.find("does not exist"), std::string::npos) << why;
  EXPECT_NE(why.find(std::strerror(EIO)), std::string::npos) << why;
}

// What stands at the node's path is said: a FIFO or a regular file is not "a node
// missing ioctls" (no ioctl is asked of it), and a dangling link is not a node that
// "does not exist".
TEST(NvhostCtrlProbe, AFifoAFileOrADanglingLinkInTheNodesPlaceIsNamedForWhatItIs) {
  test::TempDir t;
  NvhostCtrlOptions o;
  o.timeout = std::chrono::seconds(3);
  o.node = t.path("fifo");
  ASSERT_EQ(::mkfifo(o.node.c_str(), 0600), 0);
  auto fifo = probe_nvhost_ctrl(o);
  EXPECT_EQ(fifo.status, ProbeStatus::fail);
  EXPECT_NE(fifo.reason.find("is a FIFO (named pipe), not the character device"), std::string::npos)
      << fifo.reason;
  EXPECT_FALSE(fifo.details.contains("ioctls")) << fifo.details.dump();
  EXPECT_NE(fifo.next.find("ls -l"), std::string::npos) << fifo.next;

  o.node = t.write("file", "not a device");
  auto file = probe_nvhost_ctrl(o);
  EXPECT_EQ(file.status, ProbeStatus::fail);
  EXPECT_NE(file.reason.find("is a regular file, not the character device"), std::string::npos)
      << file.reason;
  EXPECT_FALSE(file.details.contains("ioctls")) << file.details.dump();

  o.node = t.path("dangling");
  std::filesystem::create_symlink(t.path("gone"), o.node);
  o.node_in_stack = true;
  o.stack_name = "L4T 35";
  auto dangling = probe_nvhost_ctrl(o);
  EXPECT_EQ(dangling.status, ProbeStatus::fail);
  EXPECT_NE(dangling.reason.find("is a dangling symbolic link (to " + t.path("gone")),
            std::string::npos)
      << dangling.reason;
  EXPECT_EQ(dangling.reason.find(o.node + " does not exist"), std::string::npos) << dangling.reason;
  // A path with nothing there still does not exist.
  o.node = t.path("nothing");
  auto nothing = probe_nvhost_ctrl(o);
  EXPECT_NE(nothing.reason.find(o.node + " does not exist"), std::string::npos) << nothing.reason;
}

TEST(NvhostCtrlProbe, AWaitThatNeverReturnsIsATimedOutChildNotAHang) {
  REQUIRE_PRELOAD();
  auto p = run_probe("hang");
  EXPECT_EQ(p["status"], "FAIL");
  EXPECT_NE(p["reason"].get<std::string>().find("hung"), std::string::npos) << p["reason"];
}

// NVIDIA's L4T 32 driver (dispatcher ends at request 17) and an early L4T 35 one
// (ends at 18) lack SYNC_FILE_EXTRACT (19); CUDA runs on both, so the probe passes
// and reports it absent. The same for a shim without it.
TEST(NvhostCtrlProbe, DriversThatPredateSyncFileExtractPassWithItReportedAbsent) {
  REQUIRE_PRELOAD();
  for (const char* mode : {"l4t32", "l4t35_early", "no_extract"}) {
    auto p = run_probe(mode);
    ASSERT_TRUE(p.is_object()) << mode;
    EXPECT_EQ(p["status"], "PASS") << mode << ": " << p.dump(2);
    EXPECT_EQ(outcome(p, "SYNC_FILE_EXTRACT"), "absent") << mode;
    for (const char* n : {"GET_VERSION", "GET_CHARACTERISTICS", "SYNCPT_READ", "SYNCPT_READ_MAX",
                          "SYNCPT_WAITMEX", "SYNC_FENCE_CREATE", "POLL_FD_CREATE"})
      EXPECT_EQ(outcome(p, n), "answered") << mode << " " << n;
    EXPECT_EQ(p["values"]["nvhost_ioctls_answered"]["value"], 7) << mode;
    EXPECT_NE(p["reason"].get<std::string>().find("SYNC_FILE_EXTRACT absent"), std::string::npos)
        << p["reason"];
  }
}

TEST(NvhostCtrlProbe, NoNodeFollowsWhatTheStackSays) {
  NvhostCtrlOptions o;
  o.node = "/nonexistent/nvhost-ctrl";
  // No row for this platform: a skip that says so.
  auto unknown = probe_nvhost_ctrl(o);
  EXPECT_EQ(unknown.status, ProbeStatus::skip);
  EXPECT_NE(unknown.reason.find("does not exist"), std::string::npos);
  EXPECT_EQ(unknown.reason.find("polling"), std::string::npos) << unknown.reason;
  EXPECT_FALSE(unmet_probes({unknown}, {"nvhost_ctrl"}).empty());
  // Stock L4T 36: not part of the stack, nothing missing: asking for it holds.
  o.stack_name = "L4T 36 (JetPack 6)";
  o.stack_source = "devices.csv";
  o.node_in_stack = false;
  auto l36 = probe_nvhost_ctrl(o);
  EXPECT_EQ(l36.status, ProbeStatus::pass);
  EXPECT_EQ(l36.details["applies"], false);
  EXPECT_NE(l36.reason.find("not part of L4T 36 (JetPack 6)"), std::string::npos) << l36.reason;
  EXPECT_TRUE(unmet_probes({l36}, {"nvhost_ctrl"}).empty()) << "`probe` does not fail";
  // L4T 35: NVIDIA's list names it, so its absence fails.
  o.stack_name = "L4T 34-35 (JetPack 5)";
  o.node_in_stack = true;
  auto l35 = probe_nvhost_ctrl(o);
  EXPECT_EQ(l35.status, ProbeStatus::fail);
  EXPECT_NE(l35.reason.find("it is part of L4T 34-35"), std::string::npos) << l35.reason;
  // A node that is not an nvhost interface answers nothing: every request ENOTTY.
  o.node = "/dev/null";
  auto null = probe_nvhost_ctrl(o);
  EXPECT_EQ(null.status, ProbeStatus::fail);
  EXPECT_EQ(null.details["ioctls"][0]["outcome"], "not_implemented");
}

// `probe --probe nvhost_ctrl` on this test machine (no node, and no row of the
// table: not a Jetson, no nvidia module) says the table has no row for it.
TEST(NvhostCtrlProbe, TheCliPassesTheStackFactsToTheProbe) {
  if (std::filesystem::exists("/dev/nvhost-ctrl")) GTEST_SKIP() << "this machine has the node";
  auto r = test::run_jetgate({"probe", "--probe", "nvhost_ctrl", "--probe-timeout", "3", "--json"},
                             {"JETGATE_CUDA_DRIVER=/nonexistent/libcuda.so.1"});
  auto doc = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.err;
  const auto& p = doc["probes"]["nvhost_ctrl"];
  const auto* stack = doc["platform"]["tegra"]["driver"].contains("stack")
                          ? &doc["platform"]["tegra"]["driver"]["stack"]
                          : nullptr;
  if (stack && stack->is_object()) {  // a dGPU host with the nvidia module: its row
    EXPECT_EQ(p["status"], "PASS") << p.dump();
    EXPECT_EQ(r.exit_code, 0) << r.err;
  } else {
    EXPECT_EQ(p["status"], "SKIP") << p.dump();
    EXPECT_NE(p["reason"].get<std::string>().find("no row"), std::string::npos) << p.dump();
  }
}

}  // namespace
}  // namespace jetgate::probes
