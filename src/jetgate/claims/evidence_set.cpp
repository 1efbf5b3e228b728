// SPDX-License-Identifier: Apache-2.0
#include "jetgate/claims/evidence_set.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "jetgate/core/json_text.hpp"
#include "jetgate/evidence/gate_id.hpp"
#include "jetgate/trust/envelope.hpp"

namespace jetgate::claims {
namespace {

namespace stdfs = std::filesystem;

Result<std::vector<std::string>> json_files_in(const std::string& dir) {
  std::error_code ec;
  if (!stdfs::is_directory(dir, ec))
    return make_error("not a directory", dir,
                      "pass the folder `jetgate run --evidence-dir` wrote to");
  std::vector<std::string> files;
  stdfs::directory_iterator it(dir, ec), end;
  if (ec) return make_error("cannot list directory: " + ec.message(), dir);
  for (; it != end; it.increment(ec)) {
    if (ec) return make_error("cannot list directory: " + ec.message(), dir);
    const auto& p = it->path();
    if (p.extension() == ".json" && !trust::is_envelope_name(p.filename().string()))
      files.push_back((stdfs::path(dir) / p.filename()).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

Result<EvidenceSet> load_evidence_dirs(const std::vector<std::string>& dirs,
                                       const std::vector<trust::TrustedKey>& trusted,
                                       const std::optional<std::string>& repository) {
  EvidenceSet set;
  for (const auto& dir : dirs) {
    auto files = json_files_in(dir);
    if (!files) return files.error();
    for (const auto& file : *files) {
      std::string stem = stdfs::path(file).stem().string();
      if (!evidence::is_valid_gate_id(stem)) {
        // Not even read: its name is no gate's, and is shown only quoted.
        set.skipped.push_back(
            {file,
             fmt::format("{}: {} is not GATE.json for a gate id (lowercase letters, digits and "
                         "'-'), so this file speaks for no gate",
                         quoted_text(dir, 1024),
                         quoted_text(stdfs::path(file).filename().string())),
             std::string()});
        continue;
      }
      const std::string& named_gate = stem;
      auto e = evidence::read_evidence(file);
      if (!e) {
        set.skipped.push_back({file, e.error().message(), named_gate});
        continue;
      }
      // Only DIR/GATE.json is the gate's evidence (what `jetgate run` and OBLITERATUS write);
      // a copy under another name could be any old run and must not speak for the gate.
      if (stem != e->gate) {
        set.skipped.push_back(
            {file,
             fmt::format("{}: records gate {}, but a gate's evidence is the file named after it "
                         "(DIR/GATE.json), so this file speaks for no gate",
                         quoted_text(file, 1024), quoted_text(e->gate)),
             named_gate});
        continue;
      }
      auto signature = trust::check_evidence_file(file, e->git_sha, trusted, repository);
      set.loaded.push_back({file, std::move(*e), std::move(signature)});
    }
  }
  auto by_file = [](const auto& a, const auto& b) { return a.file < b.file; };
  std::sort(set.loaded.begin(), set.loaded.end(), by_file);
  std::sort(set.skipped.begin(), set.skipped.end(), by_file);
  return set;
}

}  // namespace jetgate::claims
