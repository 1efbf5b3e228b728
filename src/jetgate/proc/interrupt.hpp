// SPDX-License-Identifier: Apache-2.0
// Ctrl-C, a CI runner cancelling a job (SIGINT, then SIGTERM), or a closed
// terminal (SIGHUP) must not leave a gate's test command running on its own,
// nor end jetgate before it has said, in its evidence, that the run was cut
// short. An InterruptScope turns these signals into a record that the child
// supervisor (child.cpp) and the caller look at.
#pragma once

namespace jetgate::proc {

// While one is alive, SIGINT, SIGTERM and SIGHUP do not end jetgate: they are
// recorded, and the child being supervised (and any started later) is
// stopped, so the caller can write its evidence and exit. The previous
// handlers are restored, and the record cleared, when it ends. One at a time.
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;
};

// The first signal received while an InterruptScope is alive, else 0.
int interrupt_signal();
// How many such signals arrived (a second one escalates to SIGKILL).
int interrupt_count();
// Readable when a signal arrived (a self-pipe, for poll); -1 outside a scope.
int interrupt_fd();
// Empties the self-pipe after poll reported it readable.
void drain_interrupt_fd();

}  // namespace jetgate::proc
