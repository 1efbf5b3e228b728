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
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
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
#include <mutex>
#include <set>
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
void reset_child_process_state(bool own_group = true) {
  if (own_group) ::setpgid(0, 0);
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

// Closes every descriptor from 3 up except a and b.
void close_fds_except(int a, int b, int max_fd) {
  if (a > b) std::swap(a, b);
#ifdef SYS_close_range
  auto range = [](int lo, int hi) {  // [lo, hi], hi < 0: to the end
    if (hi >= 0 && hi < lo) return true;
    return ::syscall(SYS_close_range, static_cast<unsigned>(lo),
                     hi < 0 ? ~0u : static_cast<unsigned>(hi), 0u) == 0;
  };
  if (a >= 3 && b > a && range(3, a - 1) && range(a + 1, b - 1) && range(b + 1, -1)) return;
#endif
  for (int fd = 3; fd < max_fd; ++fd)
    if (fd != a && fd != b) ::close(fd);
}

struct ExecFailure {
  int stage;  // 0: chdir, 1: execve, 2: switching to command.user
  int error;
};

// --- Finding and ending a process tree (async-signal-safe) ---------------------

// The parent pid in /proc/PID/stat ("PID (COMM) S PPID ..."); -1 if gone,
// and -1 for a zombie too: it runs nothing, and waitpid reaps it.
long parent_of(const char* pid_text) {
  char path[64] = "/proc/";
  std::size_t n = 6;
  for (const char* c = pid_text; *c && n < sizeof path - 8; ++c) path[n++] = *c;
  for (const char* c = "/stat"; *c; ++c) path[n++] = *c;
  path[n] = 0;
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buf[1024];
  ssize_t got = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (got <= 0) return -1;
  buf[got] = 0;
  // COMM may hold anything, ")" included: the last ")" ends it.
  char* close = nullptr;
  for (char* c = buf; *c; ++c)
    if (*c == ')') close = c;
  if (!close || close[1] != ' ' || !close[2] || close[3] != ' ' || close[2] == 'Z') return -1;
  long ppid = 0;
  for (char* c = close + 4; *c >= '0' && *c <= '9'; ++c) ppid = ppid * 10 + (*c - '0');
  return ppid;
}

// Calls fn(pid) for every process whose parent is this process, and returns
// how many there were. Reads /proc with getdents64: no allocation.
template <typename Fn>
int for_each_child(Fn&& fn) {
  int dir = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return 0;
  const long self = static_cast<long>(::getpid());
  int count = 0;
  alignas(8) char buf[8192];
  for (;;) {
    long got = ::syscall(SYS_getdents64, dir, buf, sizeof buf);
    if (got <= 0) break;
    for (long off = 0; off < got;) {
      // struct linux_dirent64: u64 d_ino, s64 d_off, u16 d_reclen, u8 d_type, char d_name[].
      unsigned short reclen = 0;
      std::memcpy(&reclen, buf + off + 16, sizeof reclen);
      const char* name = buf + off + 19;
      off += reclen;
      if (name[0] < '1' || name[0] > '9') continue;
      long pid = 0;
      bool digits = true;
      for (const char* c = name; *c; ++c) {
        if (*c < '0' || *c > '9') digits = false;
        pid = pid * 10 + (*c - '0');
      }
      if (!digits || pid == self || parent_of(name) != self) continue;
      ++count;
      fn(static_cast<pid_t>(pid));
    }
  }
  ::close(dir);
  return count;
}

long long monotonic_ms() {
  struct timespec ts {};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<long long>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

void sleep_ms(long ms) {
  struct timespec ts {
    0, ms * 1000000
  };
  ::nanosleep(&ts, nullptr);
}

// Kills every child of this process with SIGKILL and reaps it, again and
// again: the children of a killed child are re-parented here (this process is
// a child subreaper), so the loop ends with the whole tree gone. skip(pid)
// children are left alone. reap_any: every child is the tree's (the keeper),
// so waitpid(-1) also reaps zombies that were never killed; otherwise only
// the processes killed here are reaped. on_reaped(pid, status) sees each one
// reaped. Returns how many were killed; gives up after limit_ms (a process
// stuck in the kernel survives SIGKILL).
template <typename Skip, typename OnReaped>
int kill_children(Skip&& skip, OnReaped&& on_reaped, bool reap_any, long limit_ms) {
  const long long until = monotonic_ms() + limit_ms;
  constexpr int kMaxPending = 4096;
  pid_t pending[kMaxPending];
  int npending = 0;
  int killed = 0;
  auto reap = [&] {
    int status = 0;
    bool any = false;
    if (reap_any) {
      pid_t reaped;
      while ((reaped = ::waitpid(-1, &status, WNOHANG)) > 0) {
        any = true;
        on_reaped(reaped, status);
      }
      return any;
    }
    for (int i = 0; i < npending;) {
      if (::waitpid(pending[i], &status, WNOHANG) == pending[i]) {
        any = true;
        on_reaped(pending[i], status);
        pending[i] = pending[--npending];
      } else {
        ++i;
      }
    }
    return any;
  };
  for (;;) {
    int alive = 0;
    for_each_child([&](pid_t pid) {
      if (skip(pid)) return;
      ++alive;
      if (::kill(pid, SIGKILL) != 0) return;
      bool known = false;
      for (int i = 0; i < npending; ++i) known = known || pending[i] == pid;
      if (!known) {
        ++killed;
        if (npending < kMaxPending) pending[npending++] = pid;
      }
    });
    bool any = reap();
    if ((alive == 0 && (reap_any || npending == 0)) || monotonic_ms() >= until) {
      // The last ones killed may only now be zombies: reap what is there.
      for (int tries = 0; tries < 100 && !reap_any && npending > 0; ++tries) {
        if (!reap()) sleep_ms(5);
      }
      if (reap_any) reap();
      break;
    }
    if (!any) sleep_ms(5);
  }
  return killed;
}

// What the keeper tells jetgate when the tree is gone.
struct KeeperReport {
  int stage;      // 1: the command ran (status), 2: the keeper could not fork
  int error;      // errno, when stage is 2
  int status;     // the command's wait status
  int left;       // processes still running when the command ended, killed
  int contained;  // 1: the keeper is a child subreaper (every orphan comes to it)
};

// The keeper: a child subreaper between jetgate and the command. Returns
// only through _exit.
[[noreturn]] void keeper_main(pid_t command_pid, int life_fd, int report_fd, bool contained) {
  KeeperReport r{1, 0, 0, 0, contained ? 1 : 0};
  bool command_done = false;
  long pidfd = -1;
#ifdef SYS_pidfd_open
  pidfd = ::syscall(SYS_pidfd_open, command_pid, 0);
#endif
  for (;;) {
    pollfd fds[2] = {{life_fd, POLLIN, 0}, {static_cast<int>(pidfd), POLLIN, 0}};
    int rc = ::poll(fds, pidfd >= 0 ? 2 : 1, pidfd >= 0 ? 100 : 10);
    int status = 0;
    pid_t reaped;
    while ((reaped = ::waitpid(-1, &status, WNOHANG)) > 0)
      if (reaped == command_pid) {
        r.status = status;
        command_done = true;
      }
    if (command_done) break;
    // jetgate is gone (its end of the pipe closed, even by SIGKILL): end it all.
    if (rc > 0 && fds[0].revents) break;
  }
  r.left = kill_children([](pid_t) { return false; },
                         [&](pid_t pid, int status) {
                           if (pid == command_pid && !command_done) {
                             r.status = status;
                             command_done = true;
                           }
                         },
                         /*reap_any=*/true, 10000);
  if (!command_done) r.status = SIGKILL;  // jetgate went away first
  write_all_raw(report_fd, reinterpret_cast<const char*>(&r), sizeof r);
  ::_exit(0);
}

// --- In the parent -----------------------------------------------------------

// The children jetgate started itself (run_in_child, run_process's keepers);
// any other child of jetgate is an orphan it adopted as a subreaper.
std::mutex& children_mutex() {
  static std::mutex m;
  return m;
}
std::set<pid_t>& started_children() {
  static std::set<pid_t> s;
  return s;
}

// Not held across fork(): a child must never inherit a locked mutex.
void remember_child(pid_t pid) {
  std::lock_guard<std::mutex> lock(children_mutex());
  started_children().insert(pid);
}

void forget_child(pid_t pid) {
  std::lock_guard<std::mutex> lock(children_mutex());
  started_children().erase(pid);
}

// jetgate adopts the orphans of a keeper that was killed (a timeout's
// SIGKILL, or the command killing it); they are killed and reaped here.
std::size_t kill_adopted_orphans() {
  std::lock_guard<std::mutex> lock(children_mutex());
  const auto& ours = started_children();
  return static_cast<std::size_t>(kill_children([&](pid_t pid) { return ours.count(pid) > 0; },
                                                [](pid_t, int) {}, /*reap_any=*/false, 5000));
}

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

// keeper_fd: where run_process's keeper reports how the command ended (-1 for
// run_in_child, whose child is the work itself).
ChildOutcome supervise(pid_t pid, Streams& s, const ChildLimits& limits, Clock::time_point start,
                       int keeper_fd = -1) {
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
  KeeperReport report{0, 0, 0, 0, 1};
  if (keeper_fd >= 0) {
    ssize_t n;
    while ((n = ::read(keeper_fd, &report, sizeof report)) < 0 && errno == EINTR) {
    }
    if (n != static_cast<ssize_t>(sizeof report)) report.stage = 0;
  }
  o.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (stop_signal != 0) {
    o.kind = interrupt != 0 ? ChildOutcome::Kind::interrupted : ChildOutcome::Kind::timed_out;
    o.interrupt = interrupt;
    o.timeout_s = std::chrono::duration<double>(limits.timeout).count();
    o.signal = stuck ? 0 : stop_signal;
  }
  if (stuck) {
    forget_child(pid);
    return o;  // cannot be reaped now; it becomes init's zombie later
  }
  int status = 0;
  pid_t reaped;
  while ((reaped = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  forget_child(pid);
  if (keeper_fd >= 0) {
    if (report.stage == 2)
      return spawn_failure(fmt::format("cannot fork: {}", std::strerror(report.error)));
    if (report.stage == 1) {
      status = report.status;
      o.left_running = static_cast<std::size_t>(report.left);
      o.contained = report.contained == 1;
    } else {
      // The keeper was killed before it could report: its orphans are ours now.
      o.left_running = kill_adopted_orphans();
    }
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
  if (spec.run_as) {
    // Their own HOME and name, unless the spec sets them.
    std::vector<std::pair<std::string, std::string>> own = {
        {"HOME", spec.run_as->home}, {"USER", spec.run_as->name}, {"LOGNAME", spec.run_as->name}};
    for (const auto& [k, v] : own) {
      if (spec.set_env.count(k)) continue;
      auto prefix = k + "=";
      env.erase(std::remove_if(env.begin(), env.end(),
                               [&](const std::string& e) { return e.rfind(prefix, 0) == 0; }),
                env.end());
      env.push_back(prefix + v);
    }
  }
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

std::optional<RunAs> lookup_user(const std::string& name_or_uid, std::string& why) {
  if (name_or_uid.empty()) {
    why = "the user name is empty";
    return std::nullopt;
  }
  std::vector<char> buf(16384);
  struct passwd pw {};
  struct passwd* found = nullptr;
  bool numeric = std::all_of(name_or_uid.begin(), name_or_uid.end(),
                             [](char c) { return c >= '0' && c <= '9'; });
  int rc;
  if (numeric && name_or_uid.size() <= 9)
    rc = ::getpwuid_r(static_cast<uid_t>(std::stoul(name_or_uid)), &pw, buf.data(), buf.size(),
                      &found);
  else
    rc = ::getpwnam_r(name_or_uid.c_str(), &pw, buf.data(), buf.size(), &found);
  if (rc != 0 || found == nullptr) {
    why = rc != 0 ? std::string(std::strerror(rc)) : "no such user in the user database";
    return std::nullopt;
  }
  RunAs r;
  r.name = pw.pw_name;
  r.uid = pw.pw_uid;
  r.gid = pw.pw_gid;
  r.home = pw.pw_dir ? pw.pw_dir : "/";
  int count = 64;
  std::vector<gid_t> groups(static_cast<std::size_t>(count));
  if (::getgrouplist(pw.pw_name, pw.pw_gid, groups.data(), &count) < 0) {
    groups.resize(static_cast<std::size_t>(count));
    if (::getgrouplist(pw.pw_name, pw.pw_gid, groups.data(), &count) < 0) count = 0;
  }
  for (int i = 0; i < count; ++i) r.groups.push_back(groups[static_cast<std::size_t>(i)]);
  if (r.groups.empty()) r.groups.push_back(r.gid);
  return r;
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
  if (pid > 0) remember_child(pid);
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

  Pipe in, out, err, report, life, keeper;
  if (!make_pipe(out) || !make_pipe(err) || !make_pipe(report) || !make_pipe(life) ||
      !make_pipe(keeper) || (spec.stdin_text && !make_pipe(in)))
    return spawn_failure(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  if (!spec.stdin_text) in.read.reset(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  Fd dev_null(::open("/dev/null", O_RDWR | O_CLOEXEC));
  std::vector<gid_t> groups;
  if (spec.run_as)
    for (unsigned g : spec.run_as->groups) groups.push_back(static_cast<gid_t>(g));

  // Orphans of the keeper's tree come to jetgate if the keeper itself is killed.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  auto start = Clock::now();
  pid_t pid = ::fork();
  if (pid > 0) remember_child(pid);
  if (pid < 0) return spawn_failure(fmt::format("cannot fork: {}", std::strerror(errno)));
  if (pid == 0) {
    // The keeper: its own process group, which the command joins, so a
    // timeout's SIGTERM to the group reaches the command; the keeper ignores
    // it and stays to end the tree.
    reset_child_process_state();
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE}) ::sigaction(sig, &ign, nullptr);
    // Linux has had it since 3.4; qemu-user refuses it (EINVAL), and then a
    // daemon that left the session is not the keeper's to end.
    const bool contained = ::prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0;
    const pid_t keeper_pid = ::getpid();
    pid_t command = ::fork();
    if (command == 0) {
      reset_child_process_state(/*own_group=*/false);
      // The keeper's death (SIGKILL from a timeout, or from the command) ends the command.
      ::prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
      if (::getppid() != keeper_pid) ::_exit(kExecFailedExitCode);
      if (in.read.valid()) ::dup2(in.read.get(), STDIN_FILENO);
      ::dup2(out.write.get(), STDOUT_FILENO);
      ::dup2(live.merge_stderr ? out.write.get() : err.write.get(), STDERR_FILENO);
      ExecFailure failure{0, 0};
      if (spec.run_as && (::setgroups(groups.size(), groups.data()) != 0 ||
                          ::setgid(static_cast<gid_t>(spec.run_as->gid)) != 0 ||
                          ::setuid(static_cast<uid_t>(spec.run_as->uid)) != 0)) {
        failure = {2, errno};
      } else if (cwd && ::chdir(cwd) != 0) {
        failure = {0, errno};
      } else {
        close_inherited_fds(report.write.get(), max_fd);
        ::execve(program->c_str(), argv.data(), envp.data());
        failure = {1, errno};
      }
      write_all_raw(report.write.get(), reinterpret_cast<const char*>(&failure), sizeof failure);
      ::_exit(kExecFailedExitCode);
    }
    if (command < 0) {
      KeeperReport r{2, errno, 0, 0, contained ? 1 : 0};
      write_all_raw(keeper.write.get(), reinterpret_cast<const char*>(&r), sizeof r);
      ::_exit(kExecFailedExitCode);
    }
    // Nothing of jetgate's stays open here: no pipe end the command's readers
    // wait on, no lock, no copy of jetgate's end of the life pipe.
    if (dev_null.valid())
      for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) ::dup2(dev_null.get(), fd);
    close_fds_except(life.read.get(), keeper.write.get(), max_fd);
    keeper_main(command, life.read.get(), keeper.write.get(), contained);
  }
  ::setpgid(pid, pid);
  in.read.reset();
  out.write.reset();
  err.write.reset();
  report.write.reset();
  life.read.reset();
  keeper.write.reset();

  if (auto failure = read_exec_report(report.read.get(), start + limits.timeout)) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    forget_child(pid);
    if (failure->stage == 0)
      return spawn_failure(fmt::format("cannot change to directory {}: {}", *spec.cwd,
                                       std::strerror(failure->error)));
    if (failure->stage == 2)
      return spawn_failure(fmt::format("cannot run {} as user {}: {}", spec.argv.front(),
                                       spec.run_as->name, std::strerror(failure->error)));
    return spawn_failure(fmt::format("{}: cannot run {}: {}", spec.argv.front(), *program,
                                     std::strerror(failure->error)));
  }
  Streams s{{std::move(out.read), nullptr, nullptr, limits.max_output_bytes, &live.on_chunk, false},
            {std::move(err.read), nullptr, nullptr, limits.max_output_bytes, &live.on_chunk, true},
            {std::move(in.write), spec.stdin_text ? std::string_view(*spec.stdin_text) : "", 0}};
  // life.write stays open (close-on-exec) until the keeper has reported: its
  // end of file tells the keeper that jetgate is gone.
  auto outcome = supervise(pid, s, limits, start, keeper.read.get());
  life.write.reset();
  return outcome;
}

}  // namespace jetgate::proc
