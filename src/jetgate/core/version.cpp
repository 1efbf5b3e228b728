// SPDX-License-Identifier: Apache-2.0
#include "jetgate/core/version.hpp"

namespace jetgate {

const char* version() {
  return JETGATE_VERSION;
}

const char* to_string(CommitState state) {
  switch (state) {
    case CommitState::clean:
      return "clean";
    case CommitState::dirty:
      return "dirty";
    case CommitState::packager:
      return "packager";
    case CommitState::unknown:
      break;
  }
  return "unknown";
}

}  // namespace jetgate
