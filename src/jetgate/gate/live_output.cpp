// SPDX-License-Identifier: Apache-2.0
#include "jetgate/gate/live_output.hpp"

#include "jetgate/core/utf8.hpp"

namespace jetgate::gate {

void LiveLines::emit_pending() {
  if (!pending_.empty() && pending_.back() == '\r') pending_.pop_back();  // CRLF output
  if (emit_) emit_(terminal_safe(pending_));
  pending_.clear();
}

void LiveLines::feed(std::string_view chunk) {
  while (!chunk.empty()) {
    auto nl = chunk.find('\n');
    std::string_view part = chunk.substr(0, nl);
    std::size_t room = kMaxLineBytes - pending_.size();
    if (part.size() >= room && (nl == std::string_view::npos || part.size() > room)) {
      // A very long line: hand on a piece. A cut inside a multi-byte
      // character shows as U+FFFD, which is acceptable for a live view.
      pending_.append(part.substr(0, room));
      chunk.remove_prefix(room);
      emit_pending();
      continue;
    }
    pending_.append(part);
    if (nl == std::string_view::npos) return;
    emit_pending();
    chunk.remove_prefix(nl + 1);
  }
}

void LiveLines::flush() {
  if (!pending_.empty()) emit_pending();
}

}  // namespace jetgate::gate
