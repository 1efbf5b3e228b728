// SPDX-License-Identifier: Apache-2.0
#include "jetgate/fs/write_in_place.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <utility>

#include "jetgate/fs/random_name.hpp"

namespace jetgate::fs {
namespace {

std::string why(int err) {
  return std::strerror(err);
}

struct Fd {
  int fd = -1;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  int release() { return std::exchange(fd, -1); }
};

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

// The regular file `path` names, its symbolic links resolved; an Error when
// there is none. Links are followed wherever they point: the user made them.
Result<std::string> resolve(const std::string& path) {
  std::unique_ptr<char, decltype(&std::free)> real(::realpath(path.c_str(), nullptr), &std::free);
  if (!real) {
    int err = errno;
    struct stat st {};
    if (err == ENOENT && ::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
      return make_error("is a symbolic link to a file that does not exist", path,
                        "fix or remove the link");
    if (err == ELOOP) return make_error("is a loop of symbolic links", path, "fix the link");
    return make_error("cannot open: " + why(err), path, "check the path");
  }
  return std::string(real.get());
}

Result<std::string> read_all(int fd, const std::string& where, std::size_t max_bytes) {
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::pread(fd, buf, sizeof buf, static_cast<off_t>(out.size()));
    if (n < 0) {
      if (errno == EINTR) continue;
      return make_error("cannot read: " + why(errno), where);
    }
    if (n == 0) return out;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > max_bytes)
      return make_error(fmt::format("is larger than {} bytes", max_bytes), where,
                        "is this the right file? jetgate edits README files, not data");
  }
}

Status write_all(int fd, std::string_view data, const std::string& where) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return make_error("cannot write: " + why(errno), where);
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return Ok{};
}

// The termination signals a user or CI sends; held back while the file is
// being overwritten so that Ctrl-C cannot stop it halfway. They are delivered
// (and act as usual) as soon as the file is whole again.
class HeldSignals {
 public:
  HeldSignals() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) sigaddset(&set, s);
    pthread_sigmask(SIG_BLOCK, &set, &old_);
  }
  HeldSignals(const HeldSignals&) = delete;
  HeldSignals& operator=(const HeldSignals&) = delete;
  ~HeldSignals() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }

 private:
  sigset_t old_{};
};

struct RecoveryCopy {
  int dir_fd = -1;
  std::string name;  // inside the target's directory
  std::string path;  // for messages
  void remove() const { ::unlinkat(dir_fd, name.c_str(), 0); }
};

Result<RecoveryCopy> write_recovery_copy(int dir_fd, const std::string& dir,
                                         const std::string& file_name, std::string_view contents) {
  RecoveryCopy copy{dir_fd, {}, {}};
  for (int attempt = 0; attempt < 16 && copy.name.empty(); ++attempt) {
    std::string name =
        fmt::format("{}{}-{}.new", recovery_copy_prefix(file_name), ::getpid(), random_hex(12));
    int fd =
        ::openat(dir_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0 && errno == EEXIST) continue;
    if (fd < 0)
      return make_error(
          "cannot create a recovery copy next to the file: " + why(errno), dir,
          "jetgate writes the complete new file there first, so that an interrupted write never "
          "loses it; make the directory writable");
    Fd file(fd);
    copy.name = name;
    copy.path = (std::filesystem::path(dir) / name).string();
    auto written = write_all(file.fd, contents, copy.path);
    if (written && ::fsync(file.fd) != 0)
      written = make_error("cannot fsync: " + why(errno), copy.path);
    if (!written) {
      copy.remove();
      return make_error(written.error().what + " (the file was left unchanged)", copy.path,
                        "check that the disk is not full");
    }
  }
  if (copy.name.empty()) return make_error("cannot find a free name for the recovery copy", dir);
  // The copy's name must survive a power cut as well as its data.
  ::fsync(dir_fd);
  return copy;
}

}  // namespace

InPlaceWriteOps InPlaceWriteOps::system() {
  return {&::pwrite, &::fsync};
}

std::string recovery_copy_prefix(std::string_view file_name) {
  return "." + std::string(file_name) + ".jetgate-";
}

Result<InPlaceFile> InPlaceFile::open(const std::string& path, std::size_t max_bytes) {
  if (path.empty())
    return make_error("no file named (the path is empty)", "", "name the file to edit");
  auto target = resolve(path);
  if (!target) return target.error();
  // Messages name the path as the user gave it, and where a link led.
  std::string where = path;
  std::error_code ec;
  if (*target != std::filesystem::absolute(path, ec).lexically_normal().string())
    where = fmt::format("{} (-> {})", path, *target);
  struct stat st {};
  if (::stat(target->c_str(), &st) != 0) return make_error("cannot stat: " + why(errno), where);
  if (!S_ISREG(st.st_mode))
    return make_error(fmt::format("is {}", kind_of(st.st_mode)), where, "name a regular file");
  if ((st.st_mode & 0222) == 0)
    return make_error(
        fmt::format("is read-only (mode {:04o})", st.st_mode & 07777), where,
        "make it writable (chmod u+w) if jetgate should update it; --verify only reads it");
  int raw = ::open(target->c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (raw < 0) {
    int err = errno;
    if (err == EACCES || err == EPERM)
      return make_error("is not writable by this user: " + why(err), where,
                        "run as a user who may write it, or use --verify, which only reads it");
    if (err == EROFS)
      return make_error("is on a read-only file system", where,
                        "use --verify, which only reads it");
    return make_error("cannot open for writing: " + why(err), where);
  }
  Fd fd(raw);
  struct stat opened {};
  if (::fstat(fd.fd, &opened) != 0 || opened.st_dev != st.st_dev || opened.st_ino != st.st_ino ||
      !S_ISREG(opened.st_mode))
    return make_error("changed while it was being opened", where, "run the command again");
  if (::flock(fd.fd, LOCK_EX | LOCK_NB) != 0)
    return make_error("is locked by another process (another jetgate writing it?)", where,
                      "wait for it to finish and run the command again");
  auto contents = read_all(fd.fd, where, max_bytes);
  if (!contents) return contents.error();
  return InPlaceFile(where, *target, fd.release(), std::move(*contents));
}

InPlaceFile::InPlaceFile(InPlaceFile&& other) noexcept
    : path_(std::move(other.path_)),
      target_(std::move(other.target_)),
      fd_(std::exchange(other.fd_, -1)),
      contents_(std::move(other.contents_)) {}

InPlaceFile::~InPlaceFile() {
  if (fd_ >= 0) ::close(fd_);
}

Status InPlaceFile::overwrite(std::string_view data, const InPlaceWriteOps& ops) const {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ops.pwrite(fd_, data.data() + done, data.size() - done, static_cast<off_t>(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return make_error("cannot write: " + why(n < 0 ? errno : EIO), path_);
    done += static_cast<std::size_t>(n);
  }
  if (::ftruncate(fd_, static_cast<off_t>(data.size())) != 0)
    return make_error("cannot truncate: " + why(errno), path_);
  if (ops.fsync(fd_) != 0) return make_error("cannot fsync: " + why(errno), path_);
  return Ok{};
}

Status InPlaceFile::replace(std::string_view new_contents, const InPlaceWriteOps& ops) {
  if (new_contents == contents_) return Ok{};
  std::filesystem::path target(target_);
  std::string dir = target.parent_path().string(), name = target.filename().string();
  Fd dir_fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir_fd.fd < 0) return make_error("cannot open the directory: " + why(errno), dir);
  auto copy = write_recovery_copy(dir_fd.fd, dir, name, new_contents);
  if (!copy) return copy.error();

  // Reserve the blocks first (without changing the size), so a full disk is
  // found before the first byte of the file changes.
  if (new_contents.size() > contents_.size() &&
      ::fallocate(fd_, FALLOC_FL_KEEP_SIZE, 0, static_cast<off_t>(new_contents.size())) != 0 &&
      errno != EOPNOTSUPP && errno != ENOSYS && errno != EINVAL) {
    int err = errno;
    copy->remove();
    return make_error(
        "not enough space to rewrite it: " + why(err) + " (the file was left unchanged)", path_,
        "free some disk space and run the command again");
  }
  Status written = Ok{};
  Status restored = Ok{};
  {
    HeldSignals held;
    written = overwrite(new_contents, ops);
    if (!written) restored = overwrite(contents_, ops);
  }
  if (written) {
    copy->remove();
    contents_ = std::string(new_contents);
    return Ok{};
  }
  if (restored) {
    copy->remove();
    return make_error(
        written.error().what + "; its old contents were written back, nothing changed", path_,
        "check that the disk is not full and run the command again");
  }
  return make_error(
      written.error().what + "; writing the old contents back failed too (" +
          restored.error().what + "), so the file may be incomplete",
      path_,
      fmt::format(
          "the complete new file is in {}: copy it over the file (cat COPY > FILE keeps its "
          "links, owner and mode), then delete the copy",
          copy->path));
}

}  // namespace jetgate::fs
