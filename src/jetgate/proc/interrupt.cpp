// SPDX-License-Identifier: Apache-2.0
#include "jetgate/proc/interrupt.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iterator>

namespace jetgate::proc {
namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Written by the handler, which may run on any thread (the CUDA driver starts
// some): only lock-free atomics and write(2) there.
volatile sig_atomic_t g_first_signal = 0;
volatile sig_atomic_t g_count = 0;
volatile sig_atomic_t g_write_fd = -1;
int g_read_fd = -1;
struct sigaction g_previous[3];

void on_signal(int sig) {
  const int saved_errno = errno;
  if (g_first_signal == 0) g_first_signal = sig;
  if (g_count < 1000) g_count = g_count + 1;
  if (g_write_fd >= 0) {
    const char byte = 1;
    [[maybe_unused]] auto n = ::write(g_write_fd, &byte, 1);
  }
  errno = saved_errno;
}

}  // namespace

InterruptScope::InterruptScope() {
  g_first_signal = 0;
  g_count = 0;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0) {
    g_read_fd = fds[0];
    g_write_fd = fds[1];
  }
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;  // jetgate's own reads and writes go on; poll() still wakes
  for (std::size_t i = 0; i < std::size(kSignals); ++i)
    ::sigaction(kSignals[i], &sa, &g_previous[i]);
}

InterruptScope::~InterruptScope() {
  for (std::size_t i = 0; i < std::size(kSignals); ++i)
    ::sigaction(kSignals[i], &g_previous[i], nullptr);
  const int w = g_write_fd;
  g_write_fd = -1;
  if (w >= 0) ::close(w);
  if (g_read_fd >= 0) ::close(g_read_fd);
  g_read_fd = -1;
  g_first_signal = 0;
  g_count = 0;
}

int interrupt_signal() {
  return g_first_signal;
}
int interrupt_count() {
  return g_count;
}
int interrupt_fd() {
  return g_read_fd;
}

void drain_interrupt_fd() {
  char buf[64];
  while (g_read_fd >= 0 && ::read(g_read_fd, buf, sizeof buf) > 0) {
  }
}

}  // namespace jetgate::proc
