// SPDX-License-Identifier: Apache-2.0
// The evidence record: the probe document of `jetgate probe --json` and the
// evidence of `jetgate run` as one typed value. Readers (the reports, the
// claims, the requirements, the history store, `jetgate container`) take a
// Record instead of walking the JSON tree, so that what "missing" means is
// decided once: a member that is absent, null or of another type than the
// schema gives it is an empty optional here. The codec (record/codec.hpp) is
// the only code that turns a document into a Record and back; what it does not
// know (other tools' evidence, newer fields) stays in `rest` as it came, so a
// document survives the round trip byte for byte.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace jetgate::record {

// A number as the document wrote it: an integer stays an integer on the way back.
struct Number {
  double value = 0;
  std::optional<std::int64_t> integer;  // set when the document wrote an integer
};

// The release of L4T (Jetson Linux), read in one place: the version where one
// is known, and where it came from ("/etc/nv_tegra_release",
// "dpkg:nvidia-l4t-core", "kernel:/proc/sys/kernel/osrelease").
struct L4tRelease {
  std::optional<std::string> version;
  std::optional<std::string> source;
  // The version, or "unknown": the one spelling of an unknown release.
  std::string text() const;
  bool known() const { return version.has_value() && !version->empty(); }
};
inline constexpr const char* kUnknown = "unknown";

struct Head {
  std::optional<std::int64_t> schema_version;
  std::optional<std::string> jetgate_version, jetgate_commit_id, generated_at, facts_source, root;
  // The gate's fields (evidence of `jetgate run` only).
  std::optional<std::string> gate, status, reason, git_sha, lane_node, lane_kind,
      gate_definition_sha256, gate_definition_policy, git_problem;
  std::optional<std::int64_t> exit_code;
  std::optional<bool> dirty;
};

// /platform/tegra/driver: the GPU driver stack (docs/evidence-schema.md).
struct DriverModule {
  std::optional<std::string> name;
};
struct DeviceNode {  // one of device_nodes
  std::optional<std::string> path, type, mode;
  std::optional<bool> present;
};
struct NodeAccessEntry {  // one of node_access/nodes
  std::optional<std::string> path, provides, owner, group, mode, permissions, open_error;
  std::optional<bool> present, openable;
  std::optional<std::int64_t> uid, gid, major, minor;
};
struct NodeAccess {
  std::optional<std::int64_t> uid, gid;  // who opened the nodes (null in a recording)
  std::optional<std::vector<std::int64_t>> groups;
  std::vector<NodeAccessEntry> nodes;
};
struct CdiNode {
  std::optional<std::string> host_path;
  std::optional<bool> present;
};
struct CdiSpec {
  std::optional<std::string> path, error;
  std::vector<CdiNode> device_nodes;
};
struct CdiDir {
  std::optional<std::string> path;
};
struct DriverStack {
  bool recorded = false;  // /platform/tegra/driver is an object
  std::vector<DriverModule> modules;
  std::optional<std::string> stack_name, stack_nvhost_ctrl;
  std::vector<DeviceNode> device_nodes;
  NodeAccess node_access;
  std::optional<std::vector<CdiSpec>> cdi;  // set when /cdi is an array
  std::vector<CdiDir> cdi_dirs;
};

struct Tegra {
  std::optional<bool> is_tegra;
  L4tRelease l4t;
  std::optional<std::string> jetpack, model, module, part_number, soc;
  std::optional<std::vector<std::string>> jetpack_candidates, jetpack_versions;
  std::optional<bool> jetpack_ambiguous;
  std::optional<std::string> part_number_source, eeprom_part_number, carrier, carrier_name,
      cuda_arch, module_variant, serial_number;
  std::optional<std::int64_t> module_memory_gb;
  bool serial_number_recorded = false;  // the member is there (null: not readable)
  DriverStack driver;
};

struct Nvpmodel {
  bool recorded = false;  // /platform/power/nvpmodel is an object
  std::optional<std::string> mode_name, fastest_mode_name;
  std::optional<std::int64_t> mode_id, fastest_mode_id;
};

struct Clock {  // /platform/power/gpu and /platform/power/emc, in Hz
  std::optional<Number> cur_hz, min_hz, max_hz, available_max_hz, cap_hz;
};

struct Power {
  bool recorded = false;  // /platform/power is an object
  std::optional<bool> jetson_clocks_in_effect;
  std::optional<std::string> jetson_clocks_evidence;
  Clock gpu, emc;
};

// /platform/container/l4t_check: the image's L4T and CUDA against the host's.
struct ContainerCheck {
  bool recorded = false;  // the member is there
  std::optional<std::string> status, image_l4t, image_cuda, host_l4t, host_kernel, driver_cuda, fix;
  std::optional<std::vector<std::string>> problems;
};

struct Libraries {
  std::optional<std::string> cudnn, tensorrt, vpi, opencv, vulkan;
  std::optional<bool> opencv_cuda;
};

struct Platform {
  std::optional<std::string> arch, kernel_release, os_id, os_version_id, os_pretty_name, hostname;
  std::optional<std::int64_t> memory_total_bytes;
  bool hostname_recorded = false;  // the member is there (null: not readable)
  std::optional<bool> container_detected;
  std::optional<std::string> container_sign;
  ContainerCheck container_check;
  Tegra tegra;
  Nvpmodel nvpmodel;
  Power power;
  std::optional<std::string> cuda_toolkit_version, nvidia_driver_version;
  Libraries libraries;
};

struct Device {
  std::optional<std::string> name, compute_capability;
  std::optional<std::int64_t> total_memory_bytes;
};

struct Gpu {
  std::optional<bool> driver_loaded;
  std::optional<std::string> driver_version, driver_error;
  std::optional<std::int64_t> device_count;
  // One per entry of /gpu/devices, in its order (an entry that is not an
  // object is an empty Device, and stays as it came in Record::rest).
  std::vector<Device> devices;
};

struct Measured {
  Number value;
  std::string unit;  // as the probe wrote it ("GB/s", "us", ...)
};

// One entry of /details/modes (an entry without both strings has empty ones).
struct Wait {
  std::optional<std::string> mode;  // "spin", "yield", "blocking_sync"
  std::optional<std::string> wait;  // as the probe wrote it ("busy-polling", ...)
};

struct Probe {
  std::optional<std::string> status, reason;
  std::optional<Number> duration_ms;
  // /probes/ID/values: the metrics with a number and a unit, by name.
  std::map<std::string, Measured> values;
  // /probes/ID/details/modes: the sync path's wait per scheduling mode, one per
  // entry in the document's order.
  std::vector<Wait> waits;
};

// One row of /checks: what the gate checked (a requirement, a probe, the
// command, a test, the run itself). A row without a member has it empty.
struct Check {
  std::optional<std::string> kind, name, status, detail, next;
};

struct Python {
  std::optional<std::string> torch_version, torch_cuda_version, bitsandbytes_version;
  std::optional<bool> torch_cuda_available;
};

struct Record {
  Head head;
  Platform platform;
  bool has_platform = false;  // the document carries a /platform object
  Gpu gpu;
  bool has_gpu = false;  // the document carries a /gpu object
  // /probes, by id (the document's key order is this order too).
  std::map<std::string, Probe> probes;
  Python python;
  // /checks, one per entry in the document's order (evidence of `jetgate run`).
  std::vector<Check> checks;
  // What the codec does not know, as it came: to_json writes the known members
  // back into it. An object (empty when read without it).
  nlohmann::json rest = nlohmann::json::object();
};

}  // namespace jetgate::record
