// SPDX-License-Identifier: Apache-2.0
#include "cli/host_root.hpp"

#include "cli/environment.hpp"
#include "jetgate/core/document_keys.hpp"
#include "jetgate/evidence/probe_document.hpp"
#include "jetgate/fs/host_root.hpp"
#include "jetgate/fs/root_fs.hpp"

namespace jetgate::cli {

Result<HostRootFacts> collect_host_root(const std::string& dir,
                                        const facts::CollectOptions& options) {
  auto check = fs::check_host_root(dir);
  if (!check) return check.error();
  auto host = fs::RootFs::open(dir);
  if (!host) return host.error();
  auto own = fs::RootFs::open("/");
  if (!own) return own.error();
  facts::CollectOptions o = options;
  o.own_root = &*own;
  HostRootFacts out;
  out.report = facts::collect_platform(*host, o);
  for (const auto& p : check->problems)
    out.report.warnings.push_back({keys::kHostMount.to_string(), dir, p});
  auto image = container_image();
  out.host_mount = evidence::host_mount_json(dir, check->proc_is_procfs, check->sys_is_sysfs, image,
                                             kContainerImageVariable);
  return out;
}

}  // namespace jetgate::cli
