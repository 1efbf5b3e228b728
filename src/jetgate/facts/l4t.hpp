// SPDX-License-Identifier: Apache-2.0
// L4T and JetPack releases: /etc/nv_tegra_release, the dpkg database and the
// table of known releases.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "jetgate/core/result.hpp"

namespace jetgate::facts {

// "# R36 (release), REVISION: 4.3, GCID: ..." -> "36.4.3". The first
// non-blank line counts; its fields may come in any order, with CR line ends,
// and GCID, BOARD, EABI and DATE may be missing. A one-part revision is how
// NVIDIA published the first release of a series ("REVISION: 5" on L4T 32.5,
// whose packages are 32.5.0-...), so it means ".0". An Error (what is wrong
// with the line) when it holds no "R<major> (release)" or no revision.
Result<std::string> parse_nv_tegra_release(std::string_view text);

// The L4T series an OE4T/meta-tegra kernel names in its release string:
// "5.15.148-l4t-r36.4-1012.12+g8dc079d5c8c4" -> "36.4" (meta-tegra builds
// one kernel per L4T series, so the patch release is not in it); nullopt for
// NVIDIA's own kernels ("5.15.148-tegra") and anything else.
std::optional<std::string> l4t_series_from_kernel_release(std::string_view release);

// "36.3.0-20240506102626" -> "36.3.0"; "32.7.1-20220219090432" -> "32.7.1".
std::optional<std::string> l4t_from_package_version(std::string_view version);

// "6.2+b77" -> "6.2", "5.1.2-b104" -> "5.1.2", "4.6.1-b110" -> "4.6.1".
std::optional<std::string> jetpack_from_package_version(std::string_view version);

// Whether a dpkg Status field ("install ok installed", "hold ok installed",
// "deinstall ok config-files", ...) says the package is installed now.
bool dpkg_status_is_installed(std::string_view status);

// Installed packages of a dpkg status database: name -> version. Paragraphs
// whose Status is not installed now (dpkg_status_is_installed) are left out.
std::map<std::string, std::string> parse_dpkg_status(std::string_view text);

}  // namespace jetgate::facts
