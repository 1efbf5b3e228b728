// SPDX-License-Identifier: Apache-2.0
// What `jetgate --version` prints: the version, the source commit and the GPU kernels
// built in.
#pragma once

#include <string>

#include "jetgate/core/version.hpp"

namespace jetgate::report {

// "jetgate 0.1.0 (git 8b86802, clean)\nGPU kernels: CUDA 13.0 toolkit, sm_{75,...} + PTX" (or
// "none (built without CUDA toolkit)")
std::string version_text();

// The parenthesis after the version: "git 8b86802, clean", "git 8b86802, dirty",
// "source 8b86802, set by the packager", "source commit unknown". A git commit is shortened
// to 7 hex digits (as `git log --oneline` shows it); the full id is in evidence.
std::string commit_text(const SourceCommit& commit);

}  // namespace jetgate::report
