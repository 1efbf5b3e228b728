// SPDX-License-Identifier: Apache-2.0
// The Python ML runtime section of the readable `jetgate probe` report.
#pragma once

#include <string>

#include "jetgate/probes/python_runtime.hpp"

namespace jetgate::report {

std::string render_python_text(const probes::PythonRuntime& py);

}  // namespace jetgate::report
