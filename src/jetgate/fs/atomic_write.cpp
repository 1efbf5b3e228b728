// SPDX-License-Identifier: Apache-2.0
#include "jetgate/fs/atomic_write.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include "jetgate/core/utf8.hpp"
#include "jetgate/fs/random_name.hpp"

namespace jetgate::fs {
namespace {

Error os_error(const std::string& what, const std::string& where) {
  return make_error(fmt::format("{}: {}", what, std::strerror(errno)), to_valid_utf8(where),
                    "check that the directory exists, is writable and the disk is not full");
}

const char* output_kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

// What sits at DIR/NAME may be replaced: nothing, a regular file, or a link
// to a regular file or to nothing. A device, FIFO, socket or directory (or a
// link to one, like /dev/stdout) is refused: renaming over it would destroy
// it (as root, /dev/null would become a file).
Status check_replaceable(int dir_fd, const std::string& name, const std::string& target) {
  struct stat st {};
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return Ok{};
    return os_error("cannot check the output file", target);
  }
  if (S_ISREG(st.st_mode)) return Ok{};
  std::string what = output_kind(st.st_mode);
  if (S_ISLNK(st.st_mode)) {
    struct stat to {};
    if (::fstatat(dir_fd, name.c_str(), &to, 0) != 0 || S_ISREG(to.st_mode)) return Ok{};
    what = std::string("a symbolic link to ") + output_kind(to.st_mode);
  }
  return make_error(fmt::format("the output is {}; jetgate replaces only regular files", what),
                    to_valid_utf8(target), "name a regular file (or a new one) for the output");
}

}  // namespace

Result<DirHandle> DirHandle::open(const std::string& path) {
  DirHandle d;
  d.path_ = path;
  d.fd_ = ::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d.fd_ < 0) return os_error("cannot open directory", path);
  return d;
}

DirHandle::DirHandle(DirHandle&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), path_(std::move(o.path_)) {}

DirHandle& DirHandle::operator=(DirHandle&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
    path_ = std::move(o.path_);
  }
  return *this;
}

DirHandle::~DirHandle() {
  if (fd_ >= 0) ::close(fd_);
}

std::string DirHandle::shown(const std::string& name) const {
  return (std::filesystem::path(path_) / name).string();
}

Status DirHandle::remove(const std::string& name) const {
  if (::unlinkat(fd_, name.c_str(), 0) != 0 && errno != ENOENT)
    return os_error("cannot remove", shown(name));
  return Ok{};
}

namespace {

Result<PreparedOutput> open_output(const std::string& path) {
  std::filesystem::path p(path);
  const std::string name = p.filename().string();
  const std::string dir = p.parent_path().empty() ? std::string(".") : p.parent_path().string();
  if (name.empty() || name == "." || name == "..")
    return make_error("the output names a directory, not a file", to_valid_utf8(path),
                      "name a file for the output");
  auto handle = DirHandle::open(dir);
  if (!handle) return os_error("cannot open the output's directory", dir);
  if (auto st = check_replaceable(handle->fd(), name, path); !st) return st.error();
  if (::faccessat(handle->fd(), ".", W_OK, AT_EACCESS) != 0)
    return os_error("cannot write into the output's directory", dir);
  return PreparedOutput{std::move(*handle), name, path};
}

}  // namespace

Status check_output_path(const std::string& path) {
  auto out = open_output(path);
  if (!out) return out.error();
  return Ok{};
}

Result<PreparedOutput> prepare_output(const std::string& path) {
  return open_output(path);
}

Result<std::string> write_prepared(const PreparedOutput& out, std::string_view contents) {
  auto file = AtomicFile::create(out.dir, out.name);
  if (!file) return file.error();
  if (auto st = file->write(contents); !st) return st.error();
  if (auto done = file->commit(); !done) return done.error();
  return out.path;
}

Result<AtomicFile> AtomicFile::create(const std::string& dir, const std::string& name) {
  auto handle = DirHandle::open(dir);
  if (!handle) return handle.error();
  return create(*handle, name);
}

Result<AtomicFile> AtomicFile::create(const DirHandle& dir, const std::string& name) {
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
    return make_error("invalid file name \"" + to_valid_utf8(name) + "\"",
                      to_valid_utf8(dir.path()));
  AtomicFile f;
  f.dir_ = dir.path();
  f.name_ = name;
  f.target_ = dir.shown(name);
  f.dir_fd_ = ::fcntl(dir.fd(), F_DUPFD_CLOEXEC, 0);
  if (f.dir_fd_ < 0) return os_error("cannot open directory", dir.path());
  if (auto st = check_replaceable(f.dir_fd_, name, f.target_); !st) return st.error();
  // O_EXCL: no two writers ever share a temporary file.
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string tmp = fmt::format(".{}.{}.{}.tmp", name, ::getpid(), random_hex(16));
    int fd = ::openat(f.dir_fd_, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                      0644);
    if (fd >= 0) {
      f.fd_ = fd;
      f.tmp_ = std::move(tmp);
      return f;
    }
    if (errno != EEXIST) return os_error("cannot create a temporary file", dir.path());
  }
  return make_error("cannot find a free temporary file name", to_valid_utf8(dir.path()),
                    "remove stale .*.tmp files from the directory");
}

AtomicFile::AtomicFile(AtomicFile&& o) noexcept
    : dir_fd_(std::exchange(o.dir_fd_, -1)),
      fd_(std::exchange(o.fd_, -1)),
      dir_(std::move(o.dir_)),
      name_(std::move(o.name_)),
      tmp_(std::exchange(o.tmp_, {})),
      target_(std::move(o.target_)) {}

AtomicFile::~AtomicFile() {
  discard();
  if (dir_fd_ >= 0) ::close(dir_fd_);
}

void AtomicFile::discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!tmp_.empty() && dir_fd_ >= 0) ::unlinkat(dir_fd_, tmp_.c_str(), 0);
  tmp_.clear();
}

Status AtomicFile::write(std::string_view data) {
  if (fd_ < 0) return make_error("the file is already closed", to_valid_utf8(target_));
  while (!data.empty()) {
    ssize_t n = ::write(fd_, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return os_error("cannot write", target_);
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return Ok{};
}

Result<std::string> AtomicFile::commit() {
  if (fd_ < 0) return make_error("the file is already closed", to_valid_utf8(target_));
  if (::fsync(fd_) != 0) {
    auto err = os_error("cannot fsync", target_);
    discard();
    return err;
  }
  ::close(fd_);
  fd_ = -1;
  // Again just before the rename: something may have been put there meanwhile.
  if (auto st = check_replaceable(dir_fd_, name_, target_); !st) {
    discard();
    return st.error();
  }
  if (::renameat(dir_fd_, tmp_.c_str(), dir_fd_, name_.c_str()) != 0) {
    auto err = os_error("cannot rename the temporary file into place", target_);
    discard();
    return err;
  }
  tmp_.clear();
  // Without this the rename may be lost on power failure even though the
  // data blocks were flushed.
  if (::fsync(dir_fd_) != 0) return os_error("cannot fsync directory", dir_);
  return target_;
}

Result<std::string> write_file_atomically(const std::string& dir, const std::string& name,
                                          std::string_view contents) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return make_error("cannot create directory: " + ec.message(), to_valid_utf8(dir),
                      "choose a writable --evidence-dir");
  auto handle = DirHandle::open(dir);
  if (!handle) return handle.error();
  return write_file_atomically(*handle, name, contents);
}

Result<std::string> write_file_atomically(const DirHandle& dir, const std::string& name,
                                          std::string_view contents) {
  auto file = AtomicFile::create(dir, name);
  if (!file) return file.error();
  if (auto st = file->write(contents); !st) return st.error();
  return file->commit();
}

}  // namespace jetgate::fs
