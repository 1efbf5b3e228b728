// SPDX-License-Identifier: Apache-2.0
#include "jetgate/evidence/probe_document.hpp"

#include <ctime>

#include "jetgate/core/document_keys.hpp"
#include "jetgate/core/utf8.hpp"
#include "jetgate/core/version.hpp"
#include "jetgate/cuda/kernel_image.hpp"

namespace jetgate::evidence {

nlohmann::json jetgate_identity() {
  auto image = cuda::kernel_image();
  nlohmann::json archs = nlohmann::json::array();
  std::string list = image.archs;
  for (std::size_t start = 0; start < list.size();) {
    auto comma = list.find(',', start);
    archs.push_back("sm_" + list.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  auto commit = source_commit();
  // Written at the keys' own pointers, relative to /jetgate.
  nlohmann::json doc;
  nlohmann::json id = *commit.id != '\0' ? nlohmann::json(commit.id) : nlohmann::json(nullptr);
  doc[keys::kJetgateVersion] = version();
  doc[keys::kJetgateCommitId] = std::move(id);
  doc[keys::kJetgateCommitState] = to_string(commit.state);
  doc[keys::kJetgateKernelsToolkit] =
      image.present() ? nlohmann::json(image.toolkit_version) : nlohmann::json(nullptr);
  doc[keys::kJetgateKernelsArchs] = archs;
  return doc[keys::kJetgate];
}

std::string utc_now_iso8601() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

nlohmann::json host_mount_json(const std::string& dir, bool proc_is_procfs, bool sys_is_sysfs,
                               const std::optional<std::string>& image,
                               const std::string& image_source) {
  nlohmann::json j;
  auto at = [](const keys::Pointer& k) { return keys::relative(k, keys::kHostMount); };
  j[at(keys::kHostMountDir)] = to_valid_utf8(dir);
  j[at(keys::kHostMountImage)] = image ? nlohmann::json(to_valid_utf8(*image)) : nlohmann::json();
  j[at(keys::kHostMountImageSource)] =
      image ? nlohmann::json(image_source) : nlohmann::json(nullptr);
  j[at(keys::kHostMountProcIsProcfs)] = proc_is_procfs;
  j[at(keys::kHostMountSysIsSysfs)] = sys_is_sysfs;
  return j;
}

nlohmann::json facts_head(const std::string& root, bool live, const nlohmann::json& platform,
                          const nlohmann::json& host_mount) {
  nlohmann::json doc;
  doc[keys::kSchemaVersion] = kEvidenceSchemaVersion;
  doc[keys::kJetgate] = jetgate_identity();
  doc[keys::kFactsSource] = live ? "live" : "recorded";
  doc[keys::kRoot] = root;
  doc[keys::kHostMount] = host_mount;
  doc[keys::kPlatform] = platform;
  return doc;
}

nlohmann::json build_probe_document(const ProbeDocumentInput& in) {
  nlohmann::json doc = facts_head(in.root, in.live, in.platform->platform, in.host_mount);
  if (in.generated_at) doc[keys::kGeneratedAt] = *in.generated_at;
  nlohmann::json probes = nlohmann::json::object();
  if (in.cuda) {
    doc[keys::kGpu] = in.cuda->gpu;
    for (const auto& r : in.cuda->probes) probes[r.id] = probes::to_json(r);
  }
  if (in.python) {
    doc[keys::kPython] = in.python->facts;
    probes[in.python->result.id] = probes::to_json(in.python->result);
    if (in.python->bitsandbytes)
      probes[in.python->bitsandbytes->id] = probes::to_json(*in.python->bitsandbytes);
  }
  if (!probes.empty()) doc[keys::kProbes] = probes;
  nlohmann::json warnings = nlohmann::json::array();
  for (const auto& w : in.platform->warnings) warnings.push_back(facts::to_json(w));
  doc[keys::kWarnings] = warnings;
  return doc;
}

}  // namespace jetgate::evidence
