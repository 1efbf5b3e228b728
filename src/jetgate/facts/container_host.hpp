// SPDX-License-Identifier: Apache-2.0
// Inside a container, two L4T releases meet: the image's (its CUDA, cuDNN
// and TensorRT user-mode libraries) and the host's (the kernel and the GPU
// driver, libcuda.so, which the NVIDIA container runtime mounts in). What of
// the host a container can see: the kernel release (/proc/sys/kernel/osrelease
// is always the host's), the driver's CUDA version (cuDriverGetVersion on
// the mounted libcuda), and /etc/nv_tegra_release only when it is bind-mounted
// from the host (jetson-containers' run.sh does; plain `docker run` shows the
// image's own file, or none). /sys/firmware (the device tree) is masked by
// Docker. A mismatch of the two breaks CUDA, so jetgate names it with the fix.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace jetgate::facts {

class CollectContext;

// Adds to /platform/container (when a container is detected): image_l4t,
// image_l4t_source, host_l4t, nv_tegra_release_from_host, host_l4t_majors
// (from the kernel). platform, the /platform object, holds /kernel and /tegra
// already.
void collect_container_l4t(CollectContext& ctx, nlohmann::json& platform);

// The same keys under --host-root: the host's release is /platform/tegra/l4t,
// read from the host's own /etc/nv_tegra_release under the mount
// (nv_tegra_release_from_host true when it was), and the image's comes from
// `own`, this process's root (its nvidia-l4t-core package, else its own
// /etc/nv_tegra_release).
void collect_container_l4t_host_mount(CollectContext& own, nlohmann::json& platform);

// The verdict on image vs host, from the /platform object and the host
// driver's CUDA version ("12.6", from /gpu/driver/version): null outside a
// container, else {"status": "PASS" | "FAIL" | "SKIP", "image_l4t",
// "image_cuda", "host_l4t", "host_l4t_majors", "driver_cuda", "problems": [..],
// "fix"}.
nlohmann::json check_container_l4t(const nlohmann::json& platform,
                                   const std::optional<std::string>& driver_cuda);

}  // namespace jetgate::facts
