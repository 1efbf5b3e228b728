// SPDX-License-Identifier: Apache-2.0
// data/gpu-stack.json: which row applies per SoC and L4T release (both sides of
// each boundary), whole-match node paths, the table's own validation, cuInit
// causes, containerd's cdi_spec_dirs, modules.symbols and "Unknown symbol"
// tracing, and the recorded boards of each release family (tests/fixtures).
#include "jetgate/facts/gpu_stack.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "jetgate/core/document_keys.hpp"
#include "jetgate/evidence/gpu_facts.hpp"
#include "jetgate/facts/cdi.hpp"
#include "jetgate/facts/cdi_dirs.hpp"
#include "jetgate/facts/cuda_nodes.hpp"
#include "jetgate/facts/module_provenance.hpp"
#include "jetgate/facts/platform.hpp"
#include "test_support.hpp"

namespace jetgate::facts {
namespace {

using nlohmann::json;
namespace stdfs = std::filesystem;

json tegra(const std::string& soc, const std::string& l4t, const json& modules = json::array()) {
  json t = {{"is_tegra", true}, {"soc", soc}, {"driver", {{"modules", modules}}}};
  t["l4t"] = l4t.empty() ? json(nullptr) : json(l4t);
  return {{"tegra", t}};
}

std::string row(const json& platform, const std::vector<std::string>& installed = {}) {
  const auto* s = select_gpu_stack(platform, installed);
  return s ? s->id : "none";
}

TEST(GpuStack, TheBuiltinTableParsesAndEveryRowCitesItsSource) {
  const auto& t = builtin_gpu_stack_table();
  ASSERT_TRUE(t.ok()) << t.error().message();
  for (const auto& s : t->stacks()) {
    EXPECT_FALSE(s.source.empty()) << s.id;
    EXPECT_TRUE(s.source.find("http") != std::string::npos ||
                s.source.find("commit") != std::string::npos ||
                s.source.find("bench/") != std::string::npos)
        << s.id << " cites no URL, commit or measurement";
  }
}

TEST(GpuStack, RowsFollowSocAndReleaseOnBothSidesOfEachBoundary) {
  EXPECT_EQ(row(tegra("tegra210", "32.7.1")), "l4t32");
  EXPECT_EQ(row(tegra("tegra194", "32.6.1")), "l4t32");
  EXPECT_EQ(row(tegra("tegra194", "31.1.0")), "none") << "below L4T 32: no row";
  EXPECT_EQ(row(tegra("tegra194", "34.1.0")), "l4t35");
  EXPECT_EQ(row(tegra("tegra234", "35.4.1")), "l4t35");
  EXPECT_EQ(row(tegra("tegra234", "36.4.3")), "l4t36");
  EXPECT_EQ(row(tegra("tegra234", "37.0.0")), "l4t36");
  EXPECT_EQ(row(tegra("tegra234", "39.2.0")), "l4t39-orin");
  EXPECT_EQ(row(tegra("tegra234", "40.0.0")), "none") << "a release the table does not know";
  EXPECT_EQ(row(tegra("tegra210", "36.4.3")), "none") << "Nano never had L4T 36";
  EXPECT_EQ(row(tegra("tegra264", "38.2.0")), "l4t38-thor");
  EXPECT_EQ(row(tegra("tegra264", "39.2.0")), "l4t38-thor");
  EXPECT_EQ(row(tegra("tegra264", "37.0.0")), "none");
  // No L4T release: the mainline row only when nvgpu is loaded or installed.
  EXPECT_EQ(row(tegra("tegra234", "", json::array({{{"name", "nvgpu"}}}))), "mainline-orin");
  EXPECT_EQ(row(tegra("tegra234", ""), {"nvmap", "nvgpu"}), "mainline-orin");
  EXPECT_EQ(row(tegra("tegra234", ""), {"nvgpu_extra"}), "none") << "whole match only";
  EXPECT_EQ(row(tegra("tegra234", "")), "none");
  json dgpu = {{"tegra", {{"is_tegra", false}, {"driver", {{"modules", {{{"name", "nvidia"}}}}}}}}};
  EXPECT_EQ(row(dgpu), "discrete");
  json rpi = {{"tegra", {{"is_tegra", false}, {"driver", {{"modules", json::array()}}}}}};
  EXPECT_EQ(row(rpi), "none");
}

TEST(GpuStack, NvhostCtrlBelongsToL4t32To35OnlyAndNoL4t36RowNamesIt) {
  const auto& t = builtin_gpu_stack_table();
  ASSERT_TRUE(t.ok());
  for (const auto& s : t->stacks()) {
    bool old = s.id == "l4t32" || s.id == "l4t35";
    EXPECT_EQ(s.nvhost_ctrl_part, old) << s.id;
    bool listed = false;
    for (const auto& n : s.nodes) listed = listed || n.path == "/dev/nvhost-ctrl";
    EXPECT_EQ(listed, old) << s.id;
  }
  EXPECT_EQ(t->find("l4t32")->sync_file_extract, SyncFileExtract::absent);
  EXPECT_EQ(t->find("l4t35")->sync_file_extract, SyncFileExtract::optional);
}

TEST(GpuStack, NodePathsCompareByWholeMatch) {
  EXPECT_TRUE(node_path_matches("/dev/nvhost-ctrl", "/dev/nvhost-ctrl"));
  EXPECT_FALSE(node_path_matches("/dev/nvhost-ctrl", "/dev/nvhost-ctrl-gpu"));
  EXPECT_FALSE(node_path_matches("/dev/nvhost-ctrl-gpu", "/dev/nvhost-ctrl"));
  EXPECT_TRUE(node_path_matches("/dev/dri/renderD*", "/dev/dri/renderD128"));
  EXPECT_TRUE(node_path_matches("/dev/dri/renderD*", "/dev/dri/renderD1"));
  EXPECT_FALSE(node_path_matches("/dev/dri/renderD*", "/dev/dri/renderD"));
  EXPECT_FALSE(node_path_matches("/dev/dri/renderD*", "/dev/dri/renderD128x"));
  EXPECT_FALSE(node_path_matches("/dev/dri/renderD*", "/dev/dri/card0"));
  EXPECT_FALSE(node_path_matches("/dev/dri/renderD*", "/dev/dri/renderD*"));
}

TEST(GpuStack, MalformedTablesAreRefusedWithTheRowNamed) {
  auto bad = [](const std::string& stack) {
    return GpuStackTable::parse(R"({"stacks": [)" + stack + R"(], "cuinit_errors": []})");
  };
  const std::string ok =
      R"({"id": "x", "name": "X", "socs": ["tegra234"], "l4t": [36, 37], "selected_by": null,
          "nvhost_ctrl": "not_part", "sync_file_extract": "n/a", "modules": [],
          "nodes": [["/dev/nvmap", true, "memory", null]], "polling_causes": [], "source": "s"})";
  EXPECT_TRUE(bad(ok).ok());
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = ok;
    s.replace(s.find(from), from.size(), to);
    return bad(s);
  };
  EXPECT_FALSE(with(R"("source": "s")", R"("source": "")").ok());
  EXPECT_FALSE(with(R"("l4t": [36, 37])", R"("l4t": [37, 36])").ok());
  EXPECT_FALSE(with(R"("l4t": [36, 37])", R"("l4t": null)").ok()) << "no release, no selector";
  EXPECT_FALSE(with(R"("not_part")", R"("maybe")").ok());
  EXPECT_FALSE(with(R"("/dev/nvmap")", R"("/sys/nvmap")").ok());
  EXPECT_FALSE(with(R"("/dev/nvmap")", R"("/dev/*map")").ok());
  EXPECT_FALSE(with(R"(true, "memory")", R"("yes", "memory")").ok());
  auto err = bad(ok + "," + ok);
  ASSERT_FALSE(err.ok());
  EXPECT_NE(err.error().message().find("twice"), std::string::npos);
  EXPECT_FALSE(GpuStackTable::parse("[]").ok());
  EXPECT_FALSE(GpuStackTable::parse("\xff\xfe").ok());
  EXPECT_FALSE(
      GpuStackTable::parse(R"({"stacks": [)" + ok +
                           R"(], "cuinit_errors": [[801, "CUDA_ERROR_X", ["nope"], "c", "s"]]})")
          .ok())
      << "a cuInit cause names a stack that is not in the table";
}

TEST(GpuStack, CuinitCausesFollowTheStack) {
  const auto& t = builtin_gpu_stack_table();
  ASSERT_TRUE(t.ok());
  auto c801 = t->cuinit_causes(801, t->find("l4t36"));
  ASSERT_EQ(c801.size(), 1u);
  EXPECT_NE(c801[0]->cause.find("render node"), std::string::npos);
  EXPECT_NE(c801[0]->cause.find("tegra_drm"), std::string::npos);
  EXPECT_TRUE(t->cuinit_causes(801, t->find("l4t38-thor")).empty());
  EXPECT_TRUE(t->cuinit_causes(801, nullptr).empty());
  EXPECT_EQ(t->cuinit_causes(999, t->find("mainline-orin")).size(), 1u);
  EXPECT_TRUE(t->cuinit_causes(999, t->find("l4t36")).empty());
  EXPECT_EQ(t->cuinit_causes(100, nullptr).size(), 1u) << "'*' applies everywhere";
  // From the driver's error text: the whole CUresult name, cuInit only.
  const auto* l36 = t->find("l4t36");
  EXPECT_EQ(
      t->cuinit_causes("cuInit failed: CUDA_ERROR_NOT_SUPPORTED: operation not supported", l36)
          .size(),
      1u);
  EXPECT_EQ(t->cuinit_causes("cuInit failed: CUDA_ERROR_NOT_SUPPORTED", l36).size(), 1u);
  EXPECT_TRUE(t->cuinit_causes("cuInit failed: CUDA_ERROR_NOT_SUPPORTED_X: x", l36).empty());
  EXPECT_TRUE(
      t->cuinit_causes("cuDeviceGetCount failed: CUDA_ERROR_NOT_SUPPORTED: x", l36).empty());
}

TEST(GpuStack, ExpectedCudaNodesComeFromTheRow) {
  auto l36 = expected_cuda_nodes(tegra("tegra234", "36.4.3"));
  EXPECT_EQ(l36.platform, "L4T 36 (JetPack 6)");
  std::vector<std::string> paths;
  for (const auto& n : l36.nodes) paths.push_back(n.path);
  EXPECT_EQ(paths,
            (std::vector<std::string>{"/dev/nvmap", "/dev/nvgpu/igpu0/ctrl", "/dev/dri/renderD*"}));
  auto cmp = compare_cuda_nodes(
      tegra("tegra234", "36.4.3"),
      json::array({"/dev/nvmap", "/dev/nvgpu/igpu0/ctrl", "/dev/dri/renderD129"}));
  EXPECT_TRUE(cmp["missing"].empty()) << cmp.dump();
  auto no_render = compare_cuda_nodes(tegra("tegra234", "36.4.3"),
                                      json::array({"/dev/nvmap", "/dev/nvgpu/igpu0/ctrl"}));
  EXPECT_EQ(no_render["missing"], json::array({"/dev/dri/renderD*"}));
  auto l35 = expected_cuda_nodes(tegra("tegra234", "35.4.1"));
  ASSERT_EQ(l35.nodes.size(), 3u);
  EXPECT_EQ(l35.nodes[2].path, "/dev/nvhost-ctrl");
}

TEST(ContainerdConfig, CdiSpecDirsOfBothConfigVersions) {
  auto v2 = containerd_cdi_spec_dirs(R"(version = 2
[plugins."io.containerd.grpc.v1.cri"]
  enable_cdi = true
  cdi_spec_dirs = ["/etc/cdi", "/var/run/cdi"]
)");
  ASSERT_TRUE(v2.ok()) << v2.error().message();
  EXPECT_EQ(*v2, (std::vector<std::string>{"/etc/cdi", "/var/run/cdi"}));
  // Talos's /etc/cri/conf.d fragment, containerd 2 (configuration version 3).
  auto v3 = containerd_cdi_spec_dirs(R"([plugins]
  [plugins."io.containerd.cri.v1.runtime"]
    cdi_spec_dirs = ["/var/cdi/static", "/var/cdi/dynamic"]
)");
  ASSERT_TRUE(v3.ok());
  EXPECT_EQ(*v3, (std::vector<std::string>{"/var/cdi/static", "/var/cdi/dynamic"}));
  auto none = containerd_cdi_spec_dirs("version = 2\n[plugins.\"io.containerd.grpc.v1.cri\"]\n");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  auto broken = containerd_cdi_spec_dirs("[plugins\ncdi_spec_dirs = 3");
  ASSERT_FALSE(broken.ok());
  EXPECT_NE(broken.error().message().find("line"), std::string::npos);
  EXPECT_FALSE(containerd_cdi_spec_dirs(
                   "[plugins.\"io.containerd.grpc.v1.cri\"]\ncdi_spec_dirs = \"/etc/cdi\"\n")
                   .ok());
  EXPECT_FALSE(containerd_cdi_spec_dirs(
                   "[plugins.\"io.containerd.grpc.v1.cri\"]\ncdi_spec_dirs = [\"relative\"]\n")
                   .ok());
  EXPECT_FALSE(containerd_cdi_spec_dirs(
                   "[plugins.\"io.containerd.grpc.v1.cri\"]\ncdi_spec_dirs = [\"/a/../b\"]\n")
                   .ok());
  EXPECT_FALSE(containerd_cdi_spec_dirs(std::string("a = \"\xff\"\n")).ok());
}

TEST(CdiSpec, ANodeWithTypeAndMajorIsFullySpecified) {
  auto spec = parse_cdi_spec(R"(cdiVersion: 0.6.0
kind: nvidia.com/gpu
devices:
- name: all
  containerEdits:
    deviceNodes:
    - path: /dev/a
    - path: /dev/b
      type: c
      major: 226
    - path: /dev/c
      type: c
      major: 0
    - path: /dev/d
      type: p
)");
  ASSERT_TRUE(spec.ok()) << spec.error().message();
  ASSERT_EQ(spec->device_nodes.size(), 4u);
  EXPECT_FALSE(spec->device_nodes[0].fully_specified);
  EXPECT_TRUE(spec->device_nodes[1].fully_specified);
  EXPECT_FALSE(spec->device_nodes[2].fully_specified) << "major 0 is not a major";
  EXPECT_TRUE(spec->device_nodes[3].fully_specified) << "a fifo needs no major";
}

TEST(ModuleSymbols, ModulesSymbolsAndUnknownSymbolLines) {
  auto m = parse_modules_symbols(
      "# Aliases for symbols, used by symbol_request().\n"
      "alias symbol:nvmap_dmabuf_export nvmap\n"
      "alias symbol:host1x_job_alloc host1x\n"
      "alias symbol:tegra_mc_utils_get mc-utils\n"
      "alias symbol:bad\n"
      "alias symbol: nomodule\n"
      "alias symbol:x y z\n");
  EXPECT_EQ(m.size(), 3u);
  EXPECT_EQ(m["nvmap_dmabuf_export"], "nvmap");
  EXPECT_EQ(m["tegra_mc_utils_get"], "mc_utils");
  EXPECT_EQ(m.count("bad"), 0u);
  auto syms = unknown_symbols({"[    9.1] nvgpu: Unknown symbol nvmap_dmabuf_export (err -2)",
                               "[    9.2] nvgpu: Unknown symbol nvmap_dmabuf_export (err -2)",
                               "[    9.3] nvgpu: Unknown symbol tegra_mc_utils_get (err -2)",
                               "[    9.4] nvgpu: Unknown symbol  (err -2)"});
  EXPECT_EQ(syms, (std::vector<std::string>{"nvmap_dmabuf_export", "tegra_mc_utils_get"}));
}

bool noted(const probes::CudaSection& s, const std::string& what) {
  for (const auto& n : s.notes)
    if (n.find(what) != std::string::npos) return true;
  return false;
}

TEST(GpuStackNotes, PollingCausesOnlyWhereSyncPathMeasuredPolling) {
  auto join = [](const std::string& wait) {
    probes::CudaSection s;
    if (!wait.empty()) {
      probes::ProbeResult r;
      r.id = "sync_path";
      r.details["modes"] = json::array({{{"mode", "spin"}, {"wait", "busy-polling"}},
                                        {{"mode", "blocking_sync"}, {"wait", wait}}});
      s.probes.push_back(r);
    }
    json platform = tegra("tegra234", "36.4.3");
    evidence::join_gpu_facts(s, platform);
    return s;
  };
  EXPECT_FALSE(noted(join(""), "busy-polling")) << "no measurement, no polling";
  EXPECT_FALSE(noted(join("interrupt-driven"), "busy-polling"));
  EXPECT_FALSE(noted(join("unclear"), "busy-polling"));
  auto polled = join("busy-polling");
  EXPECT_TRUE(noted(polled, "sync_path measured busy-polling")) << polled.notes.size();
  EXPECT_TRUE(noted(polled, "render node")) << "L4T 36's causes, not nvhost-ctrl";
  EXPECT_FALSE(noted(polled, "/dev/nvhost-ctrl missing")) << "that is L4T 32-35's cause";
}

TEST(GpuStackNotes, ACuinitErrorIsDecodedWithThisStacksCauses) {
  probes::CudaSection s;
  s.gpu = {
      {"driver", {{"error", "cuInit failed: CUDA_ERROR_NOT_SUPPORTED: operation not supported"}}}};
  json platform = tegra("tegra234", "36.4.3");
  evidence::join_gpu_facts(s, platform);
  EXPECT_TRUE(noted(s, "cuInit returned CUDA_ERROR_NOT_SUPPORTED (801) on L4T 36 (JetPack 6)"));
  EXPECT_TRUE(noted(s, "tegra_drm not bound"));
  probes::CudaSection thor;
  thor.gpu = s.gpu;
  json t = tegra("tegra264", "38.2.0");
  evidence::join_gpu_facts(thor, t);
  EXPECT_FALSE(noted(thor, "cuInit returned")) << "no cause the sources give for Thor";
}

// ---- recorded boards, one per release family (each fixture's SOURCE.md cites its listings)

PlatformReport collect(const std::string& dir) {
  auto root = fs::RootFs::open(dir);
  EXPECT_TRUE(root.ok());
  return collect_platform(*root, {});
}

std::vector<Warning> warnings_about(const PlatformReport& r, const keys::Pointer& k) {
  std::vector<Warning> out;
  for (const auto& w : r.warnings)
    if (w.fact == k.to_string()) out.push_back(w);
  return out;
}

std::string stack_id(const PlatformReport& r) {
  const auto* s = keys::find(r.platform, keys::relative(keys::kTegraDriverStack, keys::kPlatform));
  return s && s->is_object() && (*s)["id"].is_string() ? (*s)["id"].get<std::string>() : "none";
}

bool mentions(const PlatformReport& r, const std::string& what) {
  for (const auto& w : r.warnings)
    if (w.message.find(what) != std::string::npos) return true;
  return false;
}

TEST(GpuStackBoards, EachReleaseFamilyGetsItsRowAndNoFalseNvhostCtrlAlarm) {
  struct Board {
    const char* fixture;
    const char* row;
  };
  for (const auto& b :
       {Board{"nano-jp461", "l4t32"}, Board{"xavier-nx-jp46", "l4t32"},
        Board{"agx-orin-32gb-jp512", "l4t35"}, Board{"agx-orin-64gb-jp62", "l4t36"},
        Board{"agx-orin-64gb-jp72", "l4t39-orin"}, Board{"agx-thor-jp70", "l4t38-thor"},
        Board{"talos-orin-nx-pr1518-final", "mainline-orin"}}) {
    auto r = collect(test::fixtures_dir() + "/" + b.fixture + "/root");
    EXPECT_EQ(stack_id(r), b.row) << b.fixture;
    if (std::string(b.row) != "l4t32" && std::string(b.row) != "l4t35") {
      EXPECT_FALSE(mentions(r, "/dev/nvhost-ctrl ")) << b.fixture;
    }
    EXPECT_FALSE(mentions(r, "polling")) << b.fixture << ": no measurement, no polling claim";
  }
}

TEST(GpuStackBoards, StockJetPack6ReportsNoMissingNode) {
  auto r = collect(test::fixtures_dir() + "/agx-orin-64gb-jp62/root");
  EXPECT_TRUE(warnings_about(r, keys::kTegraDriverNodeAccessNodes).empty());
  EXPECT_TRUE(warnings_about(r, keys::kTegraDriverExpectedModules).empty());
  const auto* nodes =
      keys::find(r.platform, keys::relative(keys::kTegraDriverNodeAccessNodes, keys::kPlatform));
  ASSERT_TRUE(nodes && nodes->is_array());
  for (const auto& n : *nodes) {
    EXPECT_NE(n["path"], "/dev/nvhost-ctrl") << "not part of L4T 36: not listed";
    if (n["expected"] == true) {
      EXPECT_EQ(n["present"], true) << n.dump();
    }
  }
  EXPECT_EQ((*nodes)[2]["path"], "/dev/dri/renderD128") << "the pattern resolved to the node";
}

TEST(GpuStackBoards, TheTalosFinalStateIsCompleteAndItsSpecIsFoundThroughContainerd) {
  auto r = collect(test::fixtures_dir() + "/talos-orin-nx-pr1518-final/root");
  EXPECT_TRUE(warnings_about(r, keys::kTegraDriverNodeAccessNodes).empty());
  EXPECT_TRUE(warnings_about(r, keys::kTegraDriverExpectedModules).empty()) << r.platform.dump(1);
  EXPECT_TRUE(warnings_about(r, keys::kTegraDriverCdi).empty());
  const auto* cdi = keys::find(r.platform, keys::relative(keys::kTegraDriverCdi, keys::kPlatform));
  ASSERT_TRUE(cdi && cdi->size() == 1u) << r.platform.dump(1);
  EXPECT_EQ((*cdi)[0]["path"], "/var/cdi/static/nvidia-tegra.yaml");
  EXPECT_EQ((*cdi)[0]["missing_nodes"], 0);
  const auto* dirs =
      keys::find(r.platform, keys::relative(keys::kTegraDriverCdiDirs, keys::kPlatform));
  ASSERT_TRUE(dirs && dirs->is_array());
  bool from_part = false;
  for (const auto& d : *dirs)
    from_part = from_part || (d["path"] == "/var/cdi/static" &&
                              d["from"] == "/etc/cri/conf.d/20-customization.part");
  EXPECT_TRUE(from_part) << dirs->dump();
}

TEST(GpuStackBoards, EveryAbsentCdiNodeIsReportedWithTheRuntimesBehaviour) {
  auto r = collect(test::fixtures_dir() + "/talos-orin-nx-mainline/root");
  auto cdi = warnings_about(r, keys::kTegraDriverCdi);
  ASSERT_EQ(cdi.size(), 1u);  // the spec names one absent node: /dev/nvhost-ctrl
  const auto& m = cdi[0].message;
  EXPECT_NE(m.find("/dev/nvhost-ctrl"), std::string::npos) << m;
  EXPECT_NE(m.find("failed to stat CDI host device"), std::string::npos) << m;
  EXPECT_NE(m.find("will not start"), std::string::npos) << m;
  EXPECT_NE(m.find("nvidia-ctk cdi generate --mode=csv"), std::string::npos) << m;
  EXPECT_NE(m.find("does not name it"), std::string::npos) << "not part of this stack: " << m;
  EXPECT_EQ(m.find("polling"), std::string::npos) << m;

  // Two more absent nodes (one the stack names, with its module): each is reported.
  test::TempDir t;
  stdfs::copy(test::fixtures_dir() + "/talos-orin-nx-mainline/root", t.path("root"),
              stdfs::copy_options::recursive);
  t.write("root/etc/cdi/extra.yaml", R"(cdiVersion: 0.5.0
kind: example.com/gpu
devices:
- name: all
  containerEdits:
    deviceNodes:
    - path: /dev/dri/renderD128
    - path: /dev/fb0
    - path: /dev/nvmap
)");
  auto r2 = collect(t.path("root"));
  std::vector<std::string> named;
  for (const auto& w : warnings_about(r2, keys::kTegraDriverCdi))
    if (w.source.find("extra.yaml") != std::string::npos) named.push_back(w.message);
  ASSERT_EQ(named.size(), 2u);
  EXPECT_NE(named[0].find("/dev/dri/renderD128"), std::string::npos);
  EXPECT_NE(named[0].find("tegra_drm"), std::string::npos) << named[0];
  EXPECT_NE(named[1].find("/dev/fb0"), std::string::npos);
}

TEST(GpuStackBoards, NoCdiSpecSaysWhereItLooked) {
  auto r = collect(test::fixtures_dir() + "/agx-orin-64gb-jp62/root");
  const auto* dirs =
      keys::find(r.platform, keys::relative(keys::kTegraDriverCdiDirs, keys::kPlatform));
  ASSERT_TRUE(dirs && dirs->is_array());
  std::vector<std::string> paths;
  for (const auto& d : *dirs) paths.push_back(d["path"].get<std::string>());
  EXPECT_EQ(paths, (std::vector<std::string>{"/etc/cdi", "/var/run/cdi", "/var/cdi/static",
                                             "/var/cdi/dynamic"}));
}

// --cdi-dir: a spec directory no configuration file names (CRI-O's, a runtime started
// with its own flag) is read too, first, and says where it came from; a relative path
// is a usage error.
TEST(GpuStackBoards, ACdiDirOnTheCommandLineIsReadToo) {
  test::TempDir t;
  stdfs::copy(test::fixtures_dir() + "/agx-orin-64gb-jp62/root", t.path("root"),
              stdfs::copy_options::recursive | stdfs::copy_options::copy_symlinks);
  t.write("root/opt/cdi-extra/extra.yaml", R"(cdiVersion: 0.5.0
kind: example.com/gpu
devices:
- name: all
  containerEdits:
    deviceNodes:
    - path: /dev/fb0
)");
  auto r = test::run_jetgate(
      {"probe", "--root", t.path("root"), "--cdi-dir", "/opt/cdi-extra", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  const auto& dirs = doc["platform"]["tegra"]["driver"]["cdi_dirs"];
  ASSERT_TRUE(dirs.is_array() && !dirs.empty()) << dirs;
  EXPECT_EQ(dirs[0]["path"], "/opt/cdi-extra");
  EXPECT_EQ(dirs[0]["from"], "--cdi-dir");
  EXPECT_NE(r.err.find("/dev/fb0"), std::string::npos) << "its absent node is reported: " << r.err;
  auto without = test::run_jetgate({"probe", "--root", t.path("root"), "--json"});
  ASSERT_EQ(without.exit_code, 0);
  EXPECT_EQ(without.err.find("/dev/fb0"), std::string::npos);
  auto relative = test::run_jetgate({"probe", "--root", t.path("root"), "--cdi-dir", "opt/x"});
  EXPECT_EQ(relative.exit_code, 2);
  EXPECT_NE(relative.err.find("absolute path"), std::string::npos) << relative.err;
}

// A mainline bring-up whose nvgpu did not load: "Unknown symbol" is traced to the
// installed module that exports it (modules.symbols), which is named as missing.
TEST(GpuStackBoards, UnknownSymbolIsTracedToTheInstalledModuleThatExportsIt) {
  test::TempDir t;
  stdfs::copy(test::fixtures_dir() + "/talos-orin-nx-pr1518-final/root", t.path("root"),
              stdfs::copy_options::recursive);
  t.write("root/proc/modules",
          "host1x 217088 1 host1x_fence, Live 0x0 (O)\n"
          "host1x_fence 16384 0 - Live 0x0 (O)\n"
          "tegra_drm 319488 0 - Live 0x0 (O)\n");
  const std::string mod = "root/lib/modules/6.18.24-talos/";
  t.write(mod + "modules.dep",
          "updates/nvgpu.ko: updates/nvmap.ko updates/mc-utils.ko\n"
          "updates/nvmap.ko:\nupdates/mc-utils.ko:\nupdates/host1x.ko:\n"
          "updates/host1x-fence.ko: updates/host1x.ko\nupdates/tegra-drm.ko: updates/host1x.ko\n");
  t.write(mod + "modules.symbols",
          "alias symbol:nvmap_dmabuf_export nvmap\nalias symbol:tegra_mc_utils_get mc-utils\n");
  t.write("root/jetgate-kernel-log.txt",
          "[    9.1] nvgpu: Unknown symbol nvmap_dmabuf_export (err -2)\n"
          "[    9.2] nvgpu: Unknown symbol nvgpu_missing_everywhere (err -2)\n");
  auto r = collect(t.path("root"));
  EXPECT_EQ(stack_id(r), "mainline-orin");
  std::string nvgpu, nvmap;
  for (const auto& w : warnings_about(r, keys::kTegraDriverExpectedModules)) {
    if (w.source == "nvgpu") nvgpu = w.message;
    if (w.source == "nvmap") nvmap = w.message;
  }
  EXPECT_NE(nvgpu.find("nvmap_dmabuf_export is exported by nvmap, which is not loaded"),
            std::string::npos)
      << nvgpu;
  EXPECT_NE(nvgpu.find("`modprobe nvmap`"), std::string::npos) << nvgpu;
  EXPECT_NE(nvgpu.find("no installed module exports nvgpu_missing_everywhere"), std::string::npos)
      << nvgpu;
  EXPECT_NE(nvmap.find("not loaded"), std::string::npos) << "nvmap itself is named: " << nvmap;
  EXPECT_EQ(nvgpu.find("L4T 35"), std::string::npos) << "not the L4T 35 rule: " << nvgpu;
  // A module of the row the kernel did not install, and CUDA needs: named as not installed.
  t.write(mod + "modules.dep", "updates/nvgpu.ko:\nupdates/host1x.ko:\n");
  auto r2 = collect(t.path("root"));
  bool not_installed = false;
  for (const auto& w : warnings_about(r2, keys::kTegraDriverExpectedModules))
    if (w.source == "nvmap") not_installed = w.message.find("not installed") != std::string::npos;
  EXPECT_TRUE(not_installed);
}

}  // namespace
}  // namespace jetgate::facts

namespace jetgate::facts {
namespace {

// Limits in total: twelve CDI specs of ~0.9 MB of device names each (each within the
// per-file limit) once made evidence of over 8 MiB that every reader refuses. The CDI
// facts keep 1 MiB of names and paths from all specs together and say what they left
// out; every spec is still listed, with its node count.
TEST(GpuStackBoards, LargeCdiSpecsKeepTheFactsWithinWhatEvidenceReadersAccept) {
  test::TempDir t;
  t.write("jetgate-root.json", R"({"machine": "aarch64"})");
  const std::string name(200, 'd');
  for (int s = 0; s < 12; ++s) {
    std::string y =
        "cdiVersion: \"0.5.0\"\nkind: example.com/gpu" + std::to_string(s) + "\ndevices:\n";
    for (int d = 0; d < 3500; ++d)
      y += "- name: " + name + std::to_string(d) +
           "\n  containerEdits:\n    deviceNodes:\n    - path: /dev/nvidia0\n";
    t.write("etc/cdi/spec" + std::to_string(s) + ".yaml", y);
  }
  auto root = fs::RootFs::open(t.dir());
  ASSERT_TRUE(root.ok());
  auto r = collect_platform(*root, {});
  const auto& cdi = r.platform["tegra"]["driver"]["cdi"];
  ASSERT_EQ(cdi.size(), 12u) << cdi.dump().substr(0, 2000);
  std::size_t kept = 0;
  for (const auto& spec : cdi) {
    EXPECT_TRUE(spec["error"].is_null()) << spec["error"];
    kept += spec["devices"].size();
  }
  EXPECT_GT(kept, 1000u);
  EXPECT_LT(kept, 12u * 3500u);
  EXPECT_LT(r.platform.dump().size(), std::size_t{2} << 20);
  std::size_t said = 0;
  for (const auto& w : r.warnings)
    if (w.message.find("device names and nodes of this spec are not kept") != std::string::npos)
      ++said;
  EXPECT_GT(said, 0u);
}

}  // namespace
}  // namespace jetgate::facts
