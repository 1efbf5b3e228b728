// SPDX-License-Identifier: Apache-2.0
// `jetgate init`: writes the gate policy, the GitHub Actions workflow and a
// docs section into a project's checkout; never over an existing file
// unless --force.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/number_options.hpp"
#include "jetgate/core/exit_codes.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/fs/atomic_write.hpp"
#include "jetgate/init/init_grammar.hpp"
#include "jetgate/init/init_templates.hpp"

namespace jetgate::cli {
namespace {

struct InitArgs {
  init::InitOptions options = init::default_init_options();
  std::vector<std::string> boards;
  std::vector<std::string> jetpacks;
  std::vector<std::string> labels;
  std::string test_command;
  std::string image;
  std::string dir = ".";
  bool force = false;
  bool json = false;
};

// What happened to one file; with --json the report is one JSON document on stdout.
struct Written {
  std::string path;
  std::string action;  // "written" or "kept"
};

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// LABEL or LABEL=MODULE.
init::InitBoard parse_board(const std::string& s) {
  auto eq = s.find('=');
  if (eq == std::string::npos) return {s, std::nullopt};
  return {s.substr(0, eq), s.substr(eq + 1)};
}

void apply(InitArgs& a) {
  auto& o = a.options;
  if (!a.boards.empty()) {
    o.boards.clear();
    for (const auto& b : a.boards) o.boards.push_back(parse_board(b));
  }
  if (!a.jetpacks.empty()) o.jetpacks = a.jetpacks;
  if (!a.labels.empty()) o.runner_labels = a.labels;
  if (!a.test_command.empty()) o.test_command = words(a.test_command);
  if (!a.image.empty()) o.image = a.image;
}

int write_file(const std::filesystem::path& root, const init::InitFile& f, bool force,
               std::vector<Written>& done_files) {
  auto path = root / f.path;
  if (auto st = init::check_inside_project(root.string(), f.path); !st) {
    std::cerr << "jetgate init: " << terminal_safe(st.error().message()) << "\n";
    return kExitUsage;
  }
  std::error_code ec;
  if (std::filesystem::exists(std::filesystem::symlink_status(path, ec)) && !force) {
    done_files.push_back({f.path, "kept"});
    return kExitDoesNotHold;
  }
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) {
    std::cerr << "jetgate init: " << terminal_safe(path.parent_path().string()) << ": "
              << ec.message() << "\n";
    return kExitUsage;
  }
  auto file = fs::AtomicFile::create(path.parent_path().string(), path.filename().string());
  if (!file) {
    std::cerr << "jetgate init: " << terminal_safe(file.error().message()) << "\n";
    return kExitUsage;
  }
  if (auto st = file->write(f.text); !st) {
    std::cerr << "jetgate init: " << terminal_safe(st.error().message()) << "\n";
    return kExitUsage;
  }
  if (auto done = file->commit(); !done) {
    std::cerr << "jetgate init: " << terminal_safe(done.error().message()) << "\n";
    return kExitUsage;
  }
  done_files.push_back({f.path, "written"});
  return kExitOk;
}

std::string next_step() {
  return std::string("add the support block to README.md (see ") + init::kInitDocsPath +
         "), register a self-hosted runner per board, and commit";
}

void report(const std::vector<Written>& files, bool json) {
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& w : files) list.push_back({{"path", w.path}, {"action", w.action}});
    std::cout << dump_json({{"schema_version", 1}, {"files", list}, {"next", next_step()}}, 2)
              << "\n";
    return;
  }
  for (const auto& w : files)
    std::cout << w.path
              << (w.action == "kept" ? ": exists, kept (--force replaces it)\n" : ": written\n");
  std::cout << "Next: " << next_step() << ".\n";
}

int run_init(InitArgs a) {
  apply(a);
  auto files = init::render_init_files(a.options);
  if (!files) {
    std::cerr << "jetgate init: " << terminal_safe(files.error().message()) << "\n";
    return kExitUsage;
  }
  std::error_code ec;
  if (!std::filesystem::is_directory(a.dir, ec)) {
    std::cerr << "jetgate init: --dir " << terminal_safe(a.dir) << " is not a directory\n";
    return kExitUsage;
  }
  int status = kExitOk;
  std::vector<Written> done_files;
  for (const auto& f : *files) {
    int s = write_file(a.dir, f, a.force, done_files);
    if (s == kExitUsage) return s;
    if (s != kExitOk) status = s;
  }
  report(done_files, a.json);
  for (const auto& w : done_files)
    if (w.action == "kept" && w.path == init::kInitPolicyPath) {
      std::ifstream in(std::filesystem::path(a.dir) / w.path, std::ios::binary);
      std::stringstream text;
      text << in.rdbuf();
      if (auto problem = init::kept_policy_problem(text.str(), a.options)) {
        // One line at a time: the gate to merge is indented JSON.
        std::istringstream lines(*problem);
        std::string line;
        bool first = true;
        while (std::getline(lines, line)) {
          std::cerr << (first ? "jetgate init: " : "") << terminal_safe(line) << "\n";
          first = false;
        }
        status = kExitDoesNotHold;
      }
    }
  return status;
}

}  // namespace

Command add_init_command(CLI::App& app) {
  auto a = std::make_shared<InitArgs>();
  auto* sub = app.add_subcommand(
      "init",
      "Write ci/conditional-test-policy.json, .github/workflows/jetson-gates.yml and "
      "docs/conditional-testing.md into a project (docs/conditional-testing.md)");
  sub->add_option("--dir", a->dir, "The project's checkout (default: .)")->type_name("DIR");
  sub->add_option("--board", a->boards,
                  "A board: its runner label, optionally =MODULE (name or part number); "
                  "repeatable (default: jetson-orin)")
      ->type_name("LABEL[=MODULE]");
  sub->add_option("--jetpack", a->jetpacks, "A supported JetPack (repeatable; default: 6.2)")
      ->type_name("X.Y[.Z]");
  sub->add_option("--runner-label", a->labels,
                  "A label every board's runner has (repeatable; default: self-hosted, linux, "
                  "ARM64, jetson)");
  sub->add_option("--test-command", a->test_command,
                  "The project's test command, words separated by spaces, no shell (default: "
                  "python3 -m pytest --junitxml=test-reports/jetson-junit.xml tests)");
  sub->add_option("--test-junit", a->options.test_junit,
                  "Where the test command writes its JUnit XML, relative to the repository")
      ->capture_default_str();
  sub->add_option("--preflight-command", a->options.preflight_command,
                  "Shell line that installs the project on generic arm64 and checks its "
                  "dependencies (the default installs into a venv, as PEP 668 requires on "
                  "ubuntu-24.04); append && .preflight-venv/bin/python -c 'import PKG' to "
                  "import it too")
      ->capture_default_str();
  sub->add_option("--coverage-path", a->options.coverage_paths,
                  "A file the gate covers (repeatable): the gate's coverage_paths; a push to main "
                  "then runs the workflow only when one of them, the policy or the workflow "
                  "changed (default: every push)")
      ->type_name("FILE");
  sub->add_option("--tracking-issue", a->options.tracking_issue,
                  "Issue URL tracking Jetson support (https://github.com/OWNER/NAME/issues/N)");
  sub->add_option("--owner", a->options.owner, "Who maintains the gates")->capture_default_str();
  sub->add_option("--repository", a->options.repository, "OWNER/NAME of the project");
  sub->add_option("--image", a->image,
                  "Container lane image (default: chosen on each runner by `jetgate container`)")
      ->type_name("IMAGE:TAG");
  sub->add_option("--cron", a->options.cron, "The workflow's schedule (UTC)")
      ->capture_default_str();
  sub->add_option("--max-age-days", a->options.max_age_days,
                  "The freshness rule: older evidence does not count")
      ->check(plain_number())
      ->capture_default_str();
  sub->add_flag("--ml", a->options.ml,
                "The gate also requires the python_runtime and "
                "bitsandbytes probes");
  sub->add_option("--jetgate-repo", a->options.jetgate_repo,
                  "Where the workflow's jobs get jetgate's source")
      ->capture_default_str();
  sub->add_option("--jetgate-ref", a->options.jetgate_ref, "jetgate's tag or branch to build")
      ->capture_default_str();
  sub->add_flag("--force", a->force, "Replace files that exist");
  sub->add_flag("--json", a->json,
                "Print {schema_version, files: [{path, action: written|kept}], next} instead of "
                "text (docs/schemas/init.schema.json)");
  sub->footer(
      "Exit status: 0 every file written, 1 a file existed and was kept, 2 usage or a write "
      "failed.");
  return {sub, [a] { return run_init(*a); }};
}

}  // namespace jetgate::cli
