// SPDX-License-Identifier: Apache-2.0
// collect_platform on small synthetic roots: the rules for each fact, the
// fallbacks and the warnings.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "jetgate/facts/platform.hpp"
#include "test_support.hpp"

namespace jetgate::facts {
namespace {

using nlohmann::json;
using namespace std::string_literals;

PlatformReport collect(const test::TempDir& t, CollectOptions o = {}) {
  auto root = fs::RootFs::open(t.dir());
  EXPECT_TRUE(root.ok());
  return collect_platform(*root, o);
}

bool warned(const PlatformReport& r, const std::string& fact, const std::string& needle) {
  for (const auto& w : r.warnings)
    if (w.fact == fact && (w.message + w.source).find(needle) != std::string::npos) return true;
  return false;
}

TEST(PlatformFacts, EmptyRootGivesNullsAndAnArchWarning) {
  test::TempDir t;
  auto r = collect(t);
  EXPECT_TRUE(r.platform["arch"].is_null());
  EXPECT_TRUE(r.platform["os"]["id"].is_null());
  EXPECT_FALSE(r.platform["tegra"]["is_tegra"].get<bool>());
  EXPECT_TRUE(r.platform["tegra"]["l4t"].is_null());
  EXPECT_TRUE(warned(r, "/platform/arch", "jetgate-root.json"));
  EXPECT_TRUE(warned(r, "/platform", "is this a recorded machine?"));
}

TEST(PlatformFacts, L4tFallsBackToDpkgWhenReleaseFileIsGarbage) {
  test::TempDir t;
  t.write("jetgate-root.json", R"({"machine": "aarch64"})");
  t.write("etc/nv_tegra_release", "\x01\x02garbage");
  t.write(
      "var/lib/dpkg/status",
      "Package: nvidia-l4t-core\nStatus: install ok installed\nVersion: 36.3.0-20240506102626\n");
  auto r = collect(t);
  EXPECT_TRUE(r.platform["tegra"]["is_tegra"].get<bool>());
  EXPECT_EQ(r.platform["tegra"]["l4t"], "36.3.0");
  EXPECT_EQ(r.platform["tegra"]["l4t_source"], "dpkg:nvidia-l4t-core");
  EXPECT_EQ(r.platform["tegra"]["jetpack"], "6.0");
}

TEST(PlatformFacts, NullL4tWithAWarningNamingTheFile) {
  test::TempDir t;
  t.write("etc/nv_tegra_release", "# R36 (release), GCID: 38968081, BOARD: generic\n");
  auto r = collect(t);
  EXPECT_TRUE(r.platform["tegra"]["l4t"].is_null());
  EXPECT_TRUE(warned(r, "/platform/tegra/l4t", "nv_tegra_release"));
}

TEST(PlatformFacts, ReleaseNewerThanTheTableWarnsWithTheNewestKnown) {
  test::TempDir t;
  t.write("etc/nv_tegra_release", "# R40 (release), REVISION: 1.0, GCID: 1\n");
  auto r = collect(t);
  EXPECT_EQ(r.platform["tegra"]["l4t"], "40.1.0");
  EXPECT_TRUE(r.platform["tegra"]["jetpack"].is_null());
  EXPECT_TRUE(r.platform["tegra"]["l4t_kind"].is_null());
  EXPECT_TRUE(warned(r, "/platform/tegra/jetpack", "L4T 40.1.0 is not in jetgate's table"));
  EXPECT_TRUE(warned(r, "/platform/tegra/jetpack", "the newest it knows is 39.2.1"));
}

TEST(PlatformFacts, JetpackFromTheTableWithKindAndAmbiguity) {
  test::TempDir t;
  t.write("etc/nv_tegra_release", "# R32 (release), REVISION: 5, GCID: 25531747, BOARD: t186ref\n");
  auto r = collect(t);
  EXPECT_EQ(r.platform["tegra"]["l4t"], "32.5.0");
  EXPECT_EQ(r.platform["tegra"]["jetpack"], "4.5");
  EXPECT_EQ(r.platform["tegra"]["jetpack_versions"], json::array({"4.5"}));
  EXPECT_EQ(r.platform["tegra"]["jetpack_ambiguous"], false);
  EXPECT_EQ(r.platform["tegra"]["l4t_kind"], "ga");
  test::TempDir two;
  two.write("etc/nv_tegra_release",
            "# R28 (release), REVISION: 2.1, GCID: 11272647, BOARD: t186ref\n");
  auto r2 = collect(two);
  EXPECT_TRUE(r2.platform["tegra"]["jetpack"].is_null()) << "no one JetPack: a list instead";
  EXPECT_EQ(r2.platform["tegra"]["jetpack_candidates"], json::array({"3.2.1", "3.3"}));
  EXPECT_EQ(r2.platform["tegra"]["jetpack_versions"], json::array({"3.2.1", "3.3"}));
  EXPECT_EQ(r2.platform["tegra"]["jetpack_ambiguous"], true);
  EXPECT_EQ(r.platform["tegra"]["jetpack_candidates"], json::array({"4.5"}));
  test::TempDir preview;
  preview.write("etc/nv_tegra_release", "# R36 (release), REVISION: 2.0\n");
  auto r3 = collect(preview);
  EXPECT_EQ(r3.platform["tegra"]["jetpack"], "6.0 DP");
  EXPECT_EQ(r3.platform["tegra"]["jetpack_versions"], json::array({"6.0"}));
}

// jetsonhacks/jetsonUtilities PR #3 (tests/fixtures/l4t-tables/SOURCE.md): a TX1 on
// JetPack 3.3 prints "L4T 28.2.0 [ JetPack 3.3 ]", "Board: t210ref", "Kernel Version:
// 4.4.38-tegra". L4T 28.2.0 alone is JetPack 3.2, 3.2.1 or 3.3; an nvidia-jetpack
// package (from L4T 32.3 on) settles an ambiguous release.
TEST(PlatformFacts, AmbiguousJetpackIsAListAndAPackageSettlesIt) {
  test::TempDir t;
  t.write("etc/nv_tegra_release",
          "# R28 (release), REVISION: 2.0, GCID: 10567845, BOARD: t210ref, EABI: aarch64, DATE: "
          "Fri Mar  2 04:57:01 UTC 2018\n");
  t.write("proc/sys/kernel/osrelease", "4.4.38-tegra\n");
  auto r = collect(t);
  EXPECT_EQ(r.platform["tegra"]["l4t"], "28.2.0");
  EXPECT_TRUE(r.platform["tegra"]["jetpack"].is_null());
  EXPECT_EQ(r.platform["tegra"]["jetpack_candidates"], json::array({"3.2", "3.2.1", "3.3"}));
  EXPECT_EQ(r.platform["tegra"]["jetpack_ambiguous"], true);
  EXPECT_TRUE(r.platform["tegra"]["l4t_series_from_kernel"].is_null()) << "NVIDIA's own kernel";
  t.write("var/lib/dpkg/status",
          "Package: nvidia-jetpack\nStatus: install ok installed\nVersion: 3.3-b1\n");
  auto settled = collect(t);
  EXPECT_EQ(settled.platform["tegra"]["jetpack"], "3.3");
  EXPECT_EQ(settled.platform["tegra"]["jetpack_candidates"], json::array({"3.3"}));
  EXPECT_EQ(settled.platform["tegra"]["jetpack_ambiguous"], false);
  EXPECT_EQ(settled.platform["tegra"]["jetpack_source"], "table+dpkg:nvidia-jetpack");
  t.write("var/lib/dpkg/status",
          "Package: nvidia-jetpack\nStatus: install ok installed\nVersion: 4.6-b1\n");
  auto other = collect(t);
  EXPECT_TRUE(other.platform["tegra"]["jetpack"].is_null()) << "a package of none of them";
  EXPECT_EQ(other.platform["tegra"]["jetpack_source"], "table");
}

// OE4T/meta-tegra PR #1822 (tests/fixtures/yocto-oe4t-orin/SOURCE.md): hostnamectl
// on an OE4T image shows the kernel "5.15.148-l4t-r36.4-1012.12+g8dc079d5c8c4".
// Without nv_tegra_release and nvidia-l4t-core, the kernel names the L4T series.
TEST(PlatformFacts, Oe4tKernelReleaseNamesTheL4tSeries) {
  test::TempDir t;
  t.write("proc/device-tree/compatible",
          "nvidia,p3737-0000+p3701-0008\0nvidia,p3701-0008\0nvidia,tegra234\0"s);
  t.write("proc/sys/kernel/osrelease", "5.15.148-l4t-r36.4-1012.12+g8dc079d5c8c4\n");
  auto r = collect(t);
  const auto& tg = r.platform["tegra"];
  EXPECT_EQ(tg["l4t_series_from_kernel"], "36.4");
  EXPECT_TRUE(tg["l4t"].is_null()) << "36.4 holds several releases";
  ASSERT_TRUE(tg["l4t_candidates"].is_array());
  EXPECT_EQ(tg["l4t_candidates"].front(), "36.4.0");
  EXPECT_EQ(tg["l4t_candidates"].back(), "36.4.7");
  EXPECT_TRUE(tg["jetpack"].is_null());
  EXPECT_EQ(tg["jetpack_versions"], json::array({"6.1", "6.2", "6.2.1"}));
  EXPECT_EQ(tg["jetpack_source"], "table:l4t_candidates");
  EXPECT_TRUE(warned(r, "/platform/tegra/l4t", "names L4T series 36.4"));
  // A series with one release names it: R36.3 is 36.3.0 (JetPack 6.0).
  t.write("proc/sys/kernel/osrelease", "5.15.136-l4t-r36.3-1012.12+gabcdef0\n");
  auto one = collect(t);
  EXPECT_EQ(one.platform["tegra"]["l4t"], "36.3.0");
  EXPECT_EQ(one.platform["tegra"]["l4t_source"], "kernel:/proc/sys/kernel/osrelease");
  EXPECT_EQ(one.platform["tegra"]["jetpack"], "6.0");
  EXPECT_TRUE(one.platform["tegra"]["l4t_candidates"].is_null());
  // The release file wins; the kernel's series is still recorded beside it.
  t.write("etc/nv_tegra_release", "# R36 (release), REVISION: 4.3, GCID: 38968081\n");
  auto file = collect(t);
  EXPECT_EQ(file.platform["tegra"]["l4t"], "36.4.3");
  EXPECT_EQ(file.platform["tegra"]["l4t_series_from_kernel"], "36.3");
}

// jtop's table (tests/fixtures/l4t-tables/jetson_stats.json) maps the 5.1.1
// pre-release "35.3.0" to "5.1.1 PRE"; so does jetgate now, marker kept.
TEST(PlatformFacts, PreReleaseGivesItsJetpackWithTheMarker) {
  test::TempDir t;
  t.write("etc/nv_tegra_release", "# R35 (release), REVISION: 3.0, GCID: 1, BOARD: t186ref\n");
  auto r = collect(t);
  EXPECT_EQ(r.platform["tegra"]["jetpack"], "5.1.1 PRE");
  EXPECT_EQ(r.platform["tegra"]["jetpack_versions"], json::array({"5.1.1"}));
  EXPECT_EQ(r.platform["tegra"]["l4t_kind"], "pre");
  EXPECT_FALSE(warned(r, "/platform/tegra/jetpack", "not in jetgate's table"));
}

// NVIDIA's jetson-gpio lists "nvidia,p3737-0000+p3701-0001" among the AGX Orin
// compatibles (tests/fixtures/l4t-tables/SOURCE.md): that module's EEPROM now
// names a module, so it overrides a device tree that says otherwise.
TEST(PlatformFacts, P3701_0001EepromNamesItsModule) {
  test::TempDir t;
  t.write("proc/device-tree/compatible",
          "nvidia,p3737-0000+p3701-0000\0nvidia,p3701-0000\0nvidia,tegra234\0"s);
  std::string eeprom(256, '\0');
  std::string part = "699-13701-0001-500 A.0";
  eeprom.replace(20, part.size(), part);
  t.write("sys/bus/i2c/devices/0-0050/eeprom", eeprom);
  auto r = collect(t);
  EXPECT_EQ(r.platform["tegra"]["part_number"], "p3701-0001");
  EXPECT_EQ(r.platform["tegra"]["part_number_source"], "eeprom");
  EXPECT_EQ(r.platform["tegra"]["module"], "Jetson AGX Orin");
}

TEST(PlatformFacts, BspOnlyReleaseSaysSoInsteadOfAskingForAReport) {
  test::TempDir t;
  t.write("etc/nv_tegra_release",
          "# R21 (release), REVISION: 7.0, GCID: 1, BOARD: ardbeg, EABI: hard\n");
  auto r = collect(t);
  EXPECT_EQ(r.platform["tegra"]["l4t_kind"], "bsp");
  EXPECT_TRUE(r.platform["tegra"]["jetpack"].is_null());
  EXPECT_TRUE(warned(r, "/platform/tegra/jetpack", "released on its own"));
}

TEST(PlatformFacts, JetpackFromPackageWhenTableLacksTheRelease) {
  test::TempDir t;
  t.write("etc/nv_tegra_release", "# R40 (release), REVISION: 9.9, GCID: 1\n");
  t.write("var/lib/dpkg/status",
          "Package: nvidia-jetpack\nStatus: install ok installed\nVersion: 6.9+b1\n");
  auto r = collect(t);
  EXPECT_EQ(r.platform["tegra"]["jetpack"], "6.9");
  EXPECT_EQ(r.platform["tegra"]["jetpack_source"], "dpkg:nvidia-jetpack");
}

TEST(PlatformFacts, TegraFromDeviceTreeAloneAsOnMainlineKernels) {
  test::TempDir t;
  t.write("proc/device-tree/compatible",
          "nvidia,p3768-0000+p3767-0000\0nvidia,p3767-0000\0nvidia,tegra234\0"s);
  t.write("proc/device-tree/model", "NVIDIA Jetson Orin NX Engineering Reference Developer Kit\0"s);
  t.write("proc/device-tree/serial-number", "1424321012345\0"s);
  auto r = collect(t);
  const auto& tg = r.platform["tegra"];
  EXPECT_TRUE(tg["is_tegra"].get<bool>());
  EXPECT_EQ(tg["soc"], "tegra234");
  EXPECT_EQ(tg["part_number"], "p3767-0000");
  EXPECT_EQ(tg["module"], "Jetson Orin NX 16GB");
  EXPECT_EQ(tg["part_number_source"], "compatible");
  EXPECT_EQ(tg["carrier"], "p3768-0000");
  EXPECT_TRUE(tg["eeprom"].is_null());
  EXPECT_EQ(tg["cuda_arch"], "8.7");
  EXPECT_EQ(tg["model"], "NVIDIA Jetson Orin NX Engineering Reference Developer Kit");
  EXPECT_FALSE(tg.contains("serial_number"));
  EXPECT_TRUE(r.platform["tegra"]["l4t"].is_null());
  EXPECT_TRUE(warned(r, "/platform/tegra/l4t", "Talos"))
      << "a Jetson without any L4T source is worth a warning";
  CollectOptions show;
  show.show_serial = true;
  EXPECT_EQ(collect(t, show).platform["tegra"]["serial_number"], "1424321012345");
}

TEST(PlatformFacts, SocFamilyAloneMarksTegra) {
  test::TempDir t;
  t.write("sys/devices/soc0/family", "Tegra\n");
  EXPECT_TRUE(collect(t).platform["tegra"]["is_tegra"].get<bool>());
}

TEST(PlatformFacts, DeviceNodesFromSidecarAndDanglingCdiNode) {
  test::TempDir t;
  t.write(
      "jetgate-root.json",
      R"({"machine": "aarch64", "nodes": {"/dev/nvmap": {"type": "char", "mode": "0666", "major": 10, "minor": 125}}})");
  t.write("dev/nvmap", "");
  t.write("etc/cdi/nvidia.yaml",
          "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: all\n  containerEdits:\n"
          "    deviceNodes:\n    - path: /dev/nvmap\n    - path: /dev/nvhost-ctrl\n");
  t.write("etc/cdi/broken.json", "{");
  auto r = collect(t);
  const auto& d = r.platform["tegra"]["driver"];
  bool saw_nvmap = false;
  for (const auto& n : d["device_nodes"])
    if (n["path"] == "/dev/nvmap") {
      saw_nvmap = true;
      EXPECT_TRUE(n["present"].get<bool>());
      EXPECT_EQ(n["type"], "char");
      EXPECT_EQ(n["mode"], "0666");
    }
  EXPECT_TRUE(saw_nvmap);
  ASSERT_EQ(d["cdi"].size(), 2u);
  EXPECT_FALSE(d["cdi"][0]["error"].is_null());  // broken.json sorts first
  EXPECT_EQ(d["cdi"][1]["missing_nodes"], 1);
  EXPECT_TRUE(warned(r, "/platform/tegra/driver/cdi", "broken.json"));
}

TEST(PlatformFacts, ContainerSigns) {
  test::TempDir a;
  a.write(".dockerenv", "");
  EXPECT_TRUE(collect(a).platform["container"]["detected"].get<bool>());
  test::TempDir b;
  b.write("proc/1/cgroup", "0::/kubepods/besteffort/pod1234/abcd\n");
  EXPECT_EQ(collect(b).platform["container"]["sign"], "/proc/1/cgroup mentions kubepods");
  test::TempDir c;
  c.write("proc/1/cgroup", "0::/init.scope\n");
  EXPECT_FALSE(collect(c).platform["container"]["detected"].get<bool>());
}

TEST(PlatformFacts, OversizedAndBinaryFilesBecomeWarningsNotCrashes) {
  test::TempDir t;
  t.write("proc/modules", std::string(2u << 20, 'x'));
  t.write("usr/local/cuda/version.json", "\x00\x01\x02"s);
  t.write("etc/os-release", std::string(5000, '\xff'));
  auto r = collect(t);
  EXPECT_TRUE(r.platform["tegra"]["driver"]["modules"].empty());
  EXPECT_TRUE(r.platform["cuda"]["toolkit_version"].is_null());
  EXPECT_TRUE(warned(r, "/platform/tegra/driver/modules", "larger than"));
  EXPECT_TRUE(warned(r, "/platform/cuda/toolkit_version", "version.json"));
}

TEST(PlatformFacts, LibrariesFromFileNamesWithoutDpkg) {
  test::TempDir t;
  t.write("usr/lib/aarch64-linux-gnu/libcudnn.so.8.6.0", "");
  t.write("usr/lib/aarch64-linux-gnu/libcudnn.so.8.9.4", "");
  t.write("usr/lib/aarch64-linux-gnu/libnvinfer.so.8.5.2", "");
  t.write("usr/local/cuda/version.txt", "CUDA Version 10.2.300\n");
  auto r = collect(t);
  EXPECT_EQ(r.platform["libraries"]["cudnn"], "8.9.4");
  EXPECT_EQ(r.platform["libraries"]["tensorrt"], "8.5.2");
  EXPECT_EQ(r.platform["cuda"]["toolkit_version"], "10.2.300");
}

TEST(PlatformFacts, ModuleEepromWinsOverTheDeviceTreeAndWarns) {
  test::TempDir t;
  t.write("proc/device-tree/compatible",
          "nvidia,p3768-0000+p3767-0005\0nvidia,p3767-0005\0nvidia,tegra234\0"s);
  t.write("proc/device-tree/chosen/nvidia,sku", "699-13767-0003-300 K.2\0"s);
  auto r = collect(t);
  EXPECT_EQ(r.platform["tegra"]["part_number"], "p3767-0003");
  EXPECT_EQ(r.platform["tegra"]["part_number_source"], "eeprom");
  EXPECT_EQ(r.platform["tegra"]["eeprom"]["part_number"], "699-13767-0003-300 K.2");
  EXPECT_EQ(r.platform["tegra"]["carrier"], "p3768-0000");
  EXPECT_TRUE(warned(r, "/platform/tegra/part_number", "names p3767-0003 but the device tree"));
}

TEST(PlatformFacts, MemoryThatDoesNotFitTheModuleIsWarned) {
  // jetson_stats issue #87: a 32GB AGX Xavier whose device tree names p2888-0001.
  test::TempDir t;
  t.write("proc/device-tree/compatible", "nvidia,p2822-0000+p2888-0004\0nvidia,tegra194\0"s);
  t.write("proc/meminfo", "MemTotal:       15692052 kB\n");
  auto r = collect(t);
  EXPECT_EQ(r.platform["tegra"]["module_memory_gb"], 32);
  EXPECT_TRUE(warned(r, "/platform/tegra/module", "has 15 GiB"));
}

TEST(PlatformFacts, LibrariesJetsonReleaseShowsWithoutDpkg) {
  test::TempDir t;
  t.write("opt/nvidia/vpi3/lib/aarch64-linux-gnu/libnvvpi.so.3.2.4", "");
  t.write("usr/lib/aarch64-linux-gnu/libopencv_core.so.4.5.4", "");
  t.write("usr/lib/aarch64-linux-gnu/libopencv_cudaarithm.so.4.5.4", "");
  t.write("usr/lib/aarch64-linux-gnu/libvulkan.so.1.3.204", "");
  auto r = collect(t);
  const auto& lib = r.platform["libraries"];
  EXPECT_EQ(lib["vpi"], "3.2.4");
  EXPECT_EQ(lib["opencv"], "4.5.4");
  EXPECT_EQ(lib["opencv_cuda"], true);
  EXPECT_EQ(lib["vulkan"], "1.3.204");
  EXPECT_EQ(lib["sources"]["vpi"], "/opt/nvidia/vpi3/lib/aarch64-linux-gnu/libnvvpi.so.3.2.4");
  test::TempDir none;
  auto n = collect(none);
  EXPECT_TRUE(n.platform["libraries"]["opencv"].is_null());
  EXPECT_TRUE(n.platform["libraries"]["opencv_cuda"].is_null());
}

TEST(PlatformFacts, LibrariesFromDpkgAsALastResort) {
  test::TempDir t;
  t.write("var/lib/dpkg/status",
          "Package: libnvvpi3\nStatus: install ok installed\nVersion: 3.2.4\n\n"
          "Package: libopencv\nStatus: install ok installed\nVersion: 4.8.0-1-g6371ee1\n\n"
          "Package: libvulkan1\nStatus: install ok installed\nVersion: 1.3.204.1-2\n\n"
          "Package: libcudnn9-cuda-12\nStatus: install ok installed\nVersion: 9.3.0.75-1\n\n"
          "Package: tensorrt\nStatus: install ok installed\nVersion: 10.3.0.30-1+cuda12.5\n");
  auto r = collect(t);
  const auto& lib = r.platform["libraries"];
  EXPECT_EQ(lib["vpi"], "3.2.4");
  EXPECT_EQ(lib["opencv"], "4.8.0");
  EXPECT_EQ(lib["opencv_cuda"], false);
  EXPECT_EQ(lib["vulkan"], "1.3.204");
  EXPECT_EQ(lib["cudnn"], "9.3.0");
  EXPECT_EQ(lib["tensorrt"], "10.3.0");
  EXPECT_EQ(lib["sources"]["opencv"], "dpkg:libopencv");
}

TEST(PlatformFacts, LiveMachineHasArchAndKernel) {
  auto root = fs::RootFs::open("/");
  ASSERT_TRUE(root.ok());
  CollectOptions o;
  o.run_commands = false;
  auto r = collect_platform(*root, o);
  EXPECT_TRUE(r.platform["arch"].is_string());
  EXPECT_TRUE(r.platform["kernel"]["release"].is_string());
}

}  // namespace
}  // namespace jetgate::facts

namespace jetgate::facts {
namespace {

TEST(PlatformFactsReview, BlankFilesGiveNullNeverEmptyStrings) {
  test::TempDir t;
  t.write("etc/nv_tegra_release", "   \n");
  t.write("sys/devices/soc0/family", "\n");
  t.write("proc/sys/kernel/hostname", "\n");
  t.write("proc/sys/kernel/osrelease", "  \n");
  CollectOptions show;
  show.show_serial = true;
  auto root = fs::RootFs::open(t.dir());
  auto r = collect_platform(*root, show);
  EXPECT_TRUE(r.platform["tegra"]["release_line"].is_null());
  EXPECT_TRUE(r.platform["tegra"]["soc_family"].is_null());
  EXPECT_TRUE(r.platform["hostname"].is_null());
  EXPECT_TRUE(r.platform["kernel"]["release"].is_null());
}

TEST(PlatformFactsReview, UnreadableReleaseFileIsNamedNotCalledMissing) {
  test::TempDir t;
  std::filesystem::create_directories(t.path("etc"));
  ASSERT_EQ(::mkfifo(t.path("etc/nv_tegra_release").c_str(), 0600), 0);
  auto root = fs::RootFs::open(t.dir());
  auto r = collect_platform(*root, {});
  bool named = false;
  for (const auto& w : r.warnings)
    if (w.fact == "/platform/tegra/l4t") {
      EXPECT_EQ(w.message.find("neither"), std::string::npos) << w.message;
      named = named || w.message.find("cannot be read") != std::string::npos ||
              w.message.find("not a regular file") != std::string::npos;
    }
  EXPECT_TRUE(named);
}

}  // namespace
}  // namespace jetgate::facts
