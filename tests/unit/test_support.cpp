// SPDX-License-Identifier: Apache-2.0
#include "test_support.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace jetgate::test {

TempDir::TempDir() {
  const char* base = std::getenv("JETGATE_TEST_TMP");
  std::string b = base && *base ? base : "/tmp";
  std::filesystem::create_directories(b);
  std::string templ = b + "/jetgate-test-XXXXXX";
  if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp failed in " + b);
  dir_ = templ;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string TempDir::write(const std::string& rel, const std::string& contents) const {
  std::string p = path(rel);
  std::filesystem::create_directories(std::filesystem::path(p).parent_path());
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  f << contents;
  return p;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

pid_t spawn_jetgate(const std::vector<std::string>& args, const std::vector<std::string>& env,
                    const std::string& out_path, const std::string& err_path, bool own_group,
                    const std::string& in_path) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, in_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<std::string> argv_s;
#ifdef JETGATE_TEST_EMULATOR
  // A cross-built jetgate runs under qemu-user: binfmt_misc may not be set up.
  argv_s.emplace_back(JETGATE_TEST_EMULATOR);
#endif
  argv_s.push_back(jetgate_binary());
  argv_s.insert(argv_s.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : argv_s) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_s;
  for (char** e = environ; *e; ++e) env_s.emplace_back(*e);
  env_s.insert(env_s.end(), env.begin(), env.end());
  std::vector<char*> envp;
  for (auto& e : env_s) envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  if (own_group) {
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
  }
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0], &fa, &attr, argv.data(), envp.data()) != 0) pid = -1;
  posix_spawnattr_destroy(&attr);
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

CliRun run_jetgate(const std::vector<std::string>& args, const std::vector<std::string>& env,
                   const std::string& in_path) {
  TempDir t;
  std::string out_path = t.path("stdout"), err_path = t.path("stderr");
  CliRun run;
  pid_t pid = spawn_jetgate(args, env, out_path, err_path, false, in_path);
  if (pid < 0) {
    run.err = "spawn failed";
    return run;
  }
  int status = 0;
  waitpid(pid, &status, 0);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.out = read_file(out_path);
  run.err = read_file(err_path);
  return run;
}

std::string fixtures_dir() {
  return JETGATE_FIXTURES_DIR;
}
std::string source_dir() {
  return JETGATE_SOURCE_DIR;
}
std::string jetgate_binary() {
  return JETGATE_BINARY;
}
std::string jetgate_command() {
  return JETGATE_TEST_COMMAND;
}
bool under_emulator() {
#ifdef JETGATE_TEST_EMULATOR
  return true;
#else
  return false;
#endif
}
bool child_subreaper_supported() {
  int value = 0;
  return ::prctl(PR_GET_CHILD_SUBREAPER, &value, 0, 0, 0) == 0;
}

}  // namespace jetgate::test
