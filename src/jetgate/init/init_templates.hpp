// SPDX-License-Identifier: Apache-2.0
// `jetgate init`: the files a project needs to claim Jetson support with
// evidence: the gate policy, the GitHub Actions workflow (a job per board on
// a self-hosted Jetson runner, a container lane, a generic ARM64 preflight
// that is not a support claim, and the claim job) and a docs section. Pure
// functions of the options; the CLI writes the files.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "jetgate/core/result.hpp"

namespace jetgate::init {

inline constexpr const char* kInitGateId = "jetson-cuda-runtime";
inline constexpr const char* kInitPolicyPath = "ci/conditional-test-policy.json";
inline constexpr const char* kInitWorkflowPath = ".github/workflows/jetson-gates.yml";
inline constexpr const char* kInitDocsPath = "docs/conditional-testing.md";
// The composite action every job installs jetgate with (one copy, not one per job).
inline constexpr const char* kInitActionPath = ".github/actions/install-jetgate/action.yml";
// The workflow_dispatch input a maintainer sets to run the boards on a pull
// request's head (the only way fork code reaches a board).
inline constexpr const char* kInitPullRequestInput = "pull-request";

struct InitBoard {
  std::string label;                  // runner label and job name: "agx-orin"
  std::optional<std::string> module;  // requires.module: "Jetson AGX Orin 64GB" or "p3701-0005"
};

struct InitOptions {
  std::vector<InitBoard> boards;           // at least one
  std::vector<std::string> jetpacks;       // "6.2", "6.1"; at least one
  std::vector<std::string> runner_labels;  // every board job's labels before the board's
  std::vector<std::string> test_command;   // argv of the project's test command
  std::string test_junit;                  // where the test command writes JUnit XML
  std::string preflight_command;           // installs and imports the project (shell)
  std::string tracking_issue;              // URL of the issue tracking Jetson support
  std::string owner;                       // policy owner
  std::string repository;                  // OWNER/NAME, may be empty
  std::optional<std::string> image;        // container lane image; else chosen at run time
  std::string cron = "17 4 * * 1";         // the schedule (UTC)
  int max_age_days = 14;                   // the freshness rule
  bool ml = false;                         // also the python_runtime and bitsandbytes probes
  std::string jetgate_repo;                // jetgate's repository (its releases)
  std::string jetgate_version;             // the pinned release every job installs
  // Where the release tarballs are (jetgate-VERSION-linux-ARCH.tar.gz and
  // .sha256 beside each); nullopt: JETGATE_REPO/releases/download/vVERSION.
  // Set, it may name a release built for JetPack 5's glibc (docs/building.md).
  std::optional<std::string> jetgate_release_url;
  // The tarballs' SHA-256 per architecture ("aarch64", "x86_64"), pinned in
  // the workflow; an architecture without one uses the .sha256 the release
  // publishes, and the install step warns that it is not pinned.
  std::vector<std::pair<std::string, std::string>> jetgate_sha256;
  // Files of the project the gate covers (the gate's coverage_paths). Set, a
  // push to main runs the workflow only when one of them, the policy or the
  // workflow changed; empty, every push does.
  std::vector<std::string> coverage_paths;
  // What the board job installs with pip into the project's venv, from a
  // clean copy of the commit ("." is the project): words, no shell.
  std::vector<std::string> pip_install = {".", "pytest"};
};

// The defaults of every option (runner labels, test command, ...).
InitOptions default_init_options();

// Errors name the option that is wrong and what is accepted.
Status validate_init_options(const InitOptions& o);

struct InitFile {
  std::string path;  // relative to the project's root
  std::string text;
};

// The three files, in the order above; an Error when the options are invalid.
Result<std::vector<InitFile>> render_init_files(const InitOptions& o);

std::string render_init_policy(const InitOptions& o);    // init_policy.cpp
std::string render_init_workflow(const InitOptions& o);  // init_workflow.cpp
std::string render_init_docs(const InitOptions& o);      // init_docs.cpp
std::string render_init_action(const InitOptions& o);    // init_workflow.cpp

// The release URL the workflow installs from (jetgate_release_url or its default).
std::string release_url(const InitOptions& o);

// A coverage path as a workflow `paths:` filter: "DIR/" becomes "DIR/**".
std::string workflow_path_filter(const std::string& p);

// The repository settings the board jobs' safety depends on, one per line,
// each with the GitHub page that says how (init prints them; the docs list them).
std::vector<std::string> repository_safety_settings();

// The container lane runs the installed release binary inside a JetPack
// image; its glibc (2.34 or newer) is that of JetPack 6 images and later
// (docs/building.md): generated when every JetPack is 6 or later.
bool container_lane(const InitOptions& o);

// Per board: the evidence directory its native and container jobs write.
std::string board_evidence_dir(const InitBoard& b, bool container);

// A project that already has kInitPolicyPath keeps it; the workflow runs
// kInitGateId from it. When the kept policy (existing_text) does not define
// that gate with probes or a command, every board job would fail: the
// message says so and carries the gate, as JSON, to merge into "gates".
// nullopt when the kept policy defines the gate.
std::optional<std::string> kept_policy_problem(std::string_view existing_text,
                                               const InitOptions& o);

// `jetgate init --kubernetes`: the files a cluster needs to validate its GPU
// nodes with jetgate (docs/kubernetes.md), written into KubernetesOptions::dir.
inline constexpr const char* kKubernetesDir = "deploy/kubernetes";
inline constexpr const char* kKubernetesGateId = "gpu-node";

// How the DaemonSet's container gets the GPU. cdi: the CDI annotation
// cdi.k8s.io/jetgate: nvidia.com/gpu=all (containerd with CDI enabled), so the
// pod does not hold the device plugin's nvidia.com/gpu between runs and
// workloads keep the GPU; resource: limits nvidia.com/gpu: 1, the device
// plugin's way (the pod holds one GPU for as long as it lives). The one-off
// Job always asks the device plugin: it measures a GPU nothing else has.
enum class GpuAccess { cdi, resource };

struct KubernetesOptions {
  std::string dir = kKubernetesDir;      // relative to the project (--kubernetes-dir)
  std::string name_space = "jetgate";    // --namespace: a DNS-1123 label
  std::string image;                     // --image: required, the image with jetgate in it
  std::string gate = kKubernetesGateId;  // --gate: the gate id in the generated policy
  std::optional<std::string> node;       // --node: the node the Job validates (else any GPU node)
  int interval_minutes = 360;            // --interval-minutes: re-validation period
  GpuAccess gpu = GpuAccess::cdi;        // --gpu-access
  // --history-claim: a ReadWriteMany PersistentVolumeClaim. Set: the DaemonSet's evidence
  // goes to CLAIM/nodes/NODE (subPathExpr) instead of the node's /var/lib/jetgate/evidence,
  // and 40-history-ingest-cronjob.yaml ingests CLAIM/nodes into CLAIM/fleet.db nightly.
  std::optional<std::string> history_claim;
};

Status validate_kubernetes_options(const KubernetesOptions& k);

// The files, relative to the project: KubernetesOptions::dir/00-namespace.yaml,
// 10-policy.yaml (a ConfigMap holding the policy), 20-validate-node-job.yaml,
// 30-revalidate-daemonset.yaml, with --history-claim 40-history-ingest-cronjob.yaml, and
// node-problem-detector/jetgate-monitor.json (a custom plugin monitor; not a manifest, so
// `kubectl apply -f DIR` leaves it).
Result<std::vector<InitFile>> render_kubernetes_files(const KubernetesOptions& k);

// The policy of the cluster's gate: the probes and thresholds init's gate has,
// no command and no requirements (a node without a working driver must fail
// the gate, exit 1, rather than not run it); init_policy.cpp.
std::string render_kubernetes_policy(const KubernetesOptions& k);

// The node-problem-detector custom plugin monitor (init_kubernetes.cpp).
std::string render_npd_config(const KubernetesOptions& k);

}  // namespace jetgate::init
