// SPDX-License-Identifier: Apache-2.0
// Evidence files are read by `check` and `support` while other gates may be
// writing into the same directory, and a CI job can be killed at any moment.
// So a file is never written in place: a uniquely named temporary file in the
// same directory is written, fsync'd and renamed over the target (atomic on
// POSIX), then the directory is fsync'd so the rename survives a power cut.
// The rename replaces a regular file or a symbolic link (nothing is ever
// written through a link); it never replaces a device, FIFO, socket or
// directory, or a link to one (/dev/stdout, /dev/null as root): create() and
// commit() refuse those.
#pragma once

#include <string>
#include <string_view>

#include "jetgate/core/result.hpp"

namespace jetgate::fs {

// A file being written: ".NAME.<pid>.<random>.tmp" in DIR (hidden and not
// ending in .json, so readers globbing *.json never see it) until commit()
// renames it to DIR/NAME. Destroyed without commit(), it removes itself.
class AtomicFile {
 public:
  // DIR must exist.
  static Result<AtomicFile> create(const std::string& dir, const std::string& name);
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  Status write(std::string_view data);
  // fsync, rename into place, fsync DIR; returns DIR/NAME.
  Result<std::string> commit();
  const std::string& target() const { return target_; }

 private:
  AtomicFile() = default;
  void discard();
  int dir_fd_ = -1, fd_ = -1;
  std::string dir_, name_, tmp_, target_;
};

// Whether PATH can be an output: its directory is writable and what sits at
// PATH is replaceable (above). Outputs are checked with it before a gate runs.
Status check_output_path(const std::string& path);

// Writes DIR/NAME atomically (DIR is created when missing). Returns the full
// path written.
Result<std::string> write_file_atomically(const std::string& dir, const std::string& name,
                                          std::string_view contents);

}  // namespace jetgate::fs
