// SPDX-License-Identifier: Apache-2.0
// `jetgate init --kubernetes`: the manifests that validate a cluster's GPU
// nodes with jetgate, the node-problem-detector plugin monitor and the policy
// (docs/kubernetes.md). Emitted with yaml-cpp; every string value is written
// double-quoted, so the files are the same bytes whichever yaml-cpp built
// jetgate (as init_workflow.cpp does for conditions), and nothing an option
// holds is read as another YAML type ("true", "0755").
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include "jetgate/init/init_grammar.hpp"
#include "jetgate/init/init_templates.hpp"

namespace jetgate::init {
namespace {

constexpr const char* kPolicyMount = "/etc/jetgate";
constexpr const char* kPolicyPath = "/etc/jetgate/policy.json";
constexpr const char* kEvidenceDir = "/var/lib/jetgate/evidence";
constexpr const char* kMetricsDir = "/var/lib/jetgate/metrics";
// --history-claim: the DaemonSet writes into nodes/NODE of the claim; the CronJob mounts
// the claim at /fleet, reads /fleet/nodes and keeps the database beside it, where no
// node's directory can be.
constexpr const char* kFleetDir = "/fleet";
constexpr const char* kFleetNodes = "/fleet/nodes";
constexpr const char* kFleetDb = "/fleet/fleet.db";
constexpr const char* kNodeSubPath = "nodes/$(NODE_NAME)";
// node-feature-discovery's local source reads this directory (source/local/local.go).
constexpr const char* kNfdFeaturesDir = "/etc/kubernetes/node-feature-discovery/features.d";
// Where node-problem-detector's container finds jetgate (docs/kubernetes.md).
constexpr const char* kNpdJetgate = "/opt/jetgate/bin/jetgate";
// The video group of L4T (Ubuntu's gid 44), owner of /dev/nvhost-* and /dev/nvmap on a Jetson.
constexpr int kVideoGid = 44;
constexpr int kNonRootUid = 65532;
// How many runs' evidence the DaemonSet keeps on the node (EVIDENCE_DIR/runs/STAMP/):
// a week at the default interval of six hours, for `history ingest` to collect.
constexpr int kKeptRuns = 28;

using Labels = std::vector<std::pair<std::string, std::string>>;

void str(YAML::Emitter& y, const std::string& key, const std::string& value) {
  y << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << value;
}

void labels_map(YAML::Emitter& y, const Labels& labels) {
  y << YAML::BeginMap;
  for (const auto& [k, v] : labels) str(y, k, v);
  y << YAML::EndMap;
}

Labels app_labels(const std::string& component) {
  return {{"app.kubernetes.io/name", "jetgate"},
          {"app.kubernetes.io/component", component},
          {"app.kubernetes.io/managed-by", "jetgate-init"}};
}

void metadata(YAML::Emitter& y, const std::string& name, const std::string& ns,
              const Labels& labels) {
  y << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap;
  str(y, "name", name);
  if (!ns.empty()) str(y, "namespace", ns);
  y << YAML::Key << "labels" << YAML::Value;
  labels_map(y, labels);
  y << YAML::EndMap;
}

void string_list(YAML::Emitter& y, const std::vector<std::string>& items) {
  y << YAML::BeginSeq;
  for (const auto& i : items) y << YAML::DoubleQuoted << i;
  y << YAML::EndSeq;
}

// The GPU nodes, as NVIDIA's device plugin selects them
// (deployments/helm/nvidia-device-plugin/values.yaml of NVIDIA/k8s-device-plugin): any
// one of NFD's NVIDIA PCI vendor label (discrete GPUs), NFD's CPU vendor NVIDIA (Tegra,
// a Jetson) or nvidia.com/gpu.present (set by the GPU Operator, or by hand).
void gpu_node_affinity(YAML::Emitter& y) {
  const std::vector<std::pair<std::string, std::string>> terms = {
      {"feature.node.kubernetes.io/pci-10de.present", "true"},
      {"feature.node.kubernetes.io/cpu-model.vendor_id", "NVIDIA"},
      {"nvidia.com/gpu.present", "true"}};
  y << YAML::Key << "affinity" << YAML::Value << YAML::BeginMap << YAML::Key << "nodeAffinity"
    << YAML::Value << YAML::BeginMap << YAML::Key
    << "requiredDuringSchedulingIgnoredDuringExecution" << YAML::Value << YAML::BeginMap
    << YAML::Key << "nodeSelectorTerms" << YAML::Value << YAML::BeginSeq;
  for (const auto& [key, value] : terms) {
    y << YAML::BeginMap << YAML::Key << "matchExpressions" << YAML::Value << YAML::BeginSeq
      << YAML::BeginMap;
    str(y, "key", key);
    str(y, "operator", "In");
    y << YAML::Key << "values" << YAML::Value;
    string_list(y, {value});
    y << YAML::EndMap << YAML::EndSeq << YAML::EndMap;
  }
  y << YAML::EndSeq << YAML::EndMap << YAML::EndMap << YAML::EndMap;
}

// GPU nodes are often tainted so that only GPU pods land there (the device plugin's
// chart tolerates the same taint).
void gpu_tolerations(YAML::Emitter& y) {
  y << YAML::Key << "tolerations" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  str(y, "key", "nvidia.com/gpu");
  str(y, "operator", "Exists");
  str(y, "effect", "NoSchedule");
  y << YAML::EndMap << YAML::EndSeq;
}

struct Mount {
  std::string name;
  std::string host_path;  // "" for the ConfigMap or an emptyDir
  std::string mount_path;
  bool read_only;
  // hostPath type: Directory (must exist: the pod does not start without it),
  // DirectoryOrCreate (a directory jetgate writes), or "" for one that may be absent:
  // no type means the kubelet checks nothing, and the runtime (containerd's CRI,
  // CRI-O) creates an empty directory where none exists, which jetgate then reads as
  // "nothing there" and says so in its warnings.
  std::string host_type;
  std::string claim;          // set: a PersistentVolumeClaim instead of a hostPath
  std::string sub_path_expr;  // set: the volumeMount's subPathExpr ($(NODE_NAME))
};

// The host's files jetgate reads, read-only under /host (`--host-root /host`).
// /etc, /proc and /sys exist on every node; the kernel's modules and the CDI spec
// directories that are not under /etc (nvidia-ctk's /var/run/cdi, Talos' /var/cdi) may
// not, and their absence is jetgate's to report, not a reason for the pod not to start.
// /etc/cdi comes with /etc.
std::vector<Mount> host_mounts() {
  return {{"host-etc", "/etc", "/host/etc", true, "Directory", "", ""},
          {"host-proc", "/proc", "/host/proc", true, "Directory", "", ""},
          {"host-sys", "/sys", "/host/sys", true, "Directory", "", ""},
          // /etc/os-release is a link to ../usr/lib/os-release on Debian, Ubuntu (JetPack)
          // and other systemd hosts: without /usr/lib the host's OS reads as unknown.
          {"host-usr-lib", "/usr/lib", "/host/usr/lib", true, "Directory", "", ""},
          {"host-modules", "/lib/modules", "/host/lib/modules", true, "", "", ""},
          {"host-run-cdi", "/var/run/cdi", "/host/var/run/cdi", true, "", "", ""},
          {"host-var-cdi", "/var/cdi", "/host/var/cdi", true, "", "", ""}};
}

void volume_mounts(YAML::Emitter& y, const std::vector<Mount>& mounts) {
  y << YAML::Key << "volumeMounts" << YAML::Value << YAML::BeginSeq;
  for (const auto& m : mounts) {
    y << YAML::BeginMap;
    str(y, "name", m.name);
    str(y, "mountPath", m.mount_path);
    if (!m.sub_path_expr.empty()) str(y, "subPathExpr", m.sub_path_expr);
    y << YAML::Key << "readOnly" << YAML::Value << m.read_only << YAML::EndMap;
  }
  y << YAML::EndSeq;
}

void volumes(YAML::Emitter& y, const std::vector<Mount>& mounts) {
  y << YAML::Key << "volumes" << YAML::Value << YAML::BeginSeq;
  for (const auto& m : mounts) {
    y << YAML::BeginMap;
    str(y, "name", m.name);
    if (m.name == "policy") {
      y << YAML::Key << "configMap" << YAML::Value << YAML::BeginMap;
      str(y, "name", "jetgate-policy");
      y << YAML::EndMap;
    } else if (!m.claim.empty()) {
      y << YAML::Key << "persistentVolumeClaim" << YAML::Value << YAML::BeginMap;
      str(y, "claimName", m.claim);
      y << YAML::EndMap;
    } else if (m.host_path.empty()) {
      y << YAML::Key << "emptyDir" << YAML::Value << YAML::BeginMap << YAML::EndMap;
    } else {
      y << YAML::Key << "hostPath" << YAML::Value << YAML::BeginMap;
      str(y, "path", m.host_path);
      if (!m.host_type.empty()) str(y, "type", m.host_type);
      y << YAML::EndMap;
    }
    y << YAML::EndMap;
  }
  y << YAML::EndSeq;
}

// Never privileged, no capability, no privilege escalation, a read-only root file
// system, the runtime's default seccomp profile.
void container_security(YAML::Emitter& y) {
  y << YAML::Key << "securityContext" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "privileged" << YAML::Value << false;
  y << YAML::Key << "allowPrivilegeEscalation" << YAML::Value << false;
  y << YAML::Key << "readOnlyRootFilesystem" << YAML::Value << true;
  y << YAML::Key << "capabilities" << YAML::Value << YAML::BeginMap << YAML::Key << "drop"
    << YAML::Value;
  string_list(y, {"ALL"});
  y << YAML::EndMap;
  y << YAML::Key << "seccompProfile" << YAML::Value << YAML::BeginMap;
  str(y, "type", "RuntimeDefault");
  y << YAML::EndMap << YAML::EndMap;
}

// The pod's identity. non_root: uid 65532 with the video group, which the Job can be
// (its evidence goes to an emptyDir, writable by anyone). The DaemonSet writes into
// root-owned host directories (NFD's features.d, /var/lib/jetgate) and so runs as uid 0,
// with every capability dropped: root without CAP_DAC_OVERRIDE writes only where the
// owner may, which for those directories is root.
void pod_security(YAML::Emitter& y, bool non_root) {
  y << YAML::Key << "securityContext" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "runAsNonRoot" << YAML::Value << non_root;
  y << YAML::Key << "runAsUser" << YAML::Value << (non_root ? kNonRootUid : 0);
  y << YAML::Key << "runAsGroup" << YAML::Value << (non_root ? kNonRootUid : 0);
  y << YAML::Key << "supplementalGroups" << YAML::Value << YAML::Flow << YAML::BeginSeq << kVideoGid
    << YAML::EndSeq;
  y << YAML::Key << "seccompProfile" << YAML::Value << YAML::BeginMap;
  str(y, "type", "RuntimeDefault");
  y << YAML::EndMap << YAML::EndMap;
}

void env(YAML::Emitter& y, const std::string& image) {
  y << YAML::Key << "env" << YAML::Value << YAML::BeginSeq;
  y << YAML::BeginMap;
  str(y, "name", "NODE_NAME");
  y << YAML::Key << "valueFrom" << YAML::Value << YAML::BeginMap << YAML::Key << "fieldRef"
    << YAML::Value << YAML::BeginMap;
  str(y, "fieldPath", "spec.nodeName");
  y << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  // The root file system is read-only: CUDA's kernel cache (~/.nv) goes to the emptyDir.
  y << YAML::BeginMap;
  str(y, "name", "HOME");
  str(y, "value", "/tmp");
  y << YAML::EndMap;
  // The evidence of --host-root records which image ran (/host_mount/image).
  y << YAML::BeginMap;
  str(y, "name", "JETGATE_IMAGE");
  str(y, "value", image);
  y << YAML::EndMap << YAML::EndSeq;
}

void resources(YAML::Emitter& y, bool gpu_resource) {
  y << YAML::Key << "resources" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "requests" << YAML::Value << YAML::BeginMap;
  str(y, "cpu", "500m");
  str(y, "memory", "512Mi");
  y << YAML::EndMap;
  y << YAML::Key << "limits" << YAML::Value << YAML::BeginMap;
  str(y, "memory", "4Gi");
  if (gpu_resource) str(y, "nvidia.com/gpu", "1");
  y << YAML::EndMap << YAML::EndMap;
}

std::vector<std::string> run_args(const KubernetesOptions& k, const std::string& evidence_dir) {
  return {"run",         k.gate,         "--policy",       kPolicyPath,
          "--host-root", "/host",        "--evidence-dir", evidence_dir,
          "--node",      "$(NODE_NAME)", "--quiet"};
}

int nfd_expiry_hours(const KubernetesOptions& k) {
  // Two periods, rounded up: one late run does not drop the labels, a stopped validator does.
  return std::max(1, (2 * k.interval_minutes + 59) / 60);
}

std::string nfd_file(const KubernetesOptions& k) {
  return std::string(kNfdFeaturesDir) + "/jetgate-" + k.gate;
}

// The pod template's spec; what differs between the Job and the DaemonSet is passed in.
struct PodShape {
  bool job;
  std::vector<std::string> command;
  std::vector<std::string> args;
  std::vector<Mount> mounts;
  bool gpu_resource;
};

void pod_spec(YAML::Emitter& y, const KubernetesOptions& k, const PodShape& p) {
  y << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  if (p.job) str(y, "restartPolicy", "Never");
  // jetgate talks to no API server: no token in the pod.
  y << YAML::Key << "automountServiceAccountToken" << YAML::Value << false;
  y << YAML::Key << "enableServiceLinks" << YAML::Value << false;
  if (p.job && k.node) {
    y << YAML::Key << "nodeSelector" << YAML::Value;
    labels_map(y, {{"kubernetes.io/hostname", *k.node}});
  } else {
    gpu_node_affinity(y);
  }
  gpu_tolerations(y);
  pod_security(y, p.job);
  y << YAML::Key << "containers" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  str(y, "name", "jetgate");
  str(y, "image", k.image);
  str(y, "imagePullPolicy", "IfNotPresent");
  y << YAML::Key << "command" << YAML::Value;
  string_list(y, p.command);
  y << YAML::Key << "args" << YAML::Value << YAML::BeginSeq;
  for (const auto& a : p.args) {
    if (a.find('\n') != std::string::npos)
      y << YAML::Literal << a;
    else
      y << YAML::DoubleQuoted << a;
  }
  y << YAML::EndSeq;
  env(y, k.image);
  resources(y, p.gpu_resource);
  container_security(y);
  volume_mounts(y, p.mounts);
  y << YAML::EndMap << YAML::EndSeq;
  volumes(y, p.mounts);
  y << YAML::EndMap;
}

std::string header(const std::string& what) {
  return "# Generated by `jetgate init --kubernetes` (docs/kubernetes.md): " + what + "\n";
}

std::string finish(YAML::Emitter& y) {
  return std::string(y.c_str()) + "\n";
}

std::string namespace_manifest(const KubernetesOptions& k) {
  YAML::Emitter y;
  y.SetIndent(2);
  y << YAML::BeginMap;
  str(y, "apiVersion", "v1");
  str(y, "kind", "Namespace");
  // The pods are not privileged, but Pod Security's baseline level forbids every
  // hostPath volume, and jetgate reads the host under /host: only the privileged
  // level admits that.
  metadata(y, k.name_space, "",
           {{"app.kubernetes.io/name", "jetgate"},
            {"app.kubernetes.io/managed-by", "jetgate-init"},
            {"pod-security.kubernetes.io/enforce", "privileged"}});
  y << YAML::EndMap;
  return header(
             "the namespace. Pod Security's baseline level forbids hostPath volumes, which\n"
             "# jetgate needs to read the host under /host; the pods themselves are never "
             "privileged.\n") +
         finish(y);
}

std::string policy_manifest(const KubernetesOptions& k) {
  YAML::Emitter y;
  y.SetIndent(2);
  y << YAML::BeginMap;
  str(y, "apiVersion", "v1");
  str(y, "kind", "ConfigMap");
  metadata(y, "jetgate-policy", k.name_space, app_labels("policy"));
  y << YAML::Key << "data" << YAML::Value << YAML::BeginMap << YAML::Key << "policy.json"
    << YAML::Value << YAML::Literal << render_kubernetes_policy(k) << YAML::EndMap;
  y << YAML::EndMap;
  return header("the gate's policy, mounted at " + std::string(kPolicyPath) +
                ".\n# Thresholds are the probes' floors and ceilings (docs/gates.md).\n") +
         finish(y);
}

std::string job_manifest(const KubernetesOptions& k) {
  YAML::Emitter y;
  y.SetIndent(2);
  y << YAML::BeginMap;
  str(y, "apiVersion", "batch/v1");
  str(y, "kind", "Job");
  metadata(y, "jetgate-validate-node", k.name_space, app_labels("validate-node"));
  y << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  // One try: a failed gate is the answer, not something to retry until it passes.
  y << YAML::Key << "backoffLimit" << YAML::Value << 0;
  y << YAML::Key << "activeDeadlineSeconds" << YAML::Value << 1800;
  y << YAML::Key << "ttlSecondsAfterFinished" << YAML::Value << 86400;
  y << YAML::Key << "template" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap << YAML::Key << "labels"
    << YAML::Value;
  labels_map(y, app_labels("validate-node"));
  y << YAML::EndMap;
  auto mounts = host_mounts();
  mounts.insert(mounts.begin(), {"policy", "", kPolicyMount, true, "", "", ""});
  mounts.push_back({"evidence", "", kEvidenceDir, false, "", "", ""});
  mounts.push_back({"tmp", "", "/tmp", false, "", "", ""});
  auto args = run_args(k, kEvidenceDir);
  args.push_back("--json");  // the evidence document on stdout: `kubectl logs job/...`
  pod_spec(y, k, {true, {"jetgate"}, args, mounts, true});
  y << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  return header("validates one node once (" +
                (k.node ? "node " + *k.node : std::string("any GPU node; --node names one")) +
                "):\n# the gate's probes with the policy's thresholds, on a GPU the device plugin "
                "gives it alone.\n# The evidence is printed (kubectl logs -n " +
                k.name_space +
                " job/jetgate-validate-node) and kept in the pod's volume.\n# Exit 0 passed, 1 "
                "failed, 2 not run.\n") +
         finish(y);
}

// The DaemonSet's command line: jetgate itself keeps running (`run --every`), no shell.
std::vector<std::string> daemonset_args(const KubernetesOptions& k) {
  auto args = run_args(k, kEvidenceDir);
  const std::vector<std::string> more = {"--nfd-features",
                                         nfd_file(k),
                                         "--nfd-expiry-hours",
                                         std::to_string(nfd_expiry_hours(k)),
                                         "--prometheus",
                                         fmt::format("{}/jetgate-{}.prom", kMetricsDir, k.gate),
                                         "--every",
                                         fmt::format("{}m", k.interval_minutes),
                                         "--keep",
                                         std::to_string(kKeptRuns)};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

std::string daemonset_manifest(const KubernetesOptions& k) {
  YAML::Emitter y;
  y.SetIndent(2);
  y << YAML::BeginMap;
  str(y, "apiVersion", "apps/v1");
  str(y, "kind", "DaemonSet");
  metadata(y, "jetgate-revalidate", k.name_space, app_labels("revalidate"));
  y << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "selector" << YAML::Value << YAML::BeginMap << YAML::Key << "matchLabels"
    << YAML::Value;
  labels_map(
      y, {{"app.kubernetes.io/name", "jetgate"}, {"app.kubernetes.io/component", "revalidate"}});
  y << YAML::EndMap;
  y << YAML::Key << "template" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap << YAML::Key << "labels"
    << YAML::Value;
  labels_map(y, app_labels("revalidate"));
  if (k.gpu == GpuAccess::cdi) {
    // containerd's CDI annotations (enable_cdi): every GPU of the node, injected from the
    // CDI specs that nvidia-ctk (or the GPU Operator) generated, without the device
    // plugin's resource.
    y << YAML::Key << "annotations" << YAML::Value;
    labels_map(y, {{"cdi.k8s.io/jetgate", "nvidia.com/gpu=all"}});
  }
  y << YAML::EndMap;
  auto mounts = host_mounts();
  mounts.insert(mounts.begin(), {"policy", "", kPolicyMount, true, "", "", ""});
  if (k.history_claim)
    // Each node's evidence in its own directory of the shared claim.
    mounts.push_back({"evidence", "", kEvidenceDir, false, "", *k.history_claim, kNodeSubPath});
  else
    mounts.push_back({"evidence", kEvidenceDir, kEvidenceDir, false, "DirectoryOrCreate", "", ""});
  mounts.push_back({"metrics", kMetricsDir, kMetricsDir, false, "DirectoryOrCreate", "", ""});
  mounts.push_back(
      {"nfd-features", kNfdFeaturesDir, kNfdFeaturesDir, false, "DirectoryOrCreate", "", ""});
  mounts.push_back({"tmp", "", "/tmp", false, "", "", ""});
  pod_spec(y, k, {false, {"jetgate"}, daemonset_args(k), mounts, k.gpu == GpuAccess::resource});
  y << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  return header(fmt::format(
             "re-validates every GPU node every {} minutes, one jetgate process\n# "
             "(`run --every`, no shell; SIGTERM stops it). Each run writes the evidence "
             "({}),\n# keeps the last {} runs' evidence in {}/runs/ for `jetgate history "
             "ingest`,\n# node labels for node-feature-discovery ({})\n# and a node_exporter "
             "textfile ({}).\n# GPU: {}.\n",
             k.interval_minutes, kEvidenceDir, kKeptRuns, kEvidenceDir, nfd_file(k), kMetricsDir,
             k.gpu == GpuAccess::cdi
                 ? "the CDI annotation, so the pod holds no GPU between runs (--gpu-access)"
                 : "the device plugin's nvidia.com/gpu, held while the pod lives (--gpu-access)")) +
         finish(y);
}

// Every night, the evidence the DaemonSet kept on the claim (one directory per node) into
// one history database on the same claim; jetgate alone, no shell.
std::string history_cronjob_manifest(const KubernetesOptions& k) {
  YAML::Emitter y;
  y.SetIndent(2);
  y << YAML::BeginMap;
  str(y, "apiVersion", "batch/v1");
  str(y, "kind", "CronJob");
  metadata(y, "jetgate-history-ingest", k.name_space, app_labels("history-ingest"));
  y << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  str(y, "schedule", "30 5 * * *");
  str(y, "concurrencyPolicy", "Forbid");
  y << YAML::Key << "jobTemplate" << YAML::Value << YAML::BeginMap << YAML::Key << "spec"
    << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "backoffLimit" << YAML::Value << 2;
  y << YAML::Key << "template" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "metadata" << YAML::Value << YAML::BeginMap << YAML::Key << "labels"
    << YAML::Value;
  labels_map(y, app_labels("history-ingest"));
  y << YAML::EndMap;
  y << YAML::Key << "spec" << YAML::Value << YAML::BeginMap;
  str(y, "restartPolicy", "Never");
  y << YAML::Key << "automountServiceAccountToken" << YAML::Value << false;
  y << YAML::Key << "enableServiceLinks" << YAML::Value << false;
  // uid 0 with every capability dropped: the DaemonSet (root) created the node
  // directories; the database's directory is root's too.
  pod_security(y, false);
  y << YAML::Key << "containers" << YAML::Value << YAML::BeginSeq << YAML::BeginMap;
  str(y, "name", "jetgate");
  str(y, "image", k.image);
  str(y, "imagePullPolicy", "IfNotPresent");
  y << YAML::Key << "command" << YAML::Value;
  string_list(y, {"jetgate"});
  y << YAML::Key << "args" << YAML::Value;
  string_list(y, {"history", "ingest", kFleetNodes, "--db", kFleetDb, "--quiet"});
  y << YAML::Key << "resources" << YAML::Value << YAML::BeginMap << YAML::Key << "requests"
    << YAML::Value << YAML::BeginMap;
  str(y, "cpu", "100m");
  str(y, "memory", "256Mi");
  y << YAML::EndMap << YAML::Key << "limits" << YAML::Value << YAML::BeginMap;
  str(y, "memory", "2Gi");
  y << YAML::EndMap << YAML::EndMap;
  container_security(y);
  const std::vector<Mount> mounts = {{"fleet", "", kFleetDir, false, "", *k.history_claim, ""}};
  volume_mounts(y, mounts);
  y << YAML::EndMap << YAML::EndSeq;
  volumes(y, mounts);
  y << YAML::EndMap << YAML::EndMap << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  y << YAML::EndMap;
  return header(fmt::format(
             "every night, the evidence the DaemonSet keeps on the claim {}\n# (nodes/NODE, "
             "one directory per node) into one history database, {} on the same claim\n# "
             "(docs/history.md): `jetgate history regressions --db` or `history report` read "
             "it.\n",
             *k.history_claim, kFleetDb)) +
         finish(y);
}

}  // namespace

Status validate_kubernetes_options(const KubernetesOptions& k) {
  if (!is_repository_relative_path(k.dir))
    return make_error("\"" + k.dir +
                          "\" must be a relative path inside the project: segments of letters, "
                          "digits, '.', '_', '+' and '-', none '..' or starting with '-'",
                      "--kubernetes-dir", std::string("e.g. ") + kKubernetesDir);
  if (!is_dns1123_label(k.name_space))
    return make_error("\"" + k.name_space +
                          "\" is not a DNS-1123 label (at most 63 of a-z, 0-9 and '-', starting "
                          "and ending with a letter or digit), which a namespace must be",
                      "--namespace", "e.g. jetgate");
  // The Namespace manifest sets Pod Security's level to privileged: never on a namespace
  // other workloads share.
  if (k.name_space == "default" || k.name_space.rfind("kube-", 0) == 0)
    return make_error("\"" + k.name_space +
                          "\" is a namespace the cluster's own workloads share, and "
                          "00-namespace.yaml would set Pod Security's level privileged on it",
                      "--namespace", "a namespace of jetgate's own, e.g. jetgate");
  if (k.image.empty())
    return make_error("the image that runs jetgate is not named", "--image",
                      "build one with Dockerfile.l4t (docs/kubernetes.md) and pass it as "
                      "--image REGISTRY/NAME:TAG");
  if (!is_image_reference(k.image))
    return make_error(
        "\"" + k.image + "\" is not an image reference [HOST[:PORT]/]NAME:TAG or NAME@DIGEST",
        "--image", "e.g. registry.example/jetgate:0.1.0-r36.4.0");
  // A digest registries accept: sha256 is 64 lower-case hex digits, sha512 128
  // (opencontainers/image-spec descriptor.md, "Registered algorithms").
  if (auto at = k.image.find('@'); at != std::string::npos) {
    const std::string digest = k.image.substr(at + 1);
    const auto colon = digest.find(':');
    const std::string algorithm = digest.substr(0, colon);
    const std::string hex = colon == std::string::npos ? "" : digest.substr(colon + 1);
    const std::size_t want = algorithm == "sha256" ? 64 : algorithm == "sha512" ? 128 : 0;
    if (want == 0 || hex.size() != want ||
        hex.find_first_not_of("0123456789abcdef") != std::string::npos)
      return make_error("\"" + digest +
                            "\" is not an image digest a registry accepts: sha256 with 64 or "
                            "sha512 with 128 lower-case hex digits",
                        "--image", "copy the digest `crane digest` or `skopeo inspect` prints");
  }
  // The gate id names a file (GATE.json) and a node label: the gate grammar, and at most 50
  // characters, so that "jetgate-GATE" stays a DNS-1123 label.
  if (!is_dns1123_label(k.gate) || k.gate.size() > 50)
    return make_error("\"" + k.gate +
                          "\" is not a gate id for a cluster: [a-z0-9][a-z0-9-]*[a-z0-9], at "
                          "most 50 characters",
                      "--gate", std::string("e.g. ") + kKubernetesGateId);
  if (k.node && !is_dns1123_subdomain(*k.node))
    return make_error("\"" + *k.node +
                          "\" is not a node name (a DNS-1123 subdomain: lower-case labels of "
                          "a-z, 0-9 and '-' joined by '.', at most 253 characters)",
                      "--node", "`kubectl get nodes` lists them");
  // The Job selects the node by its kubernetes.io/hostname label, whose value is at most 63
  // characters: a longer name would give a nodeSelector the API server rejects.
  if (k.node && k.node->size() > 63)
    return make_error(fmt::format("\"{}\" has {} characters; the Job selects the node by its "
                                  "kubernetes.io/hostname label, at most 63",
                                  *k.node, k.node->size()),
                      "--node", "omit --node and let the Job go to any GPU node");
  if (k.history_claim && (!is_dns1123_subdomain(*k.history_claim) || k.history_claim->size() > 253))
    return make_error("\"" + *k.history_claim +
                          "\" is not a PersistentVolumeClaim name (a DNS-1123 subdomain: "
                          "lower-case labels of a-z, 0-9 and '-' joined by '.')",
                      "--history-claim", "e.g. jetgate-evidence");
  if (k.interval_minutes < 5 || k.interval_minutes > 10080)
    return make_error(fmt::format("{} minutes is outside 5 to 10080 (a week)", k.interval_minutes),
                      "--interval-minutes", "e.g. 360, every six hours");
  return Ok{};
}

std::string render_npd_config(const KubernetesOptions& k) {
  // node-problem-detector's custom plugin monitor (config/custom-plugin-monitor.json and
  // pkg/custompluginmonitor/types/config.go of kubernetes/node-problem-detector): jetgate's
  // exit status is the plugin protocol's, 0 OK, 1 NonOK, 2 Unknown.
  std::vector<std::string> args = {"run",         k.gate,  "--policy",       kPolicyPath,
                                   "--host-root", "/host", "--evidence-dir", kEvidenceDir,
                                   "--quiet"};
  nlohmann::ordered_json rule = {{"type", "permanent"},
                                 {"condition", "JetgateGPUProblem"},
                                 {"reason", "JetgateGateFailed"},
                                 {"path", kNpdJetgate},
                                 {"args", args},
                                 {"timeout", "20m"}};
  nlohmann::ordered_json config = {
      {"plugin", "custom"},
      {"pluginConfig",
       {{"invoke_interval", fmt::format("{}m", k.interval_minutes)},
        {"timeout", "20m"},
        {"max_output_length", 80},
        {"concurrency", 1},
        {"enable_message_change_based_condition_update", false}}},
      {"source", "jetgate-gpu-monitor"},
      {"metricsReporting", true},
      {"conditions",
       {{{"type", "JetgateGPUProblem"},
         {"reason", "JetgateGatePassed"},
         {"message", "jetgate " + k.gate + " passed: the GPU stack works at full speed"}}}},
      {"rules", {rule}}};
  return config.dump(2) + "\n";
}

Result<std::vector<InitFile>> render_kubernetes_files(const KubernetesOptions& k) {
  if (auto st = validate_kubernetes_options(k); !st) return st.error();
  std::vector<InitFile> files = {{k.dir + "/00-namespace.yaml", namespace_manifest(k)},
                                 {k.dir + "/10-policy.yaml", policy_manifest(k)},
                                 {k.dir + "/20-validate-node-job.yaml", job_manifest(k)},
                                 {k.dir + "/30-revalidate-daemonset.yaml", daemonset_manifest(k)}};
  if (k.history_claim)
    files.push_back({k.dir + "/40-history-ingest-cronjob.yaml", history_cronjob_manifest(k)});
  files.push_back({k.dir + "/node-problem-detector/jetgate-monitor.json", render_npd_config(k)});
  return files;
}

}  // namespace jetgate::init
