// SPDX-License-Identifier: Apache-2.0
// What the commands give CI besides their text: a JUnit file (--junit), GitHub
// annotations (when GITHUB_ACTIONS=true) and the badge file.
#pragma once

#include <CLI/CLI.hpp>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>

#include "jetgate/fs/atomic_write.hpp"
#include "jetgate/fs/command_files.hpp"
#include "jetgate/report/junit_xml.hpp"

namespace jetgate::cli {

// Each output option (name, path; an empty path is an option not given) checked
// against the files the command reads and against the other outputs, before any
// work starts (fs/command_files.hpp): false, with the reason on stderr prefixed by
// `command`, at the first that would destroy an input or another output.
bool check_outputs(const std::string& command, fs::CommandFiles& files,
                   std::initializer_list<std::pair<const char*, std::string>> outputs);

// Writes text to path atomically (its directory must exist); false, with the
// reason on stderr prefixed by `command`, when it cannot.
bool write_output_file(const std::string& command, const std::string& path,
                       const std::string& text);

// An output option's file, checked and its directory held open before the
// work begins (`run`: before the gate's command, which must not be able to
// point the output elsewhere); nullopt when the option was not given. False,
// with the reason on stderr, when it cannot be an output.
using HeldOutput = std::optional<fs::PreparedOutput>;
bool hold_output(const std::string& command, const char* option, const std::string& path,
                 HeldOutput& out);
bool write_output_file(const std::string& command, const fs::PreparedOutput& out,
                       const std::string& text);

// --junit FILE: nothing when path is empty.
bool write_junit(const std::string& command, const std::string& path,
                 const report::JunitSuite& suite);

// --prometheus FILE: nothing when path is empty. Renders doc (a probe document or a
// gate's evidence) as a node_exporter textfile and writes it atomically; the file's
// previous text, when it is a regular file, keeps a failed gate's last success time.
// node: the node label where doc names none (/lane/node); "" for the host name.
bool write_prometheus(const std::string& command, const std::string& path,
                      const nlohmann::json& doc, const std::string& node = "");

// --nfd-features FILE: nothing when path is empty. Renders doc as a feature file of
// node-feature-discovery's local source (report/nfd_features.hpp), labels expiring
// expiry_hours after the document's generated_at, and writes it atomically: the
// temporary file is hidden (.NAME.*.tmp), and NFD skips hidden files, so it never
// reads half a file.
bool write_nfd_features(const std::string& command, const std::string& path,
                        const nlohmann::json& doc, int expiry_hours);

// The same three into outputs held since the start (nothing when nullopt).
bool write_junit(const std::string& command, const HeldOutput& out,
                 const report::JunitSuite& suite);
bool write_prometheus(const std::string& command, const HeldOutput& out, const nlohmann::json& doc);
bool write_nfd_features(const std::string& command, const HeldOutput& out,
                        const nlohmann::json& doc, int expiry_hours);

// The --nfd-features FILE and --nfd-expiry-hours N options, the same on probe and run.
void add_nfd_features_options(CLI::App* sub, std::string& path, int& expiry_hours);

// One ::error (or ::warning) line per case that does not pass, when
// GITHUB_ACTIONS=true; file names the file a case is about, when known. On
// stdout, or on stderr when stdout is a JSON document (--json): the runner
// reads workflow commands from both.
void annotate(const report::JunitSuite& suite, const std::string& file = {},
              bool to_stderr = false);

}  // namespace jetgate::cli
