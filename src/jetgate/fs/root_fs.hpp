// SPDX-License-Identifier: Apache-2.0
// One root-relative opener for every file jetgate reads (as hwloc's
// HWLOC_FSROOT): the live machine is RootFs("/"), a recorded machine is
// RootFs("tests/fixtures/agx-orin-jp6/root"). Reads are capped and refuse
// anything that is not a regular file, so a FIFO, a device node or a huge file
// can never hang or exhaust jetgate. On recorded roots, absolute symbolic links
// resolve inside the root (openat2 RESOLVE_IN_ROOT), never on the host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "jetgate/core/result.hpp"

namespace jetgate::fs {

enum class NodeType { missing, regular, directory, char_device, block_device, fifo, socket, other };

const char* to_string(NodeType t);

struct NodeInfo {
  NodeType type = NodeType::missing;
  unsigned mode = 0;  // permission bits, e.g. 0666
  unsigned major = 0, minor = 0;
  unsigned uid = 0, gid = 0;
  std::int64_t size = 0;
  bool present() const { return type != NodeType::missing; }
};

inline constexpr std::size_t kDefaultMaxBytes = 1u << 20;  // 1 MiB

// Opens path under the directory root_fd as openat2(RESOLVE_IN_ROOT) does,
// for kernels without openat2: one component at a time, ".." stops at the
// root and absolute symbolic links restart there. Returns an fd or -errno.
int open_in_root_portable(int root_fd, std::string_view path, int flags);

class RootFs {
 public:
  // Opens DIR as the root. Fails (an Error naming DIR) when it is missing, not
  // a directory or unreadable: callers exit 2 then.
  static Result<RootFs> open(const std::string& dir);

  bool is_live() const { return live_; }
  const std::string& root() const { return root_; }

  // The contents of a regular file, at most max_bytes. An Error names the path
  // as the user sees it when the file is missing, unreadable, not a regular
  // file, or larger than max_bytes.
  Result<std::string> read(std::string_view path, std::size_t max_bytes = kDefaultMaxBytes) const;
  // read() into out, reusing its storage (a reader of many files keeps one
  // buffer instead of allocating one per file); out is unspecified on an error.
  Status read_into(std::string_view path, std::string& out,
                   std::size_t max_bytes = kDefaultMaxBytes) const;

  // What is at path (following symbolic links inside the root); type
  // NodeType::missing when nothing is there or it cannot be reached.
  NodeInfo stat(std::string_view path) const;
  bool exists(std::string_view path) const { return stat(path).present(); }
  // Whether path itself (its last name not followed) is a symbolic link.
  bool is_link(std::string_view path) const;

  // Whether this process can open the node at path for reading and writing:
  // 0 when open(O_RDWR | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) succeeded (the fd is
  // closed at once), else the errno (EACCES: the permission bits, EPERM: a device
  // cgroup or LSM, ENXIO/ENODEV: no driver behind the node). Only what CUDA does
  // when it opens the node; never call it on a recording's files.
  int open_rw_errno(std::string_view path) const;

  // Names in a directory, sorted, without "." and "..".
  Result<std::vector<std::string>> list(std::string_view dir) const;

  // The path as the user should see it in a message: "/etc/os-release" on the
  // live machine, "ROOT/etc/os-release" for a recorded root.
  std::string display(std::string_view path) const;

  // From now on, append every path read, stat'ed or listed to `log` (tests
  // use it to check that the recorder captures every file the readers open).
  void log_accesses(std::shared_ptr<std::vector<std::string>> log) { access_log_ = std::move(log); }

 private:
  RootFs(std::string root, std::shared_ptr<int> fd, bool live)
      : root_(std::move(root)), fd_(std::move(fd)), live_(live) {}
  // An fd for path opened with flags, or -errno.
  int open_at(std::string_view path, int flags) const;

  void note(std::string_view path) const {
    if (access_log_) access_log_->emplace_back(path);
  }

  std::string root_;
  std::shared_ptr<int> fd_;
  bool live_ = false;
  std::shared_ptr<std::vector<std::string>> access_log_;
};

}  // namespace jetgate::fs
