#include "jetgate/core/version.hpp"

namespace jetgate {

const char* version() {
  return JETGATE_VERSION;
}

}  // namespace jetgate
