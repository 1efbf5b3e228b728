// SPDX-License-Identifier: Apache-2.0
// /platform/libraries: the libraries jetson_release shows (cuDNN, TensorRT,
// VPI, OpenCV and whether it was built with CUDA, Vulkan), each read from its
// header or the versioned file name of its library, and only then from the
// dpkg database: containers, Yocto/OE4T and Talos have no dpkg.
#include <array>

#include "jetgate/core/pattern.hpp"
#include "jetgate/facts/collect_context.hpp"
#include "jetgate/facts/text.hpp"
#include "jetgate/facts/versions.hpp"

namespace jetgate::facts {
namespace {

constexpr std::array<const char*, 8> kLibraryDirs{"/usr/lib/aarch64-linux-gnu",
                                                  "/usr/lib/x86_64-linux-gnu",
                                                  "/usr/local/cuda/lib64",
                                                  "/usr/lib64",
                                                  "/usr/lib",
                                                  "/usr/local/cuda/targets/aarch64-linux/lib",
                                                  "/usr/local/lib",
                                                  "/usr/lib/aarch64-linux-gnu/tegra"};
constexpr std::array<const char*, 5> kIncludeDirs{"/usr/include", "/usr/include/aarch64-linux-gnu",
                                                  "/usr/include/x86_64-linux-gnu",
                                                  "/usr/local/cuda/include", "/usr/local/include"};

struct Found {
  std::optional<std::string> version, source;
};

struct Defines {
  const char* major;
  const char* minor;
  const char* patch;
};

Found version_from_headers(CollectContext& ctx, const keys::Pointer& fact,
                           const std::vector<std::string>& headers, Defines d) {
  for (const auto& h : headers) {
    auto text = ctx.read(h, fact);
    if (!text) continue;
    auto v = version_from_defines(parse_header_defines(*text), d.major, d.minor, d.patch);
    if (v) return {v, h};
    ctx.warn(fact, ctx.root().display(h),
             std::string("no ") + d.major + "/" + d.minor + "/" + d.patch + " defines");
  }
  return {};
}

// The newest "stemX.Y.Z" file in dirs ("libcudnn.so.9.3.0").
Found version_from_libraries(CollectContext& ctx, const std::vector<std::string>& dirs,
                             std::string_view stem) {
  Found best;
  for (const auto& dir : dirs) {
    auto names = ctx.root().list(dir);
    if (!names.ok()) continue;
    for (const auto& n : *names) {
      auto v = version_from_library_name(n, stem);
      if (v && (!best.version || compare_versions(*v, *best.version) > 0)) {
        best.version = v;
        best.source = (dir + "/").append(n);
      }
    }
  }
  return best;
}

std::vector<std::string> library_dirs() {
  return {kLibraryDirs.begin(), kLibraryDirs.end()};
}

std::vector<std::string> header_candidates(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  // Name first: cudnn.h of cuDNN 8+ holds no version defines, so it is only
  // a last resort after every directory was searched for the version header.
  for (const auto& n : names)
    for (const char* dir : kIncludeDirs) out.push_back(std::string(dir) + "/" + n);
  return out;
}

// "9.3.0.75-1" -> "9.3.0"; "4.8.0-1-g6371ee1" -> "4.8.0"; "1.3.204.1-2" -> "1.3.204".
std::optional<std::string> three_part_version(std::string_view package_version) {
  static const Pattern form(R"(^(?:\d+:)?(\d{1,4}\.\d{1,4}\.\d{1,6}))");
  auto m = form.search(package_version.substr(0, 128));
  if (!m) return std::nullopt;
  return m->str(1);
}

Found version_from_dpkg(CollectContext& ctx, const std::vector<std::string>& packages) {
  const auto& dpkg = ctx.dpkg();
  for (const auto& p : packages)
    if (auto it = dpkg.find(p); it != dpkg.end())
      if (auto v = three_part_version(it->second)) return {v, "dpkg:" + p};
  return {};
}

Found first_found(std::initializer_list<Found> tries) {
  for (const auto& f : tries)
    if (f.version) return f;
  return {};
}

Found cudnn(CollectContext& ctx) {
  auto f = version_from_headers(
      ctx, keys::kLibrariesCudnn,
      header_candidates({"cudnn_version.h", "cudnn_version_v9.h", "cudnn_version_v8.h", "cudnn.h"}),
      {"CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL"});
  if (f.version) return f;
  return first_found({version_from_libraries(ctx, library_dirs(), "libcudnn.so."),
                      version_from_dpkg(ctx, {"libcudnn9-cuda-12", "libcudnn9-cuda-13", "libcudnn8",
                                              "libcudnn7"})});
}

// NvInferVersion.h came with TensorRT 5; TensorRT 3 and 4 define the version in NvInfer.h.
Found tensorrt(CollectContext& ctx) {
  auto f = version_from_headers(ctx, keys::kLibrariesTensorrt,
                                header_candidates({"NvInferVersion.h", "NvInfer.h"}),
                                {"NV_TENSORRT_MAJOR", "NV_TENSORRT_MINOR", "NV_TENSORRT_PATCH"});
  if (f.version) return f;
  return first_found(
      {version_from_libraries(ctx, library_dirs(), "libnvinfer.so."),
       version_from_dpkg(ctx, {"tensorrt", "libnvinfer10", "libnvinfer8", "libnvinfer7"})});
}

// VPI installs itself under /opt/nvidia/vpiN with its own lib directory.
Found vpi(CollectContext& ctx) {
  std::vector<std::string> dirs;
  for (std::string n : {"4", "3", "2", "1"})
    for (std::string sub : {"/lib", "/lib64", "/lib/aarch64-linux-gnu"})
      dirs.push_back(("/opt/nvidia/vpi" + n).append(sub));
  return first_found({version_from_libraries(ctx, dirs, "libnvvpi.so."),
                      version_from_dpkg(ctx, {"libnvvpi4", "libnvvpi3", "libnvvpi2", "libnvvpi1",
                                              "vpi4-dev", "vpi3-dev", "vpi2-dev", "vpi1-dev"})});
}

struct OpenCv {
  Found version;
  std::optional<bool> cuda;
  std::optional<std::string> cuda_source;
};

std::vector<std::string> opencv_headers(const std::string& file) {
  std::vector<std::string> out;
  for (const char* dir :
       {"/usr/include/opencv4", "/usr/local/include/opencv4", "/usr/include", "/usr/local/include"})
    out.push_back(std::string(dir) + "/opencv2/" + file);
  return out;
}

OpenCv opencv(CollectContext& ctx) {
  OpenCv o;
  o.version = version_from_headers(ctx, keys::kLibrariesOpencv, opencv_headers("core/version.hpp"),
                                   {"CV_VERSION_MAJOR", "CV_VERSION_MINOR", "CV_VERSION_REVISION"});
  if (!o.version.version)
    o.version = first_found({version_from_libraries(ctx, library_dirs(), "libopencv_core.so."),
                             version_from_dpkg(ctx, {"libopencv", "libopencv-core4.5d",
                                                     "libopencv-core-dev", "libopencv-dev"})});
  if (!o.version.version) return o;
  // A CUDA build installs the cuda* modules and defines HAVE_CUDA in cvconfig.h.
  auto cuda_lib = version_from_libraries(ctx, library_dirs(), "libopencv_cudaarithm.so.");
  if (cuda_lib.version) {
    o.cuda = true;
    o.cuda_source = cuda_lib.source;
    return o;
  }
  for (const auto& h : opencv_headers("cvconfig.h"))
    if (auto text = ctx.read(h, keys::kLibrariesOpencvCuda)) {
      // Linear in the file's size: a cvconfig.h of one long run of spaces is read
      // like any other (core/pattern.hpp).
      static const Pattern have_cuda(
          R"((?:^|\n)[[:space:]]*#[[:space:]]*define[[:space:]]+HAVE_CUDA\b)");
      o.cuda = have_cuda.found_in(*text);
      o.cuda_source = h;
      return o;
    }
  o.cuda = false;
  o.cuda_source = "no libopencv_cudaarithm library";
  return o;
}

// The Vulkan loader's version is what vulkaninfo calls the instance version.
Found vulkan(CollectContext& ctx) {
  return first_found({version_from_libraries(ctx, library_dirs(), "libvulkan.so."),
                      version_from_dpkg(ctx, {"libvulkan1"})});
}

}  // namespace

void collect_libraries(CollectContext& ctx, nlohmann::json& out) {
  auto dnn = cudnn(ctx), trt = tensorrt(ctx), v = vpi(ctx), vk = vulkan(ctx);
  auto cv = opencv(ctx);
  out[in_platform(keys::kLibrariesCudnn)] = json_or_null(dnn.version);
  out[in_platform(keys::kLibrariesTensorrt)] = json_or_null(trt.version);
  out[in_platform(keys::kLibrariesVpi)] = json_or_null(v.version);
  out[in_platform(keys::kLibrariesOpencv)] = json_or_null(cv.version.version);
  out[in_platform(keys::kLibrariesOpencvCuda)] =
      cv.cuda ? nlohmann::json(*cv.cuda) : nlohmann::json(nullptr);
  out[in_platform(keys::kLibrariesVulkan)] = json_or_null(vk.version);
  out[in_platform(keys::kLibrariesSourcesCudnn)] = json_or_null(dnn.source);
  out[in_platform(keys::kLibrariesSourcesTensorrt)] = json_or_null(trt.source);
  out[in_platform(keys::kLibrariesSourcesVpi)] = json_or_null(v.source);
  out[in_platform(keys::kLibrariesSourcesOpencv)] = json_or_null(cv.version.source);
  out[in_platform(keys::kLibrariesSourcesOpencvCuda)] = json_or_null(cv.cuda_source);
  out[in_platform(keys::kLibrariesSourcesVulkan)] = json_or_null(vk.source);
}

}  // namespace jetgate::facts
