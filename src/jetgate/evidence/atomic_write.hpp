// Evidence files are read by `check` and `support` while other gates may be
// writing into the same directory, and a CI job can be killed at any moment.
// So a file is never written in place: a uniquely named temporary file in the
// same directory is written, fsync'd and renamed over the target (atomic on
// POSIX), then the directory is fsync'd so the rename survives a power cut.
#pragma once

#include <string>
#include <string_view>

#include "jetgate/core/result.hpp"

namespace jetgate::evidence {

// Writes DIR/NAME atomically (DIR is created when missing). The temporary
// file is ".NAME.<pid>.<random>.tmp": hidden and not ending in .json, so
// readers globbing *.json never see it. Returns the full path written.
Result<std::string> write_file_atomically(const std::string& dir, const std::string& name,
                                          std::string_view contents);

}  // namespace jetgate::evidence
