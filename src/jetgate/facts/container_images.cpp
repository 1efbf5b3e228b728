// SPDX-License-Identifier: Apache-2.0
#include "jetgate/facts/container_images.hpp"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>

#include "jetgate/core/embedded.hpp"
#include "jetgate/facts/text.hpp"

namespace jetgate::facts {
namespace {

constexpr const char* kFile = "data/l4t-containers.json";

std::string at(const std::string& list, std::size_t i) {
  return list + "[" + std::to_string(i) + "]";
}

bool is_string(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() &&
         !j[key].get<std::string>().empty();
}

Result<L4tRange> parse_range(const nlohmann::json& j, const std::string& where) {
  if (!j.is_array() || j.size() != 2 || !j[0].is_string() || !j[1].is_string())
    return make_error("expected [low, high) as two X.Y.Z strings", where);
  L4tRange r{j[0].get<std::string>(), j[1].get<std::string>()};
  if (!is_numeric_version(r.low, 3) || !is_numeric_version(r.high, 3) ||
      compare_versions(r.low, r.high) >= 0)
    return make_error("range [" + r.low + ", " + r.high + ") is not X.Y.Z with low < high", where);
  return r;
}

// One list of the table: each row parsed by parse_row(row, where), the first bad
// row's error returned with its place ("data/l4t-containers.json: images[3]").
template <typename Row>
Result<std::vector<Row>> parse_list(const nlohmann::json& doc, const char* list,
                                    Result<Row> (*parse_row)(const nlohmann::json& row,
                                                             const std::string& where)) {
  auto it = doc.find(list);
  if (it == doc.end() || !it->is_array())
    return make_error(std::string("no \"") + list + "\" list", kFile);
  std::vector<Row> rows;
  rows.reserve(it->size());
  for (std::size_t i = 0; i < it->size(); ++i) {
    auto row = parse_row((*it)[i], std::string(kFile) + ": " + at(list, i));
    if (!row) return row.error();
    rows.push_back(std::move(row).value());
  }
  return rows;
}

Result<CompatibilityRow> parse_rule(const nlohmann::json& row, const std::string& where) {
  if (!is_string(row, "source")) return make_error("no source", where);
  auto host = parse_range(row.value("host", nlohmann::json()), where + ".host");
  if (!host) return host.error();
  auto image = parse_range(row.value("image", nlohmann::json()), where + ".image");
  if (!image) return image.error();
  return CompatibilityRow{*host, *image, row["source"].get<std::string>()};
}

Result<DriverCudaRow> parse_driver_cuda(const nlohmann::json& row, const std::string& where) {
  if (!is_string(row, "source") || !is_string(row, "cuda") ||
      !is_numeric_version(row["cuda"].get<std::string>(), 2))
    return make_error("expected {l4t, cuda: \"X.Y\", source}", where);
  auto range = parse_range(row.value("l4t", nlohmann::json()), where + ".l4t");
  if (!range) return range.error();
  return DriverCudaRow{*range, row["cuda"].get<std::string>(), row["source"].get<std::string>()};
}

Result<KernelSeriesRow> parse_kernel(const nlohmann::json& row, const std::string& where) {
  if (!is_string(row, "source") || !is_string(row, "kernel") || !row.contains("l4t_major") ||
      !row["l4t_major"].is_array() || row["l4t_major"].empty())
    return make_error("expected {kernel: \"X.Y\", l4t_major: [N...], source}", where);
  KernelSeriesRow k{row["kernel"].get<std::string>(), {}, row["source"].get<std::string>()};
  for (const auto& m : row["l4t_major"]) {
    if (!m.is_number_integer()) return make_error("l4t_major must hold integers", where);
    k.l4t_majors.push_back(m.get<int>());
  }
  return k;
}

Result<ContainerImage> parse_image(const nlohmann::json& row, const std::string& where) {
  if (!row.is_array() || row.size() != 4 ||
      !std::all_of(row.begin(), row.end(), [](const auto& c) { return c.is_string(); }))
    return make_error("expected [image, l4t, kind, source]", where);
  ContainerImage im{row[0].get<std::string>(), row[1].get<std::string>(), row[2].get<std::string>(),
                    row[3].get<std::string>()};
  if (im.image.find(':') == std::string::npos)
    return make_error("image \"" + im.image + "\" has no tag", where);
  if (!is_numeric_version(im.l4t, 3))
    return make_error("L4T \"" + im.l4t + "\" is not X.Y.Z", where);
  if (im.kind.empty() || im.source.empty()) return make_error("no kind or source", where);
  return im;
}

Result<NoImageHint> parse_hint(const nlohmann::json& row, const std::string& where) {
  if (!is_string(row, "source") || !is_string(row, "hint"))
    return make_error("expected {l4t: [low, high), hint, source}", where);
  auto range = parse_range(row.value("l4t", nlohmann::json()), where + ".l4t");
  if (!range) return range.error();
  return NoImageHint{*range, row["hint"].get<std::string>(), row["source"].get<std::string>()};
}

int major_of(std::string_view l4t) {
  int major = 0;
  for (char c : l4t) {
    if (!std::isdigit(static_cast<unsigned char>(c))) break;
    major = major * 10 + (c - '0');
    if (major > 1000) break;
  }
  return major;
}

}  // namespace

bool L4tRange::contains(std::string_view l4t) const {
  return compare_versions(l4t, low) >= 0 && compare_versions(l4t, high) < 0;
}

std::optional<std::string> normalize_l4t(std::string_view text) {
  auto t = trim(text);
  if (!t.empty() && (t[0] == 'r' || t[0] == 'R')) t.remove_prefix(1);
  std::string v(t);
  if (is_numeric_version(v, 2)) v += ".0";
  if (!is_numeric_version(v, 3) || v.size() > 16) return std::nullopt;
  return v;
}

Result<ContainerTable> ContainerTable::parse(std::string_view json_text) {
  auto doc = nlohmann::json::parse(json_text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return make_error("not a JSON object", kFile);
  ContainerTable t;
  auto rules = parse_list(doc, "compatibility", parse_rule);
  if (!rules) return rules.error();
  auto cuda = parse_list(doc, "driver_cuda", parse_driver_cuda);
  if (!cuda) return cuda.error();
  auto kernels = parse_list(doc, "kernel_series", parse_kernel);
  if (!kernels) return kernels.error();
  auto images = parse_list(doc, "images", parse_image);
  if (!images) return images.error();
  auto hints = parse_list(doc, "no_image_hints", parse_hint);
  if (!hints) return hints.error();
  t.hints_ = std::move(hints).value();
  t.rules_ = std::move(rules).value();
  t.driver_cuda_ = std::move(cuda).value();
  t.kernels_ = std::move(kernels).value();
  t.images_ = std::move(images).value();
  if (is_string(doc, "no_image_hint")) t.no_image_hint_ = doc["no_image_hint"].get<std::string>();
  return t;
}

std::optional<std::string> ContainerTable::why_compatible(std::string_view host_l4t,
                                                          std::string_view image_l4t) const {
  // An image's CUDA libraries need a host driver at least as new.
  if (compare_versions(image_l4t, host_l4t) > 0) return std::nullopt;
  if (compare_versions(image_l4t, host_l4t) == 0) return std::string("same release");
  for (const auto& r : rules_)
    if (r.host.contains(host_l4t) && r.image.contains(image_l4t)) return r.source;
  return std::nullopt;
}

bool ContainerTable::compatible(std::string_view host_l4t, std::string_view image_l4t) const {
  return why_compatible(host_l4t, image_l4t).has_value();
}

std::vector<ImageMatch> ContainerTable::images_for(std::string_view host_l4t) const {
  std::vector<ImageMatch> out;
  for (const auto& im : images_) {
    auto why = why_compatible(host_l4t, im.l4t);
    if (!why) continue;
    out.push_back({&im, compare_versions(im.l4t, host_l4t) == 0, *why});
  }
  // Nearest release first; the table's order within one release.
  std::stable_sort(out.begin(), out.end(), [](const ImageMatch& a, const ImageMatch& b) {
    return compare_versions(a.image->l4t, b.image->l4t) > 0;
  });
  return out;
}

const std::string& ContainerTable::no_image_hint(std::string_view host_l4t) const {
  for (const auto& h : hints_)
    if (h.l4t.contains(host_l4t)) return h.hint;
  return no_image_hint_;
}

std::optional<std::string> ContainerTable::driver_cuda(std::string_view l4t) const {
  for (const auto& r : driver_cuda_)
    if (r.l4t.contains(l4t)) return r.cuda;
  return std::nullopt;
}

std::vector<int> ContainerTable::l4t_majors_of_kernel(std::string_view kernel_release) const {
  // L4T kernels carry "-tegra" ("5.15.148-tegra"); a mainline kernel on a
  // Jetson (Talos, Yocto) says nothing about an L4T release.
  if (kernel_release.find("tegra") == std::string_view::npos) return {};
  for (const auto& k : kernels_) {
    auto prefix = k.kernel + ".";
    if (kernel_release.substr(0, prefix.size()) == prefix) return k.l4t_majors;
  }
  return {};
}

const Result<ContainerTable>& builtin_container_table() {
  static const Result<ContainerTable> table = [] {
    auto text = embedded_file("l4t-containers.json");
    if (!text) return Result<ContainerTable>(make_error("not embedded", kFile));
    return ContainerTable::parse(*text);
  }();
  return table;
}

int l4t_major(std::string_view l4t) {
  return major_of(l4t);
}

}  // namespace jetgate::facts
