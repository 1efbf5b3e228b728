// SPDX-License-Identifier: Apache-2.0
// The device nodes this process holds open, from /proc/self/fd: what the CUDA
// driver opened (nvgpu, nvmap, nvhost-ctrl, host1x-fence, /dev/nvidia*), read
// in the child process that talks to it.
#pragma once

#include <string>
#include <vector>

namespace jetgate::proc {

// The targets of /proc/self/fd/* that are under /dev/, sorted, each once; at
// most 4096 descriptors are looked at. Empty when /proc is not mounted.
std::vector<std::string> open_device_nodes();

// The same for the descriptors of a directory laid out as /proc/PID/fd (a
// test or a recorded process): entries whose link target starts with /dev/.
std::vector<std::string> open_device_nodes_in(const std::string& fd_dir);

}  // namespace jetgate::proc
