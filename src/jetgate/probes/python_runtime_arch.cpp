// SPDX-License-Identifier: Apache-2.0
#include "jetgate/probes/python_runtime_arch.hpp"

#include <charconv>

namespace jetgate::probes {
namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

struct ArchEntry {
  bool sass = false;  // sm_ (else compute_)
  int major = 0, minor = 0;
  char suffix = 0;  // 0, 'a' or 'f'
  std::string text;
};

// "sm_87", "compute_90", "sm_90a", "sm_100f"; nullopt for anything else
// (ROCm's gfx names, typos).
std::optional<ArchEntry> parse_entry(const std::string& text) {
  ArchEntry e;
  e.text = text;
  std::string_view rest = text;
  if (rest.substr(0, 3) == "sm_") {
    e.sass = true;
    rest.remove_prefix(3);
  } else if (rest.substr(0, 8) == "compute_") {
    rest.remove_prefix(8);
  } else {
    return std::nullopt;
  }
  if (!rest.empty() && (rest.back() == 'a' || rest.back() == 'f')) {
    e.suffix = rest.back();
    rest.remove_suffix(1);
  }
  if (!all_digits(rest) || rest.size() < 2 || rest.size() > 3) return std::nullopt;
  int number = 0;
  std::from_chars(rest.data(), rest.data() + rest.size(), number);
  e.major = number / 10;
  e.minor = number % 10;
  return e;
}

int version_of(int major, int minor) {
  return major * 10 + minor;
}

bool sass_runs(const ArchEntry& e, ComputeCapability d, bool tegra) {
  if (e.major != d.major) return false;
  if (tegra || e.suffix == 'a') return e.minor == d.minor;
  return e.minor <= d.minor;
}

bool ptx_runs(const ArchEntry& e, ComputeCapability d) {
  if (e.suffix == 'a') return e.major == d.major && e.minor == d.minor;
  if (e.suffix == 'f') return e.major == d.major && e.minor <= d.minor;
  return version_of(e.major, e.minor) <= version_of(d.major, d.minor);
}

}  // namespace

std::optional<ComputeCapability> parse_capability(std::string_view text) {
  auto dot = text.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  ComputeCapability c;
  auto parse = [](std::string_view part, int& out) {
    if (!all_digits(part) || part.size() > 2) return false;
    std::from_chars(part.data(), part.data() + part.size(), out);
    return true;
  };
  if (!parse(text.substr(0, dot), c.major) || !parse(text.substr(dot + 1), c.minor))
    return std::nullopt;
  return c;
}

bool is_tegra_capability(ComputeCapability c) {
  for (auto [major, minor] : {std::pair{5, 3}, {6, 2}, {7, 2}, {8, 7}, {10, 1}, {11, 0}})
    if (c.major == major && c.minor == minor) return true;
  return false;
}

const char* to_string(ArchMatch m) {
  switch (m) {
    case ArchMatch::sass:
      return "sass";
    case ArchMatch::ptx:
      return "ptx";
    case ArchMatch::none:
      return "none";
    case ArchMatch::unknown:
      break;
  }
  return "unknown";
}

ArchCoverage arch_coverage(const std::vector<std::string>& arch_list, ComputeCapability device,
                           bool tegra) {
  ArchCoverage out;
  std::optional<ArchEntry> best_sass, best_ptx;
  bool recognised = false;
  for (const auto& text : arch_list) {
    auto e = parse_entry(text);
    if (!e) continue;
    recognised = true;
    if (e->sass && sass_runs(*e, device, tegra)) {
      // The exact cubin first, then the newest compatible one.
      if (!best_sass || e->minor > best_sass->minor) best_sass = e;
    } else if (!e->sass && ptx_runs(*e, device)) {
      if (!best_ptx ||
          version_of(e->major, e->minor) > version_of(best_ptx->major, best_ptx->minor))
        best_ptx = e;
    } else if (e->sass && tegra && e->major == device.major && e->minor < device.minor &&
               e->suffix != 'a') {
      out.tegra_miss = e->text;
    }
  }
  if (!recognised) return out;
  if (best_sass) {
    out.match = ArchMatch::sass;
    out.entry = best_sass->text;
  } else if (best_ptx) {
    out.match = ArchMatch::ptx;
    out.entry = best_ptx->text;
  } else {
    out.match = ArchMatch::none;
  }
  return out;
}

}  // namespace jetgate::probes
