// SPDX-License-Identifier: Apache-2.0
// The gate's command output, shown while it runs: a 30-minute pytest must
// show progress in a CI log, not a silent step. The bytes are cut into lines
// here, each made safe for a terminal (core/utf8.hpp: no raw escape
// sequences or bidirectional overrides), and handed on one at a time; the
// caller adds a prefix. GATE.log keeps the output byte for byte.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

namespace jetgate::gate {

class LiveLines {
 public:
  // A line longer than this is handed on in pieces, so a command that never
  // writes a newline cannot make jetgate hold its whole output.
  static constexpr std::size_t kMaxLineBytes = 4096;

  explicit LiveLines(std::function<void(std::string_view line)> emit) : emit_(std::move(emit)) {}
  void feed(std::string_view chunk);
  // Hands on what is left after the last newline.
  void flush();

 private:
  void emit_pending();
  std::function<void(std::string_view)> emit_;
  std::string pending_;
};

}  // namespace jetgate::gate
