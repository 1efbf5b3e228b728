// SPDX-License-Identifier: Apache-2.0
// The container rule and image table (data/l4t-containers.json), one case per
// JetPack generation, and `jetgate container` on recorded boards of each.
#include "jetgate/facts/container_images.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "jetgate/core/embedded.hpp"
#include "test_support.hpp"

namespace jetgate::facts {
namespace {

const ContainerTable& table() {
  const auto& t = builtin_container_table();
  EXPECT_TRUE(t.ok()) << (t.ok() ? "" : t.error().message());
  return *t;
}

std::vector<std::string> images_for(const std::string& host) {
  std::vector<std::string> out;
  for (const auto& m : table().images_for(host)) out.push_back(m.image->image);
  return out;
}

bool lists(const std::vector<std::string>& images, const std::string& image) {
  return std::find(images.begin(), images.end(), image) != images.end();
}

TEST(ContainerTable, EveryEmbeddedRowParsesWithItsSource) {
  ASSERT_TRUE(builtin_container_table().ok());
  EXPECT_GE(table().images().size(), 20u);
  for (const auto& im : table().images()) EXPECT_FALSE(im.source.empty()) << im.image;
  EXPECT_FALSE(table().no_image_hint().empty());
  for (const auto& h : table().no_image_hints()) EXPECT_FALSE(h.source.empty()) << h.hint;
}

TEST(ContainerTable, JetPack4RunsOther46ImagesOnlyFrom32_7) {
  EXPECT_TRUE(table().compatible("32.7.4", "32.7.1"));
  EXPECT_FALSE(table().compatible("32.7.1", "32.7.4")) << "never newer than the host";
  EXPECT_FALSE(table().compatible("32.6.1", "32.5.0")) << "before 4.6.1: the exact release only";
  EXPECT_TRUE(table().compatible("32.6.1", "32.6.1"));
  EXPECT_FALSE(table().compatible("32.7.1", "35.4.1"));
  auto imgs = images_for("32.7.6");
  ASSERT_FALSE(imgs.empty());
  EXPECT_TRUE(lists(imgs, "nvcr.io/nvidia/l4t-base:r32.7.1"));
  EXPECT_TRUE(lists(imgs, "nvcr.io/nvidia/l4t-pytorch:r32.7.1-pth1.10-py3"));
  EXPECT_TRUE(lists(imgs, "dustynv/l4t-ml:r32.7.1"));
  EXPECT_FALSE(lists(imgs, "nvcr.io/nvidia/l4t-jetpack:r35.4.1"));
  EXPECT_EQ(table().driver_cuda("32.7.1"), "10.2");
}

TEST(ContainerTable, JetPack5RunsImagesOfItsSeriesNearestFirst) {
  EXPECT_TRUE(table().compatible("35.6.0", "35.1.0"));
  EXPECT_FALSE(table().compatible("34.1.1", "35.1.0")) << "5.0 (r34) and 5.1 (r35) differ";
  EXPECT_FALSE(table().compatible("35.4.1", "36.2.0"))
      << "jetson-containers issue 353: r36 images on r35 hosts";
  auto imgs = images_for("35.4.1");
  ASSERT_GE(imgs.size(), 3u);
  EXPECT_EQ(imgs[0], "nvcr.io/nvidia/l4t-jetpack:r35.4.1") << "exact release, JetPack image first";
  auto matches = table().images_for("35.4.1");
  EXPECT_TRUE(matches[0].exact);
  EXPECT_FALSE(matches.back().exact);
  for (std::size_t i = 1; i < matches.size(); ++i)
    EXPECT_GE(matches[i - 1].image->l4t, matches[i].image->l4t) << "nearest release first";
  EXPECT_EQ(table().driver_cuda("35.4.1"), "11.4");
}

TEST(ContainerTable, JetPack6SplitsAt36_4AndNeverRunsNewerImages) {
  EXPECT_TRUE(table().compatible("36.4.3", "36.4.0"));
  EXPECT_FALSE(table().compatible("36.4.3", "36.3.0")) << "CUDA 12.6 hosts vs 12.2 images";
  EXPECT_TRUE(table().compatible("36.3.0", "36.2.0"));
  EXPECT_FALSE(table().compatible("36.3.0", "36.4.0")) << "newer than the host";
  EXPECT_FALSE(table().compatible("36.2.0", "36.3.0"));
  auto imgs = images_for("36.4.3");
  ASSERT_FALSE(imgs.empty());
  EXPECT_EQ(imgs[0], "nvcr.io/nvidia/l4t-jetpack:r36.4.0");
  EXPECT_TRUE(lists(imgs, "nvcr.io/nvidia/l4t-cuda:12.6.11-runtime"));
  EXPECT_TRUE(lists(imgs, "dustynv/l4t-pytorch:r36.4.0"));
  EXPECT_FALSE(lists(imgs, "nvcr.io/nvidia/l4t-jetpack:r36.3.0"));
  EXPECT_FALSE(lists(imgs, "nvcr.io/nvidia/l4t-pytorch:r35.2.1-pth2.0-py3"))
      << "NVIDIA's l4t-pytorch stops at JetPack 5";
  auto older = images_for("36.3.0");
  ASSERT_FALSE(older.empty());
  EXPECT_EQ(older[0], "nvcr.io/nvidia/l4t-jetpack:r36.3.0");
  EXPECT_TRUE(lists(older, "nvcr.io/nvidia/l4t-jetpack:r36.2.0"));
  EXPECT_EQ(table().driver_cuda("36.4.3"), "12.6");
  EXPECT_EQ(table().driver_cuda("36.3.0"), "12.2");
}

TEST(ContainerTable, JetPack7HasTheRuleButNoL4tTaggedImages) {
  EXPECT_TRUE(table().compatible("38.2.0", "38.1.0"));
  EXPECT_FALSE(table().compatible("38.2.0", "38.4.0"));
  EXPECT_FALSE(table().compatible("38.2.0", "36.4.0"));
  EXPECT_FALSE(table().compatible("39.1.0", "38.2.0"));
  EXPECT_TRUE(images_for("38.2.0").empty());
  EXPECT_EQ(table().driver_cuda("38.2.0"), "13.0");
}

TEST(ContainerTable, KernelReleaseNamesTheHostsL4tMajor) {
  EXPECT_EQ(table().l4t_majors_of_kernel("4.9.253-tegra"), std::vector<int>{32});
  EXPECT_EQ(table().l4t_majors_of_kernel("5.10.120-tegra"), (std::vector<int>{34, 35}));
  EXPECT_EQ(table().l4t_majors_of_kernel("5.15.148-tegra"), std::vector<int>{36});
  EXPECT_EQ(table().l4t_majors_of_kernel("6.8.12-tegra"), (std::vector<int>{38, 39}));
  // A JetPack 7.2 board (tests/fixtures/l4t-tables/SOURCE.md): "6.8.12-1021-tegra" with
  // "# R39 (release), REVISION: 2.0, GCID: 45755727" and nvidia-l4t-core 39.2.0-20260601141651.
  EXPECT_EQ(table().l4t_majors_of_kernel("6.8.12-1021-tegra"), (std::vector<int>{38, 39}));
  EXPECT_TRUE(table().l4t_majors_of_kernel("5.15.0-91-generic").empty());
  EXPECT_TRUE(table().l4t_majors_of_kernel("6.12.7-talos").empty()) << "mainline kernel";
  EXPECT_TRUE(table().l4t_majors_of_kernel("").empty());
}

// The tags the issue reports name from real hosts and from jetson-containers'
// own pages (tests/fixtures/l4t-tables/SOURCE.md), each with its source.
TEST(ContainerTable, CatalogueHasTheImagesOfEveryReleaseThatHasAny) {
  for (const auto& [image, l4t] : std::vector<std::pair<std::string, std::string>>{
           {"nvcr.io/nvidia/l4t-pytorch:r32.6.1-pth1.9-py3", "32.6.1"},
           {"nvcr.io/nvidia/l4t-base:r32.5.0", "32.5.0"},
           {"nvcr.io/nvidia/l4t-base:r34.1", "34.1.0"},
           {"dustynv/l4t-ml:r35.2.1", "35.2.1"},
           {"dustynv/l4t-ml:r35.3.1", "35.3.1"},
           {"dustynv/l4t-pytorch:r36.3.0-cu124", "36.3.0"},
           {"dustynv/l4t-pytorch:2.2-r35.4.1", "35.4.1"}}) {
    auto it = std::find_if(table().images().begin(), table().images().end(),
                           [&](const auto& im) { return im.image == image; });
    ASSERT_NE(it, table().images().end()) << image;
    EXPECT_EQ(it->l4t, l4t) << image;
    EXPECT_NE(it->source.find("jetson-containers"), std::string::npos)
        << image << ": " << it->source;
  }
  // Every release NVIDIA or jetson-containers published an L4T-tagged image for.
  for (const char* host : {"32.4.3", "32.4.4", "32.5.0", "32.6.1", "32.7.1", "34.1.0", "34.1.1",
                           "35.1.0", "35.2.1", "35.3.1", "35.4.1", "36.2.0", "36.3.0", "36.4.0"}) {
    auto matches = table().images_for(host);
    ASSERT_FALSE(matches.empty()) << host;
    EXPECT_TRUE(matches.front().exact) << host << " has an image of its own release";
  }
}

TEST(ContainerTable, JetPack4_5_1HostsRunTheR32_5_0Images) {
  // jetson-containers scripts/docker_base.sh: R32.5.1 and R32.5.2 use l4t-base:r32.5.0.
  for (const char* host : {"32.5.1", "32.5.2"}) {
    auto imgs = images_for(host);
    EXPECT_TRUE(lists(imgs, "nvcr.io/nvidia/l4t-base:r32.5.0")) << host;
    EXPECT_TRUE(lists(imgs, "nvcr.io/nvidia/l4t-pytorch:r32.5.0-pth1.7-py3")) << host;
    EXPECT_FALSE(lists(imgs, "nvcr.io/nvidia/l4t-base:r32.4.4")) << host << ": other series";
  }
  EXPECT_FALSE(table().compatible("32.5.0", "32.5.1")) << "never newer than the host";
}

TEST(ContainerTable, NoImageHintFitsTheHostsJetPack) {
  auto jp4 = table().no_image_hint("32.3.1");
  EXPECT_NE(jp4.find("R32.4.3"), std::string::npos) << jp4;
  EXPECT_EQ(jp4.find("JetPack 6"), std::string::npos) << jp4;
  auto jp45 = table().no_image_hint("32.6.0");
  EXPECT_NE(jp45.find("JetPack 4"), std::string::npos) << jp45;
  auto jp5 = table().no_image_hint("34.0.1");
  EXPECT_NE(jp5.find("JetPack 5"), std::string::npos) << jp5;
  EXPECT_EQ(jp5.find("JetPack 6 and 7"), std::string::npos) << jp5;
  auto jp7 = table().no_image_hint("39.2.0");
  EXPECT_NE(jp7.find("JetPack 6 and 7"), std::string::npos) << jp7;
  EXPECT_EQ(table().no_image_hint("50.1.0"), table().no_image_hint())
      << "no series: the general one";
  EXPECT_EQ(table().driver_cuda("39.2.0"), "13.2");
}

TEST(ContainerTable, NormalizesL4tSpellings) {
  EXPECT_EQ(normalize_l4t("r36.4.3"), "36.4.3");
  EXPECT_EQ(normalize_l4t("R35.4"), "35.4.0");
  EXPECT_EQ(normalize_l4t(" 32.7.1 "), "32.7.1");
  EXPECT_FALSE(normalize_l4t("36"));
  EXPECT_FALSE(normalize_l4t("36.4.x"));
  EXPECT_FALSE(normalize_l4t("\xff\xfe"));
  EXPECT_FALSE(normalize_l4t(""));
}

TEST(ContainerTable, MalformedTablesNameTheRow) {
  EXPECT_FALSE(ContainerTable::parse("not json").ok());
  EXPECT_FALSE(ContainerTable::parse("\xff\xfe{}").ok());
  EXPECT_FALSE(ContainerTable::parse("{}").ok());
  auto text = std::string(*embedded_file("l4t-containers.json"));
  auto doc = nlohmann::json::parse(text);
  auto bad = doc;
  bad["compatibility"][0]["host"] = {"36.4.0", "36.0.0"};
  auto r = ContainerTable::parse(bad.dump());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().where.find("compatibility[0].host"), std::string::npos) << r.error().where;
  bad = doc;
  bad["images"][1][0] = "nvcr.io/nvidia/l4t-jetpack";
  r = ContainerTable::parse(bad.dump());
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().what.find("no tag"), std::string::npos);
  EXPECT_EQ(r.error().where, "data/l4t-containers.json: images[1]");
  bad = doc;
  bad["driver_cuda"][0].erase("source");
  r = ContainerTable::parse(bad.dump());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where, "data/l4t-containers.json: driver_cuda[0]");
  bad = doc;
  bad["kernel_series"][0]["l4t_major"] = {"32"};
  r = ContainerTable::parse(bad.dump());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().where, "data/l4t-containers.json: kernel_series[0]");
  for (const char* list : {"compatibility", "driver_cuda", "kernel_series", "images"}) {
    bad = doc;
    bad[list] = nlohmann::json::object();
    r = ContainerTable::parse(bad.dump());
    ASSERT_FALSE(r.ok()) << list;
    EXPECT_EQ(r.error().what, std::string("no \"") + list + "\" list");
  }
}

}  // namespace
}  // namespace jetgate::facts

namespace jetgate::test {
namespace {

nlohmann::json container_json(const std::vector<std::string>& args) {
  auto r = run_jetgate(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.out;
  return doc;
}

std::string root_of(const char* fixture) {
  return fixtures_dir() + "/" + fixture + "/root";
}

TEST(ContainerCli, EachGenerationsRecordedBoardGetsItsImages) {
  struct Case {
    const char* fixture;
    const char* l4t;
    const char* first;
  };
  for (const auto& c :
       {Case{"nano-jp461", "32.7.1", "nvcr.io/nvidia/l4t-base:r32.7.1"},
        Case{"orin-nx-16gb-jp512", "35.4.1", "nvcr.io/nvidia/l4t-jetpack:r35.4.1"},
        Case{"agx-orin-64gb-jp62", "36.4.3", "nvcr.io/nvidia/l4t-jetpack:r36.4.0"}}) {
    auto doc = container_json({"container", "--root", root_of(c.fixture), "--json"});
    EXPECT_EQ(doc["schema_version"], 1);
    EXPECT_EQ(doc["host"]["l4t"], c.l4t) << c.fixture;
    ASSERT_FALSE(doc["images"].empty()) << c.fixture;
    EXPECT_EQ(doc["images"][0]["image"], c.first) << c.fixture;
    EXPECT_EQ(doc["images"][0]["exact"], std::string(c.l4t) != "36.4.3") << c.fixture;
    EXPECT_TRUE(doc["hint"].is_null());
  }
}

// The host's L4T release is named with where it was read: a board whose release
// comes from the nvidia-l4t-core package (no /etc/nv_tegra_release) says so.
TEST(ContainerCli, TheHostsReleaseSaysWhereItWasRead) {
  auto dpkg = container_json({"container", "--root", root_of("orin-nx-16gb-jp60"), "--json"});
  const std::string from_package = dpkg["host"]["source"];
  EXPECT_NE(from_package.find("package nvidia-l4t-core in "), std::string::npos) << from_package;
  EXPECT_NE(from_package.find("/var/lib/dpkg/status"), std::string::npos) << from_package;
  EXPECT_EQ(from_package.find("nv_tegra_release"), std::string::npos) << from_package;
  auto file = container_json({"container", "--root", root_of("agx-orin-64gb-jp62"), "--json"});
  const std::string from_file = file["host"]["source"];
  EXPECT_NE(from_file.find("/etc/nv_tegra_release"), std::string::npos) << from_file;
  auto text = run_jetgate({"container", "--root", root_of("orin-nx-16gb-jp60")});
  EXPECT_NE(text.out.find("(package nvidia-l4t-core in "), std::string::npos) << text.out;
}

TEST(ContainerCli, JetPack7SaysNoImageAndHowToBuildOne) {
  auto r = run_jetgate({"container", "--root", root_of("agx-thor-jp70")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.out.find("L4T 38.2.0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("jetson-containers build"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("no known image runs on L4T 38.2.0"), std::string::npos) << r.err;
}

TEST(ContainerCli, L4tOptionAndUsageErrors) {
  auto r = run_jetgate({"container", "--l4t", "r36.3.0"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("nvcr.io/nvidia/l4t-jetpack:r36.3.0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("driver CUDA 12.2"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("r36.4.0"), std::string::npos) << "newer than the host: " << r.out;
  EXPECT_EQ(run_jetgate({"container", "--l4t", "36.x"}).exit_code, 2);
  EXPECT_EQ(run_jetgate({"container", "--l4t", "\xff"}).exit_code, 2);
  auto x86 = run_jetgate({"container", "--root", root_of("x86-h200-dgpu")});
  EXPECT_EQ(x86.exit_code, 2);
  EXPECT_NE(x86.err.find("--l4t"), std::string::npos) << x86.err;
}

}  // namespace
}  // namespace jetgate::test
