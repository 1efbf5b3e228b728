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

// A directory held open: what is written through it lands in the directory
// that was opened, whatever its path names later. `run` opens its output
// directories before the gate's command starts, so the command (untrusted
// code) cannot move them and put a link in their place to make jetgate
// write somewhere else (as root, into a directory the command cannot write).
class DirHandle {
 public:
  // PATH must name a directory (a link to one is followed, now).
  static Result<DirHandle> open(const std::string& path);
  DirHandle(DirHandle&& other) noexcept;
  DirHandle& operator=(DirHandle&& other) noexcept;
  DirHandle(const DirHandle&) = delete;
  DirHandle& operator=(const DirHandle&) = delete;
  ~DirHandle();

  int fd() const { return fd_; }
  // The path it was opened by, for messages.
  const std::string& path() const { return path_; }
  // DIR/NAME as messages show it.
  std::string shown(const std::string& name) const;
  // Removes NAME (a file) from the directory; a missing one is no error.
  Status remove(const std::string& name) const;

 private:
  DirHandle() = default;
  int fd_ = -1;
  std::string path_;
};

// A file being written: ".NAME.<pid>.<random>.tmp" in DIR (hidden and not
// ending in .json, so readers globbing *.json never see it) until commit()
// renames it to DIR/NAME. Destroyed without commit(), it removes itself.
class AtomicFile {
 public:
  // DIR must exist.
  static Result<AtomicFile> create(const std::string& dir, const std::string& name);
  // In the directory DIR holds open (whatever its path names by now).
  static Result<AtomicFile> create(const DirHandle& dir, const std::string& name);
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

// An output checked as check_output_path does, with its directory held open
// from then on: written after a gate's command ran, it lands where PATH
// named when it was checked.
struct PreparedOutput {
  DirHandle dir;
  std::string name;  // the file's name in dir
  std::string path;  // as given, for messages
};
Result<PreparedOutput> prepare_output(const std::string& path);
// Writes the prepared output atomically; returns its path as given.
Result<std::string> write_prepared(const PreparedOutput& out, std::string_view contents);

// Writes DIR/NAME atomically (DIR is created when missing). Returns the full
// path written.
Result<std::string> write_file_atomically(const std::string& dir, const std::string& name,
                                          std::string_view contents);
// Writes NAME atomically into the directory DIR holds open.
Result<std::string> write_file_atomically(const DirHandle& dir, const std::string& name,
                                          std::string_view contents);

}  // namespace jetgate::fs
