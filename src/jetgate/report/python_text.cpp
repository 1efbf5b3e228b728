#include "jetgate/report/python_text.hpp"

namespace jetgate::report {

std::string render_python_text(const probes::PythonRuntime& py) {
  std::string out = "Python ML runtime\n";
  out += "  " + std::string(probes::to_string(py.result.status)) + ": " + py.result.reason + "\n";
  return out;
}

}  // namespace jetgate::report
