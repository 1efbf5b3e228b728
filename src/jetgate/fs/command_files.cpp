// SPDX-License-Identifier: Apache-2.0
#include "jetgate/fs/command_files.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <climits>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <utility>

#include "jetgate/core/utf8.hpp"

namespace jetgate::fs {
namespace {

// PATH split into its directory (".", when it names none) and its last name; nothing
// when it has no last name (empty, "dir/", ".", "..").
std::optional<std::pair<std::string, std::string>> split(const std::string& path) {
  std::filesystem::path p(path);
  std::string name = p.filename().string();
  if (name.empty() || name == "." || name == "..") return std::nullopt;
  std::string dir = p.parent_path().string();
  return std::make_pair(dir.empty() ? std::string(".") : dir, name);
}

std::optional<Entry> entry_in(const std::string& dir, std::string name) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return std::nullopt;
  return Entry{st.st_dev, st.st_ino, std::move(name)};
}

// realpath(3) of PATH: every link followed; nothing when PATH does not resolve.
std::optional<std::string> resolved(const std::string& path) {
  std::unique_ptr<char, decltype(&std::free)> real(::realpath(path.c_str(), nullptr), &std::free);
  if (!real) return std::nullopt;
  return std::string(real.get());
}

bool has_suffix(const std::string& name, const std::string& suffix) {
  // "x.json", not ".json" alone (a hidden file without an extension, as the readers see it).
  return name.size() > suffix.size() &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string shown(const std::string& path) {
  return to_valid_utf8(path);
}

}  // namespace

std::optional<Entry> entry_of(const std::string& path, bool follow_last) {
  if (follow_last) {
    if (auto real = resolved(path)) {
      if (auto parts = split(*real)) return entry_in(parts->first, parts->second);
      return std::nullopt;  // "/" itself
    }
  }
  auto parts = split(path);
  if (!parts) return std::nullopt;
  return entry_in(parts->first, parts->second);
}

void CommandFiles::add_input(const std::string& path, std::string role) {
  if (path.empty()) return;
  if (auto entry = entry_of(path, true)) inputs_.push_back({*entry, path, std::move(role)});
}

void CommandFiles::add_input_dir(const std::string& path, std::string role,
                                 std::vector<std::string> suffixes, bool recursive) {
  struct stat st {};
  if (path.empty() || ::stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return;
  dirs_.push_back({st.st_dev, st.st_ino, path, std::move(role), std::move(suffixes), recursive});
}

Status CommandFiles::check_output(const std::string& option, const std::string& path) {
  if (path.empty()) return Ok{};
  auto entry = entry_of(path, false);
  // A directory that does not exist is the writer's to report, in its own words.
  if (!entry) return Ok{};
  const std::string hint = fmt::format("name another file for {}", option);
  for (const auto& in : inputs_)
    if (in.entry == *entry)
      return make_error(
          fmt::format("{} {} is {} this command reads ({}): writing it would destroy it", option,
                      shown(path), in.role, shown(in.path)),
          "", hint);
  // The output's directory and, for a recursive input directory, each one above it.
  std::vector<std::pair<dev_t, ino_t>> above;
  if (auto parts = split(path))
    if (auto real = resolved(parts->first))
      for (std::filesystem::path p(*real); !p.empty(); p = p.parent_path()) {
        struct stat st {};
        if (::stat(p.c_str(), &st) == 0) above.emplace_back(st.st_dev, st.st_ino);
        if (p == p.parent_path()) break;
      }
  for (const auto& dir : dirs_) {
    bool inside = dir.dev == entry->dir_dev && dir.ino == entry->dir_ino;
    if (!inside && dir.recursive)
      for (const auto& [dev, ino] : above) inside = inside || (dev == dir.dev && ino == dir.ino);
    if (!inside) continue;
    for (const auto& suffix : dir.suffixes)
      if (has_suffix(entry->name, suffix))
        return make_error(
            fmt::format("{} {} is a *{} file in {} ({}): it would replace or pose as one of "
                        "the files jetgate keeps there",
                        option, shown(path), suffix, dir.role, shown(dir.path)),
            "", hint + " (outside that directory, or not ending in " + suffix + ")");
  }
  for (const auto& out : outputs_)
    if (out.entry == *entry)
      return make_error(fmt::format("{} {} is the file {} already names ({}): one would "
                                    "overwrite the other",
                                    option, shown(path), out.option, shown(out.path)),
                        "", hint);
  outputs_.push_back({*entry, option, path});
  return Ok{};
}

}  // namespace jetgate::fs
