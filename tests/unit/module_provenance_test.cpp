// SPDX-License-Identifier: Apache-2.0
// Where each GPU-stack module came from (facts/module_provenance.*): the
// parsers on their own, then whole roots with module files from
// tests/fixtures/modules (see its SOURCE.md).
#include "jetgate/facts/module_provenance.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

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

// Debian's libkmod asserts on some malformed ELF files and aborts the process that
// reads them (elf_get_section_header: idx < section count; fuzz_modinfo found this
// one). A module file on a host or in a recording is outside input: reading it must
// end in an error that names the module's fault, never abort jetgate.
TEST(ModuleProvenance, AModuleThatMakesLibkmodAbortIsAnErrorNotACrash) {
  if (!have_libkmod()) GTEST_SKIP() << "libkmod.so.2 is not installed";
  auto r = read_module_info(module_file("libkmod-asserts.ko"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message().find("libkmod did not finish reading it"), std::string::npos)
      << r.error().message();
  EXPECT_NE(r.error().message().find("SIGABRT"), std::string::npos) << r.error().message();
  // And the next module reads as before: nothing of the failure stays behind.
  auto nvgpu = read_module_info(module_file("nvgpu.ko"));
  ASSERT_TRUE(nvgpu.ok()) << nvgpu.error().message();
  EXPECT_EQ(nvgpu->at("sig_hashalgo"), "sha256");
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

// A merged-/usr root whose modules are only under /usr/lib/modules (no /lib link
// recorded or mounted) is read there: the modules' provenance is known.
TEST(ModuleProvenance, MergedUsrModulesUnderUsrLibModulesAreRead) {
  if (!have_libkmod()) GTEST_SKIP() << "libkmod.so.2 is not installed";
  test::TempDir t;
  t.write("jetgate-root.json", R"({"machine": "aarch64"})");
  t.write("etc/nv_tegra_release", "# R36 (release), REVISION: 4.3, GCID: 38968081\n");
  t.write("proc/sys/kernel/osrelease", "5.15.148-tegra\n");
  t.write("proc/device-tree/compatible", "nvidia,p3767-0000\0nvidia,tegra234\0"s);
  t.write("proc/modules", "nvgpu 2654208 23 - Live 0x0000000000000000 (OE)\n");
  t.write("usr/lib/modules/5.15.148-tegra/modules.dep", "updates/drivers/gpu/nvgpu/nvgpu.ko:\n");
  t.write("usr/lib/modules/5.15.148-tegra/updates/drivers/gpu/nvgpu/nvgpu.ko",
          module_file("nvgpu.ko"));
  auto root = fs::RootFs::open(t.dir());
  ASSERT_TRUE(root.ok());
  auto r = collect_platform(*root, {});
  json nvgpu;
  for (const auto& p : r.platform["tegra"]["driver"]["provenance"])
    if (p["name"] == "nvgpu") nvgpu = p;
  ASSERT_FALSE(nvgpu.is_null()) << r.platform["tegra"]["driver"].dump(2);
  EXPECT_TRUE(nvgpu["error"].is_null()) << nvgpu.dump(2);
  EXPECT_EQ(nvgpu["vermagic_matches_kernel"], true) << nvgpu.dump(2);
  EXPECT_EQ(nvgpu["signed"], true) << nvgpu.dump(2);
}

// Limits in total: 2000 listed GPU-stack modules, each mapped to a 40 MB file (links to
// one sparse file), are bounded as a whole: at most 64 entries, at most 256 MiB of
// module files read, and warnings that say what was left out. Unbounded, this read
// 80 GB and kept `probe --root` busy for minutes.
TEST(ModuleProvenance, TheReaderAsAWholeIsBoundedAndSaysWhatItSkipped) {
  test::TempDir t;
  t.write("jetgate-root.json", R"({"machine": "aarch64"})");
  t.write("etc/nv_tegra_release", "# R36 (release), REVISION: 4.3, GCID: 38968081\n");
  t.write("proc/sys/kernel/osrelease", "5.15.148-tegra\n");
  t.write("proc/device-tree/compatible", "nvidia,p3767-0000\0nvidia,tegra234\0"s);
  const std::string dir = "lib/modules/5.15.148-tegra/";
  t.write(dir + "big.ko", "");
  std::filesystem::resize_file(t.path(dir + "big.ko"), 40u << 20);
  std::string modules, dep;
  for (int i = 0; i < 2000; ++i) {
    const std::string n = "nvidia_m" + std::to_string(i);
    modules += n + " 16384 0 - Live 0x0000000000000000 (O)\n";
    dep += n + ".ko:\n";
    std::filesystem::create_symlink("big.ko", t.path(dir + n + ".ko"));
  }
  t.write("proc/modules", modules);
  t.write(dir + "modules.dep", dep);
  auto root = fs::RootFs::open(t.dir());
  ASSERT_TRUE(root.ok());
  const auto start = std::chrono::steady_clock::now();
  auto r = collect_platform(*root, {});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 20.0) << "bounded work: 256 MiB at most";
  const auto& prov = r.platform["tegra"]["driver"]["provenance"];
  ASSERT_TRUE(prov.is_array());
  EXPECT_LE(prov.size(), 64u);
  std::size_t read = 0, not_read = 0;
  for (const auto& p : prov) {
    const std::string error = p["error"].is_string() ? p["error"].get<std::string>() : "";
    if (error.rfind("not read: ", 0) == 0)
      ++not_read;
    else
      ++read;
  }
  EXPECT_LE(read * 40, 256u) << "MiB of module files read";
  EXPECT_GT(read, 0u);
  EXPECT_GT(not_read, 0u);
  std::string warnings;
  for (const auto& w : r.warnings) warnings += w.message + "\n";
  EXPECT_NE(warnings.find("GPU-stack modules are listed; provenance is kept for the first 64"),
            std::string::npos)
      << warnings;
  EXPECT_NE(warnings.find("were not looked at: nvidia_m"), std::string::npos) << warnings;
  EXPECT_NE(warnings.find("module files were not read"), std::string::npos) << warnings;
}

// One module over the per-file limit: its error names its size and the limit.
TEST(ModuleProvenance, AnOversizedModuleNamesItsSizeAndTheLimit) {
  test::TempDir t;
  t.write("jetgate-root.json", R"({"machine": "aarch64"})");
  t.write("etc/nv_tegra_release", "# R36 (release), REVISION: 4.3, GCID: 38968081\n");
  t.write("proc/sys/kernel/osrelease", "5.15.148-tegra\n");
  t.write("proc/device-tree/compatible", "nvidia,p3767-0000\0nvidia,tegra234\0"s);
  t.write("proc/modules", "nvgpu 2654208 23 - Live 0x0000000000000000 (OE)\n");
  t.write("lib/modules/5.15.148-tegra/modules.dep", "nvgpu.ko:\n");
  t.write("lib/modules/5.15.148-tegra/nvgpu.ko", "");
  std::filesystem::resize_file(t.path("lib/modules/5.15.148-tegra/nvgpu.ko"), 100u << 20);
  auto root = fs::RootFs::open(t.dir());
  ASSERT_TRUE(root.ok());
  auto r = collect_platform(*root, {});
  json nvgpu;
  for (const auto& p : r.platform["tegra"]["driver"]["provenance"])
    if (p["name"] == "nvgpu") nvgpu = p;
  ASSERT_TRUE(nvgpu["error"].is_string()) << nvgpu.dump(2);
  const auto error = nvgpu["error"].get<std::string>();
  EXPECT_NE(error.find("104857600 bytes (100.0 MiB)"), std::string::npos) << error;
  EXPECT_NE(error.find("over the 96.0 MiB limit"), std::string::npos) << error;
  EXPECT_NE(error.find("nvgpu.ko"), std::string::npos) << error;
}

// The signature trailer as the kernel's scripts/sign-file.c appends it, and its near
// misses (include/linux/module_signature.h, mod_check_sig()).
TEST(ModuleProvenance, TheSignatureTrailerIsReadAsTheKernelChecksIt) {
  const std::string nvgpu = module_file("nvgpu.ko");
  auto sig = module_signature_of(nvgpu);
  ASSERT_TRUE(sig.has_value());
  EXPECT_EQ(sig->sig_len, 413u);
  EXPECT_EQ(sig->signed_bytes, nvgpu.size() - 40 - 413);
  EXPECT_FALSE(module_signature_of(module_file("host1x.ko")));
  EXPECT_FALSE(module_signature_of(""));
  EXPECT_FALSE(module_signature_of("~Module signature appended~\n"));
  auto with = [&](std::size_t from_end, char c) {
    std::string b = nvgpu;
    b[b.size() - from_end] = c;
    return module_signature_of(b).has_value();
  };
  EXPECT_FALSE(with(1, '\r')) << "the magic's last byte";
  EXPECT_FALSE(with(28, '!')) << "the magic's first byte";
  EXPECT_FALSE(with(28 + 10, 1)) << "id_type 1 (X.509 key id) is not PKCS#7";
  EXPECT_FALSE(with(28 + 12, 1)) << "algo set";
  EXPECT_FALSE(with(28 + 9, 1)) << "signer_len set";
  EXPECT_FALSE(with(28 + 5, 1)) << "pad set";
  EXPECT_FALSE(with(28 + 4, 0x7f)) << "sig_len beyond the file";
  EXPECT_FALSE(with(28 + 1, static_cast<char>(0x9e))) << "sig_len one more: not DER there";
  EXPECT_FALSE(module_signature_of(nvgpu.substr(nvgpu.size() - 40))) << "no room for the signature";
}

// A module whose .modinfo says signer=NVIDIA Corporation but has no signature appended
// is unsigned: no signer is reported, and a warning says what the text claimed.
TEST(ModuleProvenance, ASignerIsWhatTheSignatureShowsNeverTheModinfoText) {
  if (!have_libkmod()) GTEST_SKIP() << "libkmod.so.2 is not installed";
  std::string forged = module_file("host1x.ko");
  const std::string src = "srcversion=9B2D41D27B0B8F6C1E0A3C1";
  std::string claim = "signer=NVIDIA Corporation";
  claim.resize(src.size(), ' ');
  const auto at = forged.find(src);
  ASSERT_NE(at, std::string::npos);
  forged.replace(at, src.size(), claim);
  test::TempDir t;
  t.write("jetgate-root.json", R"({"machine": "aarch64"})");
  t.write("proc/sys/kernel/osrelease", "6.18.1-talos\n");
  t.write("proc/device-tree/compatible", "nvidia,p3767-0000\0nvidia,tegra234\0"s);
  t.write("proc/modules", "host1x 180224 6 - Live 0x0000000000000000\n");
  t.write("lib/modules/6.18.1-talos/modules.dep", "kernel/host1x.ko:\n");
  t.write("lib/modules/6.18.1-talos/kernel/host1x.ko", forged);
  auto root = fs::RootFs::open(t.dir());
  ASSERT_TRUE(root.ok());
  auto r = collect_platform(*root, {});
  json host1x;
  for (const auto& p : r.platform["tegra"]["driver"]["provenance"])
    if (p["name"] == "host1x") host1x = p;
  ASSERT_FALSE(host1x.is_null()) << r.platform["tegra"]["driver"].dump(2);
  EXPECT_TRUE(host1x["error"].is_null()) << host1x.dump(2);
  EXPECT_EQ(host1x["signed"], false) << host1x.dump(2);
  EXPECT_TRUE(host1x["signer"].is_null()) << host1x.dump(2);
  std::string warnings;
  for (const auto& w : r.warnings) warnings += w.message + "\n";
  EXPECT_NE(warnings.find("host1x has no signature appended, though its .modinfo says "
                          "signer=NVIDIA Corporation"),
            std::string::npos)
      << warnings;
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
