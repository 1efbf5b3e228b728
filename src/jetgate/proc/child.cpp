// SPDX-License-Identifier: Apache-2.0
// Child processes with a deadline. Both entry points share one supervisor: it
// reads stdout/stderr with poll() (so neither pipe can fill up and deadlock the
// child), feeds stdin, and on timeout or interrupt (interrupt.hpp) stops the
// child's whole process group with SIGTERM, then SIGKILL. Everything after fork() in the child is
// async-signal-safe, because jetgate may have other threads (the CUDA driver
// starts some) whose locks would be held forever in the child.
#include "jetgate/proc/child.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string_view>
#include <utility>

#include "jetgate/proc/interrupt.hpp"

extern char** environ;

namespace jetgate::proc {
namespace {

using Clock = std::chrono::steady_clock;

// Exit status of a run_in_child child whose fn threw (BSD's EX_SOFTWARE).
constexpr int kExceptionExitCode = 70;
// Exit status of a forked child that could not exec (as shells use).
constexpr int kExecFailedExitCode = 127;

const char* signal_name(int sig) {
  switch (sig) {
    case SIGHUP:
      return "SIGHUP";
    case SIGINT:
      return "SIGINT";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGILL:
      return "SIGILL";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGKILL:
      return "SIGKILL";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGUSR2:
      return "SIGUSR2";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGALRM:
      return "SIGALRM";
    case SIGTERM:
      return "SIGTERM";
    case SIGXCPU:
      return "SIGXCPU";
    case SIGXFSZ:
      return "SIGXFSZ";
    case SIGSYS:
      return "SIGSYS";
    default:
      return nullptr;
  }
}

std::string signal_text(int sig) {
  const char* name = signal_name(sig);
  return name ? fmt::format("signal {} ({})", sig, name) : fmt::format("signal {}", sig);
}

}  // namespace

std::string signal_name_text(int sig) {
  const char* name = signal_name(sig);
  return name ? std::string(name) : fmt::format("signal {}", sig);
}

namespace {

// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read, write;
};

// Both ends close-on-exec, so a pipe never leaks into a program another
// thread starts at the same time.
bool make_pipe(Pipe& p) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  p.read.reset(fds[0]);
  p.write.reset(fds[1]);
  return true;
}

void set_nonblocking(int fd) {
  int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

ChildOutcome spawn_failure(std::string why) {
  ChildOutcome o;
  o.kind = ChildOutcome::Kind::spawn_failed;
  o.error_text = std::move(why);
  return o;
}

// --- In the child (async-signal-safe only) ----------------------------------

void write_all_raw(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
}

// Handlers and ignored signals are inherited across fork and ignored ones
// across exec too; a child that ignores SIGTERM because jetgate did would
// always need SIGKILL. A crashing probe must not leave a core file of the size
// of its GPU mappings behind either.
void reset_child_process_state() {
  ::setpgid(0, 0);
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int sig = 1; sig < NSIG; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) ::sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  struct rlimit no_core {
    0, 0
  };
  ::setrlimit(RLIMIT_CORE, &no_core);
}

// Closes every descriptor from 3 up except keep.
void close_inherited_fds(int keep, int max_fd) {
#ifdef SYS_close_range
  if (keep > 3 && ::syscall(SYS_close_range, 3u, static_cast<unsigned>(keep - 1), 0u) != 0)
    for (int fd = 3; fd < keep; ++fd) ::close(fd);
  if (::syscall(SYS_close_range, static_cast<unsigned>(keep + 1), ~0u, 0u) == 0) return;
#endif
  for (int fd = 3; fd < max_fd; ++fd)
    if (fd != keep) ::close(fd);
}

struct ExecFailure {
  int stage;  // 0: chdir, 1: execve
  int error;
};

// --- In the parent -----------------------------------------------------------

// One captured stream: appended up to cap, the rest read and counted, so a
// chatty child never blocks on a full pipe.
struct Capture {
  Fd fd;
  std::string* text;
  std::size_t* discarded;
  std::size_t cap;
  const std::function<void(std::string_view, bool)>* on_output = nullptr;
  bool is_stderr = false;

  // Reads what is available now; closes the descriptor at end of file.
  void read_available() {
    char buf[65536];
    while (fd.valid()) {
      ssize_t n = ::read(fd.get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
      if (n <= 0) {
        fd.reset();
        return;
      }
      std::size_t got = static_cast<std::size_t>(n);
      if (on_output && *on_output) (*on_output)(std::string_view(buf, got), is_stderr);
      std::size_t room = cap > text->size() ? cap - text->size() : 0;
      std::size_t keep = std::min(room, got);
      text->append(buf, keep);
      *discarded += got - keep;
    }
  }
};

// Writes stdin_text as the child takes it; a child that exits without reading
// must not kill jetgate with SIGPIPE, so SIGPIPE is blocked around the write
// and a pending one consumed.
struct StdinFeed {
  Fd fd;
  std::string_view text;
  std::size_t pos = 0;

  void write_some() {
    sigset_t pipe_set, old_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    bool was_pending = sigismember(&pending, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
    while (fd.valid() && pos < text.size()) {
      ssize_t n = ::write(fd.get(), text.data() + pos, text.size() - pos);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
      if (n < 0) {
        if (errno == EPIPE && !was_pending) {
          struct timespec zero {
            0, 0
          };
          sigtimedwait(&pipe_set, nullptr, &zero);
        }
        fd.reset();
        break;
      }
      pos += static_cast<std::size_t>(n);
    }
    pthread_sigmask(SIG_SETMASK, &old_set, nullptr);
    if (pos >= text.size()) fd.reset();
  }
};

// A descriptor that becomes readable when the child exits (Linux >= 5.3);
// -1 on older kernels (JetPack 4's 4.9), where the supervisor polls instead.
Fd open_pidfd(pid_t pid) {
#ifdef SYS_pidfd_open
  long fd = ::syscall(SYS_pidfd_open, pid, 0);
  if (fd >= 0) {
    ::fcntl(static_cast<int>(fd), F_SETFD, FD_CLOEXEC);
    return Fd(static_cast<int>(fd));
  }
#endif
  (void)pid;
  return Fd();
}

// Whether the child has exited, without reaping it: the zombie keeps its pid
// (and so the process group id) from being reused until the group is killed.
bool has_exited(pid_t pid) {
  siginfo_t info{};
  for (;;) {
    int rc = ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT);
    if (rc == 0) return info.si_pid == pid;
    if (errno != EINTR) return true;  // ECHILD: nothing left to wait for
  }
}

void signal_group(pid_t pid, int sig) {
  if (::kill(-pid, sig) != 0) ::kill(pid, sig);
}

int poll_timeout_ms(Clock::time_point until, bool have_pidfd) {
  auto left = std::chrono::ceil<std::chrono::milliseconds>(until - Clock::now()).count();
  left = std::clamp<long long>(left, 0, INT_MAX);
  // Without a pidfd nothing wakes poll when the child exits; look every 10 ms.
  if (!have_pidfd) left = std::min<long long>(left, 10);
  return static_cast<int>(left);
}

struct Streams {
  Capture out, err;
  StdinFeed in;
};

ChildOutcome supervise(pid_t pid, Streams& s, const ChildLimits& limits, Clock::time_point start) {
  ChildOutcome o;
  s.out.text = &o.output;
  s.out.discarded = &o.output_discarded;
  s.err.text = &o.error_text;
  s.err.discarded = &o.error_discarded;
  if (s.out.fd.valid()) set_nonblocking(s.out.fd.get());
  if (s.err.fd.valid()) set_nonblocking(s.err.fd.get());
  if (s.in.fd.valid()) set_nonblocking(s.in.fd.get());

  Fd pidfd = open_pidfd(pid);
  auto next_step = start + limits.timeout;
  int stop_signal = 0;
  int interrupt = 0;
  bool stuck = false;
  while (!has_exited(pid)) {
    if (interrupt == 0 && interrupt_signal() != 0) {
      // jetgate was asked to stop: the child's group goes the way of a timeout, now.
      interrupt = interrupt_signal();
      if (stop_signal == 0) next_step = Clock::now();
    }
    if (interrupt != 0 && stop_signal == SIGTERM && interrupt_count() > 1) next_step = Clock::now();
    if (Clock::now() >= next_step) {
      if (stop_signal == 0) {
        stop_signal = SIGTERM;
        next_step = Clock::now() + limits.grace;
      } else if (stop_signal == SIGTERM) {
        stop_signal = SIGKILL;
        // A process in uninterruptible sleep (a hung driver call) survives
        // even SIGKILL; give it a moment, then stop waiting for it.
        next_step = Clock::now() + std::max(limits.grace, std::chrono::milliseconds(1000));
      } else {
        stuck = true;
        break;
      }
      signal_group(pid, stop_signal);
      continue;
    }
    pollfd fds[5];
    nfds_t n = 0;
    Capture* captures[2] = {nullptr, nullptr};
    for (Capture* c : {&s.out, &s.err})
      if (c->fd.valid()) {
        captures[n] = c;
        fds[n++] = {c->fd.get(), POLLIN, 0};
      }
    nfds_t in_index = n;
    if (s.in.fd.valid()) fds[n++] = {s.in.fd.get(), POLLOUT, 0};
    if (pidfd.valid()) fds[n++] = {pidfd.get(), POLLIN, 0};
    if (interrupt_fd() >= 0) fds[n++] = {interrupt_fd(), POLLIN, 0};
    int rc = ::poll(fds, n, poll_timeout_ms(next_step, pidfd.valid()));
    if (rc <= 0) continue;  // timeout or EINTR: the loop re-checks both
    if (interrupt_fd() >= 0 && fds[n - 1].revents) drain_interrupt_fd();
    for (nfds_t i = 0; i < in_index; ++i)
      if (fds[i].revents) captures[i]->read_available();
    if (s.in.fd.valid() && fds[in_index].revents) s.in.write_some();
  }

  // Grandchildren the child left behind die with it; they could otherwise
  // hold the pipes open (and the GPU) long after jetgate has moved on.
  signal_group(pid, SIGKILL);
  s.out.read_available();
  s.err.read_available();
  o.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (stop_signal != 0) {
    o.kind = interrupt != 0 ? ChildOutcome::Kind::interrupted : ChildOutcome::Kind::timed_out;
    o.interrupt = interrupt;
    o.timeout_s = std::chrono::duration<double>(limits.timeout).count();
    o.signal = stuck ? 0 : stop_signal;
  }
  if (stuck) return o;  // cannot be reaped now; it becomes init's zombie later
  int status = 0;
  pid_t reaped;
  while ((reaped = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (reaped < 0) {
    // Someone else reaped it (SIGCHLD ignored, or a handler calling wait):
    // the output is real, how it ended is not known.
    if (stop_signal == 0) o.kind = ChildOutcome::Kind::exited;
    o.error_text += "[jetgate: the exit status was collected elsewhere; it is unknown]\n";
    return o;
  }
  if (stop_signal != 0) {
    if (WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    o.kind = ChildOutcome::Kind::signaled;
    o.signal = WTERMSIG(status);
  } else {
    o.kind = ChildOutcome::Kind::exited;
    o.exit_code = WEXITSTATUS(status);
  }
  return o;
}

// --- run_process helpers -----------------------------------------------------

std::string lookup_env(const ProcessSpec& spec, const std::string& name) {
  if (auto it = spec.set_env.find(name); it != spec.set_env.end()) return it->second;
  if (std::find(spec.unset_env.begin(), spec.unset_env.end(), name) != spec.unset_env.end())
    return {};
  const char* v = std::getenv(name.c_str());
  return v ? v : "";
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// A relative program path means relative to jetgate's directory, also when
// the child is to run elsewhere (spec.cwd).
std::string absolute(const std::string& path) {
  if (path.front() == '/') return path;
  char cwd[PATH_MAX];
  if (::getcwd(cwd, sizeof cwd) == nullptr) return path;
  return std::string(cwd) + "/" + path;
}

// PATH is searched here, before fork, with the child's PATH: execvp in the
// child would allocate, and could not tell "not found" from "not runnable".
std::optional<std::string> find_program(const ProcessSpec& spec) {
  const std::string& name = spec.argv.front();
  if (name.find('/') != std::string::npos) return absolute(name);
  std::string path = lookup_env(spec, "PATH");
  if (path.empty()) path = "/usr/local/bin:/usr/bin:/bin";
  std::size_t begin = 0;
  while (begin <= path.size()) {
    std::size_t end = std::min(path.find(':', begin), path.size());
    std::string dir = path.substr(begin, end - begin);
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    if (is_executable_file(candidate)) return absolute(candidate);
    begin = end + 1;
  }
  return std::nullopt;
}

std::vector<std::string> child_environment(const ProcessSpec& spec) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    std::string name(entry.substr(0, entry.find('=')));
    bool dropped =
        spec.set_env.count(name) ||
        std::find(spec.unset_env.begin(), spec.unset_env.end(), name) != spec.unset_env.end();
    if (!dropped) env.emplace_back(entry);
  }
  for (const auto& [k, v] : spec.set_env) env.push_back((k + "=").append(v));
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Waits (bounded by the deadline) for the exec report: end of file means
// execve succeeded; a record means chdir or execve failed.
std::optional<ExecFailure> read_exec_report(int fd, Clock::time_point deadline) {
  pollfd p{fd, POLLIN, 0};
  for (;;) {
    int rc = ::poll(&p, 1, poll_timeout_ms(deadline, true));
    if (rc < 0 && errno == EINTR) continue;
    if (rc <= 0) return std::nullopt;  // let the supervisor's deadline decide
    ExecFailure f{};
    ssize_t n = ::read(fd, &f, sizeof f);
    if (n < 0 && errno == EINTR) continue;
    if (n == static_cast<ssize_t>(sizeof f)) return f;
    return std::nullopt;
  }
}

}  // namespace

std::string ChildOutcome::describe() const {
  std::string text;
  switch (kind) {
    case Kind::exited:
      text = fmt::format("exit status {}", exit_code);
      break;
    case Kind::signaled:
      text = "killed by " + signal_text(signal);
      break;
    case Kind::timed_out:
      text = fmt::format("timed out after {:.1f} s", timeout_s);
      if (signal != 0)
        text += fmt::format(" (stopped with {})", signal_name(signal) ? signal_name(signal) : "?");
      else
        text += " (still running after SIGKILL: stuck in the kernel?)";
      break;
    case Kind::interrupted:
      text = fmt::format("interrupted: jetgate received {}", signal_name_text(interrupt));
      if (signal != 0)
        text += fmt::format(" and stopped the process group with {}", signal_name_text(signal));
      else
        text += " (still running after SIGKILL: stuck in the kernel?)";
      break;
    case Kind::spawn_failed:
      return error_text.empty() ? "could not start" : error_text;
  }
  if (output_discarded > 0)
    text += fmt::format("; output capped, {} bytes discarded", output_discarded);
  return text;
}

ChildOutcome run_in_child(const std::function<std::string()>& fn, const ChildLimits& limits) {
  Pipe result, err;
  if (!make_pipe(result) || !make_pipe(err))
    return spawn_failure(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  Fd dev_null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  // Whatever sits in jetgate's stdio buffers now would otherwise be written a
  // second time by the child.
  std::fflush(nullptr);
  auto start = Clock::now();
  pid_t pid = ::fork();
  if (pid < 0) return spawn_failure(fmt::format("cannot fork: {}", std::strerror(errno)));
  if (pid == 0) {
    reset_child_process_state();
    if (dev_null.valid()) ::dup2(dev_null.get(), STDIN_FILENO);
    // Library chatter on stdout must not corrupt jetgate's own (--json) output.
    ::dup2(err.write.get(), STDOUT_FILENO);
    ::dup2(err.write.get(), STDERR_FILENO);
    ::close(result.read.get());
    ::close(err.read.get());
    int code = 0;
    try {
      std::string out = fn();
      write_all_raw(result.write.get(), out.data(), out.size());
    } catch (const std::exception& e) {
      std::string msg = std::string("uncaught exception: ") + e.what() + "\n";
      write_all_raw(STDERR_FILENO, msg.data(), msg.size());
      code = kExceptionExitCode;
    } catch (...) {
      static const char msg[] = "uncaught exception of unknown type\n";
      write_all_raw(STDERR_FILENO, msg, sizeof msg - 1);
      code = kExceptionExitCode;
    }
    std::fflush(nullptr);  // fn's own printf output; the buffers were empty at fork
    ::_exit(code);         // no atexit handlers, no static destructors of the parent's state
  }
  ::setpgid(pid, pid);  // also here, so no signal can race the child's own setpgid
  result.write.reset();
  err.write.reset();
  Streams s{{std::move(result.read), nullptr, nullptr, limits.max_output_bytes, nullptr, false},
            {std::move(err.read), nullptr, nullptr, limits.max_output_bytes, nullptr, true},
            {Fd(), {}, 0}};
  return supervise(pid, s, limits, start);
}

ChildOutcome run_process(const ProcessSpec& spec, const ChildLimits& limits,
                         const LiveOutput& live) {
  if (spec.argv.empty() || spec.argv.front().empty()) return spawn_failure("no program to run");
  auto program = find_program(spec);
  if (!program) return spawn_failure(spec.argv.front() + ": not found in PATH");

  std::vector<std::string> argv_strings = spec.argv;
  std::vector<std::string> env_strings = child_environment(spec);
  std::vector<char*> argv = c_strings(argv_strings);
  std::vector<char*> envp = c_strings(env_strings);
  const char* cwd = spec.cwd ? spec.cwd->c_str() : nullptr;
  long open_max = ::sysconf(_SC_OPEN_MAX);
  int max_fd = static_cast<int>(std::clamp<long>(open_max, 256, 65536));

  Pipe in, out, err, report;
  if (!make_pipe(out) || !make_pipe(err) || !make_pipe(report) ||
      (spec.stdin_text && !make_pipe(in)))
    return spawn_failure(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  if (!spec.stdin_text) in.read.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));

  auto start = Clock::now();
  pid_t pid = ::fork();
  if (pid < 0) return spawn_failure(fmt::format("cannot fork: {}", std::strerror(errno)));
  if (pid == 0) {
    reset_child_process_state();
    if (in.read.valid()) ::dup2(in.read.get(), STDIN_FILENO);
    ::dup2(out.write.get(), STDOUT_FILENO);
    ::dup2(live.merge_stderr ? out.write.get() : err.write.get(), STDERR_FILENO);
    ExecFailure failure{0, 0};
    if (cwd && ::chdir(cwd) != 0) {
      failure = {0, errno};
    } else {
      close_inherited_fds(report.write.get(), max_fd);
      ::execve(program->c_str(), argv.data(), envp.data());
      failure = {1, errno};
    }
    write_all_raw(report.write.get(), reinterpret_cast<const char*>(&failure), sizeof failure);
    ::_exit(kExecFailedExitCode);
  }
  ::setpgid(pid, pid);
  in.read.reset();
  out.write.reset();
  err.write.reset();
  report.write.reset();

  if (auto failure = read_exec_report(report.read.get(), start + limits.timeout)) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (failure->stage == 0)
      return spawn_failure(fmt::format("cannot change to directory {}: {}", *spec.cwd,
                                       std::strerror(failure->error)));
    return spawn_failure(fmt::format("{}: cannot run {}: {}", spec.argv.front(), *program,
                                     std::strerror(failure->error)));
  }
  Streams s{{std::move(out.read), nullptr, nullptr, limits.max_output_bytes, &live.on_chunk, false},
            {std::move(err.read), nullptr, nullptr, limits.max_output_bytes, &live.on_chunk, true},
            {std::move(in.write), spec.stdin_text ? std::string_view(*spec.stdin_text) : "", 0}};
  return supervise(pid, s, limits, start);
}

}  // namespace jetgate::proc
