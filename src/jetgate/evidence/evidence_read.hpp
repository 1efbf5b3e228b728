// SPDX-License-Identifier: Apache-2.0
// read_evidence_text (evidence.hpp) through a directory already open: the
// loader of many files opens each directory once, not once per file.
#pragma once

#include <string>

#include "jetgate/core/result.hpp"
#include "jetgate/fs/root_fs.hpp"

namespace jetgate::evidence {

// read_evidence_text(path) where dir is RootFs::open of path's parent and name
// its file name: the same bytes, or the same error.
Result<std::string> read_evidence_text(const fs::RootFs& dir, const std::string& name,
                                       const std::string& path);
// The same into text, reusing its storage (fs::RootFs::read_into).
Status read_evidence_text(const fs::RootFs& dir, const std::string& name, const std::string& path,
                          std::string& text);

}  // namespace jetgate::evidence
