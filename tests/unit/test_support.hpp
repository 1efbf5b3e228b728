// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the tests: temporary directories, running the built
// jetgate binary, fixture paths.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace jetgate::test {

// A fresh directory under $JETGATE_TEST_TMP (or /tmp), removed at scope exit.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& dir() const { return dir_; }
  std::string path(const std::string& rel) const { return dir_ + "/" + rel; }
  // Writes rel (creating parent directories) and returns its full path.
  std::string write(const std::string& rel, const std::string& contents) const;

 private:
  std::string dir_;
};

std::string read_file(const std::string& path);

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs the built jetgate binary with args (no shell), capturing stdout and
// stderr; env entries "K=V" are added to the environment; stdin is in_path.
CliRun run_jetgate(const std::vector<std::string>& args, const std::vector<std::string>& env = {},
                   const std::string& in_path = "/dev/null");

// Starts the built jetgate with args (no shell; under the emulator when the
// tests run cross-built), stdin from in_path, stdout and stderr to the two
// files; env entries "K=V" are added to the environment. With own_group it
// leads a process group of its own, as a shell job would. Returns its pid, or -1.
pid_t spawn_jetgate(const std::vector<std::string>& args, const std::vector<std::string>& env,
                    const std::string& out_path, const std::string& err_path,
                    bool own_group = false, const std::string& in_path = "/dev/null");

std::string fixtures_dir();  // tests/fixtures
std::string source_dir();    // repository root
std::string jetgate_binary();
// What a shell, Python or PATH lookup can start as `jetgate`: the built binary,
// or, when the tests run cross-built, a wrapper (also named jetgate) that runs
// it under the emulator, since the kernel cannot exec it without binfmt_misc.
std::string jetgate_command();

// True when the tests run cross-built under a user-mode emulator (qemu-user):
// /proc then shows the emulator's command line and environment, not the ones
// jetgate holds.
bool under_emulator();
// Whether the kernel (or emulator) lets a process be a child subreaper;
// qemu-user answers EINVAL to PR_{GET,SET}_CHILD_SUBREAPER.
bool child_subreaper_supported();

}  // namespace jetgate::test
