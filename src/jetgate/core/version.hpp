// SPDX-License-Identifier: Apache-2.0
#pragma once

namespace jetgate {

// "0.1.0"
const char* version();

// How the source commit below is known.
enum class CommitState {
  clean,     // from git: the work tree was the commit
  dirty,     // from git: tracked files differed from it, or uncommitted files were present
  packager,  // set by whoever built it (the CMake cache variable JETGATE_SOURCE_COMMIT)
  unknown,   // neither: a build without .git, and no JETGATE_SOURCE_COMMIT
};

struct SourceCommit {
  const char* id;  // "8b868024..." (git: 40 hex digits; packager: as set); "" when unknown
  CommitState state;
};

// The commit jetgate was built from. Defined in the file cmake/SourceCommit.cmake
// writes at build time (<build>/generated/jetgate_source_commit.cpp).
SourceCommit source_commit();

// "clean", "dirty", "packager", "unknown": the state as evidence records it.
const char* to_string(CommitState state);

}  // namespace jetgate
