// SPDX-License-Identifier: Apache-2.0
// `jetgate init --kubernetes`: the manifests are valid Kubernetes objects (checked
// against the Kubernetes API's OpenAPI schema by the npm package kubernetes-models,
// through tests/k8s/validate.mjs, which must also reject broken ones), the
// node-problem-detector plugin monitor follows NPD's own rules, every value from the
// user is checked against its grammar, the files are deterministic (docs/examples/),
// every jetgate line parses, and nothing is overwritten without --force.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "jetgate/init/init_grammar.hpp"
#include "jetgate/init/init_templates.hpp"
#include "jetgate/policy/policy.hpp"
#include "jetgate/proc/child.hpp"
#include "test_support.hpp"

namespace jetgate::test {
namespace {

using nlohmann::json;

bool has(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

init::KubernetesOptions options() {
  init::KubernetesOptions k;
  k.image = "registry.example/jetgate:0.1.0-r36.4.0";
  return k;
}

const init::InitFile& file(const std::vector<init::InitFile>& files, const std::string& name) {
  for (const auto& f : files)
    if (f.path == std::string(init::kKubernetesDir) + "/" + name) return f;
  static const init::InitFile none;
  ADD_FAILURE() << "no " << name;
  return none;
}

// ---- node-problem-detector's rules -------------------------------------------------
// From pkg/custompluginmonitor/types/config.go and types.go of kubernetes/node-problem-
// detector (CustomPluginConfig, pluginGlobalConfig, CustomRule; ApplyConfiguration and
// Validate) and pkg/types/types.go (Condition; "temporary" and "permanent"): the JSON
// field names, which durations must parse (Go's time.ParseDuration) and be positive, that
// a rule's timeout may not exceed the global one, and that a permanent rule's condition
// has a default condition. NPD's decoder ignores unknown keys; this check refuses them,
// since an ignored misspelt key is a setting silently lost. NPD also needs every rule's
// path to exist on its own file system, which only the node can say.

// Go's time.ParseDuration for what a config holds: [0-9]+(.[0-9]+)? units, repeated.
std::optional<double> go_duration_seconds(const std::string& s) {
  static const std::regex part("([0-9]+(?:\\.[0-9]+)?)(ns|us|µs|ms|s|m|h)");
  if (s.empty()) return std::nullopt;
  if (s == "0") return 0.0;
  double total = 0;
  auto begin = std::sregex_iterator(s.begin(), s.end(), part);
  std::size_t covered = 0;
  for (auto it = begin; it != std::sregex_iterator(); ++it) {
    if (static_cast<std::size_t>(it->position()) != covered) return std::nullopt;
    covered += it->length();
    const double v = std::stod((*it)[1]);
    const std::string u = (*it)[2];
    total += v * (u == "h"    ? 3600
                  : u == "m"  ? 60
                  : u == "s"  ? 1
                  : u == "ms" ? 1e-3
                  : u == "ns" ? 1e-9
                              : 1e-6);
  }
  if (covered != s.size()) return std::nullopt;
  return total;
}

std::vector<std::string> npd_problems(const json& c) {
  std::vector<std::string> out;
  if (!c.is_object()) return {"not a JSON object"};
  const std::set<std::string> top = {"plugin",     "pluginConfig", "source",
                                     "conditions", "rules",        "metricsReporting"};
  for (const auto& [k, v] : c.items())
    if (!top.count(k)) out.push_back("unknown key " + k);
  if (c.value("plugin", "") != "custom") out.push_back("plugin must be \"custom\"");
  if (!c.contains("source") || !c["source"].is_string() || c["source"].get<std::string>().empty())
    out.push_back("source must be a non-empty string");
  if (c.contains("metricsReporting") && !c["metricsReporting"].is_boolean())
    out.push_back("metricsReporting must be a boolean");
  double global_timeout = 5;  // defaultGlobalTimeout
  if (c.contains("pluginConfig")) {
    const auto& g = c["pluginConfig"];
    const std::set<std::string> known = {"invoke_interval",
                                         "timeout",
                                         "max_output_length",
                                         "concurrency",
                                         "enable_message_change_based_condition_update",
                                         "skip_initial_status"};
    if (!g.is_object()) {
      out.push_back("pluginConfig must be an object");
    } else {
      for (const auto& [k, v] : g.items())
        if (!known.count(k)) out.push_back("unknown pluginConfig key " + k);
      if (g.contains("invoke_interval")) {
        auto d = g["invoke_interval"].is_string()
                     ? go_duration_seconds(g["invoke_interval"].get<std::string>())
                     : std::nullopt;
        if (!d || *d <= 0) out.push_back("invoke_interval must be a positive duration");
      }
      if (g.contains("timeout")) {
        auto d = g["timeout"].is_string() ? go_duration_seconds(g["timeout"].get<std::string>())
                                          : std::nullopt;
        if (!d)
          out.push_back("timeout must be a duration");
        else
          global_timeout = *d;
      }
      for (const char* n : {"max_output_length", "concurrency"})
        if (g.contains(n) && (!g[n].is_number_integer() || g[n].get<int>() < 1))
          out.push_back(std::string(n) + " must be a positive integer");
      for (const char* b : {"enable_message_change_based_condition_update", "skip_initial_status"})
        if (g.contains(b) && !g[b].is_boolean())
          out.push_back(std::string(b) + " must be a boolean");
    }
  }
  std::set<std::string> conditions;
  if (!c.contains("conditions") || !c["conditions"].is_array()) {
    out.push_back("conditions must be a list");
  } else {
    for (const auto& cond : c["conditions"]) {
      if (!cond.is_object()) {
        out.push_back("a condition must be an object");
        continue;
      }
      for (const char* n : {"type", "reason", "message"})
        if (!cond.contains(n) || !cond[n].is_string() || cond[n].get<std::string>().empty())
          out.push_back(std::string("a condition needs a string ") + n);
      for (const auto& [k, v] : cond.items())
        if (k != "type" && k != "reason" && k != "message")
          out.push_back("unknown condition key " + k);
      if (cond.contains("type") && cond["type"].is_string())
        conditions.insert(cond["type"].get<std::string>());
    }
  }
  if (!c.contains("rules") || !c["rules"].is_array() || c["rules"].empty()) {
    out.push_back("rules must be a non-empty list");
    return out;
  }
  const std::set<std::string> rule_keys = {"type", "condition", "reason",         "path",
                                           "args", "timeout",   "invoke_interval"};
  for (const auto& r : c["rules"]) {
    if (!r.is_object()) {
      out.push_back("a rule must be an object");
      continue;
    }
    for (const auto& [k, v] : r.items())
      if (!rule_keys.count(k)) out.push_back("unknown rule key " + k);
    const std::string type = r.value("type", "");
    if (type != "temporary" && type != "permanent")
      out.push_back("rule type must be temporary or permanent, not \"" + type + "\"");
    if (type == "permanent" && !conditions.count(r.value("condition", "")))
      out.push_back("permanent problem " + r.value("condition", "") +
                    " does not have preset default condition");
    if (r.value("reason", "").empty()) out.push_back("a rule needs a reason");
    const std::string path = r.value("path", "");
    if (path.empty() || path[0] != '/') out.push_back("a rule's path must be absolute");
    if (r.contains("args")) {
      if (!r["args"].is_array())
        out.push_back("args must be a list");
      else
        for (const auto& a : r["args"])
          if (!a.is_string()) out.push_back("args must be strings");
    }
    if (r.contains("timeout")) {
      auto d = r["timeout"].is_string() ? go_duration_seconds(r["timeout"].get<std::string>())
                                        : std::nullopt;
      if (!d)
        out.push_back("rule timeout must be a duration");
      else if (*d > global_timeout)
        out.push_back("plugin timeout is greater than global timeout");
    }
    if (r.contains("invoke_interval")) {
      auto d = r["invoke_interval"].is_string()
                   ? go_duration_seconds(r["invoke_interval"].get<std::string>())
                   : std::nullopt;
      if (!d || *d <= 0) out.push_back("rule invoke interval must be greater than zero");
    }
  }
  return out;
}

// ---- the Kubernetes schema, through node ---------------------------------------------

std::string node_modules() {
  const char* env = std::getenv("JETGATE_NODE_MODULES");
  return env && *env ? env : JETGATE_NODE_MODULES;
}

// tests/k8s/validate.mjs over the files: its exit status (0 valid, 1 invalid, 2 it could
// not check) and what it printed.
proc::ChildOutcome validate(const std::vector<std::string>& files) {
  proc::ProcessSpec spec;
  spec.argv = {"node", source_dir() + "/tests/k8s/validate.mjs", node_modules()};
  spec.argv.insert(spec.argv.end(), files.begin(), files.end());
  proc::ChildLimits limits;
  limits.timeout = std::chrono::seconds(120);
  limits.max_output_bytes = 4u << 20;
  auto o = proc::run_process(spec, limits);
  EXPECT_EQ(o.kind, proc::ChildOutcome::Kind::exited)
      << o.describe() << " (node is needed: run scripts/install-deps.sh)";
  EXPECT_NE(o.exit_code, 2) << o.output << o.error_text << " (kubernetes-models is needed in "
                            << node_modules()
                            << ": run scripts/install-deps.sh, or set JETGATE_NODE_MODULES)";
  return o;
}

std::vector<std::string> manifest_names() {
  return {"00-namespace.yaml", "10-policy.yaml", "20-validate-node-job.yaml",
          "30-revalidate-daemonset.yaml"};
}

TEST(InitKubernetes, RendersTheClusterFilesNeverPrivilegedWithTheHostReadOnly) {
  auto files = init::render_kubernetes_files(options());
  ASSERT_TRUE(files.ok()) << files.error().message();
  ASSERT_EQ(files->size(), 5u);
  const auto& job = file(*files, "20-validate-node-job.yaml").text;
  const auto& ds = file(*files, "30-revalidate-daemonset.yaml").text;
  for (const auto* m : {&job, &ds}) {
    auto y = YAML::Load(*m);
    auto pod = y["spec"]["template"]["spec"];
    auto c = pod["containers"][0];
    EXPECT_EQ(c["image"].as<std::string>(), "registry.example/jetgate:0.1.0-r36.4.0");
    EXPECT_FALSE(c["securityContext"]["privileged"].as<bool>());
    EXPECT_FALSE(c["securityContext"]["allowPrivilegeEscalation"].as<bool>());
    EXPECT_TRUE(c["securityContext"]["readOnlyRootFilesystem"].as<bool>());
    EXPECT_EQ(c["securityContext"]["capabilities"]["drop"][0].as<std::string>(), "ALL");
    EXPECT_FALSE(c["securityContext"]["capabilities"]["add"]) << "no capability is added";
    EXPECT_FALSE(pod["hostPID"] || pod["hostNetwork"] || pod["hostIPC"]);
    EXPECT_FALSE(pod["automountServiceAccountToken"].as<bool>());
    // The host's /etc, /proc, /sys and /lib/modules, read-only under /host.
    std::map<std::string, std::string> host;
    for (const auto& v : pod["volumes"])
      if (v["hostPath"])
        host[v["name"].as<std::string>()] = v["hostPath"]["path"].as<std::string>();
    for (const auto& vm : c["volumeMounts"]) {
      auto mp = vm["mountPath"].as<std::string>();
      if (mp.rfind("/host/", 0) == 0) {
        EXPECT_TRUE(vm["readOnly"].as<bool>()) << mp;
        EXPECT_EQ("/host" + host[vm["name"].as<std::string>()], mp);
      }
    }
    for (const char* p : {"/host/etc", "/host/proc", "/host/sys", "/host/usr/lib",
                          "/host/lib/modules", "/host/var/run/cdi", "/host/var/cdi"})
      EXPECT_TRUE(has(*m, std::string("mountPath: \"") + p + "\"")) << p;
    // What a node may lack (modules, CDI specs outside /etc) has no hostPath type, so the
    // pod starts without it and jetgate reports it; /etc, /proc and /sys must exist.
    for (const auto& v : pod["volumes"]) {
      if (!v["hostPath"]) continue;
      const auto path = v["hostPath"]["path"].as<std::string>();
      const bool optional = path == "/lib/modules" || path == "/var/run/cdi" || path == "/var/cdi";
      EXPECT_EQ(static_cast<bool>(v["hostPath"]["type"]), !optional) << path;
      if (path == "/etc" || path == "/proc" || path == "/sys" || path == "/usr/lib") {
        EXPECT_EQ(v["hostPath"]["type"].as<std::string>(), "Directory") << path;
      }
    }
    // No shell: the container runs jetgate itself.
    ASSERT_EQ(c["command"].size(), 1u);
    EXPECT_EQ(c["command"][0].as<std::string>(), "jetgate");
    EXPECT_FALSE(has(*m, "/bin/sh")) << *m;
    EXPECT_TRUE(has(*m, "--host-root")) << *m;
    // The GPU nodes as NVIDIA's device plugin selects them, and their taint tolerated.
    EXPECT_TRUE(has(*m, "feature.node.kubernetes.io/pci-10de.present"));
    EXPECT_TRUE(has(*m, "feature.node.kubernetes.io/cpu-model.vendor_id"));
    EXPECT_TRUE(has(*m, "nvidia.com/gpu.present"));
    EXPECT_EQ(pod["tolerations"][0]["key"].as<std::string>(), "nvidia.com/gpu");
  }
  auto jp = YAML::Load(job)["spec"]["template"]["spec"];
  EXPECT_TRUE(jp["securityContext"]["runAsNonRoot"].as<bool>());
  EXPECT_EQ(jp["containers"][0]["resources"]["limits"]["nvidia.com/gpu"].as<std::string>(), "1");
  EXPECT_TRUE(has(job, "\"--json\""));  // the evidence printed
  auto dy = YAML::Load(ds);
  EXPECT_EQ(
      dy["spec"]["template"]["metadata"]["annotations"]["cdi.k8s.io/jetgate"].as<std::string>(),
      "nvidia.com/gpu=all");
  EXPECT_FALSE(
      dy["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"]);
  auto ds_args = dy["spec"]["template"]["spec"]["containers"][0]["args"];
  std::vector<std::string> dargs;
  for (const auto& a : ds_args) dargs.push_back(a.as<std::string>());
  auto after = [&](const std::string& flag) {
    auto at = std::find(dargs.begin(), dargs.end(), flag);
    return at == dargs.end() || at + 1 == dargs.end() ? std::string() : *(at + 1);
  };
  EXPECT_EQ(after("--nfd-features"),
            "/etc/kubernetes/node-feature-discovery/features.d/jetgate-gpu-node");
  EXPECT_EQ(after("--nfd-expiry-hours"), "12");  // two periods of 360 minutes
  EXPECT_EQ(after("--prometheus"), "/var/lib/jetgate/metrics/jetgate-gpu-node.prom");
  auto every = std::find(dargs.begin(), dargs.end(), "--every");
  ASSERT_NE(every, dargs.end()) << ds;
  ASSERT_NE(every + 1, dargs.end());
  EXPECT_EQ(*(every + 1), "360m");
  auto keep = std::find(dargs.begin(), dargs.end(), "--keep");
  ASSERT_NE(keep, dargs.end()) << ds;
  EXPECT_EQ(*(keep + 1), "28");
  EXPECT_EQ(std::find(dargs.begin(), dargs.end(), "--json"), dargs.end())
      << "the DaemonSet's log is not a stream of evidence documents";
  // --gpu-access resource: the device plugin's resource instead of the annotation.
  auto k = options();
  k.gpu = init::GpuAccess::resource;
  auto r = init::render_kubernetes_files(k);
  ASSERT_TRUE(r.ok());
  auto rds = YAML::Load(file(*r, "30-revalidate-daemonset.yaml").text);
  EXPECT_FALSE(rds["spec"]["template"]["metadata"]["annotations"]);
  EXPECT_EQ(
      rds["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"]
          .as<std::string>(),
      "1");
  // --node: the Job goes to that node.
  k.node = "orin-nx-01.lab";
  r = init::render_kubernetes_files(k);
  ASSERT_TRUE(r.ok());
  auto rj = YAML::Load(file(*r, "20-validate-node-job.yaml").text);
  EXPECT_EQ(
      rj["spec"]["template"]["spec"]["nodeSelector"]["kubernetes.io/hostname"].as<std::string>(),
      "orin-nx-01.lab");
  // ... and only the Job: the DaemonSet still goes to every GPU node.
  auto rd = YAML::Load(file(*r, "30-revalidate-daemonset.yaml").text);
  EXPECT_FALSE(rd["spec"]["template"]["spec"]["nodeSelector"]);
  EXPECT_TRUE(rd["spec"]["template"]["spec"]["affinity"]["nodeAffinity"]);
}

TEST(InitKubernetes, ThePolicyInTheConfigMapIsAValidRunnableGate) {
  auto files = init::render_kubernetes_files(options());
  ASSERT_TRUE(files.ok());
  auto cm = YAML::Load(file(*files, "10-policy.yaml").text);
  const auto text = cm["data"]["policy.json"].as<std::string>();
  EXPECT_EQ(text, init::render_kubernetes_policy(options()));
  auto loaded = policy::parse_policy(text, "policy.json", ".");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message();
  EXPECT_TRUE(loaded->issues.empty()) << loaded->issues.front().line();
  EXPECT_TRUE(loaded->warnings.empty());
  const auto* g = policy::find_gate(loaded->policy, "gpu-node");
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(g->runnable());
  EXPECT_FALSE(g->command.has_value());
  auto j = json::parse(text);
  EXPECT_FALSE(j["gates"][0].contains("requires"))
      << "a node without a working driver must fail the gate (exit 1), not skip it";
}

TEST(InitKubernetes, DocsExamplesAreWhatInitWrites) {
  auto files = init::render_kubernetes_files(options());
  ASSERT_TRUE(files.ok());
  for (const auto& f : *files) {
    const auto name = f.path.substr(std::string(init::kKubernetesDir).size() + 1);
    EXPECT_EQ(read_file(source_dir() + "/docs/examples/kubernetes/" + name), f.text)
        << "regenerate docs/examples/kubernetes/ with the command in docs/kubernetes.md";
  }
}

TEST(InitKubernetes, BadValuesNameTheOption) {
  auto check = [](auto change, const char* option) {
    auto k = options();
    change(k);
    auto st = init::validate_kubernetes_options(k);
    ASSERT_FALSE(st.ok()) << option;
    EXPECT_EQ(st.error().where, option) << st.error().message();
  };
  check([](auto& k) { k.name_space = "Jetgate"; }, "--namespace");
  check([](auto& k) { k.name_space = "jet_gate"; }, "--namespace");
  check([](auto& k) { k.name_space = std::string(64, 'a'); }, "--namespace");
  check([](auto& k) { k.name_space = "-jetgate"; }, "--namespace");
  // Values the target system refuses, though their grammar is right (issue 42, class 5).
  check([](auto& k) { k.name_space = "default"; }, "--namespace");
  check([](auto& k) { k.name_space = "kube-system"; }, "--namespace");
  check([](auto& k) { k.name_space = "kube-x"; }, "--namespace");
  check([](auto& k) { k.node = std::string(64, 'n'); }, "--node");
  check([](auto& k) { k.image = "r.example/j@sha256:" + std::string(32, 'a'); }, "--image");
  check([](auto& k) { k.image = "r.example/j@sha256:" + std::string(63, 'a'); }, "--image");
  check([](auto& k) { k.image = "r.example/j@sha256:" + std::string(65, 'a'); }, "--image");
  check([](auto& k) { k.image = "r.example/j@sha256:" + std::string(64, 'A'); }, "--image");
  check([](auto& k) { k.image = "r.example/j@md5:" + std::string(32, 'a'); }, "--image");
  // ... and their near misses pass.
  for (auto ok :
       {+[](init::KubernetesOptions& k) { k.name_space = "kubex"; },
        +[](init::KubernetesOptions& k) { k.name_space = "defaults"; },
        +[](init::KubernetesOptions& k) { k.node = std::string(63, 'n'); },
        +[](init::KubernetesOptions& k) { k.image = "r.example/j@sha256:" + std::string(64, 'a'); },
        +[](init::KubernetesOptions& k) {
          k.image = "r.example/j:1@sha512:" + std::string(128, '0');
        }}) {
    auto k = options();
    ok(k);
    auto st = init::validate_kubernetes_options(k);
    EXPECT_TRUE(st.ok()) << st.error().message();
  }
  check([](auto& k) { k.image = ""; }, "--image");
  check([](auto& k) { k.image = "jetgate"; }, "--image");
  check([](auto& k) { k.image = "x:1\"\n  privileged: true"; }, "--image");
  check([](auto& k) { k.gate = "GPU"; }, "--gate");
  check([](auto& k) { k.gate = "gpu-"; }, "--gate");
  check([](auto& k) { k.gate = std::string(51, 'g'); }, "--gate");
  check([](auto& k) { k.node = "Node_1"; }, "--node");
  check([](auto& k) { k.node = "a..b"; }, "--node");
  check([](auto& k) { k.interval_minutes = 4; }, "--interval-minutes");
  check([](auto& k) { k.interval_minutes = 10081; }, "--interval-minutes");
  check([](auto& k) { k.dir = "../elsewhere"; }, "--kubernetes-dir");
  check([](auto& k) { k.dir = "/etc"; }, "--kubernetes-dir");
}

TEST(InitKubernetes, NodeProblemDetectorConfigFollowsItsRules) {
  auto k = options();
  const json c = json::parse(init::render_npd_config(k));
  EXPECT_EQ(npd_problems(c), std::vector<std::string>{});
  EXPECT_EQ(c["rules"][0]["path"], "/opt/jetgate/bin/jetgate");
  EXPECT_EQ(c["rules"][0]["args"][0], "run");
  EXPECT_EQ(c["pluginConfig"]["invoke_interval"], "360m");
  EXPECT_EQ(go_duration_seconds("360m"), 21600.0);
  EXPECT_EQ(go_duration_seconds("1h30m"), 5400.0);
  EXPECT_EQ(go_duration_seconds("5x"), std::nullopt);
  // The checker can fail: each broken copy is refused for its own reason.
  auto broken = [&](auto change, const std::string& expect) {
    json b = c;
    change(b);
    auto p = npd_problems(b);
    bool found = false;
    for (const auto& s : p) found = found || has(s, expect);
    EXPECT_TRUE(found) << expect << " in " << json(p).dump();
  };
  broken([](json& b) { b["plugin"] = "filelog"; }, "plugin must be");
  broken([](json& b) { b["rules"][0]["type"] = "sometimes"; }, "temporary or permanent");
  broken([](json& b) { b["rules"][0]["condition"] = "Other"; }, "preset default condition");
  broken([](json& b) { b["rules"][0]["timeout"] = "30m"; }, "greater than global");
  broken([](json& b) { b["pluginConfig"]["invoke_interval"] = "0s"; }, "positive duration");
  broken([](json& b) { b["pluginConfig"]["invoke_intervall"] = "5m"; }, "unknown pluginConfig");
  broken([](json& b) { b["rules"][0]["path"] = "jetgate"; }, "absolute");
  broken([](json& b) { b.erase("source"); }, "source");
  broken([](json& b) { b["conditions"][0].erase("reason"); }, "needs a string reason");
}

// Done when: the manifests init writes pass the Kubernetes API's schema, and the checker
// rejects broken ones (so this test can fail).
TEST(InitKubernetes, ManifestsPassTheKubernetesSchemaAndBrokenOnesDoNot) {
  TempDir t;
  auto r = run_jetgate({"init", "--kubernetes", "--dir", t.dir(), "--image",
                        "registry.example/jetgate:0.1.0-r36.4.0", "--node", "orin-nx-01"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::vector<std::string> paths;
  for (const auto& n : manifest_names()) paths.push_back(t.path("deploy/kubernetes/" + n));
  auto o = validate(paths);
  EXPECT_EQ(o.exit_code, 0) << o.output << o.error_text;
  for (const char* kind : {"ok ", "Namespace/jetgate", "ConfigMap/jetgate-policy",
                           "Job/jetgate-validate-node", "DaemonSet/jetgate-revalidate"})
    EXPECT_TRUE(has(o.output, kind)) << kind << "\n" << o.output;

  const std::string ds = read_file(t.path("deploy/kubernetes/30-revalidate-daemonset.yaml"));
  const std::string job = read_file(t.path("deploy/kubernetes/20-validate-node-job.yaml"));
  struct Broken {
    std::string name, text, expect;
  };
  auto replaced = [](std::string s, const std::string& from, const std::string& to) {
    auto at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) s.replace(at, from.size(), to);
    return s;
  };
  const std::vector<Broken> broken = {
      {"type.yaml", replaced(ds, "readOnlyRootFilesystem: true", "readOnlyRootFilesystem: \"yes\""),
       "must be boolean"},
      {"required.yaml", replaced(ds, "      containers:", "      containerz:"),
       "required property"},
      {"enum.yaml", replaced(job, "restartPolicy: \"Never\"", "restartPolicy: \"Sometimes\""),
       "allowed values"},
      {"name.yaml", replaced(job, "name: \"jetgate-validate-node\"", "name: \"Jetgate_Job\""),
       "DNS-1123"},
      {"label.yaml", replaced(ds, "\"revalidate\"", "\"re validate\""), "label value"},
      {"kind.yaml", replaced(job, "kind: \"Job\"", "kind: \"Jbo\""), "no schema"},
      {"yaml.yaml", "a: [1\n", "YAML"},
  };
  for (const auto& b : broken) {
    auto path = t.write(b.name, b.text);
    auto bad = validate({path});
    EXPECT_EQ(bad.exit_code, 1) << b.name << ": " << bad.output << bad.error_text;
    EXPECT_TRUE(has(bad.output, b.expect)) << b.name << ": " << bad.output;
  }
}

// Every jetgate line the manifests run parses with jetgate's own CLI, and reads the
// host's facts through the read-only mount at /host (`--host-root /host`).
TEST(InitKubernetes, EveryJetgateLineParses) {
  auto files = init::render_kubernetes_files(options());
  ASSERT_TRUE(files.ok());
  std::vector<std::vector<std::string>> lines;
  auto job = YAML::Load(file(*files, "20-validate-node-job.yaml").text);
  auto c = job["spec"]["template"]["spec"]["containers"][0];
  std::vector<std::string> argv;
  for (const auto& a : c["args"]) argv.push_back(a.as<std::string>());
  ASSERT_EQ(c["command"][0].as<std::string>(), "jetgate");
  lines.push_back(argv);
  auto npd = json::parse(file(*files, "node-problem-detector/jetgate-monitor.json").text);
  lines.push_back(npd["rules"][0]["args"].get<std::vector<std::string>>());
  // The DaemonSet: jetgate itself, its arguments as the runtime passes them ($(NODE_NAME)
  // is the kubelet's expansion of the env var).
  auto ds = YAML::Load(file(*files, "30-revalidate-daemonset.yaml").text);
  auto dc = ds["spec"]["template"]["spec"]["containers"][0];
  ASSERT_EQ(dc["command"][0].as<std::string>(), "jetgate");
  std::vector<std::string> words;
  for (const auto& a : dc["args"]) words.push_back(a.as<std::string>());
  ASSERT_NE(std::find(words.begin(), words.end(), "--every"), words.end());
  lines.push_back(words);
  for (auto l : lines) {
    auto hr = std::find(l.begin(), l.end(), "--host-root");
    ASSERT_NE(hr, l.end());
    ASSERT_NE(hr + 1, l.end());
    ASSERT_EQ(*(hr + 1), "/host");
    auto r = run_jetgate(l, {"JETGATE_PARSE_ONLY=1"});
    EXPECT_EQ(r.exit_code, 0) << json(l).dump() << "\n" << r.err;
  }
}

// The gate the ConfigMap carries runs as the DaemonSet runs it (without --host-root, which
// comes with another change), on the fake CUDA driver: its exit status is what NPD reads
// (0 OK, 1 NonOK), and the NFD labels say the same as the evidence.
TEST(InitKubernetes, TheConfigMapsGateRunsAndItsLabelsSayWhatTheEvidenceSays) {
  TempDir t;
  auto files = init::render_kubernetes_files(options());
  ASSERT_TRUE(files.ok());
  auto cm = YAML::Load(file(*files, "10-policy.yaml").text);
  auto policy = t.write("policy.json", cm["data"]["policy.json"].as<std::string>());
  std::filesystem::create_directories(t.path("features.d"));
  auto r = run_jetgate({"run", "gpu-node", "--policy", policy, "--evidence-dir", t.path("ev"),
                        "--node", "node-1", "--quiet", "--json", "--nfd-features",
                        t.path("features.d/jetgate-gpu-node"), "--nfd-expiry-hours", "12"},
                       {std::string("JETGATE_CUDA_DRIVER=") + JETGATE_FAKE_CUDA});
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;  // it ran: OK or NonOK
  auto evidence = json::parse(r.out);
  const std::string status = evidence["status"];
  EXPECT_EQ(status, r.exit_code == 0 ? "passed" : "failed");
  const auto labels = read_file(t.path("features.d/jetgate-gpu-node"));
  EXPECT_TRUE(has(labels, "jetgate.feature.node.kubernetes.io/gate=gpu-node\n")) << labels;
  EXPECT_TRUE(has(labels, "jetgate.feature.node.kubernetes.io/gate-status=" + status + "\n"))
      << labels;
  for (const auto& [id, p] : evidence["probes"].items())
    EXPECT_TRUE(has(labels, "/probe." + id + "=" + p["status"].get<std::string>() + "\n"))
        << id << "\n"
        << labels;
  // The same status NPD would turn into the condition: the first line of the text.
  EXPECT_TRUE(has(r.err, "gpu-node: " + status)) << r.err;
}

TEST(InitKubernetes, CliKeepsWhatExistsUnlessForcedAndRefusesBadValues) {
  TempDir t;
  const std::vector<std::string> base = {"init",  "--kubernetes", "--dir",
                                         t.dir(), "--image",      "registry.example/jetgate:1"};
  auto r = run_jetgate(base);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "deploy/kubernetes/30-revalidate-daemonset.yaml: written")) << r.out;
  EXPECT_FALSE(std::filesystem::exists(t.path("ci/conditional-test-policy.json")));
  t.write("deploy/kubernetes/20-validate-node-job.yaml", "mine\n");
  r = run_jetgate(base);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(has(r.out, "20-validate-node-job.yaml: exists, kept")) << r.out;
  EXPECT_EQ(read_file(t.path("deploy/kubernetes/20-validate-node-job.yaml")), "mine\n");
  auto forced = base;
  forced.push_back("--force");
  EXPECT_EQ(run_jetgate(forced).exit_code, 0);
  EXPECT_TRUE(
      has(read_file(t.path("deploy/kubernetes/20-validate-node-job.yaml")), "kind: \"Job\""));
  // --kubernetes-dir moves them; --json lists them.
  auto moved = base;
  for (const char* a : {"--kubernetes-dir", "k8s/jetgate", "--json"}) moved.push_back(a);
  r = run_jetgate(moved);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto doc = json::parse(r.out);
  EXPECT_EQ(doc["files"].size(), 8u);  // and monitoring/: rules, PrometheusRule, dashboard
  EXPECT_EQ(doc["files"][0]["path"], "k8s/jetgate/00-namespace.yaml");
  // Every bad value: exit 2, the option named, nothing written.
  TempDir fresh;
  for (const auto& [extra, needle] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--namespace", "Bad_NS"}, "--namespace"},
           {{"--gate", "GPU!"}, "--gate"},
           {{"--node", "node 1"}, "--node"},
           {{"--interval-minutes", "1"}, "--interval-minutes"},
           {{"--interval-minutes", "five"}, "--interval-minutes"},
           {{"--gpu-access", "privileged"}, "--gpu-access"},
           {{"--board", "agx-orin"}, "--board"},
           {{"--cron", "* * * * *"}, "--cron"}}) {
    auto args = std::vector<std::string>{"init",      "--kubernetes", "--dir",
                                         fresh.dir(), "--image",      "registry.example/jetgate:1"};
    args.insert(args.end(), extra.begin(), extra.end());
    auto bad = run_jetgate(args);
    EXPECT_EQ(bad.exit_code, 2) << extra[0] << ": " << bad.out;
    EXPECT_TRUE(has(bad.err, needle)) << bad.err;
  }
  auto no_image = run_jetgate({"init", "--kubernetes", "--dir", fresh.dir()});
  EXPECT_EQ(no_image.exit_code, 2);
  EXPECT_TRUE(has(no_image.err, "--image")) << no_image.err;
  auto bad_image = run_jetgate({"init", "--kubernetes", "--dir", fresh.dir(), "--image", "x:1;id"});
  EXPECT_EQ(bad_image.exit_code, 2);
  EXPECT_TRUE(has(bad_image.err, "--image")) << bad_image.err;
  // The cluster options need --kubernetes.
  EXPECT_EQ(run_jetgate({"init", "--dir", fresh.dir(), "--namespace", "x"}).exit_code, 2);
  EXPECT_TRUE(std::filesystem::is_empty(fresh.dir()));
}

TEST(InitGrammar, KubernetesNamesAndCronSchedules) {
  for (const char* ok : {"jetgate", "a", "gpu-node-1", "0abc"})
    EXPECT_TRUE(init::is_dns1123_label(ok)) << ok;
  for (const char* bad : {"", "A", "a_b", "-a", "a-", "a.b", "a b", "\xff"})
    EXPECT_FALSE(init::is_dns1123_label(bad)) << bad;
  EXPECT_TRUE(init::is_dns1123_label(std::string(63, 'a')));
  EXPECT_FALSE(init::is_dns1123_label(std::string(64, 'a')));
  for (const char* ok : {"node-1", "orin.lab.example", "a.b.c"})
    EXPECT_TRUE(init::is_dns1123_subdomain(ok)) << ok;
  for (const char* bad : {"", "a..b", ".a", "a.", "Node", "a_b", "a/b"})
    EXPECT_FALSE(init::is_dns1123_subdomain(bad)) << bad;
  EXPECT_FALSE(init::is_dns1123_subdomain(std::string(64, 'a') + ".b"));
  EXPECT_FALSE(init::is_dns1123_subdomain(std::string(250, 'a') + ".bcd"));
  for (const char* ok :
       {"17 4 * * 1", "*/15 * * * *", "0 0-6/2 1,15 * 1-5", "59 23 31 12 6", "0 0 * 1-12/3 0"})
    EXPECT_TRUE(init::is_cron_schedule(ok)) << ok;
  for (const char* bad :
       {"weekly", "@daily", "60 * * * *", "* 24 * * *", "* * 0 * *", "* * * 13 *", "* * * * 7",
        "*  * * * *", "* * * *", "* * * * * *", "5-1 * * * *", "*/0 * * * *", "1,,2 * * * *",
        "* * * * MON", "0 4 * * 1\n", "1;id * * * *", " 1 * * * *"})
    EXPECT_FALSE(init::is_cron_schedule(bad)) << bad;
}

// --history-claim: the DaemonSet's evidence goes to the claim, each node in its own
// directory, and a nightly CronJob ingests it with jetgate alone (issue 40, item 7).
TEST(InitKubernetes, HistoryClaimGivesEachNodeItsDirectoryAndANightlyIngest) {
  auto k = options();
  k.history_claim = "jetgate-evidence";
  auto files = init::render_kubernetes_files(k);
  ASSERT_TRUE(files.ok()) << files.error().message();
  ASSERT_EQ(files->size(), 6u);
  auto ds = YAML::Load(file(*files, "30-revalidate-daemonset.yaml").text);
  auto pod = ds["spec"]["template"]["spec"];
  bool claimed = false;
  for (const auto& v : pod["volumes"])
    if (v["name"].as<std::string>() == "evidence") {
      EXPECT_FALSE(v["hostPath"]);
      EXPECT_EQ(v["persistentVolumeClaim"]["claimName"].as<std::string>(), "jetgate-evidence");
      claimed = true;
    }
  EXPECT_TRUE(claimed);
  for (const auto& m : pod["containers"][0]["volumeMounts"])
    if (m["name"].as<std::string>() == "evidence") {
      EXPECT_EQ(m["subPathExpr"].as<std::string>(), "nodes/$(NODE_NAME)");
    }
  const auto& cron_text = file(*files, "40-history-ingest-cronjob.yaml").text;
  EXPECT_FALSE(has(cron_text, "/bin/sh"));
  auto cron = YAML::Load(cron_text);
  auto cpod = cron["spec"]["jobTemplate"]["spec"]["template"]["spec"];
  auto c = cpod["containers"][0];
  ASSERT_EQ(c["command"][0].as<std::string>(), "jetgate");
  std::vector<std::string> args;
  for (const auto& a : c["args"]) args.push_back(a.as<std::string>());
  EXPECT_EQ(args, (std::vector<std::string>{"history", "ingest", "/fleet/nodes", "--db",
                                            "/fleet/fleet.db", "--quiet"}));
  auto parsed = run_jetgate(args, {"JETGATE_PARSE_ONLY=1"});
  EXPECT_EQ(parsed.exit_code, 0) << parsed.err;
  EXPECT_EQ(cpod["volumes"][0]["persistentVolumeClaim"]["claimName"].as<std::string>(),
            "jetgate-evidence");
  EXPECT_TRUE(c["securityContext"]["readOnlyRootFilesystem"].as<bool>());
  // Without the option, no CronJob and the evidence stays on the node.
  auto plain = init::render_kubernetes_files(options());
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->size(), 5u);
  // A claim name the API server would refuse.
  for (const char* bad : {"Jetgate", "jet_gate", "-x", ""}) {
    k.history_claim = bad;
    auto st = init::validate_kubernetes_options(k);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_EQ(st.error().where, "--history-claim");
  }
  // The files the CLI writes pass the Kubernetes schema.
  TempDir t;
  auto r = run_jetgate({"init", "--kubernetes", "--dir", t.dir(), "--image",
                        "registry.example/jetgate:0.1.0-r36.4.0", "--history-claim",
                        "jetgate-evidence"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  auto o = validate({t.path("deploy/kubernetes/30-revalidate-daemonset.yaml"),
                     t.path("deploy/kubernetes/40-history-ingest-cronjob.yaml")});
  EXPECT_EQ(o.exit_code, 0) << o.output << o.error_text;
  EXPECT_TRUE(has(o.output, "CronJob/jetgate-history-ingest")) << o.output;
}

}  // namespace
}  // namespace jetgate::test
