// SPDX-License-Identifier: Apache-2.0
#include "jetgate/fs/host_root.hpp"

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/statfs.h>

#include <cerrno>
#include <cstring>

namespace jetgate::fs {
namespace {

// DIR without trailing slashes ("" for "/"), so that base + "/proc" is a path as written.
std::string base_of(const std::string& dir) {
  std::string d = dir;
  while (!d.empty() && d.back() == '/') d.pop_back();
  return d;
}

std::string under(const std::string& dir, const char* rel) {
  return base_of(dir) + rel;
}

// The f_type of the filesystem at path, or -errno.
long fs_type(const std::string& path) {
  struct statfs s {};
  if (::statfs(path.c_str(), &s) != 0) return -errno;
  return static_cast<long>(s.f_type);
}

bool is_dir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

Result<HostRootCheck> check_host_root(const std::string& dir, long proc_magic, long sys_magic) {
  if (dir.empty()) return make_error("empty directory", "--host-root", "give the host's mount");
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0)
    return make_error(std::string("cannot use the host mount: ") + std::strerror(errno), dir,
                      "mount the host's / (or its /etc, /proc, /sys and /lib/modules) there "
                      "read-only, as a hostPath volume");
  if (!S_ISDIR(st.st_mode))
    return make_error("not a directory", dir,
                      "--host-root takes the directory where the host's file system is mounted");
  struct stat side {};
  if (::lstat(under(dir, "/jetgate-root.json").c_str(), &side) == 0)
    return make_error("is a jetgate recording (it holds jetgate-root.json), not a live host mount",
                      dir, "read a recording with --root " + dir);
  HostRootCheck out;
  const std::string base = base_of(dir);
  long proc = fs_type(under(dir, "/proc"));
  if (proc != proc_magic)
    return make_error(
        proc < 0
            ? fmt::format("{}/proc cannot be read: {}", base,
                          std::strerror(static_cast<int>(-proc)))
            : fmt::format("{}/proc is not a procfs mount (statfs f_type {:#x}, procfs is {:#x}), "
                          "so the kernel facts would not be live",
                          base, proc, proc_magic),
        dir,
        "mount the host's /proc there (a hostPath volume of /proc, readOnly), or read a "
        "recording with --root");
  out.proc_is_procfs = true;
  long sys = fs_type(under(dir, "/sys"));
  out.sys_is_sysfs = sys == sys_magic;
  if (!out.sys_is_sysfs)
    out.problems.push_back(
        sys < 0 ? fmt::format("{}/sys cannot be read ({}): the SoC, clocks and module facts are "
                              "missing; mount the host's /sys there read-only",
                              base, std::strerror(static_cast<int>(-sys)))
                : fmt::format("{}/sys is not a sysfs mount (statfs f_type {:#x}): what is read "
                              "there (SoC, clocks, module taint) may not be live; mount the "
                              "host's /sys there read-only",
                              base, sys));
  if (!is_dir(under(dir, "/etc")))
    out.problems.push_back(fmt::format(
        "{}/etc is missing: the host's OS, L4T release (nv_tegra_release), nvpmodel and CDI "
        "specs are unknown; mount the host's /etc there read-only",
        base));
  if (!is_dir(under(dir, "/lib/modules")) && !is_dir(under(dir, "/usr/lib/modules")))
    out.problems.push_back(fmt::format(
        "{}/lib/modules is missing: where the GPU modules came from (provenance) is unknown; "
        "mount the host's /lib/modules there read-only",
        base));
  return out;
}

}  // namespace jetgate::fs
