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
#include "jetgate/init/init_monitoring.hpp"
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
  std::string release_url;
  std::vector<std::string> sha256;
  std::string pip_install;
  std::string dir = ".";
  bool force = false;
  bool json = false;
  bool kubernetes = false;
  init::KubernetesOptions kube;
  std::string gpu_access = "cdi";
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
  if (!a.release_url.empty()) o.jetgate_release_url = a.release_url;
  for (const auto& s : a.sha256) {
    auto eq = s.find('=');
    o.jetgate_sha256.emplace_back(s.substr(0, eq), eq == std::string::npos ? "" : s.substr(eq + 1));
  }
  if (!a.pip_install.empty()) o.pip_install = words(a.pip_install);
  // A coverage path that names a directory of the project is every file
  // under it, DIR/** (in the policy and in the workflow's push filter).
  for (auto& p : o.coverage_paths) {
    std::error_code ec;
    while (p.size() > 1 && p.back() == '/') p.pop_back();
    if (!p.empty() && p.find_first_of("*?") == std::string::npos &&
        std::filesystem::is_directory(std::filesystem::path(a.dir) / p, ec))
      p += "/**";
  }
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

std::string next_step(const InitArgs& a) {
  if (a.kubernetes)
    return "build the image (docs/kubernetes.md), then kubectl apply -f " + a.kube.dir +
           "/ and read the Job's evidence with kubectl logs -n " + a.kube.name_space +
           " job/jetgate-validate-node";
  return std::string("add the support block to README.md (see ") + init::kInitDocsPath +
         "), register a self-hosted runner per board, and commit";
}

// What the boards' safety rests on besides the workflow: said after every
// workflow init writes (the docs list it too).
void print_safety(std::ostream& out) {
  out << "No job of the workflow runs on pull_request; the boards' safety also rests on these "
         "repository settings (GitHub's hardening guide):\n";
  for (const auto& s : init::repository_safety_settings()) out << "  - " << s << "\n";
}

void report(const std::vector<Written>& files, const InitArgs& a) {
  const bool json = a.json;
  if (json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& w : files) list.push_back({{"path", w.path}, {"action", w.action}});
    nlohmann::json doc = {{"schema_version", 1}, {"files", list}, {"next", next_step(a)}};
    if (!a.kubernetes) doc["repository_settings"] = init::repository_safety_settings();
    std::cout << dump_json(doc, 2) << "\n";
    return;
  }
  for (const auto& w : files)
    std::cout << w.path
              << (w.action == "kept" ? ": exists, kept (--force replaces it)\n" : ": written\n");
  std::cout << "Next: " << next_step(a) << ".\n";
  if (!a.kubernetes) print_safety(std::cout);
}

int run_init(InitArgs a) {
  apply(a);
  if (a.kubernetes) {
    if (!a.image.empty()) a.kube.image = a.image;
    a.kube.gpu = a.gpu_access == "resource" ? init::GpuAccess::resource : init::GpuAccess::cdi;
  }
  auto files =
      a.kubernetes ? init::render_kubernetes_files(a.kube) : init::render_init_files(a.options);
  if (!files) {
    std::cerr << "jetgate init: " << terminal_safe(files.error().message()) << "\n";
    return kExitUsage;
  }
  // The rules, PrometheusRule and Grafana dashboard (init/init_monitoring.hpp).
  if (a.kubernetes)
    for (auto& f : init::render_kubernetes_monitoring_files(a.kube)) files->push_back(std::move(f));
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
  report(done_files, a);
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
      "docs/conditional-testing.md into a project (docs/conditional-testing.md); with "
      "--kubernetes, a cluster's manifests instead (docs/kubernetes.md)");
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
                  "A file, directory (every file under it: DIR/**) or glob ('*' within a "
                  "directory, '**' across them) the gate covers (repeatable): the gate's "
                  "coverage_paths; a push to main then runs the workflow only when one of them, "
                  "the policy or the workflow changed (default: every push)")
      ->type_name("PATH");
  sub->add_option("--tracking-issue", a->options.tracking_issue,
                  "Issue URL tracking Jetson support (https://github.com/OWNER/NAME/issues/N)");
  sub->add_option("--owner", a->options.owner, "Who maintains the gates")->capture_default_str();
  sub->add_option("--repository", a->options.repository, "OWNER/NAME of the project");
  sub->add_option("--image", a->image,
                  "Container lane image (default: chosen on each runner by `jetgate container`); "
                  "with --kubernetes, the image that runs jetgate (required)")
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
                  "jetgate's repository: the release URL's default is "
                  "REPO/releases/download/vVERSION")
      ->capture_default_str();
  sub->add_option("--jetgate-version", a->options.jetgate_version,
                  "The jetgate release every job installs (pinned in the workflow)")
      ->capture_default_str();
  sub->add_option("--jetgate-release-url", a->release_url,
                  "Where the release tarballs jetgate-VERSION-linux-ARCH.tar.gz are (default: "
                  "REPO/releases/download/vVERSION); for JetPack 5, one built as "
                  "docs/building.md says")
      ->type_name("URL");
  sub->add_option("--jetgate-sha256", a->sha256,
                  "The release tarball's SHA-256 per architecture, pinned in the workflow "
                  "(repeatable; without one, the .sha256 published beside the tarball is used, "
                  "with a warning)")
      ->type_name("ARCH=SHA256");
  sub->add_option("--pip-install", a->pip_install,
                  "What the board and container jobs pip-install into the project's venv (which "
                  "keeps the system's torch), words separated by spaces, '.' being the project "
                  "(default: . pytest)")
      ->type_name("WORDS");
  auto* kube = sub->add_flag(
      "--kubernetes", a->kubernetes,
      "Write a cluster's files instead (docs/kubernetes.md), into --kubernetes-dir: "
      "00-namespace.yaml, 10-policy.yaml (the gate as a ConfigMap), 20-validate-node-job.yaml "
      "(validates one node once), 30-revalidate-daemonset.yaml (every GPU node, every "
      "--interval-minutes; node labels through node-feature-discovery) and "
      "node-problem-detector/jetgate-monitor.json (a custom plugin monitor: a failing gate "
      "becomes a node condition), and monitoring/ (Prometheus rules, a PrometheusRule and a "
      "Grafana dashboard, docs/metrics.md). Needs --image; runs jetgate with --host-root /host");
  sub->add_option("--kubernetes-dir", a->kube.dir,
                  "With --kubernetes: where the files go, relative to --dir")
      ->capture_default_str()
      ->needs(kube);
  sub->add_option("--namespace", a->kube.name_space, "With --kubernetes: the namespace")
      ->capture_default_str()
      ->needs(kube);
  sub->add_option("--gate", a->kube.gate, "With --kubernetes: the gate's id in the policy")
      ->capture_default_str()
      ->needs(kube);
  sub->add_option("--node", a->kube.node,
                  "With --kubernetes: the node the Job validates (default: any GPU node)")
      ->type_name("NODE")
      ->needs(kube);
  sub->add_option("--interval-minutes", a->kube.interval_minutes,
                  "With --kubernetes: how often the DaemonSet and node-problem-detector "
                  "re-validate a node (5 to 10080)")
      ->check(plain_number())
      ->capture_default_str()
      ->needs(kube);
  sub->add_option("--gpu-access", a->gpu_access,
                  "With --kubernetes: how the DaemonSet gets the GPU: cdi (the CDI annotation "
                  "nvidia.com/gpu=all; holds no GPU between runs) or resource (the device "
                  "plugin's nvidia.com/gpu: 1, held while the pod lives)")
      ->check(CLI::IsMember({"cdi", "resource"}))
      ->capture_default_str()
      ->needs(kube);
  sub->add_option("--history-claim", a->kube.history_claim,
                  "With --kubernetes: a ReadWriteMany PersistentVolumeClaim for the evidence: the "
                  "DaemonSet writes each node's into its own subdirectory, and "
                  "40-history-ingest-cronjob.yaml ingests them all into one history database "
                  "there every night (docs/kubernetes.md)")
      ->type_name("CLAIM")
      ->needs(kube);
  for (const char* workflow_only :
       {"--board", "--jetpack", "--runner-label", "--test-command", "--test-junit",
        "--preflight-command", "--coverage-path", "--tracking-issue", "--repository", "--cron",
        "--max-age-days", "--ml", "--jetgate-repo", "--jetgate-version", "--jetgate-release-url",
        "--jetgate-sha256", "--pip-install"})
    kube->excludes(workflow_only);
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
