// SPDX-License-Identifier: Apache-2.0
// Container Device Interface specs (/etc/cdi, /var/run/cdi): which device
// nodes a container runtime will inject, so jetgate can say whether they exist.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "jetgate/core/result.hpp"

namespace jetgate::facts {

struct CdiDeviceNode {
  std::string path;       // path in the container
  std::string host_path;  // hostPath, or path when absent
  // type and major given (or type "p"): the CDI library then does not need the
  // host node to exist (container-device-interface pkg/cdi fillMissingInfo).
  bool fully_specified = false;
};

struct CdiSpec {
  std::string cdi_version;
  std::string kind;                         // "nvidia.com/gpu"
  std::vector<std::string> devices;         // device names, e.g. "all", "0"
  std::vector<CdiDeviceNode> device_nodes;  // from every containerEdits, de-duplicated
};

// Parses a CDI spec in YAML or JSON. Errors name the field that is wrong.
Result<CdiSpec> parse_cdi_spec(std::string_view text);

}  // namespace jetgate::facts
