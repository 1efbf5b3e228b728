// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/versions.hpp"

#include <charconv>
#include <nlohmann/json.hpp>

#include "jetgate/core/pattern.hpp"
#include "jetgate/facts/text.hpp"

namespace jetgate::facts {

Result<std::string> parse_cuda_version_json(std::string_view text) {
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return make_error("not valid JSON");
  auto ptr = nlohmann::json::json_pointer("/cuda/version");
  if (!j.is_object() || !j.contains(ptr) || !j.at(ptr).is_string())
    return make_error("no string at /cuda/version");
  auto v = j.at(ptr).get<std::string>();
  if (!is_numeric_version(v, 3) && !is_numeric_version(v, 2))
    return make_error("/cuda/version is not a version: \"" + v.substr(0, 64) + "\"");
  return v;
}

Result<std::string> parse_cuda_version_txt(std::string_view text) {
  // [[:space:]] and not RE2's \s: a vertical tab is space too (core/pattern.hpp).
  static const Pattern form(R"(CUDA Version[[:space:]]+(\d+\.\d+(?:\.\d+)?)[[:space:]]*)");
  auto lines = split_lines(text);
  std::string first = lines.empty() ? "" : std::string(trim(lines.front()));
  auto m = first.size() > 128 ? std::nullopt : form.full_match(first);
  if (!m) return make_error("expected \"CUDA Version X.Y.Z\" on the first line");
  return m->str(1);
}

Result<std::string> parse_nvcc_version(std::string_view text) {
  static const Pattern full(R"(release (\d+\.\d+), V(\d+\.\d+\.\d+))");
  static const Pattern release(R"(release (\d+\.\d+))");
  auto s = text.substr(0, 4096);
  if (auto m = full.search(s)) return m->str(2);
  if (auto m = release.search(s)) return m->str(1);
  return make_error("no \"release X.Y\" in nvcc --version output");
}

Result<std::string> parse_nvidia_driver_version(std::string_view text) {
  // [^\n\r]: the standard's "." (RE2's takes \r); [[:space:]]: its \s.
  static const Pattern form(
      R"(^NVRM version:[^\n\r]*Kernel Module[^\n\r]*?[[:space:]](\d+\.\d+(?:\.\d+)?)[[:space:]])");
  auto lines = split_lines(text);
  std::string first = lines.empty() ? "" : std::string(trim(lines.front())) + " ";
  auto m = first.size() > 512 ? std::nullopt : form.search(first);
  if (!m)
    return make_error(
        "expected \"NVRM version: ... Kernel Module <version> ...\" on the first line");
  return m->str(1);
}

std::map<std::string, long> parse_header_defines(std::string_view text) {
  static const Pattern define(
      R"(^[[:space:]]*#[[:space:]]*define[[:space:]]+([A-Za-z_][A-Za-z0-9_]*)[[:space:]]+)"
      R"(([A-Za-z0-9_]+)\b)");
  std::map<std::string, std::string> raw;
  for (auto line : split_lines(text)) {
    if (line.size() > 1024) continue;
    if (auto m = define.search(line)) raw[m->str(1)] = m->str(2);
  }
  auto number = [](const std::string& s) -> std::optional<long> {
    long v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
  };
  std::map<std::string, long> out;
  for (const auto& [name, value] : raw) {
    if (auto n = number(value)) {
      out[name] = *n;
    } else if (auto it = raw.find(value); it != raw.end()) {
      if (auto n2 = number(it->second)) out[name] = *n2;
    }
  }
  return out;
}

std::optional<std::string> version_from_defines(const std::map<std::string, long>& defines,
                                                std::string_view major, std::string_view minor,
                                                std::string_view patch) {
  auto get = [&](std::string_view k) -> std::optional<long> {
    auto it = defines.find(std::string(k));
    if (it == defines.end() || it->second < 0 || it->second > 100000) return std::nullopt;
    return it->second;
  };
  auto a = get(major), b = get(minor), c = get(patch);
  if (!a || !b || !c) return std::nullopt;
  return std::to_string(*a) + "." + std::to_string(*b) + "." + std::to_string(*c);
}

std::optional<std::string> version_from_library_name(std::string_view file_name,
                                                     std::string_view stem) {
  if (file_name.substr(0, stem.size()) != stem) return std::nullopt;
  auto rest = file_name.substr(stem.size());
  if (!is_numeric_version(rest, 3)) return std::nullopt;
  return std::string(rest);
}

}  // namespace jetgate::facts
