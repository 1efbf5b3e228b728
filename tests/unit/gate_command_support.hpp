// SPDX-License-Identifier: Apache-2.0
// Helpers for the gate-command tests: a scratch repository with a policy, a
// jetgate started in the background (to signal it, or run a second one at
// the same time), waiting for files and processes.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace jetgate::test {

inline const std::string kPassingJunit =
    R"(<testsuites><testsuite name="t" tests="1"><testcase name="ok"/></testsuite></testsuites>)";

// A scratch repository (with a fake .git, or a real one from git_init()) and a
// policy whose gates run shell scripts.
struct GateRepo {
  TempDir t;
  nlohmann::json gates = nlohmann::json::array();
  explicit GateRepo(bool fake_git = true) {
    if (fake_git) std::filesystem::create_directories(t.path(".git"));
  }
  // A gate whose command is `sh -c SCRIPT`, run in the repository root.
  void add_shell_gate(const std::string& id, const std::string& script,
                      const std::string& junit = "report.xml", double timeout_s = 60) {
    gates.push_back(
        {{"id", id},
         {"command",
          {{"argv", {"/bin/sh", "-c", script}}, {"timeout_s", timeout_s}, {"junit", junit}}}});
  }
  std::string policy() const {
    nlohmann::json p = {{"schema_version", 1},
                        {"owner", "o"},
                        {"cadence", "c"},
                        {"evidence_retention_days", 9},
                        {"maximum_evidence_age_days", 9},
                        {"gates", gates}};
    return t.write("ci/policy.json", p.dump(2));
  }
  std::vector<std::string> run_args(const std::string& gate,
                                    const std::string& evidence_dir) const {
    return {"run", gate, "--policy", policy(), "--evidence-dir", evidence_dir};
  }
  // Keeps git from finding a checkout above the scratch directory (ctest runs under build/).
  std::string ceiling() const {
    return "GIT_CEILING_DIRECTORIES=" + std::filesystem::path(t.dir()).parent_path().string();
  }
  // Makes the scratch directory a real git checkout with everything in it
  // committed (GateRepo(false) first), so a run's evidence shows a clean tree
  // ("dirty": false); returns HEAD.
  std::string git_commit_all() const {
    const std::string q = "'" + t.dir() + "'";
    if (std::system(("git -C " + q + " init -q && git -C " + q + " add -A && git -C " + q +
                     " -c user.name=t -c user.email=t@t commit -qm init")
                        .c_str()) != 0)
      return {};
    std::string head;
    if (FILE* git = ::popen(("git -C " + q + " rev-parse HEAD").c_str(), "r")) {
      char buf[64] = {};
      if (std::fgets(buf, sizeof buf, git)) head.assign(buf, 40);
      ::pclose(git);
    }
    return head;
  }
  CliRun run(const std::string& gate, std::vector<std::string> env = {}) const {
    env.push_back(ceiling());
    return run_jetgate(run_args(gate, t.path("ev")), env);
  }
};

// A jetgate running in the background; stdout and stderr go to files.
struct BackgroundJetgate {
  pid_t pid = -1;
  TempDir io;
  BackgroundJetgate(const std::vector<std::string>& args,
                    const std::vector<std::string>& env = {}) {
    // A group of its own, as a shell job would be: signals sent to it reach jetgate only.
    pid = spawn_jetgate(args, env, io.path("stdout"), io.path("stderr"), /*own_group=*/true);
  }
  ~BackgroundJetgate() {
    if (pid > 0 && wait(std::chrono::seconds(0)) < 0) {
      ::kill(pid, SIGKILL);
      wait(std::chrono::seconds(10));
    }
  }
  // The exit code (128 + N for a signal), or -1 if it is still running after `limit`.
  int wait(std::chrono::milliseconds limit) {
    if (exit_code >= 0) return exit_code;
    auto until = std::chrono::steady_clock::now() + limit;
    do {
      int status = 0;
      pid_t r = ::waitpid(pid, &status, WNOHANG);
      if (r == pid) {
        exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return exit_code;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    } while (std::chrono::steady_clock::now() < until);
    return -1;
  }
  std::string out() const { return read_file(io.path("stdout")); }
  std::string err() const { return read_file(io.path("stderr")); }
  int exit_code = -1;
};

inline bool wait_for_file(const std::string& path,
                          std::chrono::milliseconds limit = std::chrono::seconds(30)) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (std::filesystem::exists(path) && std::filesystem::file_size(path) > 0) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// Running (a zombie counts as gone: it runs nothing).
inline bool process_alive(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] != 'Z';
}

inline bool wait_until_gone(pid_t pid, std::chrono::milliseconds limit = std::chrono::seconds(10)) {
  auto until = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < until) {
    if (!process_alive(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return !process_alive(pid);
}

inline pid_t read_pid(const std::string& path) {
  std::string s = read_file(path);
  return s.empty() ? -1 : static_cast<pid_t>(std::stol(s));
}

}  // namespace jetgate::test
