#include "jetgate/evidence/atomic_write.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <random>

#include <fmt/format.h>

namespace jetgate::evidence {
namespace {

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

Error os_error(const std::string& what, const std::string& where) {
  return make_error(fmt::format("{}: {}", what, std::strerror(errno)), where,
                    "check that the directory exists, is writable and the disk is not full");
}

Status write_all(int fd, std::string_view data, const std::string& where) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return os_error("cannot write", where);
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return Ok{};
}

std::string random_suffix() {
  thread_local std::mt19937_64 gen{std::random_device{}()};
  return fmt::format("{:016x}", gen());
}

// Opens a fresh temporary file; O_EXCL guarantees no two writers share one.
Result<std::string> create_temp(int dir_fd, const std::string& dir, const std::string& name,
                                int* out_fd) {
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string tmp = fmt::format(".{}.{}.{}.tmp", name, ::getpid(), random_suffix());
    int fd = ::openat(dir_fd, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      *out_fd = fd;
      return tmp;
    }
    if (errno != EEXIST) return os_error("cannot create a temporary file", dir);
  }
  return make_error("cannot find a free temporary file name", dir,
                    "remove stale .*.tmp files from the directory");
}

}  // namespace

Result<std::string> write_file_atomically(const std::string& dir, const std::string& name,
                                          std::string_view contents) {
  std::string target = (std::filesystem::path(dir) / name).string();
  if (name.empty() || name.find('/') != std::string::npos || name == "." || name == "..")
    return make_error("invalid file name \"" + name + "\"", dir);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec)
    return make_error("cannot create directory: " + ec.message(), dir,
                      "choose a writable --evidence-dir");
  Fd dir_fd{::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)};
  if (dir_fd.fd < 0) return os_error("cannot open directory", dir);

  int raw_fd = -1;
  auto tmp = create_temp(dir_fd.fd, dir, name, &raw_fd);
  if (!tmp) return tmp.error();
  Fd file{raw_fd};
  auto cleanup = [&] { ::unlinkat(dir_fd.fd, tmp->c_str(), 0); };

  if (auto st = write_all(file.fd, contents, target); !st) {
    cleanup();
    return st.error();
  }
  if (::fsync(file.fd) != 0) {
    auto err = os_error("cannot fsync", target);
    cleanup();
    return err;
  }
  ::close(file.fd);
  file.fd = -1;
  if (::renameat(dir_fd.fd, tmp->c_str(), dir_fd.fd, name.c_str()) != 0) {
    auto err = os_error("cannot rename the temporary file into place", target);
    cleanup();
    return err;
  }
  // Without this the rename may be lost on power failure even though the
  // data blocks were flushed.
  if (::fsync(dir_fd.fd) != 0) return os_error("cannot fsync directory", dir);
  return target;
}

}  // namespace jetgate::evidence
