// SPDX-License-Identifier: Apache-2.0
#include "jetgate/report/version_text.hpp"

#include <string_view>

#include "jetgate/cuda/kernel_image.hpp"

namespace jetgate::report {

std::string commit_text(const SourceCommit& commit) {
  std::string_view id = commit.id == nullptr ? std::string_view() : std::string_view(commit.id);
  if (id.empty() || commit.state == CommitState::unknown) return "source commit unknown";
  if (commit.state == CommitState::packager)
    return "source " + std::string(id) + ", set by the packager";
  return "git " + std::string(id.substr(0, 7)) + ", " + to_string(commit.state);
}

std::string version_text() {
  std::string out =
      std::string("jetgate ") + version() + " (" + commit_text(source_commit()) + ")\n";
  auto image = cuda::kernel_image();
  if (image.present())
    out += std::string("GPU kernels: CUDA ") + image.toolkit_version + " toolkit, sm_{" +
           image.archs + "} + PTX";
  else
    out += "GPU kernels: none (built without CUDA toolkit)";
  return out;
}

}  // namespace jetgate::report
