// SPDX-License-Identifier: Apache-2.0
// /platform/tegra/driver/node_access: owner, group, mode, major:minor and
// whether this uid can open each GPU node CUDA should open, on recorded roots
// and on real character devices made with mknod (as root, which CI is); the
// node this uid cannot open is checked in a child that drops to nobody, since
// root opens everything (CAP_DAC_OVERRIDE).
#include "jetgate/facts/node_access.hpp"

#include <grp.h>
#include <gtest/gtest.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "jetgate/core/document_keys.hpp"
#include "jetgate/facts/collect_context.hpp"
#include "jetgate/facts/container_injection.hpp"
#include "jetgate/facts/platform.hpp"
#include "test_support.hpp"

namespace jetgate {
namespace {

using nlohmann::json;
namespace stdfs = std::filesystem;

constexpr unsigned kNobody = 65534;

json node_entry(const json& platform, const std::string& path) {
  const auto* nodes =
      keys::find(platform, keys::relative(keys::kTegraDriverNodeAccessNodes, keys::kPlatform));
  if (!nodes || !nodes->is_array()) return nullptr;
  for (const auto& n : *nodes)
    if (n.value("path", "") == path) return n;
  return nullptr;
}

facts::PlatformReport collect_fixture(const std::string& name) {
  auto root = fs::RootFs::open(test::fixtures_dir() + "/" + name + "/root");
  EXPECT_TRUE(root.ok());
  return facts::collect_platform(*root, {});
}

std::vector<facts::Warning> warnings_about(const facts::PlatformReport& r, const keys::Pointer& k) {
  std::vector<facts::Warning> out;
  for (const auto& w : r.warnings)
    if (w.fact == k.to_string()) out.push_back(w);
  return out;
}

TEST(NodeAccess, PermissionStringIsWhatLsWrites) {
  using fs::NodeType;
  EXPECT_EQ(facts::permission_string(NodeType::char_device, 0660), "crw-rw----");
  EXPECT_EQ(facts::permission_string(NodeType::char_device, 0666), "crw-rw-rw-");
  EXPECT_EQ(facts::permission_string(NodeType::block_device, 0600), "brw-------");
  EXPECT_EQ(facts::permission_string(NodeType::char_device, 0), "c---------");
  EXPECT_EQ(facts::permission_string(NodeType::directory, 01777), "drwxrwxrwt");
  EXPECT_EQ(facts::permission_string(NodeType::regular, 04755), "-rwsr-xr-x");
  EXPECT_EQ(facts::permission_string(NodeType::regular, 02644), "-rw-r-Sr--");
}

// Talos on an Orin NX at siderolabs/pkgs PR #1518's early state: nvhost_ctrl_shim
// loaded, tegra_drm not, no render node, and a CDI spec naming /dev/nvhost-ctrl,
// which the host lacks. The mainline row expects a render node, not nvhost-ctrl.
TEST(NodeAccess, TalosRecordingListsTheExpectedNodesAndNamesWhatToLoad) {
  auto r = collect_fixture("talos-orin-nx-mainline");
  const auto& p = r.platform;
  auto at = [&](const keys::Pointer& k) {
    return keys::find(p, keys::relative(k, keys::kPlatform));
  };
  ASSERT_NE(keys::find(p, keys::relative(keys::kTegraDriverNodeAccess, keys::kPlatform)), nullptr);
  EXPECT_EQ(at(keys::kTegraDriverNodeAccessUid), nullptr) << "a recording has no uid to open as";
  EXPECT_EQ(at(keys::kTegraDriverNodeAccessMethod), nullptr);

  EXPECT_TRUE(node_entry(p, "/dev/nvhost-ctrl").is_null()) << "not part of this stack";
  auto render = node_entry(p, "/dev/dri/renderD*");
  ASSERT_TRUE(render.is_object()) << p.dump(1);
  EXPECT_FALSE(render["present"].get<bool>());
  EXPECT_TRUE(render["expected"].get<bool>());
  EXPECT_TRUE(render["type"].is_null());
  EXPECT_NE(render["provides"].get<std::string>().find("801"), std::string::npos);

  auto nvmap = node_entry(p, "/dev/nvmap");
  ASSERT_TRUE(nvmap.is_object());
  EXPECT_TRUE(nvmap["present"].get<bool>());
  EXPECT_TRUE(nvmap["expected"].get<bool>());
  EXPECT_EQ(nvmap["type"], "char");
  EXPECT_EQ(nvmap["mode"], "0666");
  EXPECT_EQ(nvmap["permissions"], "crw-rw-rw-");
  EXPECT_TRUE(nvmap["major"].is_number_unsigned());
  EXPECT_TRUE(nvmap["openable"].is_null()) << "a recording's nodes are never opened";
  EXPECT_TRUE(nvmap["uid"].is_null()) << "this recording did not keep owners";

  // A node present but not one CUDA opens on this platform is listed too.
  auto fence = node_entry(p, "/dev/host1x-fence");
  ASSERT_TRUE(fence.is_object());
  EXPECT_FALSE(fence["expected"].get<bool>());
  EXPECT_TRUE(fence["provides"].is_null());

  // The missing render node: what it is for and what creates it, no predicted speed.
  auto missing = warnings_about(r, keys::kTegraDriverNodeAccessNodes);
  ASSERT_EQ(missing.size(), 1u);
  const auto& m = missing[0].message;
  EXPECT_NE(m.find("/dev/dri/renderD*"), std::string::npos) << m;
  EXPECT_NE(m.find("tegra_drm creates it and is not loaded"), std::string::npos) << m;
  EXPECT_NE(m.find("modprobe tegra_drm"), std::string::npos) << m;
  EXPECT_EQ(m.find("poll"), std::string::npos) << m;

  auto cdi = warnings_about(r, keys::kTegraDriverCdi);
  ASSERT_EQ(cdi.size(), 1u);
  EXPECT_NE(cdi[0].source.find("nvidia-tegra.yaml"), std::string::npos) << cdi[0].source;
  EXPECT_NE(cdi[0].message.find("/dev/nvhost-ctrl"), std::string::npos) << cdi[0].message;
  EXPECT_NE(cdi[0].message.find("will not start"), std::string::npos) << cdi[0].message;
}

// The same Talos host seen from inside a container (/.dockerenv, as Docker writes and
// jetson-stats reads): the missing render node is the runtime's to inject, so the
// warning names the injections to check first and the host's module second (issue 40).
TEST(NodeAccess, InAContainerAMissingNodeNamesTheInjectionToCheck) {
  test::TempDir t;
  const std::string root = t.path("root");
  stdfs::copy(test::fixtures_dir() + "/talos-orin-nx-mainline/root", root,
              stdfs::copy_options::recursive | stdfs::copy_options::copy_symlinks);
  t.write("root/.dockerenv", "");
  auto fs_root = fs::RootFs::open(root);
  ASSERT_TRUE(fs_root.ok());
  auto r = facts::collect_platform(*fs_root, {});
  auto missing = warnings_about(r, keys::kTegraDriverNodeAccessNodes);
  ASSERT_EQ(missing.size(), 1u);
  const auto& m = missing[0].message;
  for (const char* part : {"/dev/dri/renderD*", "cdi.k8s.io", "runtimeClassName",
                           "nvidia.com/gpu resource", "on the host: tegra_drm creates it"})
    EXPECT_NE(m.find(part), std::string::npos) << part << " in: " << m;
  // Outside a container the same node says only what to load.
  auto native = collect_fixture("talos-orin-nx-mainline");
  auto plain = warnings_about(native, keys::kTegraDriverNodeAccessNodes);
  ASSERT_EQ(plain.size(), 1u);
  EXPECT_EQ(plain[0].message.find("runtimeClassName"), std::string::npos) << plain[0].message;
}

// A CUDA driver that did not load: inside a container the note names the injection;
// on a machine itself, or with the driver loaded, there is no such note.
TEST(NodeAccess, ADriverMissingInAContainerNamesTheInjection) {
  const json in_pod = {{"container", {{"detected", true}}}};
  const json native = {{"container", {{"detected", false}}}};
  const json absent = {{"driver", {{"loaded", false}}}};
  const json loaded = {{"driver", {{"loaded", true}}}};
  auto note = facts::container_driver_note(in_pod, absent);
  ASSERT_TRUE(note.has_value());
  for (const char* part : {"no CUDA driver in this container", "libcuda.so.1", "cdi.k8s.io",
                           "runtimeClassName (nvidia)", "nvidia.com/gpu resource"})
    EXPECT_NE(note->find(part), std::string::npos) << part << " in: " << *note;
  EXPECT_FALSE(facts::container_driver_note(native, absent).has_value());
  EXPECT_FALSE(facts::container_driver_note(in_pod, loaded).has_value());
  EXPECT_FALSE(facts::container_driver_note(json::object(), absent).has_value());
}

// L4T 36.4.3 on an AGX Orin: the expected nodes are listed first (the render
// node as the one present), then the other GPU nodes; no CDI spec.
TEST(NodeAccess, OrinRecordingListsTheExpectedNodesFirst) {
  auto r = collect_fixture("agx-orin-64gb-jp62");
  const auto* nodes =
      keys::find(r.platform, keys::relative(keys::kTegraDriverNodeAccessNodes, keys::kPlatform));
  ASSERT_TRUE(nodes && nodes->size() > 3) << r.platform.dump(1);
  EXPECT_EQ((*nodes)[0]["path"], "/dev/nvmap");
  EXPECT_EQ((*nodes)[1]["path"], "/dev/nvgpu/igpu0/ctrl");
  EXPECT_EQ((*nodes)[2]["path"], "/dev/dri/renderD128");
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ((*nodes)[i]["expected"], true) << i;
    EXPECT_EQ((*nodes)[i]["present"], true) << i;
  }
  auto gpu = node_entry(r.platform, "/dev/nvhost-gpu");
  ASSERT_TRUE(gpu.is_object());
  EXPECT_EQ(gpu["expected"], false);
  EXPECT_EQ(gpu["present"], true);
  EXPECT_TRUE(warnings_about(r, keys::kTegraDriverCdi).empty());
  EXPECT_TRUE(warnings_about(r, keys::kTegraDriverNodeAccessNodes).empty());
}

TEST(NodeAccess, RecordedOwnersComeFromTheSidecar) {
  test::TempDir t;
  stdfs::copy(test::fixtures_dir() + "/talos-orin-nx-mainline/root", t.path("root"),
              stdfs::copy_options::recursive);
  auto side = json::parse(test::read_file(t.path("root/jetgate-root.json")));
  side["nodes"]["/dev/nvmap"]["uid"] = 0;
  side["nodes"]["/dev/nvmap"]["gid"] = 44;
  side["nodes"]["/dev/nvmap"]["owner"] = "root";
  side["nodes"]["/dev/nvmap"]["group"] = "video";
  side["nodes"]["/dev/nvmap"]["mode"] = "0660";
  side["nodes"]["/dev/nvgpu/igpu0/ctrl"]["uid"] = -1;                      // not an id: ignored
  side["nodes"]["/dev/nvgpu/igpu0/ctrl"]["owner"] = std::string(65, 'a');  // not a user name
  t.write("root/jetgate-root.json", side.dump());
  auto root = fs::RootFs::open(t.path("root"));
  ASSERT_TRUE(root.ok());
  auto r = facts::collect_platform(*root, {});
  auto n = node_entry(r.platform, "/dev/nvmap");
  EXPECT_EQ(n["uid"], 0);
  EXPECT_EQ(n["gid"], 44);
  EXPECT_EQ(n["owner"], "root");
  EXPECT_EQ(n["group"], "video");
  EXPECT_EQ(n["mode"], "0660");
  EXPECT_EQ(n["permissions"], "crw-rw----");
  auto ctrl = node_entry(r.platform, "/dev/nvgpu/igpu0/ctrl");
  EXPECT_TRUE(ctrl["uid"].is_null());
  EXPECT_TRUE(ctrl["owner"].is_null());
}

TEST(NodeAccess, AdviceSaysWhatToDoForEachWayAnOpenFails) {
  facts::NodeAccess a;
  a.path = "/dev/nvmap";
  a.info.type = fs::NodeType::char_device;
  a.info.mode = 0660;
  a.info.major = 10;
  a.info.minor = 120;
  a.uid = 0;
  a.gid = 44;
  a.owner = "root";
  a.group = "video";
  EXPECT_EQ(facts::node_access_advice(a, 1000, "runner"), "") << "not tried: no advice";
  a.openable = true;
  EXPECT_EQ(facts::node_access_advice(a, 1000, "runner"), "");
  a.openable = false;
  a.open_errno = EACCES;
  auto m = facts::node_access_advice(a, 1000, "runner");
  EXPECT_NE(m.find("root(0):video(44) 0660 crw-rw---- 10:120"), std::string::npos) << m;
  EXPECT_NE(m.find("runner (uid 1000) cannot open it"), std::string::npos) << m;
  EXPECT_NE(m.find("usermod -aG video"), std::string::npos) << m;
  EXPECT_NE(m.find("supplementalGroups"), std::string::npos) << m;
  a.info.mode = 0600;
  m = facts::node_access_advice(a, 1000, std::nullopt);
  EXPECT_NE(m.find("uid 1000 cannot"), std::string::npos) << m;
  EXPECT_NE(m.find("udev rule"), std::string::npos) << m;
  EXPECT_EQ(m.find("usermod"), std::string::npos) << "the group may not write it: " << m;
  // A group that may only read (0640) or only write (0620) is not enough for
  // read/write: joining it does not help, so no one is told to.
  for (unsigned mode : {0640u, 0620u, 0646u}) {
    a.info.mode = mode;
    m = facts::node_access_advice(a, 1000, std::nullopt);
    EXPECT_EQ(m.find("usermod"), std::string::npos) << std::oct << mode << ": " << m;
    EXPECT_NE(m.find("udev rule"), std::string::npos) << std::oct << mode << ": " << m;
  }
  a.info.mode = 0660;
  EXPECT_NE(facts::node_access_advice(a, 1000, std::nullopt).find("usermod -aG video"),
            std::string::npos);
  a.open_errno = EPERM;
  m = facts::node_access_advice(a, 1000, std::nullopt);
  EXPECT_NE(m.find("device cgroup"), std::string::npos) << m;
  EXPECT_NE(m.find("device plugin or CDI"), std::string::npos) << m;
  a.open_errno = ENXIO;
  m = facts::node_access_advice(a, 1000, std::nullopt);
  EXPECT_NE(m.find("no driver answers major:minor 10:120"), std::string::npos) << m;
}

// A temp root with real character devices (mknod needs CAP_MKNOD: root, as CI runs).
class RealNodes : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "mknod needs root (CI runs the tests as root)";
    ASSERT_EQ(::chmod(t_.dir().c_str(), 0755), 0);
    stdfs::create_directories(t_.path("dev/nvgpu/igpu0"));
    stdfs::create_directories(t_.path("dev/dri"));
    struct statvfs vfs {};
    if (::statvfs(t_.dir().c_str(), &vfs) == 0 && (vfs.f_flag & ST_NODEV))
      GTEST_SKIP() << t_.dir() << " is on a nodev mount: its device nodes cannot be opened";
  }
  // A char device with the numbers of /dev/null (1:3), which any kernel has.
  void make(const std::string& rel, unsigned mode, unsigned uid, unsigned gid) {
    std::string p = t_.path(rel);
    if (::mknod(p.c_str(), S_IFCHR | 0600, ::makedev(1, 3)) != 0)
      GTEST_FAIL() << "mknod " << p << ": " << std::strerror(errno);
    ASSERT_EQ(::chown(p.c_str(), uid, gid), 0) << std::strerror(errno);
    ASSERT_EQ(::chmod(p.c_str(), mode), 0) << std::strerror(errno);
  }
  fs::RootFs root() const {
    auto r = fs::RootFs::open(t_.dir());
    EXPECT_TRUE(r.ok());
    return *r;
  }
  test::TempDir t_;
};

// Runs fn in a child that has dropped to nobody (uid and gid 65534, no
// supplementary groups) and returns what it wrote to the pipe.
std::string as_nobody(const std::function<std::string()>& fn) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::string out;
    if (::setgroups(0, nullptr) != 0 || ::setgid(kNobody) != 0 || ::setuid(kNobody) != 0)
      out = std::string("could not drop to nobody: ") + std::strerror(errno);
    else
      out = fn();
    for (std::size_t done = 0; done < out.size();) {
      ssize_t n = ::write(fds[1], out.data() + done, out.size() - done);
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    out.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return out;
}

std::optional<std::string> name_of_uid(unsigned uid) {
  const passwd* pw = ::getpwuid(uid);
  return pw ? std::optional<std::string>(pw->pw_name) : std::nullopt;
}
std::optional<std::string> name_of_gid(unsigned gid) {
  const group* gr = ::getgrgid(gid);
  return gr ? std::optional<std::string>(gr->gr_name) : std::nullopt;
}

TEST_F(RealNodes, OwnerGroupModeAndNumbersAreReportedExactly) {
  make("dev/nvmap", 0640, 0, 44);
  auto a = facts::check_node_access(root(), "/dev/nvmap", true);
  auto j = facts::to_json(a, std::string("GPU memory allocation"));
  EXPECT_EQ(j["present"], true);
  EXPECT_EQ(j["type"], "char");
  EXPECT_EQ(j["major"], 1);
  EXPECT_EQ(j["minor"], 3);
  EXPECT_EQ(j["uid"], 0);
  EXPECT_EQ(j["gid"], 44);
  EXPECT_EQ(j["mode"], "0640");
  EXPECT_EQ(j["permissions"], "crw-r-----");
  EXPECT_EQ(j["owner"], name_of_uid(0) ? json(*name_of_uid(0)) : json(nullptr));
  EXPECT_EQ(j["group"], name_of_gid(44) ? json(*name_of_gid(44)) : json(nullptr));
  EXPECT_EQ(j["openable"], true) << "root opens it";
  EXPECT_TRUE(j["open_error"].is_null());
  EXPECT_EQ(j["expected"], true);
}

// Root opens a mode-000 node too (CAP_DAC_OVERRIDE): that is the truth for
// root, so "openable" must say yes, and only a non-root uid shows a refusal.
TEST_F(RealNodes, RootOpensAModeZeroNodeAndNobodyDoesNot) {
  make("dev/nvhost-ctrl", 0000, 0, 0);
  auto a = facts::check_node_access(root(), "/dev/nvhost-ctrl", true);
  EXPECT_EQ(a.openable, true);
  auto fs_root = root();
  auto child = as_nobody([&] {
    auto b = facts::check_node_access(fs_root, "/dev/nvhost-ctrl", true);
    return facts::to_json(b, std::nullopt).dump() + "\n" +
           facts::node_access_advice(b, ::geteuid(), std::nullopt);
  });
  auto nl = child.find('\n');
  ASSERT_NE(nl, std::string::npos) << child;
  auto j = json::parse(child.substr(0, nl), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << child;
  EXPECT_EQ(j["openable"], false);
  EXPECT_EQ(j["open_error"], std::strerror(EACCES));
  EXPECT_EQ(j["mode"], "0000");
  EXPECT_EQ(j["permissions"], "c---------");
  std::string advice = child.substr(nl + 1);
  EXPECT_NE(advice.find("uid 65534"), std::string::npos) << advice;
  EXPECT_NE(advice.find("udev rule"), std::string::npos) << advice;
}

// Through the collector, as nobody: the node of another group with 0660 is a
// warning naming the group; the one whose group nobody is in opens.
TEST_F(RealNodes, TheCollectorWarnsForANodeThisUidCannotOpen) {
  make("dev/nvmap", 0660, 0, 44);
  make("dev/nvgpu/igpu0/ctrl", 0660, 0, kNobody);
  make("dev/dri/renderD128", 0666, 0, 0);
  auto devices = root();
  // The facts of an L4T 36 Orin, from its recording; the nodes are the real ones above.
  auto orin = fs::RootFs::open(test::fixtures_dir() + "/agx-orin-64gb-jp62/root");
  ASSERT_TRUE(orin.ok());
  auto platform = facts::collect_platform(*orin, {}).platform;
  auto child = as_nobody([&] {
    std::vector<facts::Warning> warnings;
    facts::CollectOptions opts;
    facts::CollectContext ctx(*orin, opts, warnings, facts::DeviceNodes{&devices, true});
    json p = platform;
    facts::collect_node_access(ctx, p);
    json w = json::array();
    for (const auto& x : warnings)
      if (x.fact == keys::kTegraDriverNodeAccessNodes.to_string()) w.push_back(facts::to_json(x));
    return json{{"platform", p}, {"warnings", w}}.dump();
  });
  auto out = json::parse(child, nullptr, false);
  ASSERT_FALSE(out.is_discarded()) << child;
  const auto& p = out["platform"];
  auto at = [&](const keys::Pointer& k) {
    const auto* v = keys::find(p, keys::relative(k, keys::kPlatform));
    return v ? *v : json(nullptr);
  };
  EXPECT_EQ(at(keys::kTegraDriverNodeAccessUid), kNobody);
  EXPECT_EQ(at(keys::kTegraDriverNodeAccessGid), kNobody);
  EXPECT_EQ(at(keys::kTegraDriverNodeAccessGroups), json::array());
  EXPECT_NE(at(keys::kTegraDriverNodeAccessMethod).get<std::string>().find("O_RDWR"),
            std::string::npos);
  EXPECT_EQ(node_entry(p, "/dev/nvmap")["openable"], false);
  EXPECT_EQ(node_entry(p, "/dev/nvgpu/igpu0/ctrl")["openable"], true) << "its group is nobody's";
  EXPECT_EQ(node_entry(p, "/dev/dri/renderD128")["openable"], true);
  EXPECT_EQ(node_entry(p, "/dev/dri/renderD128")["minor"], 3);
  ASSERT_EQ(out["warnings"].size(), 1u) << out["warnings"].dump(1);
  const auto& w = out["warnings"][0];
  EXPECT_EQ(w["source"], devices.display("/dev/nvmap"));
  std::string m = w["message"];
  std::string group = name_of_gid(44).value_or("44");
  EXPECT_NE(m.find("usermod -aG " + group), std::string::npos) << m;
  EXPECT_NE(m.find("gid 44"), std::string::npos) << m;
}

}  // namespace
}  // namespace jetgate
