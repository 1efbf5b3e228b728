// SPDX-License-Identifier: Apache-2.0
#include "cli/ci_outputs.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>

#include "cli/environment.hpp"
#include "cli/number_options.hpp"
#include "cli/safe_streams.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/fs/atomic_write.hpp"
#include "jetgate/report/annotations.hpp"
#include "jetgate/report/nfd_features.hpp"
#include "jetgate/report/prometheus.hpp"

namespace jetgate::cli {

namespace {

bool report_failure(const std::string& command, const std::string& path, const Error& e) {
  std::cerr << "jetgate " << command << ": " << terminal_safe(path) << ": "
            << terminal_safe(e.message()) << "\n";
  return false;
}

// The file's text now, when it is a regular file (read in the held directory,
// never through a link): a failed gate's textfile keeps its last success time.
std::string previous_text(const fs::PreparedOutput& out) {
  int fd = ::openat(out.dir.fd(), out.name.c_str(),
                    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return {};
  std::string text;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size <= (4 << 20)) {
    char buf[65536];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0 && text.size() <= (4u << 20);)
      text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(fd);
  return text;
}

std::string prometheus_text(const nlohmann::json& doc, std::string previous,
                            const std::string& node = "") {
  report::PrometheusInput in;
  in.document = &doc;
  in.node = node.empty() ? host_name() : node;
  in.previous = std::move(previous);
  return report::render_prometheus_textfile(in);
}

std::string nfd_text(const nlohmann::json& doc, int expiry_hours) {
  report::NfdFeaturesInput in;
  in.document = &doc;
  in.expiry_hours = expiry_hours;
  return report::render_nfd_features(in);
}

}  // namespace

bool check_outputs(const std::string& command, fs::CommandFiles& files,
                   std::initializer_list<std::pair<const char*, std::string>> outputs) {
  for (const auto& [option, path] : outputs)
    if (auto st = files.check_output(option, path); !st) {
      std::cerr << "jetgate " << command << ": " << terminal_safe(st.error().message()) << "\n";
      return false;
    }
  return true;
}

bool hold_output(const std::string& command, const char* option, const std::string& path,
                 HeldOutput& out) {
  out.reset();
  if (path.empty()) return true;
  auto prepared = fs::prepare_output(path);
  if (!prepared) {
    std::cerr << "jetgate " << command << ": " << option << ": "
              << terminal_safe(prepared.error().message()) << "\n";
    return false;
  }
  out.emplace(std::move(*prepared));
  return true;
}

bool write_output_file(const std::string& command, const fs::PreparedOutput& out,
                       const std::string& text) {
  if (auto done = fs::write_prepared(out, text); !done)
    return report_failure(command, out.path, done.error());
  return true;
}

bool write_output_file(const std::string& command, const std::string& path,
                       const std::string& text) {
  auto prepared = fs::prepare_output(path);
  if (!prepared) return report_failure(command, path, prepared.error());
  return write_output_file(command, *prepared, text);
}

bool write_junit(const std::string& command, const std::string& path,
                 const report::JunitSuite& suite) {
  if (path.empty()) return true;
  return write_output_file(command, path, report::render_junit_xml(suite));
}

bool write_junit(const std::string& command, const HeldOutput& out,
                 const report::JunitSuite& suite) {
  return !out || write_output_file(command, *out, report::render_junit_xml(suite));
}

bool write_prometheus(const std::string& command, const std::string& path,
                      const nlohmann::json& doc, const std::string& node) {
  if (path.empty()) return true;
  auto prepared = fs::prepare_output(path);
  if (!prepared) return report_failure(command, path, prepared.error());
  return write_output_file(command, *prepared,
                           prometheus_text(doc, previous_text(*prepared), node));
}

bool write_prometheus(const std::string& command, const HeldOutput& out,
                      const nlohmann::json& doc) {
  return !out || write_output_file(command, *out, prometheus_text(doc, previous_text(*out)));
}

bool write_nfd_features(const std::string& command, const std::string& path,
                        const nlohmann::json& doc, int expiry_hours) {
  if (path.empty()) return true;
  return write_output_file(command, path, nfd_text(doc, expiry_hours));
}

bool write_nfd_features(const std::string& command, const HeldOutput& out,
                        const nlohmann::json& doc, int expiry_hours) {
  return !out || write_output_file(command, *out, nfd_text(doc, expiry_hours));
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
