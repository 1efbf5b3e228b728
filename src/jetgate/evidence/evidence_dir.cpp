// SPDX-License-Identifier: Apache-2.0
#include "jetgate/evidence/evidence_dir.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "jetgate/core/utf8.hpp"
#include "jetgate/evidence/gate_id.hpp"

namespace jetgate::evidence {
namespace {

constexpr const char* kDirHint =
    "pass --evidence-dir a writable directory (or a new one inside an existing directory)";

std::string read_holder_pid(int fd) {
  char buf[32] = {};
  ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  std::string pid = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : "";
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.find_first_not_of("0123456789") == std::string::npos && !pid.empty() ? pid : "unknown";
}

}  // namespace

Status prepare_evidence_dir(const std::string& dir) {
  if (dir.empty())
    return make_error("the evidence directory is an empty path", "--evidence-dir", kDirHint);
  const std::string shown = to_valid_utf8(dir);
  struct stat st {};
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) return make_error("exists but is not a directory", shown, kDirHint);
    return Ok{};
  }
  if (errno != ENOENT)
    return make_error(fmt::format("cannot use it: {}", std::strerror(errno)), shown, kDirHint);
  std::filesystem::path p = std::filesystem::path(dir).lexically_normal();
  if (!p.has_filename()) p = p.parent_path();  // "ev/" names ev
  std::filesystem::path parent = p.parent_path();
  if (parent.empty()) parent = ".";
  struct stat pst {};
  if (::stat(parent.c_str(), &pst) != 0 || !S_ISDIR(pst.st_mode))
    return make_error(
        fmt::format("its parent directory {} does not exist", to_valid_utf8(parent.string())),
        shown, kDirHint);
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST)
    return make_error(fmt::format("cannot create it: {}", std::strerror(errno)), shown, kDirHint);
  return Ok{};
}

Result<RunLock> RunLock::acquire(const std::string& dir, const std::string& gate) {
  if (auto st = validate_gate_id(gate, "gate"); !st) return st.error();
  return lock_file(dir, "." + gate + ".lock",
                   fmt::format("another `jetgate run {}` (pid {{}}) is running and will write this "
                               "gate's evidence",
                               gate));
}

Result<RunLock> RunLock::acquire_report(const std::string& report_path) {
  std::filesystem::path report(report_path);
  std::error_code ec;
  std::filesystem::create_directories(report.parent_path(), ec);
  const std::string dir = report.parent_path().empty() ? "." : report.parent_path().string();
  return lock_file(
      dir, "." + report.filename().string() + ".jetgate.lock",
      "another `jetgate run` (pid {}) is running a command that writes this JUnit report; "
      "two runs would read each other's report");
}

Result<RunLock> RunLock::lock_file(const std::string& dir, const std::string& name,
                                   const std::string& held_by) {
  RunLock lock;
  lock.path_ = (std::filesystem::path(dir) / name).string();
  lock.name_ = name;
  const std::string shown = to_valid_utf8(lock.path_);
  // Held open from now on: the lock file is made and, when the run is over,
  // removed in this directory, even if the gate's command has since moved it
  // and left a link to another in its place.
  lock.dir_fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (lock.dir_fd_ < 0)
    return make_error(fmt::format("cannot open the directory: {}", std::strerror(errno)), shown,
                      kDirHint);
  // A holder removes the file as it lets go (~RunLock). A process that opened it before
  // then locks a file no longer at the path, so after locking, the path must still name
  // the very file locked; if not, open again. A few rounds at most: each needs another
  // process to finish a run in between.
  for (int attempt = 0;; ++attempt) {
    // O_NOFOLLOW: a planted link must not make jetgate create or lock another file.
    lock.fd_ =
        ::openat(lock.dir_fd_, name.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (lock.fd_ < 0)
      return make_error(fmt::format("cannot create the lock file: {}", std::strerror(errno)), shown,
                        kDirHint);
    if (::flock(lock.fd_, LOCK_EX | LOCK_NB) != 0) {
      const int err = errno;
      // Not held: closed here, so ~RunLock does not remove the holder's file.
      const std::string holder = err == EWOULDBLOCK ? read_holder_pid(lock.fd_) : "";
      ::close(std::exchange(lock.fd_, -1));
      if (err == EWOULDBLOCK) {
        std::string what = held_by;
        if (auto at = what.find("{}"); at != std::string::npos) what.replace(at, 2, holder);
        return make_error(what, shown,
                          "wait for it to finish, or stop it; then run the gate again");
      }
      return make_error(fmt::format("cannot lock: {}", std::strerror(err)), shown, kDirHint);
    }
    struct stat held {
    }, named{};
    if (::fstat(lock.fd_, &held) == 0 &&
        ::fstatat(lock.dir_fd_, name.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
        held.st_dev == named.st_dev && held.st_ino == named.st_ino)
      break;
    ::close(std::exchange(lock.fd_, -1));
    if (attempt == 100)
      return make_error("the lock file keeps being replaced while jetgate locks it", shown,
                        "another process is removing or replacing it; stop it and run again");
  }
  std::string pid = fmt::format("{}\n", ::getpid());
  if (::ftruncate(lock.fd_, 0) != 0 || ::pwrite(lock.fd_, pid.data(), pid.size(), 0) < 0)
    return make_error(fmt::format("cannot write the lock file: {}", std::strerror(errno)), shown,
                      kDirHint);
  return lock;
}

RunLock::RunLock(RunLock&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)),
      dir_fd_(std::exchange(o.dir_fd_, -1)),
      path_(std::move(o.path_)),
      name_(std::move(o.name_)) {}

RunLock::~RunLock() {
  if (fd_ >= 0) {
    // Removed while still held, so nothing is left behind in the user's folders; a
    // waiting process sees the path gone or replaced and opens it again (lock_file).
    // Only the file locked: never another that was put at its name meanwhile.
    struct stat held {
    }, named{};
    if (::fstat(fd_, &held) == 0 &&
        ::fstatat(dir_fd_, name_.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
        held.st_dev == named.st_dev && held.st_ino == named.st_ino)
      ::unlinkat(dir_fd_, name_.c_str(), 0);
    ::close(fd_);
  }
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

}  // namespace jetgate::evidence
