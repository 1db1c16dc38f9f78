// The pipeline cache on disk (host/vk/pipeline_cache.h): written when a context that built
// pipelines closes, loaded by the next context, and a bad file (garbage, another driver's,
// truncated) ignored with a warning naming it and replaced by a valid one; a location that
// cannot be written warns and the run goes on. Every test points VKPHYS_PIPELINE_CACHE at its
// own temporary directory and restores the variable afterwards.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "host/gpu/primitives.h"
#include "host/vk/buffer.h"
#include "host/vk/context.h"
#include "host/vk/pipeline_cache.h"
#include "tests/gpu_env.h"
#include "tests/scoped_env.h"

namespace vkphys {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<std::byte>;
using test::ScopedEnv;

Bytes read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  const std::vector<char> chars{std::istreambuf_iterator<char>(in), {}};
  Bytes out(chars.size());
  for (std::size_t i = 0; i < chars.size(); ++i) out[i] = static_cast<std::byte>(chars[i]);
  return out;
}

void write_file(const fs::path& path, const Bytes& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

VkPhysicalDeviceProperties properties(const vk::Context& ctx) {
  VkPhysicalDeviceProperties p;
  vkGetPhysicalDeviceProperties(ctx.physical(), &p);
  return p;
}

class PipelineCacheFile : public ::testing::Test {
 protected:
  void SetUp() override {
    VKPHYS_SKIP_WITHOUT_GPU();
    dir_ = fs::path(::testing::TempDir()) /
           ("vkphys_pipeline_cache_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    env_.emplace("VKPHYS_PIPELINE_CACHE", dir_.string());
  }
  void TearDown() override {
    env_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // A context that builds the radix sort's pipelines and sorts a few keys with them (the
  // pipelines work, whatever the cache held), then closes, saving the cache.
  static std::size_t open_build_close() {
    std::unique_ptr<vk::Context> ctx = vk::Context::create({});
    const std::size_t loaded = ctx->pipeline_cache_file().loaded_bytes();
    {
      gpu::RadixSort sort(*ctx, 3000);
      const std::vector<std::uint32_t> keys{5, 3, 9, 1}, values{0, 1, 2, 3};
      vk::Buffer k(*ctx, 16), v(*ctx, 16);
      k.upload(keys.data(), 16);
      v.upload(values.data(), 16);
      ctx->run_once([&](VkCommandBuffer cb) { sort.record(cb, k, v, 4); });
      EXPECT_EQ(k.download<std::uint32_t>(4), (std::vector<std::uint32_t>{1, 3, 5, 9}));
      EXPECT_EQ(v.download<std::uint32_t>(4), (std::vector<std::uint32_t>{3, 1, 0, 2}));
    }
    return loaded;
  }

  // The cache file of the device Context::create picks, the shared context's.
  fs::path file() const {
    return dir_ / vk::PipelineCache::file_name(properties(*test::gpu_context_or_null(nullptr)));
  }

  fs::path dir_;
  std::optional<ScopedEnv> env_;
};

TEST_F(PipelineCacheFile, WrittenByOneContextAndLoadedByTheNext) {
  const fs::path path = file();
  EXPECT_EQ(open_build_close(), 0u);  // nothing on disk yet
  ASSERT_TRUE(fs::exists(path));
  {
    std::unique_ptr<vk::Context> probe = vk::Context::create({});
    EXPECT_EQ(probe->pipeline_cache_file().path(), path);
  }
  const Bytes bytes = read_bytes(path);
  const VkPhysicalDeviceProperties device = properties(*test::gpu_context_or_null(nullptr));
  EXPECT_EQ(vk::PipelineCache::check_file(bytes, device), "");
  // The second context hands the file's whole driver payload, header included, to the driver.
  const std::size_t loaded = open_build_close();
  EXPECT_GE(loaded, sizeof(VkPipelineCacheHeaderVersionOne));
  EXPECT_EQ(loaded, bytes.size() - vk::PipelineCache::kFrameBytes);
}

TEST_F(PipelineCacheFile, BadFilesAreIgnoredWithAWarningAndReplaced) {
  const fs::path path = file();
  open_build_close();
  const Bytes good = read_bytes(path);
  const Bytes payload(good.begin() + vk::PipelineCache::kFrameBytes, good.end());

  Bytes foreign = payload;  // another driver's: the header's pipelineCacheUUID differs
  foreign[offsetof(VkPipelineCacheHeaderVersionOne, pipelineCacheUUID)] ^= std::byte{1};
  const std::string framed = vk::PipelineCache::frame(foreign);
  Bytes wrong_uuid(framed.size());
  for (std::size_t i = 0; i < framed.size(); ++i) wrong_uuid[i] = std::byte(framed[i]);

  Bytes garbage(4096);
  for (std::size_t i = 0; i < garbage.size(); ++i) garbage[i] = std::byte(i * 37 + 11);
  const Bytes truncated(good.begin(), good.end() - 1);
  Bytes flipped = good;  // same length, one data bit changed
  flipped.back() ^= std::byte{0x40};

  for (const auto& [name, bad] : {std::pair<const char*, const Bytes&>{"garbage", garbage},
                                  {"wrong uuid", wrong_uuid},
                                  {"truncated", truncated},
                                  {"one bit flipped", flipped},
                                  {"empty", Bytes{}}}) {
    SCOPED_TRACE(name);
    write_file(path, bad);
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(open_build_close(), 0u);  // nothing of it reached the driver
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_NE(err.find("warning: pipeline cache " + path.string()), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    // Replaced by a valid file, which the next context loads.
    const VkPhysicalDeviceProperties device = properties(*test::gpu_context_or_null(nullptr));
    EXPECT_EQ(vk::PipelineCache::check_file(read_bytes(path), device), "");
    EXPECT_GT(open_build_close(), 0u);
  }
}

TEST_F(PipelineCacheFile, AnUnwritableLocationWarnsAndTheRunGoesOn) {
  fs::create_directories(dir_);
  write_file(dir_ / "a_file", Bytes(3));
  // A directory below a regular file cannot be made, not even by root.
  ScopedEnv inside("VKPHYS_PIPELINE_CACHE", (dir_ / "a_file" / "cache").string());
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(open_build_close(), 0u);  // and its sort was right
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("warning: pipeline cache " + (dir_ / "a_file" / "cache").string()),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("not saved"), std::string::npos) << err;
}

TEST_F(PipelineCacheFile, OffMeansNoCacheAndNoFile) {
  ScopedEnv off("VKPHYS_PIPELINE_CACHE", "off");
  std::unique_ptr<vk::Context> ctx = vk::Context::create({});
  EXPECT_EQ(ctx->pipeline_cache(), VK_NULL_HANDLE);
  EXPECT_TRUE(ctx->pipeline_cache_file().path().empty());
  ctx.reset();
  open_build_close();
  EXPECT_FALSE(fs::exists(dir_));
}

TEST(PipelineCacheDirectory, FromTheEnvironment) {
  ScopedEnv xdg("XDG_CACHE_HOME", "/x/cache");
  ScopedEnv home("HOME", "/home/someone");
  {
    ScopedEnv own("VKPHYS_PIPELINE_CACHE", "/tmp/pc");
    EXPECT_EQ(vk::PipelineCache::directory(), fs::path("/tmp/pc"));
  }
  {
    ScopedEnv own("VKPHYS_PIPELINE_CACHE", "off");
    EXPECT_EQ(vk::PipelineCache::directory(), fs::path());
  }
  ScopedEnv own("VKPHYS_PIPELINE_CACHE", std::nullopt);
  EXPECT_EQ(vk::PipelineCache::directory(), fs::path("/x/cache/vkphys"));
  {
    ScopedEnv no_xdg("XDG_CACHE_HOME", std::nullopt);
    EXPECT_EQ(vk::PipelineCache::directory(), fs::path("/home/someone/.cache/vkphys"));
    ScopedEnv no_home("HOME", std::nullopt);
    EXPECT_EQ(vk::PipelineCache::directory(), fs::path());
  }
}

TEST(PipelineCacheDirectory, FileNamesTellDevicesAndDriversApart) {
  VkPhysicalDeviceProperties a{};
  a.vendorID = 0x10de;
  a.deviceID = 0x2330;
  a.driverVersion = 0x91234000;
  a.pipelineCacheUUID[0] = 0xab;
  VkPhysicalDeviceProperties b = a;
  EXPECT_EQ(vk::PipelineCache::file_name(a),
            "pipelines-10de-2330-91234000-ab000000000000000000000000000000.bin");
  b.driverVersion += 1;
  EXPECT_NE(vk::PipelineCache::file_name(a), vk::PipelineCache::file_name(b));
  b = a;
  b.pipelineCacheUUID[15] = 1;
  EXPECT_NE(vk::PipelineCache::file_name(a), vk::PipelineCache::file_name(b));
}

}  // namespace
}  // namespace vkphys
