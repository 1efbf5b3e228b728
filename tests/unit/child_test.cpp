// SPDX-License-Identifier: Apache-2.0
#include "jetgate/proc/child.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "jetgate/proc/interrupt.hpp"
#include "test_support.hpp"

namespace jetgate::proc {
namespace {

using namespace std::chrono_literals;
using Kind = ChildOutcome::Kind;

// Short limits keep the suite fast; the grace is what a SIGTERM-ignoring child costs.
ChildLimits short_limits() {
  ChildLimits l;
  l.timeout = 300ms;
  l.grace = 200ms;
  return l;
}

// A process that is gone, or a zombie nobody reaps (PID 1 in a container may
// not), no longer runs.
bool process_runs(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  auto close_paren = line.rfind(')');
  return close_paren != std::string::npos && close_paren + 2 < line.size() &&
         line[close_paren + 2] != 'Z';
}

bool stops_running_soon(pid_t pid) {
  for (int i = 0; i < 100 && process_runs(pid); ++i) std::this_thread::sleep_for(10ms);
  return !process_runs(pid);
}

ChildOutcome sh(const std::string& script, ChildLimits limits = short_limits()) {
  ProcessSpec spec;
  spec.argv = {"sh", "-c", script};
  return run_process(spec, limits);
}

// --- describe ----------------------------------------------------------------

TEST(ChildOutcomeDescribe, NamesExitStatusSignalsAndTimeouts) {
  ChildOutcome o;
  o.kind = Kind::exited;
  o.exit_code = 3;
  EXPECT_EQ(o.describe(), "exit status 3");
  o.kind = Kind::signaled;
  o.signal = SIGSEGV;
  EXPECT_EQ(o.describe(), "killed by signal 11 (SIGSEGV)");
  o.signal = 63;
  EXPECT_EQ(o.describe(), "killed by signal 63");
  o.kind = Kind::timed_out;
  o.timeout_s = 5;
  o.signal = SIGTERM;
  EXPECT_EQ(o.describe(), "timed out after 5.0 s (stopped with SIGTERM)");
  o.signal = SIGKILL;
  EXPECT_EQ(o.describe(), "timed out after 5.0 s (stopped with SIGKILL)");
  o.signal = 0;
  EXPECT_EQ(o.describe(),
            "timed out after 5.0 s (still running after SIGKILL: stuck in the kernel?)");
  o.kind = Kind::spawn_failed;
  o.error_text = "python3: not found in PATH";
  EXPECT_EQ(o.describe(), "python3: not found in PATH");
}

TEST(ChildOutcomeDescribe, MentionsDiscardedOutput) {
  ChildOutcome o;
  o.kind = Kind::exited;
  o.exit_code = 0;
  o.output_discarded = 42;
  EXPECT_EQ(o.describe(), "exit status 0; output capped, 42 bytes discarded");
}

// --- run_in_child ------------------------------------------------------------

TEST(RunInChild, ReturnsTheResultOfFn) {
  auto o = run_in_child([] { return std::string("hello from ") + std::to_string(getpid()); },
                        short_limits());
  ASSERT_EQ(o.kind, Kind::exited) << o.describe();
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_EQ(o.output.rfind("hello from ", 0), 0u);
  EXPECT_NE(o.output, "hello from " + std::to_string(getpid()));  // ran in another process
}

TEST(RunInChild, NonZeroExitIsReported) {
  auto o = run_in_child([]() -> std::string { _exit(3); }, short_limits());
  ASSERT_EQ(o.kind, Kind::exited);
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_EQ(o.describe(), "exit status 3");
}

TEST(RunInChild, SegfaultIsASignalNotACrashOfTheParent) {
  auto o = run_in_child(
      []() -> std::string {
        std::raise(SIGSEGV);
        return "unreached";
      },
      short_limits());
  ASSERT_EQ(o.kind, Kind::signaled);
  EXPECT_EQ(o.signal, SIGSEGV);
  EXPECT_EQ(o.describe(), "killed by signal 11 (SIGSEGV)");
}

TEST(RunInChild, AbortIsReportedAsSigabrt) {
  auto o = run_in_child([]() -> std::string { std::abort(); }, short_limits());
  ASSERT_EQ(o.kind, Kind::signaled);
  EXPECT_EQ(o.signal, SIGABRT);
  EXPECT_NE(o.describe().find("(SIGABRT)"), std::string::npos);
}

TEST(RunInChild, ExceptionBecomesNonZeroExitWithMessageOnStderr) {
  auto o = run_in_child([]() -> std::string { throw std::runtime_error("cuInit exploded"); },
                        short_limits());
  ASSERT_EQ(o.kind, Kind::exited);
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(o.error_text.find("cuInit exploded"), std::string::npos);
  EXPECT_TRUE(o.output.empty());
}

TEST(RunInChild, HangIsStoppedWithSigterm) {
  auto o = run_in_child(
      []() -> std::string {
        for (;;) pause();
      },
      short_limits());
  ASSERT_EQ(o.kind, Kind::timed_out);
  EXPECT_EQ(o.signal, SIGTERM);
  EXPECT_EQ(o.describe(), "timed out after 0.3 s (stopped with SIGTERM)");
  EXPECT_GE(o.wall_ms, 300);
  EXPECT_LT(o.wall_ms, 450);  // SIGTERM worked; the grace period was not needed
}

TEST(RunInChild, ChildIgnoringSigtermGetsSigkill) {
  auto o = run_in_child(
      []() -> std::string {
        std::signal(SIGTERM, SIG_IGN);
        for (;;) pause();
      },
      short_limits());
  ASSERT_EQ(o.kind, Kind::timed_out);
  EXPECT_EQ(o.signal, SIGKILL);
  EXPECT_EQ(o.describe(), "timed out after 0.3 s (stopped with SIGKILL)");
  EXPECT_GE(o.wall_ms, 500);
  EXPECT_LT(o.wall_ms, 1500);
}

TEST(RunInChild, HugeResultIsCappedAndCounted) {
  ChildLimits l = short_limits();
  l.timeout = 5s;
  l.max_output_bytes = 1u << 20;
  auto o = run_in_child([] { return std::string(10u << 20, 'x'); }, l);
  ASSERT_EQ(o.kind, Kind::exited) << o.describe();
  EXPECT_EQ(o.output.size(), 1u << 20);
  EXPECT_EQ(o.output_discarded, 9u << 20);
  EXPECT_NE(o.describe().find("bytes discarded"), std::string::npos);
}

TEST(RunInChild, StdoutChatterGoesToErrorTextNotTheResult) {
  auto o = run_in_child(
      [] {
        std::printf("driver banner\n");
        return std::string("result");
      },
      short_limits());
  ASSERT_EQ(o.kind, Kind::exited);
  EXPECT_EQ(o.output, "result");
  EXPECT_NE(o.error_text.find("driver banner"), std::string::npos);
}

TEST(RunInChild, ParentStdioBuffersAreNotWrittenTwice) {
  test::TempDir t;
  std::string path = t.path("log");
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("once\n", f);  // still in the buffer at fork time
  auto o = run_in_child([] { return std::string("ok"); }, short_limits());
  std::fclose(f);
  ASSERT_EQ(o.kind, Kind::exited);
  EXPECT_EQ(test::read_file(path), "once\n");
}

// --- run_process -------------------------------------------------------------

TEST(RunProcess, SeparatesStdoutStderrAndExitStatus) {
  auto o = sh("echo out; echo err >&2; exit 3");
  ASSERT_EQ(o.kind, Kind::exited) << o.describe();
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_EQ(o.output, "out\n");
  EXPECT_EQ(o.error_text, "err\n");
}

TEST(RunProcess, CrashBySignalIsNamed) {
  auto o = sh("kill -SEGV $$");
  ASSERT_EQ(o.kind, Kind::signaled) << o.describe();
  EXPECT_EQ(o.describe(), "killed by signal 11 (SIGSEGV)");
}

TEST(RunProcess, DeliversStdinWhileReadingStdoutWithoutDeadlock) {
  // Far more than a pipe holds in both directions at once.
  std::string text(4u << 20, 'a');
  for (std::size_t i = 0; i < text.size(); i += 97) text[i] = '\n';
  ProcessSpec spec;
  spec.argv = {"cat"};
  spec.stdin_text = text;
  ChildLimits l = short_limits();
  l.timeout = 10s;
  l.max_output_bytes = 8u << 20;
  auto o = run_process(spec, l);
  ASSERT_EQ(o.kind, Kind::exited) << o.describe();
  EXPECT_EQ(o.output, text);
}

TEST(RunProcess, NoStdinTextMeansEmptyStdin) {
  ProcessSpec spec;
  spec.argv = {"cat"};
  auto o = run_process(spec, short_limits());
  ASSERT_EQ(o.kind, Kind::exited) << o.describe();
  EXPECT_EQ(o.output, "");
}

TEST(RunProcess, ChildThatDoesNotReadStdinDoesNotHurtTheParent) {
  ProcessSpec spec;
  spec.argv = {"true"};
  spec.stdin_text = std::string(1u << 20, 'z');
  auto o = run_process(spec, short_limits());
  ASSERT_EQ(o.kind, Kind::exited) << o.describe();  // and no SIGPIPE killed the test
  EXPECT_EQ(o.exit_code, 0);
}

TEST(RunProcess, HugeOutputIsCapped) {
  ChildLimits l = short_limits();
  l.timeout = 10s;
  l.max_output_bytes = 1000;
  auto o = run_process({{"head", "-c", "5000000", "/dev/zero"}, {}, {}, {}, {}, {}}, l);
  ASSERT_EQ(o.kind, Kind::exited) << o.describe();
  EXPECT_EQ(o.output.size(), 1000u);
  EXPECT_EQ(o.output_discarded, 5000000u - 1000u);
}

TEST(RunProcess, SetsAndUnsetsEnvironment) {
  ::setenv("JETGATE_CHILD_TEST_DROP", "present", 1);
  ProcessSpec spec;
  spec.argv = {"sh", "-c", "echo \"$JETGATE_CHILD_TEST_SET:${JETGATE_CHILD_TEST_DROP-unset}\""};
  spec.set_env["JETGATE_CHILD_TEST_SET"] = "hello";
  spec.unset_env = {"JETGATE_CHILD_TEST_DROP"};
  auto o = run_process(spec, short_limits());
  ::unsetenv("JETGATE_CHILD_TEST_DROP");
  ASSERT_EQ(o.kind, Kind::exited) << o.describe();
  EXPECT_EQ(o.output, "hello:unset\n");
}

TEST(RunProcess, RunsInTheGivenDirectory) {
  test::TempDir t;
  ProcessSpec spec;
  spec.argv = {"pwd", "-P"};
  spec.cwd = t.dir();
  auto o = run_process(spec, short_limits());
  ASSERT_EQ(o.kind, Kind::exited) << o.describe();
  char resolved[4096];
  ASSERT_NE(::realpath(t.dir().c_str(), resolved), nullptr);
  EXPECT_EQ(o.output, std::string(resolved) + "\n");
}

TEST(RunProcess, MissingDirectoryIsASpawnFailure) {
  ProcessSpec spec;
  spec.argv = {"true"};
  spec.cwd = "/nonexistent/jetgate-dir";
  auto o = run_process(spec, short_limits());
  ASSERT_EQ(o.kind, Kind::spawn_failed);
  EXPECT_NE(o.describe().find("/nonexistent/jetgate-dir"), std::string::npos);
}

TEST(RunProcess, ProgramNotFoundIsAClearOutcome) {
  ProcessSpec spec;
  spec.argv = {"jetgate-no-such-python3"};
  auto o = run_process(spec, short_limits());
  ASSERT_EQ(o.kind, Kind::spawn_failed);
  EXPECT_EQ(o.describe(), "jetgate-no-such-python3: not found in PATH");
}

TEST(RunProcess, FileThatIsNotExecutableIsASpawnFailure) {
  test::TempDir t;
  std::string script = t.write("not-executable", "#!/bin/sh\necho hi\n");
  ProcessSpec spec;
  spec.argv = {script};
  auto o = run_process(spec, short_limits());
  ASSERT_EQ(o.kind, Kind::spawn_failed);
  EXPECT_NE(o.describe().find("Permission denied"), std::string::npos) << o.describe();
  spec.argv = {t.path("absent")};
  o = run_process(spec, short_limits());
  ASSERT_EQ(o.kind, Kind::spawn_failed);
  EXPECT_NE(o.describe().find("No such file"), std::string::npos) << o.describe();
}

TEST(RunProcess, EmptyArgvIsASpawnFailure) {
  auto o = run_process(ProcessSpec{}, short_limits());
  EXPECT_EQ(o.kind, Kind::spawn_failed);
}

TEST(RunProcess, HangIsStoppedWithSigtermAndTheWholeGroupDies) {
  auto o = sh("sleep 30 & echo $!; sleep 30");
  ASSERT_EQ(o.kind, Kind::timed_out) << o.describe();
  EXPECT_EQ(o.signal, SIGTERM);
  pid_t grandchild = static_cast<pid_t>(std::stol(o.output));
  EXPECT_TRUE(stops_running_soon(grandchild));
}

TEST(RunProcess, SigtermIgnoredNeedsSigkill) {
  auto o = sh("trap '' TERM; while :; do sleep 0.05; done");
  ASSERT_EQ(o.kind, Kind::timed_out) << o.describe();
  EXPECT_EQ(o.signal, SIGKILL);
  EXPECT_LT(o.wall_ms, 2000);
}

TEST(RunProcess, SigtermIgnoredByJetgateIsNotInheritedByTheChild) {
  auto old = std::signal(SIGTERM, SIG_IGN);
  ProcessSpec spec;
  spec.argv = {"sleep", "30"};
  auto o = run_process(spec, short_limits());
  std::signal(SIGTERM, old);
  ASSERT_EQ(o.kind, Kind::timed_out) << o.describe();
  EXPECT_EQ(o.signal, SIGTERM);
}

TEST(RunProcess, ChildReapedElsewhereDoesNotHangAndSaysSo) {
  auto old = std::signal(SIGCHLD, SIG_IGN);  // the kernel reaps children at once
  auto o = sh("echo out");
  std::signal(SIGCHLD, old);
  ASSERT_EQ(o.kind, Kind::exited) << o.describe();
  EXPECT_EQ(o.output, "out\n");
  EXPECT_EQ(o.exit_code, -1);
  EXPECT_NE(o.error_text.find("unknown"), std::string::npos);
  EXPECT_LT(o.wall_ms, 250);  // not the 300 ms timeout
}

TEST(RunProcess, GrandchildThatOutlivesItsParentIsKilled) {
  ChildLimits l = short_limits();
  l.timeout = 10s;
  // The grandchild keeps stdout open: waiting for end of file would take 30 s.
  auto o = sh("sleep 30 & echo $!; exit 0", l);
  ASSERT_EQ(o.kind, Kind::exited) << o.describe();
  EXPECT_LT(o.wall_ms, 2000);
  pid_t grandchild = static_cast<pid_t>(std::stol(o.output));
  EXPECT_TRUE(stops_running_soon(grandchild));
}

TEST(RunProcess, DescriptorsOfJetgateDoNotLeakIntoTheChild) {
  int leaked = ::fcntl(STDERR_FILENO, F_DUPFD, 200);  // no FD_CLOEXEC
  ASSERT_GE(leaked, 200);
  auto o = sh("ls /proc/$$/fd");
  ::close(leaked);
  ASSERT_EQ(o.kind, Kind::exited) << o.describe();
  EXPECT_EQ(o.output.find(std::to_string(leaked)), std::string::npos) << o.output;
}

// --- Live output and interrupts (the gate's command, issue 8 and issue 11) ---

TEST(RunProcess, OnOutputSeesEveryByteInOrderWithStderrMerged) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c",
               "i=0; while [ $i -lt 2000 ]; do echo out$i; echo err$i >&2; i=$((i+1)); done"};
  LiveOutput live;
  live.merge_stderr = true;
  std::string seen;
  live.on_chunk = [&](std::string_view chunk, bool from_stderr) {
    EXPECT_FALSE(from_stderr);
    seen.append(chunk);
  };
  ChildLimits l;
  l.max_output_bytes = 1024;
  auto o = run_process(spec, l, live);
  ASSERT_EQ(o.kind, Kind::exited) << o.describe();
  std::string expected;
  for (int i = 0; i < 2000; ++i)
    expected += "out" + std::to_string(i) + "\nerr" + std::to_string(i) + "\n";
  EXPECT_EQ(seen, expected);  // all of it, in the order written, beyond the cap
  EXPECT_EQ(o.output.size(), 1024u);
  EXPECT_EQ(o.error_text, "");
}

// Sends sig to this process once path exists (the child has started).
std::thread signal_when(const std::string& path, int sig) {
  return std::thread([path, sig] {
    for (int i = 0; i < 1000 && !std::ifstream(path).good(); ++i) std::this_thread::sleep_for(10ms);
    ::kill(::getpid(), sig);
  });
}

TEST(RunProcess, InterruptStopsTheWholeGroupAndSaysWhy) {
  test::TempDir t;
  InterruptScope scope;
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "sleep 300 & echo $! > " + t.path("pid") + "; wait"};
  ChildLimits l;
  l.timeout = 60s;
  l.grace = 5s;
  auto killer = signal_when(t.path("pid"), SIGTERM);
  auto o = run_process(spec, l);
  killer.join();
  ASSERT_EQ(o.kind, Kind::interrupted) << o.describe();
  EXPECT_EQ(o.interrupt, SIGTERM);
  EXPECT_EQ(o.signal, SIGTERM);
  EXPECT_EQ(interrupt_signal(), SIGTERM);
  EXPECT_LT(o.wall_ms, 10000);
  EXPECT_EQ(o.describe(),
            "interrupted: jetgate received SIGTERM and stopped the process group with SIGTERM");
  pid_t grandchild = static_cast<pid_t>(std::stol(test::read_file(t.path("pid"))));
  EXPECT_TRUE(stops_running_soon(grandchild));
  // Anything started after the interrupt is stopped at once.
  auto later = sh("sleep 30", l);
  EXPECT_EQ(later.kind, Kind::interrupted);
  EXPECT_LT(later.wall_ms, 5000);
}

TEST(RunProcess, SecondInterruptEscalatesToSigkillAtOnce) {
  test::TempDir t;
  InterruptScope scope;
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c",
               "trap '' TERM INT; touch " + t.path("ready") + "; while :; do sleep 0.05; done"};
  ChildLimits l;
  l.timeout = 60s;
  l.grace = 60s;
  auto first = signal_when(t.path("ready"), SIGINT);
  std::thread second([&] {
    first.join();
    std::this_thread::sleep_for(300ms);
    ::kill(::getpid(), SIGTERM);
  });
  auto o = run_process(spec, l);
  second.join();
  ASSERT_EQ(o.kind, Kind::interrupted) << o.describe();
  EXPECT_EQ(o.interrupt, SIGINT);
  EXPECT_EQ(o.signal, SIGKILL);
  EXPECT_LT(o.wall_ms, 10000);  // not the 60 s grace period
}

TEST(RunProcess, InterruptRecordEndsWithItsScope) {
  {
    InterruptScope scope;
    ::kill(::getpid(), SIGINT);
    for (int i = 0; i < 100 && interrupt_signal() == 0; ++i) std::this_thread::sleep_for(10ms);
    EXPECT_EQ(interrupt_signal(), SIGINT);
  }
  EXPECT_EQ(interrupt_signal(), 0);
  EXPECT_EQ(sh("echo ok").kind, Kind::exited);
}

}  // namespace
}  // namespace jetgate::proc
