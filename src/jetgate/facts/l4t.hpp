// L4T and JetPack releases: /etc/nv_tegra_release, the dpkg database and the
// table of known releases.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "jetgate/core/result.hpp"

namespace jetgate::facts {

// "# R36 (release), REVISION: 4.3, GCID: ..." -> "36.4.3". Only the first
// line counts. An Error (what is wrong with the line) when it does not hold a
// major release and a two-part revision: never a partial version.
Result<std::string> parse_nv_tegra_release(std::string_view text);

// "36.3.0-20240506102626" -> "36.3.0"; "32.7.1-20220219090432" -> "32.7.1".
std::optional<std::string> l4t_from_package_version(std::string_view version);

// "6.2+b77" -> "6.2", "5.1.2-b104" -> "5.1.2", "4.6.1-b110" -> "4.6.1".
std::optional<std::string> jetpack_from_package_version(std::string_view version);

// The JetPack release of a known L4T release ("36.4.3" -> "6.2"), or nullopt.
std::optional<std::string> jetpack_for_l4t(std::string_view l4t);

// Installed packages of a dpkg status database: name -> version. Paragraphs
// whose Status is not "install ok installed" are left out.
std::map<std::string, std::string> parse_dpkg_status(std::string_view text);

}  // namespace jetgate::facts
