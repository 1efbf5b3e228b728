// SPDX-License-Identifier: Apache-2.0
#include "jetgate/cuda/device_facts.hpp"

#include <fmt/format.h>

#include <array>

#include "jetgate/core/document_keys.hpp"
#include "jetgate/cuda/context.hpp"
#include "jetgate/proc/open_files.hpp"

namespace jetgate::cuda {

double theoretical_bandwidth_gbps(long long memory_clock_khz, long long bus_width_bits) {
  if (memory_clock_khz <= 0 || bus_width_bits <= 0) return 0;
  return 2.0 * static_cast<double>(memory_clock_khz) * 1e3 *
         (static_cast<double>(bus_width_bits) / 8.0) / 1e9;
}

namespace {

// A documented key inside the object that lands at /gpu.
keys::Pointer in_gpu(const keys::Pointer& key) {
  return keys::relative(key, keys::kGpu);
}

// /gpu before the driver is asked anything: the device count unknown, not zero.
nlohmann::json gpu_json(bool loaded, nlohmann::json library, nlohmann::json error) {
  nlohmann::json gpu = nlohmann::json::object();
  gpu[in_gpu(keys::kDriverLoaded)] = loaded;
  gpu[in_gpu(keys::kDriverLibrary)] = std::move(library);
  gpu[in_gpu(keys::kDriverVersion)] = nullptr;
  gpu[in_gpu(keys::kDriverError)] = std::move(error);
  gpu[in_gpu(keys::kDeviceCount)] = nullptr;
  gpu[in_gpu(keys::kDevices)] = nlohmann::json::array();
  return gpu;
}

}  // namespace

nlohmann::json gpu_facts_without_driver(const std::string& reason) {
  return gpu_json(false, nullptr, reason);
}

namespace {

// Attributes that fail to read are recorded as null plus an error line.
struct AttributeReader {
  const Driver& driver;
  CUdevice dev;
  std::vector<std::string>& errors;
  nlohmann::json read(CUdeviceAttribute attr, const char* what) {
    int v = 0;
    CUresult rc = driver.api().device_get_attribute(&v, attr, dev);
    if (rc == kCudaSuccess) return v;
    errors.push_back(fmt::format("cuDeviceGetAttribute({}): {}", what, driver.describe(rc)));
    return nullptr;
  }
};

void add_memory_info(const Driver& driver, CUdevice dev, nlohmann::json& d,
                     std::vector<std::string>& errors) {
  // Free memory needs a context; it is created and destroyed here so the
  // probes' own contexts start from a clean device.
  CUcontext ctx = nullptr;
  CUresult rc = driver.api().ctx_create(&ctx, kCtxSchedAuto, dev);
  if (rc != kCudaSuccess) {
    errors.push_back(fmt::format("cuCtxCreate: {}", driver.describe(rc)));
    d["free_memory_bytes"] = nullptr;
    d["open_device_nodes"] = proc::open_device_nodes();
    return;
  }
  // With the context current: the device nodes the driver opened for it.
  d["open_device_nodes"] = proc::open_device_nodes();
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  rc = driver.api().mem_get_info(&free_bytes, &total_bytes);
  if (rc == kCudaSuccess)
    d["free_memory_bytes"] = free_bytes;
  else
    errors.push_back(fmt::format("cuMemGetInfo: {}", driver.describe(rc)));
  driver.api().ctx_destroy(ctx);
}

nlohmann::json device_facts(const Driver& driver, int ordinal) {
  nlohmann::json d = {{"index", ordinal}};
  std::vector<std::string> errors;
  CUdevice dev = 0;
  CUresult rc = driver.api().device_get(&dev, ordinal);
  if (rc != kCudaSuccess) {
    d["error"] = fmt::format("cuDeviceGet: {}", driver.describe(rc));
    return d;
  }
  std::array<char, 256> name{};
  rc = driver.api().device_get_name(name.data(), static_cast<int>(name.size() - 1), dev);
  d[keys::kDeviceName] = rc == kCudaSuccess ? nlohmann::json(std::string(name.data())) : nullptr;
  AttributeReader attr{driver, dev, errors};
  auto major = attr.read(kAttrComputeCapabilityMajor, "compute capability major");
  auto minor = attr.read(kAttrComputeCapabilityMinor, "compute capability minor");
  d[keys::kDeviceCapability] =
      major.is_number() && minor.is_number()
          ? nlohmann::json(fmt::format("{}.{}", major.get<int>(), minor.get<int>()))
          : nullptr;
  d["sm_count"] = attr.read(kAttrMultiprocessorCount, "SM count");
  auto integrated = attr.read(kAttrIntegrated, "integrated");
  d["integrated"] = integrated.is_number() ? nlohmann::json(integrated.get<int>() != 0) : nullptr;
  d["memory_clock_khz"] = attr.read(kAttrMemoryClockRateKhz, "memory clock");
  d["memory_bus_width_bits"] = attr.read(kAttrGlobalMemoryBusWidthBits, "memory bus width");
  d["l2_cache_bytes"] = attr.read(kAttrL2CacheSizeBytes, "L2 cache size");
  d["clock_khz"] = attr.read(kAttrClockRateKhz, "SM clock");
  auto domain = attr.read(kAttrPciDomainId, "PCI domain");
  auto bus = attr.read(kAttrPciBusId, "PCI bus");
  auto slot = attr.read(kAttrPciDeviceId, "PCI device");
  if (domain.is_number() && bus.is_number() && slot.is_number())
    d["pci_bus_id"] =
        fmt::format("{:04x}:{:02x}:{:02x}.0", domain.get<int>(), bus.get<int>(), slot.get<int>());
  const long long clock =
      d["memory_clock_khz"].is_number() ? d["memory_clock_khz"].get<long long>() : 0;
  const long long width =
      d["memory_bus_width_bits"].is_number() ? d["memory_bus_width_bits"].get<long long>() : 0;
  const double peak = theoretical_bandwidth_gbps(clock, width);
  d["theoretical_bandwidth_gbps"] = peak > 0 ? nlohmann::json(peak) : nullptr;
  std::size_t total = 0;
  rc = driver.api().device_total_mem(&total, dev);
  if (rc == kCudaSuccess)
    d[keys::kDeviceMemoryBytes] = total;
  else
    errors.push_back(fmt::format("cuDeviceTotalMem: {}", driver.describe(rc)));
  add_memory_info(driver, dev, d, errors);
  if (!errors.empty()) d["errors"] = errors;
  return d;
}

}  // namespace

nlohmann::json collect_gpu_facts(const Driver& driver) {
  nlohmann::json gpu = gpu_json(true, driver.library(), nullptr);
  int version = 0;
  if (driver.api().driver_get_version(&version) == kCudaSuccess && version > 0)
    gpu[in_gpu(keys::kDriverVersion)] = format_cuda_version(version);
  if (CUresult init_rc = driver.api().init(0); init_rc != kCudaSuccess) {
    gpu[in_gpu(keys::kDriverError)] = driver.error("cuInit", init_rc).message();
    // The driver counted and found none; any other failure leaves it unknown.
    if (init_rc == kCudaErrorNoDevice) gpu[in_gpu(keys::kDeviceCount)] = 0;
    return gpu;
  }
  int count = 0;
  CUresult rc = driver.api().device_get_count(&count);
  if (rc != kCudaSuccess) {
    gpu[in_gpu(keys::kDriverError)] = driver.error("cuDeviceGetCount", rc).message();
    return gpu;
  }
  gpu[in_gpu(keys::kDeviceCount)] = count;
  auto& devices = gpu[in_gpu(keys::kDevices)];
  for (int i = 0; i < count; ++i) devices.push_back(device_facts(driver, i));
  return gpu;
}

}  // namespace jetgate::cuda
