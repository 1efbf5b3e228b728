// SPDX-License-Identifier: Apache-2.0
// The nvhost_ctrl probe: opens /dev/nvhost-ctrl, the nvhost control node of
// L4T 32-35 (and of shims on mainline kernels; stock L4T 36 and later have no
// such node), and asks it the syncpoint and fence requests of NVIDIA's L4T
// kernel uapi header include/uapi/linux/nvhost_ioctl.h (magic 'H'). The L4T 32
// header ends at POLL_FD_TRIGGER_EVENT (17), an early L4T 35 dispatcher at 18;
// SYNC_FILE_EXTRACT (19) is in late L4T 35 and nvidia-oot (L4T 36) only, so
// its absence is reported, not failed: CUDA runs on the drivers without it. Every call only reads
// state or creates file descriptors (a fence of a threshold already passed, a poll fd): nothing a
// CUDA process does not do itself. The calls run in a child process with a time limit, so a wait
// that never returns is a recorded outcome.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "jetgate/probes/probe_result.hpp"

namespace jetgate::probes {

enum class IoctlOutcome {
  answered,         // the call returned and its answer is plausible
  not_implemented,  // ENOTTY (or EINVAL for an unknown request): the node lacks it
  absent,           // not implemented, and optional: a driver that predates it
  refused,          // EPERM / EACCES: the node is there, this process may not use it
  wrong,            // answered, but the answer cannot be right
  failed,           // another errno
  not_tried,        // an earlier step it needs did not answer
};
const char* to_string(IoctlOutcome o);  // "answered", "not_implemented", ...

struct IoctlCheck {
  std::string name;  // "GET_VERSION"
  unsigned nr = 0;   // the ioctl number within magic 'H'
  unsigned long request = 0;
  IoctlOutcome outcome = IoctlOutcome::not_tried;
  int error = 0;          // errno when the call failed
  std::string detail;     // what it answered, or why the answer is wrong
  std::string for_cuda;   // what this outcome means for CUDA
  bool optional = false;  // its absence is information, not a failure
};

struct NvhostCtrlOptions {
  std::string node = "/dev/nvhost-ctrl";
  std::chrono::milliseconds timeout{5000};  // the whole child
  std::chrono::milliseconds wait_ms{200};   // the one SYNCPT_WAITMEX and fence poll
  // What the facts say of this platform's stack (data/gpu-stack.json; the CLI
  // fills these): its name, whether /dev/nvhost-ctrl belongs to it (nullopt: no
  // row for this platform) and the row's source.
  std::string stack_name;
  std::optional<bool> node_in_stack;
  std::string stack_source;
};

// The checks in the child (exposed for the tests): opens node and runs each
// ioctl; a node that cannot be opened gives one check named "open".
std::vector<IoctlCheck> run_nvhost_ctrl_checks(const NvhostCtrlOptions& o);

nlohmann::json to_json(const IoctlCheck& c);

// The probe: when the node does not exist, PASS with details.applies false
// where it is not part of this stack (stock L4T 36 and later, Thor, discrete
// GPUs: nothing is missing, so `probe --probe nvhost_ctrl` holds), SKIP where no
// row applies, FAIL where the stack's device list names it (L4T 32-35); PASS when every request
// answered (SYNC_FILE_EXTRACT may be absent), FAIL otherwise, with each check
// in details.ioctls and what a failure means for the runtime in the reason.
ProbeResult probe_nvhost_ctrl(const NvhostCtrlOptions& o);

}  // namespace jetgate::probes
