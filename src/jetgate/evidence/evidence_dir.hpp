// SPDX-License-Identifier: Apache-2.0
// Where `jetgate run` writes: checked, and locked per gate, before anything
// runs, so a bad --evidence-dir fails in a second rather than after a
// 30-minute test command, and two runs of one gate never write over each
// other's evidence.
#pragma once

#include <string>

#include "jetgate/core/result.hpp"

namespace jetgate::evidence {

// DIR must be a non-empty path naming a directory, or a path whose parent is
// an existing directory (then DIR is created, one level only: a typo in a
// parent should not grow a tree somewhere unexpected).
Status prepare_evidence_dir(const std::string& dir);

// An exclusive flock(2) on DIR/.GATE.lock for one run of GATE. The lock file is
// removed when the lock is released; one left by a killed run is hidden, not
// *.json (readers of the directory ignore it) and taken over by the next run.
// The lock goes with the process, however it ends. After locking, the path is
// checked to still name the locked file, so a removal never lets two runs hold it.
class RunLock {
 public:
  // Fails when the directory is not writable, or when another run holds the
  // lock (the message names its pid).
  static Result<RunLock> acquire(const std::string& dir, const std::string& gate);
  // The lock of a gate command's JUnit report (DIR/.NAME.jetgate.lock beside
  // it; DIR is made when missing): two runs whose commands write the same
  // report, into different evidence directories, would each read the other's.
  static Result<RunLock> acquire_report(const std::string& report_path);
  RunLock(RunLock&& other) noexcept;
  RunLock& operator=(RunLock&&) = delete;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  ~RunLock();
  const std::string& path() const { return path_; }

 private:
  RunLock() = default;
  // held_by: the message when another process holds it, with {} for its pid.
  static Result<RunLock> lock_file(const std::string& dir, const std::string& name,
                                   const std::string& held_by);
  int fd_ = -1, dir_fd_ = -1;
  std::string path_, name_;
};

}  // namespace jetgate::evidence
