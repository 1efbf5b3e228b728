// SPDX-License-Identifier: Apache-2.0
// `--host-root DIR` (node_exporter's --path.rootfs): the running host's /etc,
// /proc, /sys and /lib/modules, mounted read-only into a pod, read live. A
// recording (jetgate-root.json) is not a host mount, and a DIR/proc that is not
// a procfs would make every kernel fact a leftover file: both are refused.
#pragma once

#include <string>
#include <vector>

#include "jetgate/core/result.hpp"

namespace jetgate::fs {

// statfs(2) f_type values (linux/magic.h).
inline constexpr long kProcSuperMagic = 0x9fa0;  // PROC_SUPER_MAGIC
inline constexpr long kSysfsMagic = 0x62656572;  // SYSFS_MAGIC

struct HostRootCheck {
  bool proc_is_procfs = false;
  bool sys_is_sysfs = false;
  // Facts that will not be live or complete (DIR/sys not a sysfs, no DIR/etc,
  // no DIR/lib/modules): reported as warnings, the probe goes on.
  std::vector<std::string> problems;
};

// Refuses (an Error naming DIR and what to do) a DIR that is missing or not a
// directory, holds jetgate-root.json (a recording: use --root), or whose proc
// is not a procfs mount. `proc_magic` and `sys_magic` are the f_type values a
// live mount must have (tests pass others to check the refusal).
Result<HostRootCheck> check_host_root(const std::string& dir, long proc_magic = kProcSuperMagic,
                                      long sys_magic = kSysfsMagic);

}  // namespace jetgate::fs
