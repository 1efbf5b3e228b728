// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/python_text.hpp"

namespace jetgate::report {

// One line per Python probe: "  python_runtime  PASS: torch 2.5.0 ..."
std::string render_python_text(const probes::PythonRuntime& py) {
  std::string out = "Python ML runtime\n";
  auto line = [&](const probes::ProbeResult& r) {
    out += "  " + r.id + "  " + probes::to_string(r.status) + ": " + r.reason + "\n";
  };
  line(py.result);
  if (py.bitsandbytes) line(*py.bitsandbytes);
  return out;
}

}  // namespace jetgate::report
