// SPDX-License-Identifier: Apache-2.0
// Inside a container: the image's L4T release beside the host's kernel and
// driver, and the mismatches that break CUDA (facts/container_host.*).
#include "jetgate/facts/container_host.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "jetgate/facts/container_images.hpp"
#include "jetgate/facts/platform.hpp"
#include "test_support.hpp"

namespace jetgate::facts {
namespace {

using nlohmann::json;

json in_container(const char* kernel, json image_l4t, json host_l4t, json toolkit) {
  json majors = json::array();
  if (std::string(kernel).rfind("4.9.", 0) == 0) majors = {32};
  if (std::string(kernel).rfind("5.10.", 0) == 0) majors = {34, 35};
  if (std::string(kernel).rfind("5.15.", 0) == 0) majors = {36};
  if (std::string(kernel).rfind("6.8.", 0) == 0) majors = {38, 39};
  return {{"kernel", {{"release", kernel}}},
          {"cuda", {{"toolkit_version", toolkit}}},
          {"container",
           {{"detected", true},
            {"image_l4t", image_l4t},
            {"host_l4t", host_l4t},
            {"host_l4t_majors", majors}}}};
}

TEST(ContainerHost, OutsideAContainerThereIsNoCheck) {
  json p = {{"container", {{"detected", false}}}};
  EXPECT_TRUE(check_container_l4t(p, std::string("12.6")).is_null());
}

TEST(ContainerHost, JetPack4ImageOnA46HostIsOk) {
  auto c = check_container_l4t(in_container("4.9.337-tegra", "32.7.1", "32.7.4", "10.2.300"),
                               std::string("10.2"));
  EXPECT_EQ(c["status"], "PASS") << c.dump();
  EXPECT_TRUE(c["problems"].empty());
  EXPECT_TRUE(c["fix"].is_null());
}

TEST(ContainerHost, JetPack5ImageOnAJetPack6KernelIsAMismatchWithTheFix) {
  auto c = check_container_l4t(in_container("5.15.148-tegra", "35.4.1", nullptr, "11.4.315"),
                               std::string("12.6"));
  EXPECT_EQ(c["status"], "FAIL") << c.dump();
  ASSERT_EQ(c["problems"].size(), 1u) << c.dump();
  auto problem = c["problems"][0].get<std::string>();
  EXPECT_NE(problem.find("L4T 35.4.1 (JetPack 5.1.2)"), std::string::npos) << problem;
  EXPECT_NE(problem.find("kernel of L4T R36"), std::string::npos) << problem;
  EXPECT_NE(c["fix"].get<std::string>().find("jetgate container"), std::string::npos);
}

TEST(ContainerHost, JetPack6_1ImageOnA6_0HostNeedsANewerDriver) {
  // jetson-containers run.sh bind-mounts the host's /etc/nv_tegra_release.
  auto c = check_container_l4t(in_container("5.15.136-tegra", "36.4.0", "36.3.0", "12.6.68"),
                               std::string("12.2"));
  EXPECT_EQ(c["status"], "FAIL");
  ASSERT_EQ(c["problems"].size(), 2u) << c.dump();
  EXPECT_NE(c["problems"][1].get<std::string>().find("cudaErrorInsufficientDriver"),
            std::string::npos);
  EXPECT_NE(c["fix"].get<std::string>().find("jetgate container --l4t 36.3.0"), std::string::npos)
      << c["fix"];
}

TEST(ContainerHost, JetPack7ImageOnAThorHostIsOk) {
  auto c = check_container_l4t(in_container("6.8.12-tegra", "38.2.0", nullptr, "13.0.48"),
                               std::string("13.0"));
  EXPECT_EQ(c["status"], "PASS") << c.dump();
  EXPECT_EQ(c["image_cuda"], "13.0");
  EXPECT_EQ(c["driver_cuda"], "13.0");
}

// A JetPack 7.2 board keeps JetPack 7.0's kernel 6.8: a public tegrastats
// parser test records kernel 6.8.12-1021-tegra with "# R39 (release), REVISION:
// 2.0" (tests/fixtures/l4t-tables/SOURCE.md). An R39.2 image there is no mismatch.
TEST(ContainerHost, JetPack7_2ImageOnItsKernel6_8HostIsOk) {
  auto p = in_container("6.8.12-1021-tegra", "39.2.0", nullptr, "13.2.51");
  // The host's majors as collect_container_l4t reads them, from the table.
  p["container"]["host_l4t_majors"] =
      builtin_container_table()->l4t_majors_of_kernel("6.8.12-1021-tegra");
  auto c = check_container_l4t(p, std::string("13.2"));
  EXPECT_EQ(c["status"], "PASS") << c.dump();
  EXPECT_TRUE(c["problems"].empty()) << c.dump();
  EXPECT_TRUE(c["fix"].is_null());
  // The kernel alone does tell JetPack 7 from 6: an R36 image there still mismatches.
  auto old = check_container_l4t(in_container("6.8.12-1021-tegra", "36.4.0", nullptr, "12.6.68"),
                                 std::string("13.2"));
  EXPECT_EQ(old["status"], "FAIL") << old.dump();
  EXPECT_NE(old["problems"][0].get<std::string>().find("kernel of L4T R38 or R39"),
            std::string::npos)
      << old.dump();
}

TEST(ContainerHost, NothingKnownAboutTheImageIsUnknownNotOk) {
  auto c =
      check_container_l4t(in_container("6.12.7-talos", nullptr, nullptr, nullptr), std::nullopt);
  EXPECT_EQ(c["status"], "SKIP") << c.dump();
}

// A recorded container: jetson-containers' run.sh mounted the host's release
// file (so /proc/self/mountinfo lists it); the image's own L4T is its package.
TEST(ContainerHost, RecordedContainerReadsImageAndHostApart) {
  test::TempDir root;
  root.write(".dockerenv", "");
  root.write("etc/nv_tegra_release",
             "# R36 (release), REVISION: 4.3, GCID: 38968081, BOARD: generic, EABI: aarch64\n");
  root.write("proc/self/mountinfo",
             "622 540 0:52 / / rw,relatime - overlay overlay rw\n"
             "640 622 259:2 /etc/nv_tegra_release /etc/nv_tegra_release ro,relatime - ext4 "
             "/dev/nvme0n1p1 rw\n");
  root.write("proc/sys/kernel/osrelease", "5.15.148-tegra\n");
  root.write("var/lib/dpkg/status",
             "Package: nvidia-l4t-core\nStatus: install ok installed\nVersion: "
             "35.4.1-20230801124926\n\n");
  auto fs = fs::RootFs::open(root.dir());
  ASSERT_TRUE(fs.ok());
  auto report = collect_platform(*fs, CollectOptions{});
  const auto& c = report.platform["container"];
  EXPECT_EQ(c["detected"], true);
  EXPECT_EQ(c["nv_tegra_release_from_host"], true) << c.dump();
  EXPECT_EQ(c["host_l4t"], "36.4.3");
  EXPECT_EQ(c["image_l4t"], "35.4.1");
  EXPECT_EQ(c["image_l4t_source"], "dpkg:nvidia-l4t-core");
  EXPECT_EQ(c["host_l4t_majors"], json({36}));
  auto check = check_container_l4t(report.platform, std::nullopt);
  EXPECT_EQ(check["status"], "FAIL") << check.dump();
}

TEST(ContainerHost, ReleaseFileOfTheImageIsTheImagesRelease) {
  test::TempDir root;
  root.write(".dockerenv", "");
  root.write("etc/nv_tegra_release", "# R36 (release), REVISION: 4.0, GCID: 1, BOARD: generic\n");
  root.write("proc/self/mountinfo", "622 540 0:52 / / rw,relatime - overlay overlay rw\n");
  root.write("proc/sys/kernel/osrelease", "5.15.148-tegra\n");
  auto fs = fs::RootFs::open(root.dir());
  ASSERT_TRUE(fs.ok());
  auto report = collect_platform(*fs, CollectOptions{});
  const auto& c = report.platform["container"];
  EXPECT_EQ(c["nv_tegra_release_from_host"], false);
  EXPECT_EQ(c["image_l4t"], "36.4.0");
  EXPECT_EQ(c["image_l4t_source"], "/etc/nv_tegra_release");
  EXPECT_TRUE(c["host_l4t"].is_null());
  EXPECT_EQ(check_container_l4t(report.platform, std::string("12.6"))["status"], "PASS");
}

}  // namespace
}  // namespace jetgate::facts
