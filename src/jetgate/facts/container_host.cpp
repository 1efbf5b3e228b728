// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/container_host.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "jetgate/core/outcome.hpp"
#include "jetgate/facts/collect_context.hpp"
#include "jetgate/facts/container_images.hpp"
#include "jetgate/facts/jetpack_table.hpp"
#include "jetgate/facts/l4t.hpp"
#include "jetgate/facts/text.hpp"

namespace jetgate::facts {
namespace {

constexpr const char* kReleaseFile = "/etc/nv_tegra_release";

// /proc/self/mountinfo: the fifth field is the mount point.
bool is_mount_point(std::string_view mountinfo, std::string_view path) {
  for (auto line : split_lines(mountinfo)) {
    std::size_t field = 0, pos = 0;
    while (pos < line.size() && field < 4) {
      pos = line.find(' ', pos);
      if (pos == std::string_view::npos) break;
      ++pos;
      ++field;
    }
    if (field != 4 || pos >= line.size()) continue;
    auto end = line.find(' ', pos);
    if (line.substr(pos, end == std::string_view::npos ? end : end - pos) == path) return true;
  }
  return false;
}

// The string at a documented key of the /platform object, or nullopt.
std::optional<std::string> text_at(const nlohmann::json& platform, const keys::Pointer& key) {
  const auto* v = keys::find(platform, in_platform(key));
  if (!v || !v->is_string()) return std::nullopt;
  return v->get<std::string>();
}

// "12.6.68" -> "12.6".
std::optional<std::string> major_minor(const std::optional<std::string>& v) {
  if (!v) return std::nullopt;
  auto dotted = first_dotted_version(*v);
  if (!dotted) return std::nullopt;
  auto second_dot = dotted->find('.', dotted->find('.') + 1);
  return dotted->substr(0, second_dot);
}

std::string jetpack_of(const std::string& l4t) {
  const auto& table = builtin_jetpack_table();
  const JetpackRelease* row = table ? table->find(l4t) : nullptr;
  return row && !row->jetpack.empty() ? "JetPack " + row->display() : "no known JetPack";
}

std::string majors_text(const std::vector<int>& majors) {
  std::string out;
  for (int m : majors) out += (out.empty() ? "R" : " or R") + std::to_string(m);
  return out;
}

}  // namespace

void collect_container_l4t(CollectContext& ctx, nlohmann::json& platform) {
  bool from_host = false;
  if (auto info =
          ctx.read("/proc/self/mountinfo", keys::kContainerNvTegraReleaseFromHost, 1u << 20))
    from_host = is_mount_point(*info, kReleaseFile);
  platform[in_platform(keys::kContainerNvTegraReleaseFromHost)] = from_host;

  // The image's own release: its nvidia-l4t-core package, else its own
  // /etc/nv_tegra_release (only when that is not the host's, bind-mounted).
  std::optional<std::string> image_l4t, image_source, host_l4t;
  const auto& dpkg = ctx.dpkg();
  if (auto it = dpkg.find("nvidia-l4t-core"); it != dpkg.end())
    if ((image_l4t = l4t_from_package_version(it->second))) image_source = "dpkg:nvidia-l4t-core";
  auto release = text_at(platform, keys::kL4t);
  bool release_from_file = text_at(platform, keys::kTegraL4tSource) == std::string(kReleaseFile);
  if (from_host && release_from_file)
    host_l4t = release;
  else if (!image_l4t && release_from_file) {
    image_l4t = release;
    image_source = kReleaseFile;
  }
  platform[in_platform(keys::kContainerImageL4t)] = json_or_null(image_l4t);
  platform[in_platform(keys::kContainerImageL4tSource)] = json_or_null(image_source);
  platform[in_platform(keys::kContainerHostL4t)] = json_or_null(host_l4t);

  nlohmann::json majors = nlohmann::json::array();
  const auto& table = builtin_container_table();
  if (auto kernel = text_at(platform, keys::kKernelRelease); kernel && table)
    for (int m : table->l4t_majors_of_kernel(*kernel)) majors.push_back(m);
  platform[in_platform(keys::kContainerHostL4tMajors)] = majors;
}

void collect_container_l4t_host_mount(CollectContext& own, nlohmann::json& platform) {
  auto release = text_at(platform, keys::kL4t);
  bool from_host = release && text_at(platform, keys::kTegraL4tSource) == std::string(kReleaseFile);
  platform[in_platform(keys::kContainerNvTegraReleaseFromHost)] = from_host;
  std::optional<std::string> image_l4t, image_source;
  const auto& dpkg = own.dpkg();
  if (auto it = dpkg.find("nvidia-l4t-core"); it != dpkg.end())
    if ((image_l4t = l4t_from_package_version(it->second))) image_source = "dpkg:nvidia-l4t-core";
  if (!image_l4t)
    if (auto text = own.read(kReleaseFile, keys::kContainerImageL4t))
      if (auto v = parse_nv_tegra_release(*text); v.ok()) {
        image_l4t = *v;
        image_source = kReleaseFile;
      }
  platform[in_platform(keys::kContainerImageL4t)] = json_or_null(image_l4t);
  platform[in_platform(keys::kContainerImageL4tSource)] = json_or_null(image_source);
  platform[in_platform(keys::kContainerHostL4t)] = json_or_null(from_host ? release : std::nullopt);
  nlohmann::json majors = nlohmann::json::array();
  const auto& table = builtin_container_table();
  if (auto kernel = text_at(platform, keys::kKernelRelease); kernel && table)
    for (int m : table->l4t_majors_of_kernel(*kernel)) majors.push_back(m);
  platform[in_platform(keys::kContainerHostL4tMajors)] = majors;
}

nlohmann::json check_container_l4t(const nlohmann::json& platform,
                                   const std::optional<std::string>& driver_cuda) {
  if (!keys::bool_at(platform, in_platform(keys::kContainerDetected)).value_or(false))
    return nullptr;
  const auto& table = builtin_container_table();
  if (!table) return nullptr;
  auto image_l4t = text_at(platform, keys::kContainerImageL4t);
  auto host_l4t = text_at(platform, keys::kContainerHostL4t);
  auto image_cuda = major_minor(text_at(platform, keys::kCudaToolkitVersion));
  auto driver = major_minor(driver_cuda);
  std::vector<int> majors;
  if (const auto* list = keys::find(platform, in_platform(keys::kContainerHostL4tMajors));
      list && list->is_array())
    for (const auto& m : *list)
      if (m.is_number_integer()) majors.push_back(m.get<int>());
  auto kernel = text_at(platform, keys::kKernelRelease).value_or("?");

  std::vector<std::string> problems;
  if (image_l4t && host_l4t && !table->compatible(*host_l4t, *image_l4t))
    problems.push_back(fmt::format(
        "the image is built for L4T {} ({}), the host runs L4T {} ({}): images run only on a "
        "host of the same series and never on an older one",
        *image_l4t, jetpack_of(*image_l4t), *host_l4t, jetpack_of(*host_l4t)));
  else if (image_l4t && !host_l4t && !majors.empty() &&
           std::find(majors.begin(), majors.end(), l4t_major(*image_l4t)) == majors.end())
    problems.push_back(fmt::format(
        "the image is built for L4T {} ({}), but the host's kernel {} is the kernel of L4T {}",
        *image_l4t, jetpack_of(*image_l4t), kernel, majors_text(majors)));
  if (image_cuda && driver && compare_versions(*image_cuda, *driver) > 0)
    problems.push_back(fmt::format(
        "the image's CUDA {} is newer than what the host's driver supports (CUDA {}): CUDA "
        "calls fail with cudaErrorInsufficientDriver (35, CUDA_ERROR_INSUFFICIENT_DRIVER)",
        *image_cuda, *driver));

  bool image_known = image_l4t || image_cuda;
  bool host_known = host_l4t || !majors.empty() || driver;
  // The one status vocabulary (core/outcome.hpp): FAIL on a mismatch, PASS when
  // both sides are known and agree, SKIP when a side is not known.
  Outcome status = !problems.empty()             ? Outcome::fail
                   : (image_known && host_known) ? Outcome::pass
                                                 : Outcome::skip;
  std::string host_hint = host_l4t ? "--l4t " + *host_l4t : "";
  nlohmann::json fix = nullptr;
  if (!problems.empty())
    fix = fmt::format(
        "run an image built for the host's L4T release: on the host, `jetgate container{}` "
        "lists the compatible images (same series, not newer than the host); or move the "
        "host to the image's JetPack",
        host_hint.empty() ? "" : " " + host_hint);
  nlohmann::json j_problems = problems;
  return {{"status", to_string(status)},
          {"image_l4t", json_or_null(image_l4t)},
          {"image_cuda", json_or_null(image_cuda)},
          {"host_l4t", json_or_null(host_l4t)},
          {"host_l4t_majors", majors},
          {"host_kernel", json_or_null(text_at(platform, keys::kKernelRelease))},
          {"driver_cuda", json_or_null(driver)},
          {"problems", j_problems},
          {"fix", fix}};
}

}  // namespace jetgate::facts
