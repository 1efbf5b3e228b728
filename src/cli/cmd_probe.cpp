// SPDX-License-Identifier: Apache-2.0
// `jetgate probe`: the platform evidence (and, with --cuda, the GPU probes).
#include <chrono>
#include <iostream>

#include "cli/ci_outputs.hpp"
#include "cli/commands.hpp"
#include "cli/host_root.hpp"
#include "cli/input_paths.hpp"
#include "cli/number_options.hpp"
#include "cli/progress_lines.hpp"
#include "cli/safe_streams.hpp"
#include "jetgate/core/exit_codes.hpp"
#include "jetgate/core/json_text.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/cuda/decode_presets.hpp"
#include "jetgate/evidence/gpu_facts.hpp"
#include "jetgate/evidence/probe_document.hpp"
#include "jetgate/facts/container_host.hpp"
#include "jetgate/facts/container_injection.hpp"
#include "jetgate/facts/gpu_stack.hpp"
#include "jetgate/facts/platform.hpp"
#include "jetgate/fs/atomic_write.hpp"
#include "jetgate/probes/cuda_probes.hpp"
#include "jetgate/probes/registry.hpp"
#include "jetgate/record/codec.hpp"
#include "jetgate/report/cuda_text.hpp"
#include "jetgate/report/platform_text.hpp"
#include "jetgate/report/probe_list.hpp"
#include "jetgate/report/python_text.hpp"

namespace jetgate::cli {
namespace {

struct ProbeArgs {
  std::string root = "/";
  std::string host_root;              // --host-root DIR: the live host's facts through its mount
  std::vector<std::string> cdi_dirs;  // --cdi-dir
  bool json = false;
  bool show_serial = false;
  bool cuda = false;
  std::vector<std::string> only;
  double memory_fraction = 0.25;
  double memory_max_gib = 16;
  double probe_timeout_s = 20;
  bool python_runtime = false;
  std::string python;
  double python_timeout_s = 60;
  bool quiet = false;
  bool list = false;
  bool decode = false;
  probes::DecodeOptions decode_options;
  std::string junit;
  std::string prometheus;
  std::string node;  // --node: the textfile's node label
  std::string nfd_features;
  int nfd_expiry_hours = 24;
};

// --decode adds the decode probe; with --cuda (and no --probe) the default
// probes run too.
void add_decode_probe(ProbeArgs& a) {
  if (!a.decode) return;
  if (a.cuda && a.only.empty())
    for (const auto& p : probes::cuda_probes())
      if (p.by_default) a.only.emplace_back(p.id);
  a.only.emplace_back("decode");
}

std::vector<std::string> decode_model_names() {
  std::vector<std::string> names;
  for (const auto& m : cuda::decode::presets()) names.push_back(m.name);
  return names;
}

// `probe` alone is a report (exit 0); asking for probes asks a question, and
// a probe that could not answer it (SKIP, NOT_RUN, no driver) does not hold.
std::vector<std::string> unmet(const ProbeArgs& a, const probes::CudaSection* cuda,
                               const probes::PythonRuntime* py) {
  std::vector<probes::ProbeResult> results;
  std::vector<std::string> requested;
  if (a.cuda) {
    if (cuda) results = cuda->probes;
    if (!a.only.empty())
      requested = a.only;
    else
      for (const auto& p : probes::cuda_probes())
        if (p.by_default) requested.push_back(p.id);
  }
  if (a.python_runtime) {
    for (const auto& id : probes::python_probe_ids()) requested.push_back(id);
    if (py) results.push_back(py->result);
    if (py && py->bitsandbytes) results.push_back(*py->bitsandbytes);
  }
  return probes::unmet_probes(results, requested);
}

int run_probe(const ProbeArgs& a) {
  if (a.list) {
    std::cout << (a.json ? dump_json(report::probe_list_json(), 2) + "\n"
                         : report::render_probe_list_text());
    return kExitOk;
  }
  // An output that cannot be written stops the probe before anything is measured; two
  // options naming one file would leave only the last one's text.
  fs::CommandFiles files;
  if (!check_outputs("probe", files,
                     {{"--junit", a.junit},
                      {"--prometheus", a.prometheus},
                      {"--nfd-features", a.nfd_features}}))
    return kExitUsage;
  for (const auto* out : {&a.junit, &a.prometheus, &a.nfd_features})
    if (!out->empty())
      if (auto st = fs::check_output_path(*out); !st) {
        std::cerr << "jetgate probe: "
                  << (out == &a.junit        ? "--junit"
                      : out == &a.prometheus ? "--prometheus"
                                             : "--nfd-features")
                  << ": " << terminal_safe(st.error().message()) << "\n";
        return kExitUsage;
      }
  auto root = fs::RootFs::open(a.root);
  if (!root.ok()) {
    std::cerr << "jetgate probe: " << terminal_safe(root.error().message()) << "\n";
    return kExitUsage;
  }
  // Facts of the running system: the live root, or the live host through its mount.
  const bool live = root->is_live() || !a.host_root.empty();
  if (!live && (a.cuda || a.python_runtime)) {
    std::cerr << "jetgate probe: --cuda and --python measure the live machine; they cannot be "
                 "combined with --root (a recorded root has no driver to talk to)\n";
    return kExitUsage;
  }
  // A recording's facts are another machine's: published under this host's name they
  // would be this host's platform on every dashboard. With --root, --prometheus names the
  // node the recording is of (--node); its jetgate_info says facts_source="recorded".
  if (!live && !a.prometheus.empty() && a.node.empty()) {
    std::cerr << "jetgate probe: --prometheus with --root: the recording's facts are not this "
                 "host's, and the file would publish them under this host's name; name the node "
                 "the recording is of with --node NAME (its series then say "
                 "facts_source=\"recorded\"), or look at the recording with --json\n";
    return kExitUsage;
  }
  facts::CollectOptions copts;
  copts.show_serial = a.show_serial;
  copts.cdi_dirs = a.cdi_dirs;
  facts::PlatformReport platform;
  nlohmann::json host_mount = nullptr;
  if (!a.host_root.empty()) {
    auto host = collect_host_root(a.host_root, copts);
    if (!host) {
      std::cerr << "jetgate probe: --host-root: " << terminal_safe(host.error().message()) << "\n";
      return kExitUsage;
    }
    platform = std::move(host->report);
    host_mount = std::move(host->host_mount);
  } else {
    platform = facts::collect_platform(*root, copts);
  }

  std::optional<probes::CudaSection> cuda;
  if (live) {
    probes::CudaOptions o;
    o.run_probes = a.cuda;
    o.only = a.only;
    o.memory_fraction = a.memory_fraction;
    o.memory_max_bytes = static_cast<std::size_t>(a.memory_max_gib * 1024.0 * 1024.0 * 1024.0);
    o.probe_timeout = std::chrono::milliseconds(static_cast<long>(a.probe_timeout_s * 1000));
    if (a.cuda && progress_wanted(a.quiet)) o.progress = stderr_progress();
    o.decode = a.decode_options;
    // The nvhost_ctrl probe's expectations: the data/gpu-stack.json row of these facts.
    if (const auto* stack = facts::select_gpu_stack(platform.platform)) {
      o.nvhost.stack_name = stack->name;
      o.nvhost.node_in_stack = stack->nvhost_ctrl_part;
      o.nvhost.stack_source = stack->source;
    }
    cuda = probes::collect_cuda(o);
    if (auto note = facts::container_driver_note(platform.platform, cuda->gpu))
      cuda->notes.push_back(*note);
    evidence::join_gpu_facts(*cuda, platform.platform);
  }
  std::optional<probes::PythonRuntime> python;
  if (a.python_runtime) {
    probes::PythonOptions o;
    if (!a.python.empty()) o.python = a.python;
    o.timeout = std::chrono::milliseconds(static_cast<long>(a.python_timeout_s * 1000));
    if (progress_wanted(a.quiet)) o.progress = stderr_progress();
    o.bitsandbytes = true;
    python = probes::probe_python_runtime(o);
  }

  evidence::ProbeDocumentInput in;
  in.root = platform.root;  // the --root path, made valid UTF-8 by the facts
  in.live = live;
  in.host_mount = host_mount;
  in.platform = &platform;
  in.cuda = cuda ? &*cuda : nullptr;
  in.python = python ? &*python : nullptr;
  if (live) in.generated_at = evidence::utc_now_iso8601();
  auto doc = evidence::build_probe_document(in);

  std::cerr << report::render_warnings_text(doc["warnings"]);
  if (a.json) {
    std::cout << dump_json(doc, 2) << "\n";
  } else {
    std::cout << report::render_platform_text(record::read(doc, record::Keep::known));
    if (cuda) std::cout << report::render_cuda_text(*cuda);
    if (python) std::cout << report::render_python_text(*python);
  }
  std::vector<probes::ProbeResult> ran;
  if (cuda) ran = cuda->probes;
  if (python) ran.push_back(python->result);
  if (python && python->bitsandbytes) ran.push_back(*python->bitsandbytes);
  auto suite = report::probe_junit(ran);
  annotate(suite, {}, a.json);
  if (!write_junit("probe", a.junit, suite)) return kExitUsage;
  if (!write_prometheus("probe", a.prometheus, doc, a.node)) return kExitUsage;
  if (!write_nfd_features("probe", a.nfd_features, doc, a.nfd_expiry_hours)) return kExitUsage;
  auto not_held = unmet(a, in.cuda, in.python);
  for (const auto& line : not_held) std::cerr << "jetgate probe: does not hold: " << line << "\n";
  return not_held.empty() ? kExitOk : kExitDoesNotHold;
}

}  // namespace

Command add_probe_command(CLI::App& app) {
  auto args = std::make_shared<ProbeArgs>();
  auto* sub = app.add_subcommand(
      "probe",
      "Report the platform facts (hardware, L4T/JetPack, libraries, GPU driver stack) and, on the "
      "live machine, the CUDA driver and devices; --cuda also runs the GPU probes");
  auto* root_opt = sub->add_option("--root", args->root,
                                   "Read every file under DIR instead of / (a recorded machine; "
                                   "see scripts/jetgate-record-root.sh)")
                       ->type_name("DIR");
  sub->add_option("--host-root", args->host_root,
                  "In a pod or container: read the live host's /etc, /proc, /sys and /lib/modules "
                  "where they are mounted read-only, at DIR (node_exporter's --path.rootfs), "
                  "while CUDA runs here with the devices and libraries the container has; the "
                  "facts are live (/host_mount records the mount and $JETGATE_IMAGE). Refused: a "
                  "recording (use --root), a DIR/proc that is not a procfs (docs/probes.md)")
      ->type_name("DIR")
      ->excludes(root_opt);
  sub->add_flag("--json", args->json, "Print one JSON document (docs/evidence-schema.md)");
  sub->add_flag("--list", args->list,
                "List the probes and the metrics each reports (unit, which way is better): "
                "what a policy's thresholds may name; with --json, as JSON");
  sub->add_flag("--show-serial", args->show_serial, "Include serial numbers and the hostname");
  sub->add_flag("--cuda", args->cuda,
                "Run the GPU probes: launch, memory, bandwidth, sync_path (docs/probes.md)");
  sub->add_option("--probe", args->only, "Run only this GPU probe (repeatable); implies --cuda")
      ->type_name("ID")
      ->check(CLI::IsMember(probes::registered_probe_ids(probes::ProbeKind::cuda)));
  sub->add_flag("--decode", args->decode,
                "Run the decode probe: batch-1 LLM token generation with a real model's shapes "
                "and seeded random weights, once per sync mode (docs/probes.md)");
  sub->add_option("--model", args->decode_options.model, "Model preset for --decode")
      ->check(CLI::IsMember(decode_model_names()))
      ->capture_default_str();
  sub->add_option("--dtype", args->decode_options.dtype, "Weight type for --decode")
      ->check(CLI::IsMember({"fp16", "bf16"}))
      ->capture_default_str();
  sub->add_option("--tokens", args->decode_options.tokens,
                  "Timed tokens per sync mode for --decode (after 16 untimed ones)")
      ->check(plain_number() & CLI::Range(1u, 4000u))
      ->capture_default_str();
  sub->add_option("--memory-fraction", args->memory_fraction,
                  "Share of free GPU memory the memory probe writes and verifies")
      ->check(plain_number() & CLI::Range(0.001, 0.9))
      ->capture_default_str();
  sub->add_option("--memory-max-gib", args->memory_max_gib,
                  "Upper bound of what the memory probe writes, so it stays fast on large GPUs")
      ->check(plain_number() & CLI::Range(0.001, 4096.0))
      ->capture_default_str();
  sub->add_option("--probe-timeout", args->probe_timeout_s,
                  "Seconds before a probe's child process is stopped (SIGTERM, then SIGKILL)")
      ->check(plain_number() & CLI::Range(1.0, 3600.0))
      ->capture_default_str();
  sub->add_flag("--ml", args->python_runtime,
                "Run the Python ML runtime probes (python_runtime, bitsandbytes) with python3");
  sub->add_option("--python", args->python,
                  "Python interpreter for the ML runtime facts; implies --ml")
      ->type_name("PATH");
  sub->add_option("--python-timeout", args->python_timeout_s,
                  "Seconds before the Python child is stopped")
      ->check(plain_number() & CLI::Range(1.0, 3600.0))
      ->capture_default_str();
  sub->footer(
      "Exit status: 0 the report was written and every probe asked for (--cuda, --probe, --decode, "
      "--ml) is PASS or WARN;\n"
      "1 a probe asked for is FAIL, SKIP or NOT_RUN, or could not run (no driver, no device, a "
      "driver that\n"
      "crashed or hung, a build without GPU kernels); 2 usage or unusable input (e.g. --cuda with "
      "--root).\n"
      "Without probe flags `probe` is a report and exits 0.");
  sub->add_option("--junit", args->junit, "Also write a JUnit XML report: a test case per probe")
      ->type_name("FILE");
  sub->add_option("--prometheus", args->prometheus,
                  "Also write the results as a node_exporter textfile-collector file (FILE.prom in "
                  "the collector's directory), atomically (docs/metrics.md)")
      ->type_name("FILE");
  sub->add_option("--node", args->node,
                  "The node the --prometheus file speaks for (its node label, as `run --node` "
                  "records it); default: the host name. Required with --root: a recording is "
                  "not this host")
      ->type_name("NAME");
  add_nfd_features_options(sub, args->nfd_features, args->nfd_expiry_hours);
  add_cdi_dir_option(sub, args->cdi_dirs);
  sub->add_flag("--quiet", args->quiet,
                "No progress lines on stderr (shown when stderr is a terminal or CI is set)");
  return {sub, [args] {
            ProbeArgs a = *args;
            add_decode_probe(a);
            if (!a.only.empty()) a.cuda = true;
            if (!a.python.empty()) a.python_runtime = true;
            return run_probe(a);
          }};
}

}  // namespace jetgate::cli
