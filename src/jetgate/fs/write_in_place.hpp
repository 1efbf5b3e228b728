// SPDX-License-Identifier: Apache-2.0
// Editing a file the user owns (the README) in place. Evidence is written
// through a temporary file and a rename (evidence/atomic_write), but a rename
// replaces the file: a symbolic link becomes a regular file, a second hard
// link keeps the old text, and mode, owner, ACLs and extended attributes are
// those of the new file (a 0600 README becomes 0644). So the README keeps its
// inode and is rewritten where it is, and never left half-written:
//
//   1. open the file the path names, following symbolic links (a link stays a
//      link; its target is edited), as a regular file, for reading and
//      writing: a file the user cannot write, or one without any write
//      permission bit (chmod a-w: the user said "do not touch", even to root),
//      is refused before anything changes; flock() it so two jetgate runs
//      cannot interleave;
//   2. read it through that descriptor (no window between read and write);
//   3. write the complete new contents to a recovery copy next to it
//      (".NAME.jetgate-PID-RANDOM.new", mode 0600, fsync'd, directory fsync'd);
//   4. reserve the space (fallocate), then, with SIGINT/SIGTERM/SIGHUP/SIGQUIT
//      held back, overwrite the file from offset 0, truncate it to the new
//      length and fsync it;
//   5. remove the recovery copy.
// If step 4 fails (disk full, I/O error) the old contents are written back
// and the copy removed; if even that fails, the error names the copy, which
// holds the complete new file. After a crash or power cut inside step 4 the
// copy is there for the same reason.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <string_view>

#include "jetgate/core/result.hpp"

namespace jetgate::fs {

// The system calls step 4 uses, replaceable in tests to fail mid-write.
struct InPlaceWriteOps {
  ssize_t (*pwrite)(int fd, const void* buf, std::size_t n, off_t offset);
  int (*fsync)(int fd);
  static InPlaceWriteOps system();
};

class InPlaceFile {
 public:
  // Steps 1 and 2. An Error names `path`, says why (missing, not a regular
  // file, read-only, not writable, locked, larger than max_bytes) and what to do.
  static Result<InPlaceFile> open(const std::string& path, std::size_t max_bytes);

  InPlaceFile(InPlaceFile&& other) noexcept;
  InPlaceFile& operator=(InPlaceFile&&) = delete;
  InPlaceFile(const InPlaceFile&) = delete;
  InPlaceFile& operator=(const InPlaceFile&) = delete;
  ~InPlaceFile();

  const std::string& contents() const { return contents_; }
  // The regular file edited: `path` with its symbolic links resolved.
  const std::string& target() const { return target_; }

  // Steps 3 to 5; nothing is written when new_contents equals contents().
  Status replace(std::string_view new_contents,
                 const InPlaceWriteOps& ops = InPlaceWriteOps::system());

 private:
  InPlaceFile(std::string path, std::string target, int fd, std::string contents)
      : path_(std::move(path)),
        target_(std::move(target)),
        fd_(fd),
        contents_(std::move(contents)) {}
  Status overwrite(std::string_view data, const InPlaceWriteOps& ops) const;

  std::string path_;    // as the user named it, for messages
  std::string target_;  // resolved
  int fd_ = -1;
  std::string contents_;
};

// The prefix of recovery copies of NAME: ".NAME.jetgate-".
std::string recovery_copy_prefix(std::string_view file_name);

}  // namespace jetgate::fs
