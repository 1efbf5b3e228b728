// SPDX-License-Identifier: Apache-2.0
// Fact parsers on real lines from real machines, and on malformed input.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "jetgate/facts/cdi.hpp"
#include "jetgate/facts/device_tree.hpp"
#include "jetgate/facts/l4t.hpp"
#include "jetgate/facts/os_release.hpp"
#include "jetgate/facts/proc_modules.hpp"
#include "jetgate/facts/text.hpp"
#include "jetgate/facts/versions.hpp"
#include "test_support.hpp"

namespace jetgate::facts {
namespace {

using namespace std::string_literals;

TEST(NvTegraRelease, EveryReleaseAsItWasWritten) {
  auto doc =
      nlohmann::json::parse(test::read_file(test::fixtures_dir() + "/nv_tegra_release/lines.json"));
  ASSERT_GE(doc["lines"].size(), 20u);
  for (const auto& line : doc["lines"]) {
    ASSERT_FALSE(line["source"].get<std::string>().empty());
    auto v = parse_nv_tegra_release(line["text"].get<std::string>());
    ASSERT_TRUE(v.ok()) << line["text"] << ": " << v.error().message();
    EXPECT_EQ(*v, line["l4t"].get<std::string>()) << line["text"];
  }
  for (const auto& bad : doc["refused"])
    EXPECT_FALSE(parse_nv_tegra_release(bad["text"].get<std::string>()).ok()) << bad["why"];
}

TEST(NvTegraRelease, OnePartRevisionMeansDotZero) {
  // JetPack 4.5 wrote "REVISION: 5"; its packages are 32.5.0-... .
  EXPECT_EQ(*parse_nv_tegra_release("# R32 (release), REVISION: 5, GCID: 25531747\n"), "32.5.0");
  EXPECT_EQ(*parse_nv_tegra_release("# R36 (release), REVISION: 4\n"), "36.4.0");
  EXPECT_EQ(*parse_nv_tegra_release("# R38 (release), REVISION: 2.0"), "38.2.0");
}

TEST(NvTegraRelease, MalformedInputIsAnErrorNeverAGuess) {
  EXPECT_FALSE(parse_nv_tegra_release("\x7f"
                                      "ELF\x02\x01\x01\0\0"s)
                   .ok());  // binary
  EXPECT_FALSE(parse_nv_tegra_release(std::string(100000, '#')).ok());
  EXPECT_FALSE(parse_nv_tegra_release("# R36 (release), REVISION: 4.3\xff\xfe"s).ok());
  auto e = parse_nv_tegra_release("# R36 (release), GCID: 1");
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.error().what.find("REVISION"), std::string::npos);
}

// OE4T/meta-tegra PR #1822 shows "5.15.148-l4t-r36.4-1012.12+g8dc079d5c8c4".
TEST(FactsParsers, L4tSeriesFromAnOe4tKernelRelease) {
  EXPECT_EQ(l4t_series_from_kernel_release("5.15.148-l4t-r36.4-1012.12+g8dc079d5c8c4"), "36.4");
  EXPECT_EQ(l4t_series_from_kernel_release("5.10.192-l4t-r35.6+gabc\n"), "35.6");
  EXPECT_EQ(l4t_series_from_kernel_release("6.8.12-l4t-r39.2.1-1"), "39.2");
  EXPECT_EQ(l4t_series_from_kernel_release("6.8.12-l4t-r38.2"), "38.2");
  EXPECT_FALSE(l4t_series_from_kernel_release("5.15.148-tegra")) << "NVIDIA's kernel";
  EXPECT_FALSE(l4t_series_from_kernel_release("6.12.7-talos"));
  EXPECT_FALSE(l4t_series_from_kernel_release("5.15-l4t-r36"));
  EXPECT_FALSE(l4t_series_from_kernel_release("5.15-l4t-r36.4x"));
  EXPECT_FALSE(l4t_series_from_kernel_release("5.15-l4t-r3.4"));
  EXPECT_FALSE(l4t_series_from_kernel_release("\xff\xfe-l4t-r"));
  EXPECT_FALSE(l4t_series_from_kernel_release(""));
  EXPECT_FALSE(l4t_series_from_kernel_release(std::string(200, 'x') + "-l4t-r36.4"));
}

TEST(L4tPackage, VersionFromDpkg) {
  EXPECT_EQ(l4t_from_package_version("36.3.0-20240506102626"), "36.3.0");
  EXPECT_EQ(l4t_from_package_version("32.7.1-20220219090432"), "32.7.1");
  EXPECT_EQ(l4t_from_package_version("36.4.3-20250107174145"), "36.4.3");
  EXPECT_FALSE(l4t_from_package_version("36.3-1"));
  EXPECT_FALSE(l4t_from_package_version("garbage"));
  EXPECT_FALSE(l4t_from_package_version(""));
}

TEST(JetPack, FromThePackageVersion) {
  EXPECT_EQ(jetpack_from_package_version("6.2+b77"), "6.2");
  EXPECT_EQ(jetpack_from_package_version("5.1.2-b104"), "5.1.2");
  EXPECT_EQ(jetpack_from_package_version("4.6.1-b110"), "4.6.1");
  EXPECT_EQ(jetpack_from_package_version("6.2.3+b81"), "6.2.3");
  EXPECT_FALSE(jetpack_from_package_version("b77"));
}

TEST(DpkgStatus, InstalledPackagesOnly) {
  auto pkgs = parse_dpkg_status(
      "Package: nvidia-l4t-core\nStatus: install ok installed\nPriority: standard\n"
      "Architecture: arm64\nVersion: 36.3.0-20240506102626\nDescription: NVIDIA Core Package\n"
      " continuation line: Version: 1.0\n\n"
      "Package: nvidia-jetpack\nStatus: deinstall ok config-files\nVersion: 6.0+b106\n\n"
      "Package: cuda-toolkit-12-6\nStatus: install ok installed\nVersion: 12.6.11-1\n");
  EXPECT_EQ(pkgs.size(), 2u);
  EXPECT_EQ(pkgs["nvidia-l4t-core"], "36.3.0-20240506102626");
  EXPECT_EQ(pkgs["cuda-toolkit-12-6"], "12.6.11-1");
  EXPECT_FALSE(pkgs.count("nvidia-jetpack"));
  EXPECT_TRUE(parse_dpkg_status("").empty());
  EXPECT_TRUE(parse_dpkg_status("Package: x\nVersion").empty());  // truncated
}

// dpkg-query(1)'s Status is "WANT FLAG STATE": only the state says what is on disk
// now. A held L4T (apt-mark hold, common on Jetson to stop upgrades) is installed.
TEST(DpkgStatus, TheStateWordDecidesAndAHeldPackageIsInstalled) {
  for (const char* yes :
       {"install ok installed", "hold ok installed", "deinstall ok installed", "purge ok installed",
        "install ok triggers-pending", "install ok triggers-awaited", "unknown ok installed"})
    EXPECT_TRUE(dpkg_status_is_installed(yes)) << yes;
  for (const char* no :
       {"install ok config-files", "deinstall ok config-files", "install ok half-installed",
        "install ok unpacked", "install ok half-configured", "install ok not-installed",
        "purge ok not-installed", "install reinstreq installed", "install reinstreq half-installed",
        "install ok", "install ok installed extra", "", "ok installed", "want ok installed",
        "install ok installed\xff", "install ok Installed"})
    EXPECT_FALSE(dpkg_status_is_installed(no)) << no;
  auto pkgs = parse_dpkg_status(
      "Package: nvidia-l4t-core\nStatus: hold ok installed\nVersion: 36.4.3-20250107174145\n\n"
      "Package: nvidia-jetpack\nStatus: install ok config-files\nVersion: 6.2+b77\n\n"
      "Package: cuda-runtime-12-6\nStatus: install ok half-installed\nVersion: 12.6.68-1\n");
  EXPECT_EQ(pkgs,
            (std::map<std::string, std::string>{{"nvidia-l4t-core", "36.4.3-20250107174145"}}));
}

std::optional<std::string> part_of(const std::vector<std::string>& compatible) {
  auto f = module_from_compatible(compatible);
  return f ? std::optional<std::string>(f->part_number) : std::nullopt;
}

TEST(DeviceTree, SocAndPartNumbers) {
  auto agx = split_nul_list("nvidia,p3737-0000+p3701-0005\0nvidia,p3701-0005\0nvidia,tegra234\0"s);
  EXPECT_EQ(agx.size(), 3u);
  EXPECT_EQ(soc_from_compatible(agx), "tegra234");
  auto f = module_from_compatible(agx);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->part_number, "p3701-0005");
  EXPECT_EQ(f->carrier, "p3737-0000");
  EXPECT_EQ(module_name("p3701-0005"), "Jetson AGX Orin 64GB");
  EXPECT_EQ(module_memory_gb("p3701-0005"), 64);
  EXPECT_EQ(cuda_arch_for_soc("tegra234"), "8.7");

  // The Nano devkit names only the kit; the module is the one it ships with.
  auto nano = split_nul_list("nvidia,p3450-0000\0nvidia,jetson-nano\0nvidia,tegra210\0"s);
  EXPECT_EQ(soc_from_compatible(nano), "tegra210");
  EXPECT_EQ(part_of(nano), "p3448-0000");
  EXPECT_EQ(module_from_board_ids("3448:0000:400")->part_number, "p3448-0000");
  EXPECT_EQ(cuda_arch_for_soc("tegra210"), "5.3");
  // Revision suffixes on both halves (L4T R32 Nano B01).
  EXPECT_EQ(part_of(split_nul_list(
                "nvidia,p3449-0000-b00+p3448-0000-b00\0nvidia,jetson-nano\0nvidia,tegra210\0"s)),
            "p3448-0000");

  auto xnx = split_nul_list("nvidia,p3509-0000+p3668-0001\0nvidia,tegra194\0"s);
  EXPECT_EQ(part_of(xnx), "p3668-0001");
  EXPECT_EQ(cuda_arch_for_soc("tegra194"), "7.2");

  // An unknown future module still yields its part number, from the carrier+module form.
  auto future = split_nul_list("nvidia,p9999-0000+p8888-0003\0nvidia,tegra300\0"s);
  EXPECT_EQ(part_of(future), "p8888-0003");
  EXPECT_EQ(soc_from_compatible(future), "tegra300");
  EXPECT_FALSE(module_name("p8888-0003"));
  EXPECT_FALSE(cuda_arch_for_soc("tegra300"));

  auto rpi = split_nul_list("raspberrypi,5-model-b\0brcm,bcm2712\0"s);
  EXPECT_FALSE(soc_from_compatible(rpi));
  EXPECT_FALSE(part_of(rpi));
  EXPECT_TRUE(split_nul_list("").empty());
  EXPECT_TRUE(split_nul_list("\0\0\0"s).empty());
}

TEST(DeviceTree, OrinNanoSuperVariant) {
  // JetPack 6.2 on an Orin Nano devkit in Super mode (jetpack-nixos nvpmodel.nix
  // maps this compatible to nvpmodel_p3767_0003_super.conf).
  auto f = module_from_compatible(
      split_nul_list("nvidia,p3768-0000+p3767-0005-super\0nvidia,p3767-0005\0nvidia,tegra234\0"s));
  ASSERT_TRUE(f);
  EXPECT_EQ(f->part_number, "p3767-0005");
  EXPECT_EQ(f->variant, "super");
  EXPECT_EQ(f->carrier, "p3768-0000");
}

TEST(DeviceTree, ACarrierIsNeverReportedAsAModule) {
  // jetson_stats lists p3509-0000 (the Xavier NX devkit carrier) as "TX2 NX".
  EXPECT_FALSE(part_of({"nvidia,p3509-0000", "nvidia,tegra194"}));
  EXPECT_FALSE(part_of({"nvidia,p3737-0000", "nvidia,tegra234"}));
  EXPECT_FALSE(part_of({"nvidia,p4071-0000", "nvidia,tegra264"}));
  EXPECT_FALSE(part_of({"nvidia,p3701-0005+p3737-0000", "nvidia,tegra234"}));  // halves swapped
  EXPECT_FALSE(module_name("p3768-0000"));
  EXPECT_EQ(carrier_name("p3768-0000"), "Jetson Orin Nano / Orin NX Developer Kit carrier");
  EXPECT_FALSE(module_from_board_ids("3768-0000-ES1"));
  // Board ids list module and carrier; only the module is the part number.
  auto ids = module_from_board_ids("3767-0000-301 3768-0000-ES1");
  ASSERT_TRUE(ids);
  EXPECT_EQ(ids->part_number, "p3767-0000");
  EXPECT_EQ(ids->carrier, "p3768-0000");
  EXPECT_EQ(module_from_board_ids("3489:0000:A0")->part_number,
            "p3489-0000");  // TX2i, jetson_stats issue #184
}

TEST(DeviceTree, DtsFileNameWhenTheCompatibleNamesNoPart) {
  // TX1 on JetPack 3.2: compatible is "nvidia,jetson-cv", "nvidia,tegra210" (jetson_stats issue
  // #48).
  EXPECT_FALSE(part_of({"nvidia,jetson-cv", "nvidia,tegra210"}));
  auto tx1 = module_from_dtsfilename(
      "/dvs/git/dirty/git-master_linux/kernel/kernel-4.4/arch/arm64/boot/dts/../../../../../../"
      "hardware/nvidia/"
      "platform/t210/jetson/kernel-dts/tegra210-jetson-tx1-p2597-2180-a01-devkit.dts");
  ASSERT_TRUE(tx1);
  EXPECT_EQ(tx1->part_number, "p2180-1000");
  EXPECT_EQ(tx1->carrier, "p2597-0000");
  EXPECT_EQ(tx1->source, "dtsfilename");
  EXPECT_EQ(module_from_dtsfilename("tegra186-quill-p3310-1000-c03-00-base.dts")->part_number,
            "p3310-1000");
  EXPECT_EQ(module_from_dtsfilename("tegra210-p3448-0000-p3449-0000-b00.dts")->part_number,
            "p3448-0000");
  EXPECT_EQ(module_from_dtsfilename("tegra234-p3701-0000-p3737-0000.dts")->part_number,
            "p3701-0000");
  EXPECT_FALSE(
      module_from_dtsfilename("tegra194-xavier-nx-cti-NGX004.dts"));  // a vendor file names no part
  EXPECT_FALSE(module_from_dtsfilename(""));
}

TEST(ModuleEeprom, SixNineNineLevelPartNumbers) {
  // /proc/device-tree/chosen/nvidia,sku on an Orin NX 16GB (public board notes).
  auto nx = parse_699_part_number("699-13767-0000-301 G.1");
  ASSERT_TRUE(nx);
  EXPECT_EQ(nx->board_id, "3767");
  EXPECT_EQ(nx->sku, "0000");
  EXPECT_EQ(nx->p_number(), "p3767-0000");
  EXPECT_EQ(parse_699_part_number("699-13767-0005-300 T.1\0"s)->p_number(), "p3767-0005");
  EXPECT_EQ(parse_699_part_number("699-13767-0000-300 K.1")->part_number, "699-13767-0000-300 K.1");
  EXPECT_FALSE(parse_699_part_number("P3767-0000"));
  EXPECT_FALSE(parse_699_part_number("699-13767-OOOO-300"));
  EXPECT_FALSE(parse_699_part_number(""));
  // The raw EEPROM: the part number at byte 20, NUL-padded to 29 bytes.
  std::string eeprom(256, '\xff');
  eeprom.replace(0, 20, std::string(20, '\0'));
  std::string pn = "699-13701-0005-500 M.0";
  eeprom.replace(20, 29, pn + std::string(29 - pn.size(), '\0'));
  auto agx = part_number_from_eeprom(eeprom);
  ASSERT_TRUE(agx);
  EXPECT_EQ(agx->p_number(), "p3701-0005");
  EXPECT_FALSE(part_number_from_eeprom(eeprom.substr(0, 40)));      // too short
  EXPECT_FALSE(part_number_from_eeprom(std::string(256, '\xff')));  // blank EEPROM
}

TEST(OsRelease, QuotedAndMalformed) {
  auto kv = parse_os_release(
      "PRETTY_NAME=\"Ubuntu 22.04.5 LTS\"\nNAME=\"Ubuntu\"\nVERSION_ID=\"22.04\"\nID=ubuntu\n"
      "# comment\nbroken line\nlower=ignored\nVERSION_CODENAME='jammy'\nX=\"a\\\"b\"\n");
  EXPECT_EQ(kv["ID"], "ubuntu");
  EXPECT_EQ(kv["VERSION_ID"], "22.04");
  EXPECT_EQ(kv["PRETTY_NAME"], "Ubuntu 22.04.5 LTS");
  EXPECT_EQ(kv["VERSION_CODENAME"], "jammy");
  EXPECT_EQ(kv["X"], "a\"b");
  EXPECT_FALSE(kv.count("lower"));
  EXPECT_TRUE(parse_os_release("\x01\x02\xff").empty());
}

TEST(ProcModules, RealJetsonLines) {
  auto mods = parse_proc_modules(
      "nvgpu 2760704 22 - Live 0x0000000000000000 (O)\n"
      "host1x 176128 8 nvgpu,host1x_fence,nvhost_ctrl_shim, Live 0x0000000000000000 (O)\n"
      "nvmap 212992 71 nvgpu, Live 0xffffffc0012a0000 (O)\n"
      "truncated 12\n"
      "bad name! 1 2 - Live\n");
  ASSERT_EQ(mods.size(), 3u);
  EXPECT_EQ(mods[0].name, "nvgpu");
  EXPECT_EQ(mods[0].refcount, 22);
  EXPECT_EQ(mods[0].taints, "(O)");
  EXPECT_EQ(mods[1].used_by,
            (std::vector<std::string>{"nvgpu", "host1x_fence", "nvhost_ctrl_shim"}));
  EXPECT_TRUE(parse_proc_modules("").empty());
}

TEST(Versions, CudaToolkitFiles) {
  EXPECT_EQ(
      *parse_cuda_version_json(
          R"({"cuda": {"name": "CUDA SDK", "version": "12.6.68"}, "cuda_cudart": {"version": "12.6.68"}})"),
      "12.6.68");
  EXPECT_FALSE(parse_cuda_version_json("{\"cuda\": {\"version\": 12}}").ok());
  EXPECT_FALSE(parse_cuda_version_json("{\"cuda\": ").ok());
  EXPECT_FALSE(parse_cuda_version_json("[]").ok());
  EXPECT_EQ(*parse_cuda_version_txt("CUDA Version 10.2.300\n"), "10.2.300");
  EXPECT_FALSE(parse_cuda_version_txt("CUDA Version ten\n").ok());
  EXPECT_EQ(
      *parse_nvcc_version("nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, "
                          "release 13.0, V13.0.88\nBuild cuda_13.0.r13.0/compiler.36424714_0\n"),
      "13.0.88");
  EXPECT_FALSE(parse_nvcc_version("bash: nvcc: command not found").ok());
}

TEST(Versions, NvidiaDriver) {
  EXPECT_EQ(*parse_nvidia_driver_version(
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Oct  9 00:45:48 "
                "UTC 2025\n"
                "GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)\n"),
            "580.159.04");
  EXPECT_EQ(
      *parse_nvidia_driver_version(
          "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  Release Build  "
          "(dvs-builder@U16-I3-B03-4-3)  Thu Jan 23 22:52:51 UTC 2025\n"),
      "570.86.15");
  EXPECT_FALSE(parse_nvidia_driver_version("garbage\n").ok());
  EXPECT_FALSE(parse_nvidia_driver_version("").ok());
}

TEST(Versions, HeaderDefinesAndLibraryNames) {
  auto cudnn = parse_header_defines(
      "#define CUDNN_MAJOR 9\n#define CUDNN_MINOR 3\n#define CUDNN_PATCHLEVEL 0\n"
      "#define CUDNN_VERSION (CUDNN_MAJOR * 10000 + CUDNN_MINOR * 100)\n");
  EXPECT_EQ(version_from_defines(cudnn, "CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL"), "9.3.0");
  // TensorRT 10 defines its version through one level of indirection.
  auto trt = parse_header_defines(
      "#define TRT_MAJOR_ENTERPRISE 10\n#define TRT_MINOR_ENTERPRISE 3\n#define "
      "TRT_PATCH_ENTERPRISE 0\n"
      "#define NV_TENSORRT_MAJOR TRT_MAJOR_ENTERPRISE //!< TensorRT major version.\n"
      "#define NV_TENSORRT_MINOR TRT_MINOR_ENTERPRISE\n#define NV_TENSORRT_PATCH "
      "TRT_PATCH_ENTERPRISE\n");
  EXPECT_EQ(
      version_from_defines(trt, "NV_TENSORRT_MAJOR", "NV_TENSORRT_MINOR", "NV_TENSORRT_PATCH"),
      "10.3.0");
  EXPECT_FALSE(version_from_defines(parse_header_defines("#define CUDNN_MAJOR 9\n"), "CUDNN_MAJOR",
                                    "CUDNN_MINOR", "CUDNN_PATCHLEVEL"));
  EXPECT_EQ(version_from_library_name("libcudnn.so.9.3.0", "libcudnn.so."), "9.3.0");
  EXPECT_FALSE(version_from_library_name("libcudnn.so.9", "libcudnn.so."));
  EXPECT_FALSE(version_from_library_name("libcudnn_ops.so.9.3.0", "libcudnn.so."));
}

TEST(Cdi, NvidiaCtkSpec) {
  auto spec = parse_cdi_spec(R"(---
cdiVersion: 0.5.0
kind: nvidia.com/gpu
devices:
- name: all
  containerEdits:
    deviceNodes:
    - path: /dev/nvhost-ctrl
    - path: /dev/nvmap
    - path: /dev/nvgpu/igpu0/ctrl
containerEdits:
  deviceNodes:
  - path: /dev/nvmap
  - path: /dev/host1x-fence
    hostPath: /dev/host1x-fence
)");
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  EXPECT_EQ(spec->kind, "nvidia.com/gpu");
  EXPECT_EQ(spec->devices, (std::vector<std::string>{"all"}));
  EXPECT_EQ(spec->device_nodes.size(), 4u);
}

TEST(Cdi, JsonAndMalformed) {
  EXPECT_TRUE(
      parse_cdi_spec(R"({"cdiVersion": "0.6.0", "kind": "nvidia.com/gpu", "devices": []})").ok());
  EXPECT_FALSE(parse_cdi_spec("kind: nvidia.com/gpu\n").ok());
  EXPECT_FALSE(parse_cdi_spec("cdiVersion: [").ok());
  EXPECT_FALSE(parse_cdi_spec("- a\n- b\n").ok());
  EXPECT_FALSE(parse_cdi_spec(std::string(10000, '[')).ok());
  EXPECT_FALSE(parse_cdi_spec("\xff\xfe\x00\x01"s).ok());
  EXPECT_FALSE(parse_cdi_spec("cdiVersion: 0.5.0\nkind: x\ndevices: 3\n").ok());
}

TEST(Text, VersionsCompare) {
  EXPECT_LT(compare_versions("36.4.3", "36.10.0"), 0);
  EXPECT_EQ(compare_versions("36.4", "36.4.0"), 0);
  EXPECT_TRUE(is_numeric_version("36.4.3", 3));
  EXPECT_FALSE(is_numeric_version("36.4.", 3));
  EXPECT_FALSE(is_numeric_version("36..4", 3));
  EXPECT_EQ(first_dotted_version("release 12.6, V12.6.68"), "12.6");
}

}  // namespace
}  // namespace jetgate::facts
