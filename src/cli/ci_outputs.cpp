// SPDX-License-Identifier: Apache-2.0
#include "cli/ci_outputs.hpp"

#include <filesystem>
#include <iostream>

#include "cli/environment.hpp"
#include "cli/number_options.hpp"
#include "cli/safe_streams.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/fs/atomic_write.hpp"
#include "jetgate/fs/root_fs.hpp"
#include "jetgate/report/annotations.hpp"
#include "jetgate/report/nfd_features.hpp"
#include "jetgate/report/prometheus.hpp"

namespace jetgate::cli {

bool write_output_file(const std::string& command, const std::string& path,
                       const std::string& text) {
  std::filesystem::path p(path);
  auto dir = p.parent_path().empty() ? std::string(".") : p.parent_path().string();
  auto fail = [&](const Error& e) {
    std::cerr << "jetgate " << command << ": " << terminal_safe(path) << ": "
              << terminal_safe(e.message()) << "\n";
    return false;
  };
  auto file = fs::AtomicFile::create(dir, p.filename().string());
  if (!file) return fail(file.error());
  if (auto st = file->write(text); !st) return fail(st.error());
  if (auto done = file->commit(); !done) return fail(done.error());
  return true;
}

bool write_junit(const std::string& command, const std::string& path,
                 const report::JunitSuite& suite) {
  if (path.empty()) return true;
  return write_output_file(command, path, report::render_junit_xml(suite));
}

bool write_prometheus(const std::string& command, const std::string& path,
                      const nlohmann::json& doc) {
  if (path.empty()) return true;
  report::PrometheusInput in;
  in.document = &doc;
  in.node = host_name();
  std::error_code ec;
  const auto absolute = std::filesystem::absolute(path, ec);
  if (!ec && std::filesystem::is_regular_file(absolute, ec)) {
    if (auto root = fs::RootFs::open("/"); root.ok())
      if (auto text = root->read(absolute.string(), 4u << 20); text.ok()) in.previous = *text;
  }
  return write_output_file(command, path, report::render_prometheus_textfile(in));
}

bool write_nfd_features(const std::string& command, const std::string& path,
                        const nlohmann::json& doc, int expiry_hours) {
  if (path.empty()) return true;
  report::NfdFeaturesInput in;
  in.document = &doc;
  in.expiry_hours = expiry_hours;
  return write_output_file(command, path, report::render_nfd_features(in));
}

void annotate(const report::JunitSuite& suite, const std::string& file, bool to_stderr) {
  if (!github_actions()) return;
  for (const auto& c : suite.cases) {
    const char* level = c.status == Outcome::fail   ? "error"
                        : c.status == Outcome::warn ? "warning"
                                                    : nullptr;
    if (!level) continue;
    std::string text =
        c.name + ": " + (c.message.empty() ? std::string(to_string(c.status)) : c.message);
    if (!c.next.empty()) text += " (next: " + c.next + ")";
    write_workflow_command(to_stderr ? std::cerr : std::cout,
                           report::github_annotation(level, text, file, suite.name));
  }
}

void add_nfd_features_options(CLI::App* sub, std::string& path, int& expiry_hours) {
  sub->add_option("--nfd-features", path,
                  "Also write node labels (CUDA verified, JetPack, L4T, module, each probe's "
                  "status, the sync path's wait per mode) as a feature file of "
                  "node-feature-discovery's local source, atomically: FILE in "
                  "/etc/kubernetes/node-feature-discovery/features.d/ (docs/kubernetes.md)")
      ->type_name("FILE");
  sub->add_option("--nfd-expiry-hours", expiry_hours,
                  "The --nfd-features labels expire this long after the run (1 to 8760)")
      ->check(plain_number())
      ->check(CLI::Range(1, 8760))
      ->capture_default_str();
}

}  // namespace jetgate::cli
