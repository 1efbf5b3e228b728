// SPDX-License-Identifier: Apache-2.0
// Where a container runtime reads CDI specs from: /etc/cdi and /var/run/cdi by
// default, the cdi_spec_dirs containerd's configuration names (config.toml, and
// Talos's /etc/cri/conf.d/*.part fragments), and /var/cdi/static and
// /var/cdi/dynamic, where Talos guides put them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "jetgate/core/result.hpp"

namespace jetgate::facts {

class CollectContext;

// The cdi_spec_dirs of a containerd configuration (TOML): under
// plugins."io.containerd.grpc.v1.cri" (config version 2) or
// plugins."io.containerd.cri.v1.runtime" (version 3). An empty list when the
// file sets none; an Error when it is not TOML or the key is not a list of
// absolute paths. At most 16 directories.
Result<std::vector<std::string>> containerd_cdi_spec_dirs(std::string_view toml_text);

struct CdiDir {
  std::string path;  // "/var/cdi/static"
  std::string from;  // "default", "/etc/containerd/config.toml", "Talos convention"
};

// Every directory to look in, each once, in the order the runtime's defaults
// and configuration give them; at most 24. Unreadable or malformed
// configuration files are warnings.
std::vector<CdiDir> cdi_spec_dirs(CollectContext& ctx);

}  // namespace jetgate::facts
