// SPDX-License-Identifier: Apache-2.0
// `--host-root DIR`: the live host's facts through a read-only mount, as a
// pod sees them. The pod's view is built for real: a child in a mount
// namespace of its own bind-mounts a recorded root's etc and sys read-only at
// TMP/host and mounts a real procfs at TMP/host/proc, then runs jetgate there
// (root only, as CI runs; skipped with the reason otherwise).
#include "jetgate/fs/host_root.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "test_support.hpp"

namespace jetgate {
namespace {

using nlohmann::json;
namespace stdfs = std::filesystem;

constexpr const char* kImage = "ghcr.io/example/jetgate-l4t:r36.4.0";
// NVIDIA L4T 36.4.3 on an Orin Nano Super in the 15W mode: /etc and /sys carry the facts.
constexpr const char* kRecording = "orin-nano-super-jp62-15w";

std::string recording_root() {
  return test::fixtures_dir() + "/" + kRecording + "/root";
}

TEST(HostRoot, RefusesWhatIsNotALiveHostMount) {
  test::TempDir t;
  auto file = t.write("a-file", "x");
  auto r = fs::check_host_root(file);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().what, "not a directory");

  r = fs::check_host_root(t.path("missing"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find(std::strerror(ENOENT)), std::string::npos) << r.error().what;

  r = fs::check_host_root(recording_root());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find("jetgate recording"), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().hint.find("--root " + recording_root()), std::string::npos);

  // A plain directory named proc is not a procfs: the kernel facts would be files.
  stdfs::create_directories(t.path("host/proc"));
  stdfs::create_directories(t.path("host/sys"));
  r = fs::check_host_root(t.path("host"));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find("is not a procfs mount"), std::string::npos) << r.error().what;
  EXPECT_NE(r.error().hint.find("hostPath"), std::string::npos) << r.error().hint;
}

// The machine's own / is a live host mount of itself: procfs at /proc, sysfs at /sys.
TEST(HostRoot, TheRunningSystemsRootPasses) {
  auto r = fs::check_host_root("/");
  ASSERT_TRUE(r.ok()) << r.error().message();
  EXPECT_TRUE(r->proc_is_procfs);
  EXPECT_TRUE(r->sys_is_sysfs);
  // Asked for other magics, the same mounts are refused (proc) or warned about (sys).
  auto wrong_sys = fs::check_host_root("/", fs::kProcSuperMagic, 0x1234);
  ASSERT_TRUE(wrong_sys.ok());
  EXPECT_FALSE(wrong_sys->sys_is_sysfs);
  ASSERT_FALSE(wrong_sys->problems.empty());
  EXPECT_NE(wrong_sys->problems[0].find("/sys is not a sysfs mount"), std::string::npos);
  EXPECT_FALSE(fs::check_host_root("/", 0x1234).ok());
}

// Merged /usr: a host whose modules are mounted at /usr/lib/modules only has them;
// with neither, the check says so. (The filesystem's own magic stands for procfs and
// sysfs here, so the directory passes those checks.)
TEST(HostRoot, ModulesUnderUsrLibModulesAreTheMergedUsrLayout) {
  test::TempDir t;
  const std::string host = t.path("host");
  for (const char* d : {"proc", "sys", "etc", "usr/lib/modules/5.15.148-tegra"})
    stdfs::create_directories(host + "/" + d);
  struct statfs s {};
  ASSERT_EQ(::statfs((host + "/proc").c_str(), &s), 0);
  const long magic = static_cast<long>(s.f_type);
  auto r = fs::check_host_root(host, magic, magic);
  ASSERT_TRUE(r.ok()) << r.error().message();
  for (const auto& p : r->problems) EXPECT_EQ(p.find("lib/modules"), std::string::npos) << p;
  stdfs::remove_all(host + "/usr");
  r = fs::check_host_root(host, magic, magic);
  ASSERT_TRUE(r.ok()) << r.error().message();
  ASSERT_EQ(r->problems.size(), 1u);
  EXPECT_NE(r->problems[0].find("/lib/modules is missing"), std::string::npos) << r->problems[0];
  stdfs::create_directories(host + "/lib/modules");
  r = fs::check_host_root(host, magic, magic);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->problems.empty());
}

TEST(HostRoot, CliRefusesARecordingAFileAndBothRoots) {
  test::TempDir t;
  auto r = test::run_jetgate({"probe", "--host-root", recording_root()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("jetgate recording"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--root"), std::string::npos) << r.err;
  r = test::run_jetgate({"probe", "--host-root", t.write("f", "")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not a directory"), std::string::npos) << r.err;
  r = test::run_jetgate({"probe", "--root", recording_root(), "--host-root", "/"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("excludes"), std::string::npos) << r.err;
  r = test::run_jetgate({"run", "cuda-runtime", "--root", recording_root(), "--host-root", "/"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("excludes"), std::string::npos) << r.err;
  r = test::run_jetgate({"run", "cuda-runtime", "--dry-run", "--host-root", recording_root()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("jetgate recording"), std::string::npos) << r.err;
}

struct PodRun {
  std::string skip;  // why the pod's view could not be built here
  test::CliRun run;
};

// Runs jetgate ARGS in a child with a mount namespace of its own in which
// HOST holds the recording's (or source's) etc, sys and var bound read-only and a real
// procfs.
PodRun run_as_pod(const test::TempDir& t, const std::string& host,
                  const std::vector<std::string>& args,
                  const std::string& source = recording_root()) {
  PodRun out;
  if (::geteuid() != 0) {
    out.skip = "building a pod's view needs root (unshare, mount); CI runs the tests as root";
    return out;
  }
  for (const char* d : {"etc", "sys", "var", "proc"}) stdfs::create_directories(host + "/" + d);
  std::string out_path = t.path("pod.out"), err_path = t.path("pod.err");
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    out.skip = "pipe failed";
    return out;
  }
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    auto fail = [&](const std::string& what) {
      std::string m = what + ": " + std::strerror(errno);
      (void)!::write(fds[1], m.data(), m.size());
      ::_exit(77);
    };
    if (::unshare(CLONE_NEWNS) != 0) fail("unshare(CLONE_NEWNS)");
    if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
      fail("mount --make-rprivate /");
    for (const char* d : {"etc", "sys", "var"}) {
      std::string src = source + "/" + d, dst = host + "/" + d;
      if (!stdfs::is_directory(src)) continue;
      if (::mount(src.c_str(), dst.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0)
        fail("bind " + src);
      if (::mount(nullptr, dst.c_str(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY, nullptr) != 0)
        fail("remount read-only " + dst);
    }
    std::string proc = host + "/proc";
    if (::mount("proc", proc.c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
      fail("mount -t proc " + proc);
    int o = ::open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    int e = ::open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (o < 0 || e < 0 || ::dup2(o, 1) < 0 || ::dup2(e, 2) < 0) fail("redirect");
    ::setenv("JETGATE_IMAGE", kImage, 1);
    std::vector<std::string> argv_s{test::jetgate_binary()};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    fail("exec " + argv_s[0]);
  }
  ::close(fds[1]);
  std::string why;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    why.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!why.empty()) {
    out.skip = "the pod's view could not be built here: " + why;
    return out;
  }
  out.run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  out.run.out = test::read_file(out_path);
  out.run.err = test::read_file(err_path);
  return out;
}

json at(const json& doc, const std::string& pointer) {
  auto p = json::json_pointer(pointer);
  return doc.contains(p) ? doc.at(p) : json("<absent>");
}

TEST(HostRoot, APodsViewIsLiveAndAgreesWithTheRecordingOnWhatWasMounted) {
  test::TempDir t;
  std::string host = t.path("host");
  auto pod = run_as_pod(t, host, {"probe", "--json", "--host-root", host});
  if (!pod.skip.empty()) GTEST_SKIP() << pod.skip;
  ASSERT_EQ(pod.run.exit_code, 0) << pod.run.err;
  auto live = json::parse(pod.run.out, nullptr, false);
  ASSERT_FALSE(live.is_discarded()) << pod.run.out << pod.run.err;
  auto rec_run = test::run_jetgate({"probe", "--json", "--root", recording_root()});
  ASSERT_EQ(rec_run.exit_code, 0) << rec_run.err;
  auto recorded = json::parse(rec_run.out);

  // Live: the facts are the running machine's, read through the mount.
  EXPECT_EQ(live["facts_source"], "live");
  EXPECT_EQ(recorded["facts_source"], "recorded");
  EXPECT_EQ(live["root"], host);
  EXPECT_EQ(at(live, "/host_mount/dir"), host);
  EXPECT_EQ(at(live, "/host_mount/proc_is_procfs"), true);
  EXPECT_EQ(at(live, "/host_mount/sys_is_sysfs"), false) << "the recording's sys is bound there";
  EXPECT_EQ(at(live, "/host_mount/image"), kImage);
  EXPECT_EQ(at(live, "/host_mount/image_source"), "JETGATE_IMAGE");
  EXPECT_TRUE(recorded["host_mount"].is_null());
  EXPECT_TRUE(live.contains("generated_at"));
  utsname u{};
  ASSERT_EQ(::uname(&u), 0);
  std::string machine = u.machine;
  EXPECT_EQ(at(live, "/platform/arch"), machine) << "uname, not the recording's sidecar";
  // The kernel is the one the real procfs shows: this machine's.
  EXPECT_EQ(at(live, "/platform/kernel/release"), std::string(u.release));
  EXPECT_NE(at(live, "/platform/kernel/release"), at(recorded, "/platform/kernel/release"));
  bool sys_warned = false;
  for (const auto& w : live["warnings"])
    sys_warned =
        sys_warned || w.value("message", "").find("is not a sysfs mount") != std::string::npos;
  EXPECT_TRUE(sys_warned) << live["warnings"].dump(1);

  // The mounted parts (/etc, /sys) give the same facts as the recording read with --root.
  for (const char* p :
       {"/platform/os/id", "/platform/os/version_id", "/platform/os/pretty_name",
        "/platform/tegra/l4t", "/platform/tegra/l4t_source", "/platform/tegra/jetpack",
        "/platform/tegra/jetpack_versions", "/platform/tegra/release_line",
        "/platform/tegra/soc_family", "/platform/power/nvpmodel", "/platform/power/gpu",
        "/platform/power/emc", "/platform/tegra/driver/cdi"}) {
    EXPECT_EQ(at(live, p), at(recorded, p)) << p;
  }
  EXPECT_NE(at(live, "/platform/tegra/l4t"), json(nullptr)) << "the recording has a release";

  // Pod against host: the host's release is the mounted nv_tegra_release.
  EXPECT_EQ(at(live, "/platform/container/detected"), true);
  EXPECT_EQ(at(live, "/platform/container/nv_tegra_release_from_host"), true);
  EXPECT_EQ(at(live, "/platform/container/host_l4t"), at(recorded, "/platform/tegra/l4t"));
  EXPECT_NE(at(live, "/platform/container/sign").get<std::string>().find("--host-root"),
            std::string::npos);
  EXPECT_TRUE(at(live, "/platform/container/l4t_check").is_object())
      << "the image-vs-host check runs on a pod's view";
}

// The requirements a gate judges on the mounted facts come out as on the recording.
TEST(HostRoot, AGatesVerdictOnTheMountedFactsIsTheRecordingsVerdict) {
  test::TempDir t;
  auto policy = t.write("ci/policy.json", R"({"schema_version": 1, "owner": "o", "cadence": "c",
    "evidence_retention_days": 9, "maximum_evidence_age_days": 9, "gates": [
    {"id": "orin-release", "requires": {"l4t": {"min": "36.4"}, "jetpack": {"min": "6.2"},
     "power_mode": "15W"}, "command": ["true"]},
    {"id": "old-release", "requires": {"l4t": {"max": "35"}}, "command": ["true"]}]})");
  std::string host = t.path("host");
  for (const char* gate : {"orin-release", "old-release"}) {
    auto pod =
        run_as_pod(t, host, {"run", gate, "--policy", policy, "--dry-run", "--host-root", host});
    if (!pod.skip.empty()) GTEST_SKIP() << pod.skip;
    auto rec = test::run_jetgate(
        {"run", gate, "--policy", policy, "--dry-run", "--root", recording_root()});
    EXPECT_EQ(pod.run.exit_code, rec.exit_code) << pod.run.out << pod.run.err << rec.out;
    EXPECT_NE(pod.run.out.find("mounted at " + host), std::string::npos) << pod.run.out;
    // Every requirement row but the header line is the same.
    auto rows = [](const std::string& out) {
      std::vector<std::string> r;
      std::stringstream ss(out);
      for (std::string line; std::getline(ss, line);)
        if (line.rfind("  ", 0) == 0) r.push_back(line);
      return r;
    };
    EXPECT_EQ(rows(pod.run.out), rows(rec.out)) << pod.run.out << "\n---\n" << rec.out;
    EXPECT_FALSE(rows(rec.out).empty()) << rec.out;
  }
}

// A host's file that links to /proc/self/... resolves, under the host root, to the
// mounted procfs's self: jetgate's own process. It is refused, never read as a fact:
// jetgate's environment (JETGATE_IMAGE here) once came out as the board's model.
TEST(HostRoot, ALinkIntoJetgatesOwnProcessIsRefused) {
  test::TempDir t;
  const std::string source = t.path("source");
  stdfs::create_directories(source);
  for (const char* d : {"etc", "sys", "var"})
    if (stdfs::is_directory(recording_root() + "/" + d))
      stdfs::copy(recording_root() + "/" + d, source + "/" + d,
                  stdfs::copy_options::recursive | stdfs::copy_options::copy_symlinks);
  const std::string base = source + "/sys/firmware/devicetree/base";
  stdfs::create_directories(base);
  stdfs::remove(base + "/model");
  stdfs::create_symlink("/proc/self/environ", base + "/model");
  stdfs::remove(base + "/compatible");
  stdfs::create_symlink("/proc/thread-self/cmdline", base + "/compatible");
  std::string host = t.path("host");
  auto pod = run_as_pod(t, host, {"probe", "--json", "--host-root", host}, source);
  if (!pod.skip.empty()) GTEST_SKIP() << pod.skip;
  ASSERT_EQ(pod.run.exit_code, 0) << pod.run.err;
  EXPECT_EQ(pod.run.out.find("JETGATE_IMAGE="), std::string::npos) << "environ read as a fact";
  EXPECT_EQ(pod.run.out.find(test::jetgate_binary()), std::string::npos) << "cmdline read";
  EXPECT_NE(pod.run.err.find("jetgate's own process"), std::string::npos) << pod.run.err;
  // The same names as plain files are read (a near miss: only the link is refused).
  stdfs::remove(base + "/model");
  std::ofstream(base + "/model")
      << "NVIDIA Jetson Orin Nano Engineering Reference Developer Kit Super";
  auto plain = run_as_pod(t, host, {"probe", "--json", "--host-root", host}, source);
  ASSERT_EQ(plain.run.exit_code, 0) << plain.run.err;
  EXPECT_NE(plain.run.out.find("Orin Nano Engineering Reference Developer Kit Super"),
            std::string::npos);
}

}  // namespace
}  // namespace jetgate
