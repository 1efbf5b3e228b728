// SPDX-License-Identifier: Apache-2.0
// Which device nodes the CUDA child holds open (proc/open_files, read in the
// child with a context current) against the nodes the platform should use
// (facts/cuda_nodes), joined in evidence/gpu_facts.
#include "jetgate/facts/cuda_nodes.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "jetgate/evidence/gpu_facts.hpp"
#include "jetgate/probes/cuda_section.hpp"
#include "jetgate/proc/open_files.hpp"
#include "test_support.hpp"

namespace jetgate::facts {
namespace {

using nlohmann::json;

json orin_l4t36() {
  return json::parse(R"({"tegra": {"is_tegra": true, "soc": "tegra234", "l4t": "36.4.3",
                                   "driver": {"modules": []}}})");
}

// L4T 36 has no /dev/nvhost-ctrl (NVIDIA's devices.csv); CUDA opens a render node there.
TEST(CudaNodes, OrinOnL4t36NeedsARenderNodeNotNvhostCtrl) {
  auto cmp = compare_cuda_nodes(orin_l4t36(),
                                json::array({"/dev/nvgpu/igpu0/ctrl", "/dev/nvmap", "/dev/null"}));
  ASSERT_TRUE(cmp.is_object());
  EXPECT_EQ(cmp["missing"], json::array({"/dev/dri/renderD*"}));
  EXPECT_EQ(cmp["platform"], "L4T 36 (JetPack 6)");
  EXPECT_NE(cmp["source"].get<std::string>().find("41db12cc"), std::string::npos);
  auto all = compare_cuda_nodes(
      orin_l4t36(), json::array({"/dev/nvgpu/igpu0/ctrl", "/dev/nvmap", "/dev/dri/renderD128"}));
  EXPECT_TRUE(all["missing"].empty());
  for (const auto& e : all["expected"]) EXPECT_TRUE(e["open"].get<bool>()) << e;
  for (const auto& e : all["expected"]) EXPECT_NE(e["path"], "/dev/nvhost-ctrl");
}

// The list measured on the H200 with bench/cuda_open_nodes.c (docs/probes.md).
TEST(CudaNodes, DiscreteGpuMeasuredOnTheH200) {
  json dgpu =
      json::parse(R"({"tegra": {"is_tegra": false, "driver": {"modules": [{"name": "nvidia"}]}}})");
  auto cmp = compare_cuda_nodes(
      dgpu, json::array({"/dev/nvidia-uvm", "/dev/nvidia0", "/dev/nvidiactl", "/dev/null"}));
  EXPECT_TRUE(cmp["missing"].empty()) << cmp.dump();
  EXPECT_EQ(compare_cuda_nodes(dgpu, json::array({"/dev/nvidia0"}))["missing"],
            json::array({"/dev/nvidiactl", "/dev/nvidia-uvm"}));
}

TEST(CudaNodes, PlatformsWithoutAnExpectationAndBadInput) {
  json rpi = json::parse(R"({"tegra": {"is_tegra": false, "driver": {"modules": []}}})");
  EXPECT_TRUE(expected_cuda_nodes(rpi).nodes.empty());
  EXPECT_TRUE(compare_cuda_nodes(rpi, json::array())["missing"].empty());
  EXPECT_TRUE(compare_cuda_nodes(orin_l4t36(), "not a list").is_null());
  EXPECT_TRUE(compare_cuda_nodes(orin_l4t36(), json::array({1, 2})).is_null());
  json xavier = json::parse(R"({"tegra": {"is_tegra": true, "soc": "tegra194", "l4t": "35.4.1"}})");
  EXPECT_EQ(expected_cuda_nodes(xavier).nodes.size(), 3u);
  json talos = json::parse(
      R"({"tegra": {"is_tegra": true, "soc": "tegra234", "l4t": null,
                    "driver": {"modules": [{"name": "nvgpu"}]}}})");
  EXPECT_EQ(expected_cuda_nodes(talos).platform,
            "mainline or OE4T kernel without an L4T release, nvgpu out of tree (Talos)");
}

// A node held open counts only by whole match: /dev/nvhost-ctrl-gpu is not /dev/nvhost-ctrl.
TEST(CudaNodes, ANodeWhosePathOnlyStartsWithTheExpectedOneIsNotHeld) {
  json xavier = json::parse(R"({"tegra": {"is_tegra": true, "soc": "tegra194", "l4t": "35.4.1"}})");
  auto e = expected_cuda_nodes(xavier);
  ASSERT_TRUE(std::any_of(e.nodes.begin(), e.nodes.end(),
                          [](const auto& n) { return n.path == "/dev/nvhost-ctrl"; }));
  json all = json::array(), near = json::array();
  for (const auto& n : e.nodes) {
    ASSERT_EQ(n.path.find('*'), std::string::npos) << n.path;
    all.push_back(n.path);
    near.push_back(n.path == "/dev/nvhost-ctrl" ? "/dev/nvhost-ctrl-gpu" : n.path);
  }
  EXPECT_TRUE(compare_cuda_nodes(xavier, all)["missing"].empty());
  EXPECT_EQ(compare_cuda_nodes(xavier, near)["missing"], json::array({"/dev/nvhost-ctrl"}));
  near.push_back("/dev/nvhost-ctr");  // shorter: no match either
  EXPECT_EQ(compare_cuda_nodes(xavier, near)["missing"], json::array({"/dev/nvhost-ctrl"}));
}

TEST(OpenFiles, ListsTheDeviceNodesThisProcessHolds) {
  std::string shm = "/dev/shm";
  if (!std::filesystem::is_directory(shm)) GTEST_SKIP() << "no /dev/shm";
  std::string path = shm + "/jetgate-open-files-" + std::to_string(::getpid());
  int fd = ::open(path.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  auto nodes = proc::open_device_nodes();
  EXPECT_NE(std::find(nodes.begin(), nodes.end(), path), nodes.end());
  EXPECT_TRUE(std::is_sorted(nodes.begin(), nodes.end()));
  ::close(fd);
  ::unlink(path.c_str());
  nodes = proc::open_device_nodes();
  EXPECT_EQ(std::find(nodes.begin(), nodes.end(), path), nodes.end());
  EXPECT_TRUE(proc::open_device_nodes_in("/nonexistent").empty());
}

// The fake driver opens the files FAKE_CUDA_OPEN names when a context is
// created, as libcuda opens its nodes: the child's list has them, and a node
// the platform should use but the child did not open becomes a note.
TEST(CudaNodes, FakeDriverChildRecordsWhatItOpenedAndTheJoinNamesWhatIsMissing) {
  std::string shm = "/dev/shm";
  if (!std::filesystem::is_directory(shm)) GTEST_SKIP() << "no /dev/shm";
  std::string node = shm + "/jetgate-fake-nvmap-" + std::to_string(::getpid());
  {
    int fd = ::open(node.c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
    ::close(fd);
  }
  setenv("FAKE_CUDA_OPEN", node.c_str(), 1);
  probes::CudaOptions o;
  o.driver_paths = {JETGATE_FAKE_CUDA};
  o.probe_timeout = std::chrono::milliseconds(3000);
  auto s = probes::collect_cuda(o);
  unsetenv("FAKE_CUDA_OPEN");
  ::unlink(node.c_str());
  const auto& open = s.gpu["devices"][0]["open_device_nodes"];
  ASSERT_TRUE(open.is_array()) << s.gpu.dump();
  EXPECT_NE(std::find(open.begin(), open.end(), node), open.end()) << open.dump();
  json platform = orin_l4t36();
  evidence::join_gpu_facts(s, platform);
  const auto& cmp = platform["tegra"]["driver"]["cuda_nodes"];
  EXPECT_EQ(cmp["missing"].size(), 3u) << cmp.dump();
  bool noted = false;
  for (const auto& n : s.notes) noted = noted || n.find("/dev/dri/renderD*") != std::string::npos;
  EXPECT_TRUE(noted);
}

}  // namespace
}  // namespace jetgate::facts
