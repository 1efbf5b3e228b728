// SPDX-License-Identifier: Apache-2.0
// Risky work runs in a child process with a time limit (as DCGM does): a hung
// or crashing driver call, or a Python interpreter that segfaults, becomes a
// recorded outcome and jetgate goes on.
//
// Every child runs in a process group of its own, so a timeout or an
// interrupt stops it together with everything it started. Because the group
// is not the terminal's foreground group, Ctrl-C reaches only jetgate: while
// an InterruptScope is active, SIGINT, SIGTERM and SIGHUP to jetgate stop the
// running child's whole group (SIGTERM, then SIGKILL after the grace period;
// a second signal sends SIGKILL at once) instead of leaving it orphaned
// (interrupt.hpp).
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jetgate::proc {

struct ChildOutcome {
  enum class Kind {
    exited,
    signaled,
    timed_out,
    interrupted,
    spawn_failed
  } kind = Kind::spawn_failed;
  int exit_code = -1;  // when exited
  int signal = 0;      // when signaled (or the signal that finally stopped a timed-out child)
  int interrupt = 0;   // when interrupted: the signal jetgate received (SIGINT, SIGTERM, SIGHUP)
  std::string output;  // what the child wrote to its result pipe / stdout (capped)
  std::string error_text;            // stderr (capped), or why the spawn failed
  std::size_t output_discarded = 0;  // bytes beyond max_output_bytes, read and dropped
  std::size_t error_discarded = 0;
  double timeout_s = 0;  // the limit, when timed_out (for describe)
  // Processes the program left running when it ended, which jetgate killed.
  std::size_t left_running = 0;
  // False when the keeper could not become a child subreaper (qemu-user
  // refuses PR_SET_CHILD_SUBREAPER): a process that left the program's
  // session was then out of reach and may still run.
  bool contained = true;
  double wall_ms = 0;
  // "exit status 3", "killed by signal 11 (SIGSEGV)", "timed out after 5.0 s", ...
  std::string describe() const;
};

struct ChildLimits {
  std::chrono::milliseconds timeout{10000};
  std::chrono::milliseconds grace{1000};  // between SIGTERM and SIGKILL
  std::size_t max_output_bytes = 4u << 20;
};

// Forks; the child runs fn, whose returned string is sent to the parent through
// a pipe and becomes output; the child exits with status 0 after fn returns.
// On timeout: SIGTERM, then SIGKILL after the grace period.
ChildOutcome run_in_child(const std::function<std::string()>& fn, const ChildLimits& limits);

// Another user the program runs as (jetgate must be root to switch).
struct RunAs {
  std::string name;
  unsigned uid = 0, gid = 0;
  std::vector<unsigned> groups;  // supplementary groups
  std::string home;
};

// The user named (a name or a numeric uid) as RunAs, or why not.
std::optional<RunAs> lookup_user(const std::string& name_or_uid, std::string& why);

struct ProcessSpec {
  std::vector<std::string> argv;               // argv[0] searched in PATH
  std::map<std::string, std::string> set_env;  // added to / replacing the environment
  std::vector<std::string> unset_env;
  std::optional<std::string> stdin_text;  // none: /dev/null
  std::optional<std::string> cwd;
  // Set: the program runs as this user (HOME, USER and LOGNAME are theirs).
  std::optional<RunAs> run_as;
};

// Output as it arrives, so it can be shown and saved while the child runs.
struct LiveOutput {
  // Each chunk as it is read, before max_output_bytes applies.
  std::function<void(std::string_view chunk, bool from_stderr)> on_chunk;
  // stderr goes to the stdout pipe: one stream in the order the child wrote it.
  bool merge_stderr = false;
};

// Runs an external program; output is its stdout, error_text its stderr.
//
// Nothing the program starts outlives the call: it runs under a small keeper
// process of jetgate's (a child subreaper, PR_SET_CHILD_SUBREAPER) that every
// orphan of the program's tree is re-parented to, daemons that left the
// process group with setsid included. When the program exits, times out or
// jetgate stops it, the keeper kills and reaps every process left in the tree
// before run_process returns; when jetgate itself dies, even by SIGKILL, the
// keeper sees its pipe to jetgate close and does the same. The program also
// gets SIGKILL when the keeper dies (PR_SET_PDEATHSIG). What a program asks
// another service to start (systemd-run, at, a container daemon) is not in
// the tree and is out of reach (docs/trust.md).
ChildOutcome run_process(const ProcessSpec& spec, const ChildLimits& limits,
                         const LiveOutput& live = {});

// "SIGTERM", "SIGINT", ...; "signal N" for others.
std::string signal_name_text(int sig);

}  // namespace jetgate::proc
