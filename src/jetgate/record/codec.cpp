// SPDX-License-Identifier: Apache-2.0
#include "jetgate/record/codec.hpp"

#include <limits>

#include "jetgate/core/document_keys.hpp"
#include "jetgate/core/json_text.hpp"

namespace jetgate::record {

std::string L4tRelease::text() const {
  return known() ? *version : std::string(kUnknown);
}

namespace {

using nlohmann::json;

// The key table as spelled (core/document_keys.hpp), for the walk that builds
// no pointer object: a fleet's evidence is read by the hundred thousand.
namespace at {
#define JETGATE_SPELL_KEY(name, pointer) constexpr const char* name = pointer;
JETGATE_DOCUMENT_KEYS(JETGATE_SPELL_KEY)
#undef JETGATE_SPELL_KEY
// Inside one entry of /gpu/devices.
constexpr const char* kDeviceName = "/name";
constexpr const char* kDeviceMemoryBytes = "/total_memory_bytes";
constexpr const char* kDeviceCapability = "/compute_capability";
// Inside one probe result, /probes/ID (docs/evidence-schema.md).
constexpr const char* kProbeStatus = "/status";
constexpr const char* kProbeReason = "/reason";
constexpr const char* kProbeDurationMs = "/duration_ms";
constexpr const char* kProbeValues = "/values";
constexpr const char* kProbeModes = "/details/modes";
// Below members the key table describes as a whole.
constexpr const char* kPowerSection = "/platform/power";
constexpr const char* kTegraEepromPartNumber = "/platform/tegra/eeprom/part_number";
constexpr const char* kTegraDriverStackName = "/platform/tegra/driver/stack/name";
constexpr const char* kTegraDriverStackNvhostCtrl = "/platform/tegra/driver/stack/nvhost_ctrl";
constexpr const char* kContainerCheckStatus = "/platform/container/l4t_check/status";
constexpr const char* kContainerCheckImageL4t = "/platform/container/l4t_check/image_l4t";
constexpr const char* kContainerCheckImageCuda = "/platform/container/l4t_check/image_cuda";
constexpr const char* kContainerCheckHostL4t = "/platform/container/l4t_check/host_l4t";
constexpr const char* kContainerCheckHostKernel = "/platform/container/l4t_check/host_kernel";
constexpr const char* kContainerCheckDriverCuda = "/platform/container/l4t_check/driver_cuda";
constexpr const char* kContainerCheckProblems = "/platform/container/l4t_check/problems";
constexpr const char* kContainerCheckFix = "/platform/container/l4t_check/fix";
// Inside one entry of the driver stack's lists.
constexpr const char* kName = "/name";
constexpr const char* kPath = "/path";
constexpr const char* kType = "/type";
constexpr const char* kModeBits = "/mode";
constexpr const char* kPresent = "/present";
constexpr const char* kProvides = "/provides";
constexpr const char* kOwner = "/owner";
constexpr const char* kGroup = "/group";
constexpr const char* kPermissions = "/permissions";
constexpr const char* kOpenable = "/openable";
constexpr const char* kOpenError = "/open_error";
constexpr const char* kUid = "/uid";
constexpr const char* kGid = "/gid";
constexpr const char* kMajor = "/major";
constexpr const char* kMinor = "/minor";
constexpr const char* kError = "/error";
constexpr const char* kHostPath = "/host_path";
constexpr const char* kDeviceNodes = "/device_nodes";
// Inside one row of /checks.
constexpr const char* kCheckKind = "/kind";
constexpr const char* kCheckName = "/name";
constexpr const char* kCheckStatus = "/status";
constexpr const char* kCheckDetail = "/detail";
constexpr const char* kCheckNext = "/next";
// Inside one metric, /probes/ID/values/NAME, and one mode of /details/modes.
constexpr const char* kValue = "/value";
constexpr const char* kUnit = "/unit";
constexpr const char* kMode = "/mode";
constexpr const char* kWait = "/wait";
}  // namespace at

// Every typed member of the Record beside the pointer it is read from and
// written to: the one table both directions walk.
template <class R, class V>
void each_field(R& r, V&& v) {
  auto& h = r.head;
  v(at::kSchemaVersion, h.schema_version);
  v(at::kJetgateVersion, h.jetgate_version);
  v(at::kJetgateCommitId, h.jetgate_commit_id);
  v(at::kGeneratedAt, h.generated_at);
  v(at::kFactsSource, h.facts_source);
  v(at::kRoot, h.root);
  v(at::kGate, h.gate);
  v(at::kStatus, h.status);
  v(at::kReason, h.reason);
  v(at::kGitSha, h.git_sha);
  v(at::kExitCode, h.exit_code);
  v(at::kLaneNode, h.lane_node);
  v(at::kLaneKind, h.lane_kind);
  v(at::kGateDefinitionSha256, h.gate_definition_sha256);
  v(at::kGateDefinitionPolicy, h.gate_definition_policy);
  v(at::kDirty, h.dirty);
  v(at::kGitProblem, h.git_problem);
  auto& p = r.platform;
  v(at::kArch, p.arch);
  v(at::kKernelRelease, p.kernel_release);
  v(at::kOsId, p.os_id);
  v(at::kOsVersionId, p.os_version_id);
  v(at::kOsPrettyName, p.os_pretty_name);
  v(at::kHostname, p.hostname);
  v(at::kMemoryTotalBytes, p.memory_total_bytes);
  v(at::kContainerDetected, p.container_detected);
  v(at::kContainerSign, p.container_sign);
  v(at::kCudaToolkitVersion, p.cuda_toolkit_version);
  v(at::kNvidiaDriverVersion, p.nvidia_driver_version);
  auto& t = p.tegra;
  v(at::kIsTegra, t.is_tegra);
  v(at::kL4t, t.l4t.version);
  v(at::kTegraL4tSource, t.l4t.source);
  v(at::kJetpack, t.jetpack);
  v(at::kTegraJetpackCandidates, t.jetpack_candidates);
  v(at::kTegraJetpackVersions, t.jetpack_versions);
  v(at::kTegraJetpackAmbiguous, t.jetpack_ambiguous);
  v(at::kBoardModel, t.model);
  v(at::kModule, t.module);
  v(at::kPartNumber, t.part_number);
  v(at::kSoc, t.soc);
  v(at::kTegraPartNumberSource, t.part_number_source);
  v(at::kTegraEepromPartNumber, t.eeprom_part_number);
  v(at::kTegraCarrier, t.carrier);
  v(at::kTegraCarrierName, t.carrier_name);
  v(at::kTegraCudaArch, t.cuda_arch);
  v(at::kTegraModuleVariant, t.module_variant);
  v(at::kTegraSerialNumber, t.serial_number);
  v(at::kTegraModuleMemoryGb, t.module_memory_gb);
  auto& d = t.driver;
  v(at::kTegraDriverStackName, d.stack_name);
  v(at::kTegraDriverStackNvhostCtrl, d.stack_nvhost_ctrl);
  v(at::kTegraDriverNodeAccessUid, d.node_access.uid);
  v(at::kTegraDriverNodeAccessGid, d.node_access.gid);
  v(at::kTegraDriverNodeAccessGroups, d.node_access.groups);
  v(at::kPowerNvpmodelModeName, p.nvpmodel.mode_name);
  v(at::kPowerNvpmodelModeId, p.nvpmodel.mode_id);
  v(at::kPowerNvpmodelFastestModeName, p.nvpmodel.fastest_mode_name);
  v(at::kPowerNvpmodelFastestModeId, p.nvpmodel.fastest_mode_id);
  auto& w = p.power;
  v(at::kPowerJetsonClocksInEffect, w.jetson_clocks_in_effect);
  v(at::kPowerJetsonClocksEvidence, w.jetson_clocks_evidence);
  v(at::kPowerGpuCurHz, w.gpu.cur_hz);
  v(at::kPowerGpuMinHz, w.gpu.min_hz);
  v(at::kPowerGpuMaxHz, w.gpu.max_hz);
  v(at::kPowerGpuAvailableMaxHz, w.gpu.available_max_hz);
  v(at::kPowerEmcCurHz, w.emc.cur_hz);
  v(at::kPowerEmcMinHz, w.emc.min_hz);
  v(at::kPowerEmcMaxHz, w.emc.max_hz);
  v(at::kPowerEmcCapHz, w.emc.cap_hz);
  auto& c = p.container_check;
  v(at::kContainerCheckStatus, c.status);
  v(at::kContainerCheckImageL4t, c.image_l4t);
  v(at::kContainerCheckImageCuda, c.image_cuda);
  v(at::kContainerCheckHostL4t, c.host_l4t);
  v(at::kContainerCheckHostKernel, c.host_kernel);
  v(at::kContainerCheckDriverCuda, c.driver_cuda);
  v(at::kContainerCheckProblems, c.problems);
  v(at::kContainerCheckFix, c.fix);
  auto& l = p.libraries;
  v(at::kLibrariesCudnn, l.cudnn);
  v(at::kLibrariesTensorrt, l.tensorrt);
  v(at::kLibrariesVpi, l.vpi);
  v(at::kLibrariesOpencv, l.opencv);
  v(at::kLibrariesOpencvCuda, l.opencv_cuda);
  v(at::kLibrariesVulkan, l.vulkan);
  auto& g = r.gpu;
  v(at::kDriverLoaded, g.driver_loaded);
  v(at::kDriverVersion, g.driver_version);
  v(at::kDriverError, g.driver_error);
  v(at::kDeviceCount, g.device_count);
  auto& y = r.python;
  v(at::kTorchVersion, y.torch_version);
  v(at::kTorchCudaVersion, y.torch_cuda_version);
  v(at::kTorchCudaAvailable, y.torch_cuda_available);
  v(at::kBitsandbytesVersion, y.bitsandbytes_version);
}

template <class D, class V>
void each_device_field(D& d, V&& v) {
  v(at::kDeviceName, d.name);
  v(at::kDeviceCapability, d.compute_capability);
  v(at::kDeviceMemoryBytes, d.total_memory_bytes);
}

template <class P, class V>
void each_probe_field(P& p, V&& v) {
  v(at::kProbeStatus, p.status);
  v(at::kProbeReason, p.reason);
  v(at::kProbeDurationMs, p.duration_ms);
}

template <class C, class V>
void each_check_field(C& c, V&& v) {
  v(at::kCheckKind, c.kind);
  v(at::kCheckName, c.name);
  v(at::kCheckStatus, c.status);
  v(at::kCheckDetail, c.detail);
  v(at::kCheckNext, c.next);
}

template <class M, class V>
void each_module_field(M& m, V&& v) {
  v(at::kName, m.name);
}

template <class N, class V>
void each_device_node_field(N& n, V&& v) {
  v(at::kPath, n.path);
  v(at::kType, n.type);
  v(at::kModeBits, n.mode);
  v(at::kPresent, n.present);
}

template <class N, class V>
void each_node_access_field(N& n, V&& v) {
  v(at::kPath, n.path);
  v(at::kProvides, n.provides);
  v(at::kOwner, n.owner);
  v(at::kGroup, n.group);
  v(at::kModeBits, n.mode);
  v(at::kPermissions, n.permissions);
  v(at::kOpenError, n.open_error);
  v(at::kPresent, n.present);
  v(at::kOpenable, n.openable);
  v(at::kUid, n.uid);
  v(at::kGid, n.gid);
  v(at::kMajor, n.major);
  v(at::kMinor, n.minor);
}

template <class N, class V>
void each_cdi_node_field(N& n, V&& v) {
  v(at::kHostPath, n.host_path);
  v(at::kPresent, n.present);
}

template <class S, class V>
void each_cdi_spec_field(S& spec, V&& v) {
  v(at::kPath, spec.path);
  v(at::kError, spec.error);
}

template <class D, class V>
void each_cdi_dir_field(D& d, V&& v) {
  v(at::kPath, d.path);
}

// --- reading -----------------------------------------------------------------

std::optional<std::string> as(const json& v, const std::string*) {
  if (!v.is_string()) return std::nullopt;
  return v.get<std::string>();
}
std::optional<bool> as(const json& v, const bool*) {
  if (!v.is_boolean()) return std::nullopt;
  return v.get<bool>();
}
std::optional<std::int64_t> as(const json& v, const std::int64_t*) {
  return integer_in_range(v, std::numeric_limits<std::int64_t>::min(),
                          std::numeric_limits<std::int64_t>::max());
}
std::optional<Number> as(const json& v, const Number*) {
  if (!v.is_number()) return std::nullopt;
  Number n;
  if (v.is_number_integer()) {
    n.integer = integer_in_range(v, std::numeric_limits<std::int64_t>::min(),
                                 std::numeric_limits<std::int64_t>::max());
    if (!n.integer) return std::nullopt;  // beyond 64 bits: kept as it came
    n.value = static_cast<double>(*n.integer);
  } else {
    n.value = v.get<double>();
  }
  return n;
}
std::optional<std::vector<std::string>> as(const json& v, const std::vector<std::string>*) {
  if (!v.is_array()) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& s : v) {
    if (!s.is_string()) return std::nullopt;
    out.push_back(s.get<std::string>());
  }
  return out;
}

std::optional<std::vector<std::int64_t>> as(const json& v, const std::vector<std::int64_t>*) {
  if (!v.is_array()) return std::nullopt;
  std::vector<std::int64_t> out;
  for (const auto& i : v) {
    auto n = as(i, static_cast<const std::int64_t*>(nullptr));
    if (!n) return std::nullopt;
    out.push_back(*n);
  }
  return out;
}

// Removes the member at `pointer` (inside `in`) from its parent object.
void erase_at(json& in, const char* pointer) {
  json::json_pointer p(pointer);
  const auto parent = p.parent_pointer();
  const auto* holder = keys::find(in, parent);
  if (!holder || !holder->is_object()) return;
  in.at(parent).erase(p.back());
}

// Fills typed members from `doc`; takes each one it read out of `rest` (when kept).
struct Taker {
  const json& doc;
  json* rest;  // the same document's copy, or nullptr
  template <class T>
  void operator()(const char* pointer, std::optional<T>& field) const {
    const json* v = keys::find(doc, pointer);
    if (!v) return;
    field = as(*v, static_cast<const T*>(nullptr));
    if (field && rest) erase_at(*rest, pointer);
  }
};

// Reads from the /platform and /gpu objects handed in on their own: a pointer
// below either is looked up inside it, any other is not there.
struct SectionTaker {
  const json* platform;
  const json* gpu;
  template <class T>
  void operator()(const char* pointer, std::optional<T>& field) const {
    const std::string_view p(pointer);
    auto below = [&](std::string_view section) {
      return p.size() > section.size() && p.compare(0, section.size(), section) == 0 &&
             p[section.size()] == '/';
    };
    if (platform && below(at::kPlatform))
      Taker{*platform, nullptr}(pointer + std::string_view(at::kPlatform).size(), field);
    else if (gpu && below(at::kGpu))
      Taker{*gpu, nullptr}(pointer + std::string_view(at::kGpu).size(), field);
  }
};

// The array at `pointer`: one T per entry, in order, each read by `fields`.
template <class T, class Fields>
void read_each(const json& doc, const char* pointer, json* rest, std::vector<T>& out,
               Fields fields) {
  const json* list = keys::find(doc, pointer);
  if (!list || !list->is_array()) return;
  json* kept = rest ? &rest->at(json::json_pointer(pointer)) : nullptr;
  for (std::size_t i = 0; i < list->size(); ++i) {
    T item;
    fields(item, Taker{(*list)[i], kept ? &(*kept)[i] : nullptr});
    out.push_back(std::move(item));
  }
}

void read_devices(const json& doc, const char* pointer, json* rest, Gpu& gpu) {
  read_each(doc, pointer, rest, gpu.devices,
            [](Device& d, const Taker& take) { each_device_field(d, take); });
}

// Whether the member at `pointer` is there, null included.
bool recorded(const json& doc, const char* pointer) {
  try {
    return doc.contains(json::json_pointer(pointer));
  } catch (const json::exception&) {
    return false;
  }
}

bool is_object_at(const json& doc, const char* pointer) {
  const json* v = keys::find(doc, pointer);
  return v && v->is_object();
}

void read_driver(const json& doc, json* rest, DriverStack& d) {
  d.recorded = is_object_at(doc, at::kTegraDriver);
  read_each(doc, at::kTegraDriverModules, rest, d.modules,
            [](DriverModule& m, const Taker& take) { each_module_field(m, take); });
  read_each(doc, at::kTegraDriverDeviceNodes, rest, d.device_nodes,
            [](DeviceNode& n, const Taker& take) { each_device_node_field(n, take); });
  read_each(doc, at::kTegraDriverNodeAccessNodes, rest, d.node_access.nodes,
            [](NodeAccessEntry& n, const Taker& take) { each_node_access_field(n, take); });
  if (const json* cdi = keys::find(doc, at::kTegraDriverCdi); cdi && cdi->is_array()) {
    d.cdi.emplace();
    read_each(doc, at::kTegraDriverCdi, rest, *d.cdi, [](CdiSpec& spec, const Taker& take) {
      each_cdi_spec_field(spec, take);
      read_each(take.doc, at::kDeviceNodes, take.rest, spec.device_nodes,
                [](CdiNode& n, const Taker& inner) { each_cdi_node_field(n, inner); });
    });
  }
  read_each(doc, at::kTegraDriverCdiDirs, rest, d.cdi_dirs,
            [](CdiDir& dir, const Taker& take) { each_cdi_dir_field(dir, take); });
}

void read_probe(const json& p, json* rest, Probe& out) {
  each_probe_field(out, Taker{p, rest});
  if (const json* values = keys::find(p, at::kProbeValues); values && values->is_object())
    for (const auto& [metric, m] : values->items()) {
      const json* value = keys::find(m, at::kValue);
      const json* unit = keys::find(m, at::kUnit);
      auto number = value ? as(*value, static_cast<const Number*>(nullptr)) : std::nullopt;
      if (!number || !unit || !unit->is_string()) continue;
      out.values[metric] = Measured{*number, unit->get<std::string>()};
      if (rest) {
        json& kept = rest->at(json::json_pointer(at::kProbeValues))[metric];
        erase_at(kept, at::kValue);
        erase_at(kept, at::kUnit);
      }
    }
  read_each(p, at::kProbeModes, rest, out.waits, [](Wait& w, const Taker& take) {
    take(at::kMode, w.mode);
    take(at::kWait, w.wait);
  });
}

// --- writing -----------------------------------------------------------------

json to_value(const std::string& s) {
  return s;
}
json to_value(bool b) {
  return b;
}
json to_value(std::int64_t i) {
  return i;
}
json to_value(const Number& n) {
  return n.integer ? json(*n.integer) : json(n.value);
}
json to_value(const std::vector<std::string>& list) {
  return list;
}
json to_value(const std::vector<std::int64_t>& list) {
  return list;
}

struct Putter {
  json& out;
  template <class T>
  void operator()(const char* pointer, const std::optional<T>& field) const {
    if (field) out[json::json_pointer(pointer)] = to_value(*field);
  }
};

// Writes each item into the array at `pointer` (made when missing), entry by entry.
template <class T, class Fields>
void write_each(json& out, const char* pointer, const std::vector<T>& items, Fields fields) {
  if (items.empty()) return;
  json& list = out[json::json_pointer(pointer)];
  if (!list.is_array()) list = json::array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (list.size() <= i) list.push_back(json::object());
    if (list[i].is_object()) fields(items[i], Putter{list[i]});
  }
}

json& object_at(json& parent, const char* pointer) {
  json& slot = parent[json::json_pointer(pointer)];
  if (!slot.is_object() && !slot.is_array()) slot = json::object();
  return slot;
}

}  // namespace

Record read(const json& doc, Keep keep) {
  Record r;
  if (!doc.is_object()) return r;
  if (keep == Keep::unknown) r.rest = doc;
  json* rest = keep == Keep::unknown ? &r.rest : nullptr;
  each_field(r, Taker{doc, rest});
  const json* platform = keys::find(doc, at::kPlatform);
  r.has_platform = platform && platform->is_object();
  const json* gpu = keys::find(doc, at::kGpu);
  r.has_gpu = gpu && gpu->is_object();
  read_devices(doc, at::kDevices, rest, r.gpu);
  auto& facts = r.platform;
  facts.hostname_recorded = recorded(doc, at::kHostname);
  facts.tegra.serial_number_recorded = recorded(doc, at::kTegraSerialNumber);
  facts.container_check.recorded = recorded(doc, at::kContainerL4tCheck);
  facts.nvpmodel.recorded = is_object_at(doc, at::kPowerNvpmodel);
  facts.power.recorded = is_object_at(doc, at::kPowerSection);
  read_driver(doc, rest, facts.tegra.driver);
  read_each(doc, at::kChecks, rest, r.checks,
            [](Check& c, const Taker& take) { each_check_field(c, take); });
  if (const json* probes = keys::find(doc, at::kProbes); probes && probes->is_object()) {
    json* kept = rest ? &rest->at(json::json_pointer(at::kProbes)) : nullptr;
    for (const auto& [id, p] : probes->items()) {
      if (!p.is_object()) continue;
      read_probe(p, kept ? &(*kept)[id] : nullptr, r.probes[id]);
    }
  }
  return r;
}

Record read_facts(const json* platform, const json* gpu) {
  Record r;
  if (platform && !platform->is_object()) platform = nullptr;
  if (gpu && !gpu->is_object()) gpu = nullptr;
  r.has_platform = platform != nullptr;
  r.has_gpu = gpu != nullptr;
  each_field(r, SectionTaker{platform, gpu});
  if (gpu) read_devices(*gpu, at::kDevices + std::string_view(at::kGpu).size(), nullptr, r.gpu);
  return r;
}

Record read_lane(const json& doc) {
  Record r;
  if (!doc.is_object()) return r;
  const Taker take{doc, nullptr};
  take(at::kLaneNode, r.head.lane_node);
  take(at::kLaneKind, r.head.lane_kind);
  take(at::kContainerDetected, r.platform.container_detected);
  return r;
}

Record read(std::string_view text, Keep keep) {
  auto doc = parse_json_text(text, "evidence");
  if (!doc) return Record{};
  return read(*doc, keep);
}

json to_json(const Record& r) {
  json out = r.rest.is_object() ? r.rest : json::object();
  each_field(r, Putter{out});
  write_each(out, at::kDevices, r.gpu.devices,
             [](const Device& d, const Putter& put) { each_device_field(d, put); });
  const auto& d = r.platform.tegra.driver;
  write_each(out, at::kTegraDriverModules, d.modules,
             [](const DriverModule& m, const Putter& put) { each_module_field(m, put); });
  write_each(out, at::kTegraDriverDeviceNodes, d.device_nodes,
             [](const DeviceNode& n, const Putter& put) { each_device_node_field(n, put); });
  write_each(out, at::kTegraDriverNodeAccessNodes, d.node_access.nodes,
             [](const NodeAccessEntry& n, const Putter& put) { each_node_access_field(n, put); });
  if (d.cdi)
    write_each(out, at::kTegraDriverCdi, *d.cdi, [](const CdiSpec& spec, const Putter& put) {
      each_cdi_spec_field(spec, put);
      write_each(put.out, at::kDeviceNodes, spec.device_nodes,
                 [](const CdiNode& n, const Putter& inner) { each_cdi_node_field(n, inner); });
    });
  write_each(out, at::kTegraDriverCdiDirs, d.cdi_dirs,
             [](const CdiDir& dir, const Putter& put) { each_cdi_dir_field(dir, put); });
  write_each(out, at::kChecks, r.checks,
             [](const Check& c, const Putter& put) { each_check_field(c, put); });
  if (!r.probes.empty()) {
    json& probes = object_at(out, at::kProbes);
    for (const auto& [id, p] : r.probes) {
      json& o = probes[id];
      if (!o.is_object()) o = json::object();
      each_probe_field(p, Putter{o});
      for (const auto& [metric, m] : p.values) {
        json& slot = object_at(o, at::kProbeValues)[metric];
        if (!slot.is_object()) slot = json::object();
        Putter{slot}(at::kValue, std::optional<Number>(m.value));
        Putter{slot}(at::kUnit, std::optional<std::string>(m.unit));
      }
      write_each(o, at::kProbeModes, p.waits, [](const Wait& w, const Putter& put) {
        put(at::kMode, w.mode);
        put(at::kWait, w.wait);
      });
    }
  }
  return out;
}

}  // namespace jetgate::record
