// SPDX-License-Identifier: Apache-2.0
#include "jetgate/fs/root_fs.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace jetgate::fs {
namespace {

std::string relative(std::string_view path) {
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  return path.empty() ? std::string(".") : std::string(path);
}

NodeType type_of(mode_t m) {
  if (S_ISREG(m)) return NodeType::regular;
  if (S_ISDIR(m)) return NodeType::directory;
  if (S_ISCHR(m)) return NodeType::char_device;
  if (S_ISBLK(m)) return NodeType::block_device;
  if (S_ISFIFO(m)) return NodeType::fifo;
  if (S_ISSOCK(m)) return NodeType::socket;
  return NodeType::other;
}

// open_at's answer for a file of jetgate's own process (below): no errno says it.
constexpr int kOwnProcess = -1000000;

std::string open_error(int code) {
  if (code == kOwnProcess)
    return "leads into jetgate's own process (/proc/self, /proc/thread-self or its pid in the "
           "mounted procfs): a host's file that links there would report jetgate's own "
           "environment or memory as a fact of the host; not read";
  return std::strerror(-code);
}

// Whether fd, opened under a host or recorded root, is a procfs file of this very
// process. The mounted procfs may be another instance than ours (the host's pid
// namespace), where this process has another number: that instance's own "self"
// link says which. A link in the host's tree to /proc/self/environ resolves, under
// the root, to the mounted procfs's self: this process, whatever pid it has there.
bool is_own_process_file(int fd) {
  struct statfs sf {};
  if (::fstatfs(fd, &sf) != 0 || sf.f_type != PROC_SUPER_MAGIC) return false;
  char buf[4096];
  const std::string link = "/proc/self/fd/" + std::to_string(fd);
  ssize_t n = ::readlink(link.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return true;  // a procfs file whose place cannot be told: not read
  const std::string where(buf, static_cast<std::size_t>(n));
  // "/host/proc/4711/environ": for each numeric component, is it what the procfs
  // above it calls self (or, for a thread, thread-self's PID/task/TID)?
  std::size_t start = 1;
  while (start < where.size()) {
    std::size_t end = where.find('/', start);
    if (end == std::string::npos) end = where.size();
    const std::string part = where.substr(start, end - start);
    if (!part.empty() &&
        std::all_of(part.begin(), part.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      const std::string mount = where.substr(0, start - 1);
      for (const char* self : {"/self", "/thread-self"}) {
        char target[256];
        ssize_t m = ::readlink((mount + self).c_str(), target, sizeof target - 1);
        if (m <= 0) continue;
        const std::string t(target, static_cast<std::size_t>(m));
        // self: "4711"; thread-self: "4711/task/4712", whose thread also shows as a
        // hidden "4712" directory beside the processes.
        if (t.substr(t.rfind('/') + 1) == part) return true;
      }
    }
    start = end + 1;
  }
  return false;
}

struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
  return out.empty() ? "." : out;
}

void push_components(std::string_view path, std::vector<std::string>& pending) {
  // pending is a stack: the next component to resolve is at the back.
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    auto slash = path.find('/', start);
    auto part = path.substr(
        start, slash == std::string_view::npos ? std::string_view::npos : slash - start);
    if (!part.empty() && part != ".") parts.emplace_back(part);
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  pending.insert(pending.end(), parts.rbegin(), parts.rend());
}

}  // namespace

int open_in_root_portable(int root_fd, std::string_view path, int flags) {
  std::vector<std::string> resolved, pending;
  push_components(path, pending);
  int links = 0;
  while (!pending.empty()) {
    std::string part = std::move(pending.back());
    pending.pop_back();
    if (part == "..") {
      if (!resolved.empty()) resolved.pop_back();  // never above the root
      continue;
    }
    resolved.push_back(part);
    std::string here = join(resolved);
    struct stat st {};
    if (::fstatat(root_fd, here.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) return -errno;
    if (!S_ISLNK(st.st_mode)) continue;
    if (++links > 40) return -ELOOP;
    char target[4096];
    ssize_t n = ::readlinkat(root_fd, here.c_str(), target, sizeof target - 1);
    if (n < 0) return -errno;
    target[n] = '\0';
    resolved.pop_back();
    if (target[0] == '/') resolved.clear();  // absolute links restart at the root
    push_components(target, pending);
  }
  int fd = ::openat(root_fd, join(resolved).c_str(), flags | O_CLOEXEC | O_NOFOLLOW);
  return fd >= 0 ? fd : -errno;
}

const char* to_string(NodeType t) {
  switch (t) {
    case NodeType::missing:
      return "missing";
    case NodeType::regular:
      return "file";
    case NodeType::directory:
      return "directory";
    case NodeType::char_device:
      return "char";
    case NodeType::block_device:
      return "block";
    case NodeType::fifo:
      return "fifo";
    case NodeType::socket:
      return "socket";
    case NodeType::other:
      return "other";
  }
  return "other";
}

Result<RootFs> RootFs::open(const std::string& dir) {
  if (dir.empty()) return make_error("empty root directory", "--root", "give a directory");
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    std::string hint = e == ENOENT    ? "check the path"
                       : e == ENOTDIR ? "--root takes a directory holding a recorded machine"
                                      : "check its permissions";
    return make_error(std::string("cannot open root directory: ") + std::strerror(e), dir, hint);
  }
  auto shared = std::shared_ptr<int>(new int(fd), [](int* p) {
    ::close(*p);
    delete p;
  });
  struct stat st {};
  bool live = ::fstat(fd, &st) == 0 && [&] {
    struct stat rs {};
    return ::stat("/", &rs) == 0 && rs.st_dev == st.st_dev && rs.st_ino == st.st_ino;
  }();
  return RootFs(dir, std::move(shared), live);
}

int RootFs::open_at(std::string_view path, int flags) const {
  std::string rel = relative(path);
  if (!live_) {
    open_how how{};
    how.flags = static_cast<std::uint64_t>(flags | O_CLOEXEC);
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    long fd = ::syscall(SYS_openat2, *fd_, rel.c_str(), &how, sizeof how);
    if (fd < 0 && (errno == ENOSYS || errno == EPERM))
      // Kernels before 5.6 (and some seccomp profiles) lack openat2: resolve
      // the path ourselves so that links still cannot leave the root.
      fd = open_in_root_portable(*fd_, rel, flags);
    else if (fd < 0)
      return -errno;
    if (fd >= 0 && is_own_process_file(static_cast<int>(fd))) {
      ::close(static_cast<int>(fd));
      return kOwnProcess;
    }
    return static_cast<int>(fd);
  }
  int fd = ::openat(*fd_, rel.c_str(), flags | O_CLOEXEC);
  return fd >= 0 ? fd : -errno;
}

std::string RootFs::display(std::string_view path) const {
  std::string p(path);
  if (p.empty() || p.front() != '/') p.insert(p.begin(), '/');
  if (live_) return p;
  std::string r = root_;
  while (r.size() > 1 && r.back() == '/') r.pop_back();
  return r + p;
}

Result<std::string> RootFs::read(std::string_view path, std::size_t max_bytes) const {
  std::string out;
  if (auto st = read_into(path, out, max_bytes); !st) return st.error();
  return out;
}

Status RootFs::read_into(std::string_view path, std::string& out, std::size_t max_bytes) const {
  note(path);
  // O_NONBLOCK: opening a FIFO must not wait for a writer.
  int fd = open_at(path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return make_error(open_error(fd), display(path));
  FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return make_error(std::strerror(errno), display(path));
  if (!S_ISREG(st.st_mode))
    return make_error(std::string("not a regular file (") + to_string(type_of(st.st_mode)) + ")",
                      display(path));
  // Read straight into the result, sized by what fstat says (one byte more, to
  // see the end); files that do not know their size (procfs, sysfs) grow it.
  constexpr std::size_t kChunk = 16384;
  const std::size_t limit = max_bytes == SIZE_MAX ? max_bytes : max_bytes + 1;
  std::size_t size_hint = st.st_size > 0 ? static_cast<std::size_t>(st.st_size) : 0;
  out.resize(std::min(size_hint < kChunk ? kChunk : size_hint + 1, limit));
  std::size_t have = 0;
  for (;;) {
    if (have == out.size()) out.resize(std::min(out.size() + std::max(out.size(), kChunk), limit));
    ssize_t n = ::read(fd, out.data() + have, out.size() - have);
    if (n < 0) {
      if (errno == EINTR) continue;
      return make_error(std::strerror(errno), display(path));
    }
    if (n == 0) break;
    have += static_cast<std::size_t>(n);
    if (have > max_bytes)
      return make_error("larger than " + std::to_string(max_bytes) + " bytes; not read",
                        display(path), "is this the right file?");
  }
  out.resize(have);
  return Ok{};
}

NodeInfo RootFs::stat(std::string_view path) const {
  note(path);
  NodeInfo info;
  int fd = open_at(path, O_PATH);
  if (fd < 0) return info;
  FdCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return info;
  info.type = type_of(st.st_mode);
  info.mode = st.st_mode & 07777;
  info.major = ::major(st.st_rdev);
  info.minor = ::minor(st.st_rdev);
  info.uid = st.st_uid;
  info.gid = st.st_gid;
  info.size = st.st_size;
  return info;
}

bool RootFs::is_link(std::string_view path) const {
  note(path);
  // The directory is resolved under the root, the last name looked at without following
  // it: O_NOFOLLOW on the whole path is not honoured by every resolver (the portable one
  // used where openat2 is missing, as under qemu-user, follows the last link).
  std::string p(path);
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  const auto slash = p.rfind('/');
  const std::string dir = slash == std::string::npos || slash == 0 ? "/" : p.substr(0, slash);
  const std::string name = slash == std::string::npos ? p : p.substr(slash + 1);
  if (name.empty() || name == "." || name == "..") return false;
  int fd = open_at(dir, O_PATH | O_DIRECTORY);
  if (fd < 0) return false;
  FdCloser closer{fd};
  struct stat st {};
  return ::fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
}

int RootFs::open_rw_errno(std::string_view path) const {
  note(path);
  int fd = open_at(path, O_RDWR | O_NONBLOCK | O_NOCTTY);
  if (fd == kOwnProcess) return EACCES;
  if (fd < 0) return -fd;
  ::close(fd);
  return 0;
}

Result<std::vector<std::string>> RootFs::list(std::string_view dir) const {
  note(dir);
  int fd = open_at(dir, O_RDONLY | O_DIRECTORY);
  if (fd < 0) return make_error(open_error(fd), display(dir));
  DIR* d = ::fdopendir(fd);
  if (d == nullptr) {
    ::close(fd);
    return make_error(std::strerror(errno), display(dir));
  }
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    if (n == "." || n == "..") continue;
    names.emplace_back(n);
    if (names.size() > 100000) break;  // a runaway directory is not a fact source
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace jetgate::fs
