// SPDX-License-Identifier: Apache-2.0
// The nvhost_ctrl probe: opens /dev/nvhost-ctrl and asks it what JetPack 6's
// CUDA runtime (libnvrm_host1x) asks, with the request numbers and structures
// of NVIDIA's L4T kernel uapi header include/uapi/linux/nvhost_ioctl.h
// (nvidia-oot, L4T 36; the L4T 35 header of OE4T/linux-tegra-5.10 has the same
// numbers up to 18 and no SYNC_FILE_EXTRACT). Every call only reads state or
// creates file descriptors (a fence of a threshold already passed, a poll fd):
// nothing a CUDA process does not do itself. The calls run in a child process
// with a time limit, so a wait that never returns is a recorded outcome.
#pragma once

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "jetgate/probes/probe_result.hpp"

namespace jetgate::probes {

enum class IoctlOutcome {
  answered,         // the call returned and its answer is plausible
  not_implemented,  // ENOTTY (or EINVAL for an unknown request): the node lacks it
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
  int error = 0;         // errno when the call failed
  std::string detail;    // what it answered, or why the answer is wrong
  std::string for_cuda;  // what this outcome means for CUDA
};

struct NvhostCtrlOptions {
  std::string node = "/dev/nvhost-ctrl";
  std::chrono::milliseconds timeout{5000};  // the whole child
  std::chrono::milliseconds wait_ms{200};   // the one SYNCPT_WAITMEX and fence poll
};

// The checks in the child (exposed for the tests): opens node and runs each
// ioctl; a node that cannot be opened gives one check named "open".
std::vector<IoctlCheck> run_nvhost_ctrl_checks(const NvhostCtrlOptions& o);

nlohmann::json to_json(const IoctlCheck& c);

// The probe: SKIP when the node does not exist (no nvhost interface on this
// machine), PASS when every ioctl answered, FAIL otherwise, with each check in
// details.ioctls and what the failures mean for CUDA in the reason.
ProbeResult probe_nvhost_ctrl(const NvhostCtrlOptions& o);

}  // namespace jetgate::probes
