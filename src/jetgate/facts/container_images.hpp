// SPDX-License-Identifier: Apache-2.0
// Which container images run on which Jetson host (data/l4t-containers.json,
// compiled into the binary): the compatibility rule of jetson-containers'
// autotag, the CUDA version each L4T series' driver supports, the kernel each
// L4T major ships, and the known image tags.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jetgate/core/result.hpp"

namespace jetgate::facts {

// A half-open range of L4T releases: [low, high).
struct L4tRange {
  std::string low;
  std::string high;
  bool contains(std::string_view l4t) const;
};

struct CompatibilityRow {
  L4tRange host;
  L4tRange image;
  std::string source;
};

struct DriverCudaRow {
  L4tRange l4t;
  std::string cuda;  // "12.6"
  std::string source;
};

struct KernelSeriesRow {
  std::string kernel;           // "5.15"
  std::vector<int> l4t_majors;  // {36}; {34, 35} when one kernel served two
  std::string source;
};

// What to do on a host no known image fits, for one range of host releases.
struct NoImageHint {
  L4tRange l4t;
  std::string hint;
  std::string source;
};

struct ContainerImage {
  std::string image;  // "nvcr.io/nvidia/l4t-jetpack:r36.4.0"
  std::string l4t;    // the L4T release it was built for
  std::string kind;   // jetpack, cuda, base, pytorch, ml, jetson-containers
  std::string source;
};

// One compatible image and why it fits the host.
struct ImageMatch {
  const ContainerImage* image = nullptr;
  bool exact = false;  // built for the host's very release
  std::string why;     // "same release", or the rule row's source
};

class ContainerTable {
 public:
  static Result<ContainerTable> parse(std::string_view json_text);

  // The rule: may a host on host_l4t run an image built for image_l4t?
  // Same series (a compatibility row) or the exact release; never newer.
  bool compatible(std::string_view host_l4t, std::string_view image_l4t) const;
  // Why (a row's source), or nullopt when not compatible.
  std::optional<std::string> why_compatible(std::string_view host_l4t,
                                            std::string_view image_l4t) const;
  // The known images a host on host_l4t runs: the exact release first, then
  // the nearest older releases, in the table's order within one release.
  std::vector<ImageMatch> images_for(std::string_view host_l4t) const;
  // The CUDA version the driver of this L4T release supports ("12.6").
  std::optional<std::string> driver_cuda(std::string_view l4t) const;
  // The L4T majors whose kernel has this release's series ("5.15.148-tegra"
  // -> {36}); empty when the kernel is not an L4T kernel or not known.
  std::vector<int> l4t_majors_of_kernel(std::string_view kernel_release) const;

  const std::vector<ContainerImage>& images() const { return images_; }
  // What to do when no known image fits a host on host_l4t: the hint of the
  // host's JetPack series (no_image_hints), else the general one.
  const std::string& no_image_hint(std::string_view host_l4t) const;
  const std::string& no_image_hint() const { return no_image_hint_; }
  const std::vector<NoImageHint>& no_image_hints() const { return hints_; }

 private:
  std::vector<CompatibilityRow> rules_;
  std::vector<DriverCudaRow> driver_cuda_;
  std::vector<KernelSeriesRow> kernels_;
  std::vector<ContainerImage> images_;
  std::vector<NoImageHint> hints_;
  std::string no_image_hint_;
};

const Result<ContainerTable>& builtin_container_table();

// The major release of an L4T version: "36.4.3" -> 36.
int l4t_major(std::string_view l4t);

// "36.4.3", "r36.4.3", "R36.4", "36.4" -> "36.4.3" / "36.4.0"; nullopt otherwise.
std::optional<std::string> normalize_l4t(std::string_view text);

}  // namespace jetgate::facts
