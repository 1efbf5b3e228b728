// SPDX-License-Identifier: Apache-2.0
// Where each GPU-stack module came from (facts/module_provenance.*): the
// parsers on their own, then whole roots with module files from
// tests/fixtures/modules (see its SOURCE.md).
#include "jetgate/facts/module_provenance.hpp"

#include <gtest/gtest.h>

#include "jetgate/facts/platform.hpp"
#include "test_support.hpp"

namespace jetgate::facts {
namespace {

using nlohmann::json;
using namespace std::string_literals;

// libkmod is loaded at run time; a machine without it (a cross-built test
// under an emulator, without the target's libkmod2) cannot read module files.
bool have_libkmod() {
  auto r = read_module_info("");
  return r.ok() || r.error().message().find("libkmod.so.2") == std::string::npos;
}

std::string module_file(const std::string& name) {
  return test::read_file(test::fixtures_dir() + "/modules/" + name);
}

TEST(ModuleProvenance, ModulesDepNamesEachModuleAsTheKernelDoes) {
  auto dep = parse_modules_dep(
      "kernel/drivers/gpu/host1x/host1x.ko: kernel/drivers/dma-buf/dma-fence.ko\n"
      "updates/drivers/gpu/nvgpu/nvgpu.ko: updates/drivers/platform/tegra/mc-utils/mc-utils.ko\n"
      "updates/drivers/gpu/host1x-fence/host1x-fence.ko.zst:\n"
      "garbage without colon\n"
      "/abs/olute.ko:\n"
      "../escape.ko:\n"
      ": empty\n"
      "kernel/not-a-module.txt:\n");
  EXPECT_EQ(dep.size(), 3u);
  EXPECT_EQ(dep["host1x"], "kernel/drivers/gpu/host1x/host1x.ko");
  EXPECT_EQ(dep["nvgpu"], "updates/drivers/gpu/nvgpu/nvgpu.ko");
  EXPECT_EQ(dep["host1x_fence"], "updates/drivers/gpu/host1x-fence/host1x-fence.ko.zst");
  EXPECT_TRUE(parse_modules_dep("\xff\xfe:\n\x01").empty());
  EXPECT_EQ(module_name_of_path("a/mc-utils.ko"), "mc_utils");
  EXPECT_FALSE(module_name_of_path("a/b.o"));
  EXPECT_FALSE(module_name_of_path(".ko"));
}

TEST(ModuleProvenance, TaintLettersAndWhatTheyMean) {
  auto t = parse_module_taint("OE\n");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->flags, "OE");
  EXPECT_TRUE(t->out_of_tree);
  EXPECT_TRUE(t->unsigned_);
  EXPECT_FALSE(t->proprietary);
  auto none = parse_module_taint("\n");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->flags, "");
  auto p = parse_module_taint("POX");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->proprietary);
  EXPECT_EQ(p->unknown, std::vector<std::string>{"X"});
  EXPECT_FALSE(parse_module_taint("O E").ok());
  EXPECT_FALSE(parse_module_taint("oe").ok());
  EXPECT_FALSE(parse_module_taint("\xff").ok());
  EXPECT_FALSE(parse_module_taint(std::string(40, 'O')).ok());
}

// Lines quoted from public reports (tests/fixtures/modules/SOURCE.md).
TEST(ModuleProvenance, KernelLogSaysWhyAModuleDidNotLoad) {
  std::string log =
      "[   10.809957] tegra_drm: disagrees about version of symbol drm_gem_fb_destroy\n"
      "[   10.810014] tegra_drm: disagrees about version of symbol drm_kms_helper_poll_fini\n"
      "[   11.357651] tegra_camera: Unknown symbol video_device_release_empty (err -22)\n"
      "[   12.000000] tegra_drm: loaded fine, nothing wrong\n"
      "[   13.000000] nvtegra_drm: disagrees about version of symbol x\n";
  auto drm = module_load_failures(log, "tegra_drm");
  ASSERT_EQ(drm.size(), 2u);
  EXPECT_NE(drm[0].find("drm_gem_fb_destroy"), std::string::npos);
  auto cam = module_load_failures(log, "tegra_camera");
  ASSERT_EQ(cam.size(), 1u);
  EXPECT_NE(cam[0].find("Unknown symbol"), std::string::npos);
  EXPECT_TRUE(module_load_failures(log, "nvgpu").empty());
  EXPECT_EQ(module_load_failures(log, "tegra_drm", 1).size(), 1u) << "newest kept";
  EXPECT_NE(module_load_failures(log, "tegra_drm", 1)[0].find("poll_fini"), std::string::npos);
  EXPECT_TRUE(module_load_failures("\xff\xfe tegra_drm: Unknown symbol \x01", "tegra_drm").size() <=
              1);
}

TEST(ModuleProvenance, ModinfoAndSignatureOfAModuleFile) {
  if (!have_libkmod()) GTEST_SKIP() << "libkmod.so.2 is not installed";
  auto nvgpu = read_module_info(module_file("nvgpu.ko"));
  ASSERT_TRUE(nvgpu.ok()) << nvgpu.error().message();
  EXPECT_EQ(nvgpu->at("vermagic"), "5.15.148-tegra SMP preempt mod_unload modversions aarch64");
  EXPECT_EQ(nvgpu->at("srcversion"), "4C4F1B0B2E25D1A6A1F7B3E");
  EXPECT_EQ(nvgpu->at("signer"), "jetgate test module key");
  EXPECT_EQ(nvgpu->at("sig_hashalgo"), "sha256");
  EXPECT_FALSE(nvgpu->at("sig_key").empty());
  EXPECT_EQ(nvgpu->count("intree"), 0u);
  auto host1x = read_module_info(module_file("host1x.ko"));
  ASSERT_TRUE(host1x.ok());
  EXPECT_EQ(host1x->at("intree"), "Y");
  EXPECT_EQ(host1x->count("signer"), 0u);
  EXPECT_FALSE(read_module_info("not an ELF file at all").ok());
  EXPECT_FALSE(read_module_info("").ok());
  EXPECT_FALSE(read_module_info(module_file("nvgpu.ko").substr(0, 100)).ok()) << "truncated";
}

// nvgpu.ko's vermagic is "5.15.148-tegra SMP preempt ...": its kernel release is the
// first field whole, so a kernel "5.15.148" (a prefix) or "5.15.148-tegra-rt" (longer)
// is another kernel.
json nvgpu_provenance_under_release(const std::string& release) {
  test::TempDir t;
  t.write("jetgate-root.json", R"({"machine": "aarch64"})");
  t.write("etc/nv_tegra_release", "# R36 (release), REVISION: 4.3, GCID: 38968081\n");
  t.write("proc/sys/kernel/osrelease", release + "\n");
  t.write("proc/device-tree/compatible", "nvidia,p3767-0000\0nvidia,tegra234\0"s);
  t.write("proc/modules", "nvgpu 2654208 23 - Live 0x0000000000000000 (OE)\n");
  t.write("lib/modules/" + release + "/modules.dep", "updates/drivers/gpu/nvgpu/nvgpu.ko:\n");
  t.write("lib/modules/" + release + "/updates/drivers/gpu/nvgpu/nvgpu.ko",
          module_file("nvgpu.ko"));
  auto root = fs::RootFs::open(t.dir());
  EXPECT_TRUE(root.ok());
  if (!root.ok()) return json();
  auto r = collect_platform(*root, {});
  for (const auto& p : r.platform["tegra"]["driver"]["provenance"])
    if (p["name"] == "nvgpu") return p;
  ADD_FAILURE() << r.platform["tegra"]["driver"].dump(2);
  return json();
}

TEST(ModuleProvenance, VermagicMatchesTheKernelReleaseWholeNeverByPrefix) {
  if (!have_libkmod()) GTEST_SKIP() << "libkmod.so.2 is not installed";
  EXPECT_EQ(nvgpu_provenance_under_release("5.15.148-tegra")["vermagic_matches_kernel"], true);
  EXPECT_EQ(nvgpu_provenance_under_release("5.15.148")["vermagic_matches_kernel"], false);
  EXPECT_EQ(nvgpu_provenance_under_release("5.15.148-tegra-rt")["vermagic_matches_kernel"], false);
  EXPECT_EQ(nvgpu_provenance_under_release("5.15.148-tegr")["vermagic_matches_kernel"], false);
}

// An Orin on L4T 36 whose tegra_drm did not load: the seed of the issue, with
// the kernel's reason from the recorded log.
TEST(ModuleProvenance, RootWithModulesReportsProvenanceAndMissingModules) {
  if (!have_libkmod()) GTEST_SKIP() << "libkmod.so.2 is not installed";
  test::TempDir t;
  t.write("jetgate-root.json", R"({"machine": "aarch64"})");
  t.write("etc/nv_tegra_release", "# R36 (release), REVISION: 4.3, GCID: 38968081\n");
  t.write("proc/sys/kernel/osrelease", "5.15.148-tegra\n");
  t.write("proc/device-tree/compatible",
          "nvidia,p3768-0000+p3767-0000\0nvidia,p3767-0000\0nvidia,tegra234\0"s);
  t.write("proc/modules",
          "nvgpu 2654208 23 - Live 0x0000000000000000 (OE)\n"
          "host1x 180224 6 nvgpu, Live 0x0000000000000000 (O)\n"
          "nvmap 204800 79 nvgpu, Live 0x0000000000000000 (O)\n");
  t.write("lib/modules/5.15.148-tegra/modules.dep",
          "updates/drivers/gpu/nvgpu/nvgpu.ko: updates/drivers/gpu/host1x/host1x.ko\n"
          "updates/drivers/gpu/host1x/host1x.ko:\n"
          "updates/drivers/gpu/drm/tegra/tegra-drm.ko: updates/drivers/gpu/host1x/host1x.ko\n");
  t.write("lib/modules/5.15.148-tegra/modules.builtin",
          "kernel/drivers/video/tegra/nvmap/nvmap.ko\n");
  t.write("lib/modules/5.15.148-tegra/updates/drivers/gpu/nvgpu/nvgpu.ko", module_file("nvgpu.ko"));
  t.write("lib/modules/5.15.148-tegra/updates/drivers/gpu/host1x/host1x.ko",
          module_file("host1x.ko"));
  t.write("sys/module/nvgpu/taint", "OE\n");
  t.write("sys/module/nvgpu/srcversion", "4C4F1B0B2E25D1A6A1F7B3E\n");
  t.write("sys/module/host1x/taint", "O\n");
  t.write("sys/module/host1x/srcversion", "0000000000000000000000\n");
  t.write("jetgate-kernel-log.txt",
          "[   10.809957] tegra_drm: disagrees about version of symbol drm_gem_fb_destroy\n");
  auto root = fs::RootFs::open(t.dir());
  ASSERT_TRUE(root.ok());
  auto r = collect_platform(*root, {});
  const auto& d = r.platform["tegra"]["driver"];
  auto prov = [&](const std::string& name) {
    for (const auto& p : d["provenance"])
      if (p["name"] == name) return p;
    return json();
  };
  auto nvgpu = prov("nvgpu");
  ASSERT_FALSE(nvgpu.is_null()) << d.dump(2);
  EXPECT_EQ(nvgpu["signer"], "jetgate test module key");
  EXPECT_EQ(nvgpu["signed"], true);
  EXPECT_EQ(nvgpu["in_tree"], false);
  EXPECT_EQ(nvgpu["taint"], "OE");
  EXPECT_NE(nvgpu["taint_meaning"].get<std::string>().find("out of tree"), std::string::npos);
  EXPECT_EQ(nvgpu["matches_loaded"], true);
  EXPECT_EQ(nvgpu["vermagic_matches_kernel"], true);
  auto host1x = prov("host1x");
  EXPECT_EQ(host1x["in_tree"], true);
  EXPECT_EQ(host1x["signed"], false);
  EXPECT_EQ(host1x["matches_loaded"], false) << "the loaded host1x is not the file on disk";
  EXPECT_EQ(host1x["vermagic_matches_kernel"], false);
  EXPECT_EQ(prov("nvmap")["in_tree"], true) << "built in, per modules.builtin";
  json drm;
  for (const auto& e : d["expected_modules"])
    if (e["name"] == "tegra_drm") drm = e;
  ASSERT_FALSE(drm.is_null()) << d.dump(2);
  EXPECT_EQ(drm["loaded"], false);
  EXPECT_EQ(drm["needed_for_cuda"], true)
      << "its render node is what libcuda enumerates the iGPU through (data/gpu-stack.json)";
  ASSERT_EQ(drm["kernel_log"].size(), 1u);
  EXPECT_NE(drm["kernel_log"][0].get<std::string>().find("disagrees about version"),
            std::string::npos);
  bool warned = false;
  for (const auto& w : r.warnings)
    warned = warned || (w.fact == "/platform/tegra/driver/expected_modules" &&
                        w.message.find("tegra_drm") != std::string::npos &&
                        w.message.find("disagrees") != std::string::npos);
  EXPECT_TRUE(warned);
  bool mc_utils_missing = false;
  for (const auto& w : r.warnings)
    mc_utils_missing =
        mc_utils_missing || (w.message.find("module mc_utils") != std::string::npos &&
                             w.message.find("CUDA needs it") != std::string::npos);
  EXPECT_TRUE(mc_utils_missing);
}

TEST(ModuleProvenance, NoModuleTreeGivesEmptyListsAndNoCrash) {
  test::TempDir t;
  t.write("proc/sys/kernel/osrelease", "../../etc\n");
  t.write("proc/modules", "nvgpu 1 0 - Live 0x0\n");
  auto root = fs::RootFs::open(t.dir());
  ASSERT_TRUE(root.ok());
  auto r = collect_platform(*root, {});
  const auto& d = r.platform["tegra"]["driver"];
  ASSERT_EQ(d["provenance"].size(), 1u);
  EXPECT_TRUE(d["provenance"][0]["file"].is_null());
  EXPECT_TRUE(d["expected_modules"].empty()) << "no SoC known";
}

}  // namespace
}  // namespace jetgate::facts
