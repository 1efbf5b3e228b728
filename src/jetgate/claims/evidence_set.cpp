#include "jetgate/claims/evidence_set.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

namespace jetgate::claims {
namespace {

namespace stdfs = std::filesystem;

Result<std::vector<std::string>> json_files_in(const std::string& dir) {
  std::error_code ec;
  if (!stdfs::is_directory(dir, ec))
    return make_error("not a directory", dir, "pass the folder `jetgate run --evidence-dir` wrote to");
  std::vector<std::string> files;
  stdfs::directory_iterator it(dir, ec), end;
  if (ec) return make_error("cannot list directory: " + ec.message(), dir);
  for (; it != end; it.increment(ec)) {
    if (ec) return make_error("cannot list directory: " + ec.message(), dir);
    const auto& p = it->path();
    if (p.extension() == ".json") files.push_back((stdfs::path(dir) / p.filename()).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

Result<EvidenceSet> load_evidence_dirs(const std::vector<std::string>& dirs) {
  EvidenceSet set;
  for (const auto& dir : dirs) {
    auto files = json_files_in(dir);
    if (!files) return files.error();
    for (const auto& file : *files) {
      auto e = evidence::read_evidence(file);
      if (!e) {
        set.skipped.push_back({file, e.error().message()});
        continue;
      }
      // Only DIR/GATE.json is the gate's evidence (what `jetgate run` and OBLITERATUS write);
      // a copy under another name could be any old run and must not speak for the gate.
      std::string stem = stdfs::path(file).stem().string();
      if (stem != e->gate) {
        set.skipped.push_back({file, fmt::format("{}: records gate \"{}\" but is not named {}.json, so it is not "
                                                 "that gate's evidence; keep each gate's evidence as DIR/GATE.json",
                                                 file, e->gate.substr(0, 80), e->gate.substr(0, 80))});
        continue;
      }
      set.loaded.push_back({file, std::move(*e)});
    }
  }
  auto by_file = [](const auto& a, const auto& b) { return a.file < b.file; };
  std::sort(set.loaded.begin(), set.loaded.end(), by_file);
  std::sort(set.skipped.begin(), set.skipped.end(), by_file);
  return set;
}

}  // namespace jetgate::claims
