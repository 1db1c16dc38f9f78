#include "host/vk/pipeline_cache.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

#include "host/vk/context.h"

namespace vkphys::vk {

namespace {

constexpr char kMagic[8] = {'v', 'k', 'p', 'h', 'y', 's', 'P', 'C'};
constexpr std::size_t kFrame = PipelineCache::kFrameBytes;
static_assert(kFrame == sizeof(kMagic) + 2 * sizeof(std::uint64_t));  // magic, size, hash

std::uint64_t fnv1a(std::span<const std::byte> data) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::byte b : data) {
    h ^= static_cast<std::uint64_t>(b);
    h *= 0x100000001b3ull;
  }
  return h;
}

std::uint64_t read_u64(const std::byte* p) {
  std::uint64_t v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%llx", static_cast<unsigned long long>(v));
  return buf;
}

void warn(const std::filesystem::path& path, const std::string& what) {
  std::fprintf(stderr, "vkphys: warning: pipeline cache %s %s\n", path.c_str(), what.c_str());
  std::fflush(stderr);
}

}  // namespace

std::filesystem::path PipelineCache::directory() {
  const auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  const std::string own = env("VKPHYS_PIPELINE_CACHE");
  if (own == "off") return {};
  if (!own.empty()) return own;
  const std::string xdg = env("XDG_CACHE_HOME");
  if (!xdg.empty()) return std::filesystem::path(xdg) / "vkphys";
  const std::string home = env("HOME");
  if (!home.empty()) return std::filesystem::path(home) / ".cache" / "vkphys";
  return {};
}

std::string PipelineCache::file_name(const VkPhysicalDeviceProperties& p) {
  std::string uuid;
  for (std::uint8_t b : p.pipelineCacheUUID) {
    char two[3];
    std::snprintf(two, sizeof two, "%02x", b);
    uuid += two;
  }
  return "pipelines-" + hex(p.vendorID) + "-" + hex(p.deviceID) + "-" + hex(p.driverVersion) + "-" +
         uuid + ".bin";
}

std::string PipelineCache::frame(std::span<const std::byte> payload) {
  std::string out(kMagic, sizeof kMagic);
  const std::uint64_t size = payload.size(), hash = fnv1a(payload);
  out.append(reinterpret_cast<const char*>(&size), sizeof size);
  out.append(reinterpret_cast<const char*>(&hash), sizeof hash);
  out.append(reinterpret_cast<const char*>(payload.data()), payload.size());
  return out;
}

std::string PipelineCache::check_file(std::span<const std::byte> file,
                                      const VkPhysicalDeviceProperties& p) {
  if (file.size() < kFrame || std::memcmp(file.data(), kMagic, sizeof kMagic) != 0) {
    return "is not a vkphys pipeline cache (" + std::to_string(file.size()) + " bytes)";
  }
  const std::span<const std::byte> payload = file.subspan(kFrame);
  const std::uint64_t size = read_u64(file.data() + sizeof kMagic);
  if (size != payload.size()) {
    return "is truncated or overlong: " + std::to_string(payload.size()) + " data bytes, " +
           std::to_string(size) + " expected";
  }
  if (read_u64(file.data() + sizeof kMagic + 8) != fnv1a(payload)) {
    return "is corrupt (its checksum does not match its data)";
  }
  VkPipelineCacheHeaderVersionOne header;
  if (payload.size() < sizeof header) {
    return "holds " + std::to_string(payload.size()) + " data bytes, fewer than the " +
           std::to_string(sizeof header) + " of a Vulkan pipeline cache header";
  }
  std::memcpy(&header, payload.data(), sizeof header);
  if (header.headerSize < sizeof header || header.headerSize > payload.size() ||
      header.headerVersion != VK_PIPELINE_CACHE_HEADER_VERSION_ONE) {
    return "has a bad Vulkan header (size " + std::to_string(header.headerSize) + ", version " +
           std::to_string(header.headerVersion) + ")";
  }
  if (header.vendorID != p.vendorID || header.deviceID != p.deviceID) {
    return "was made for vendor " + hex(header.vendorID) + " device " + hex(header.deviceID) +
           ", not vendor " + hex(p.vendorID) + " device " + hex(p.deviceID);
  }
  if (std::memcmp(header.pipelineCacheUUID, p.pipelineCacheUUID, VK_UUID_SIZE) != 0) {
    return "was made by another driver build (its pipelineCacheUUID differs)";
  }
  return "";
}

PipelineCache::PipelineCache(VkDevice device, const VkPhysicalDeviceProperties& properties)
    : device_(device) {
  const std::filesystem::path dir = directory();
  std::vector<std::byte> file;
  if (!dir.empty()) {
    path_ = dir / file_name(properties);
    std::ifstream in(path_, std::ios::binary);
    if (in) {
      const std::vector<char> bytes{std::istreambuf_iterator<char>(in), {}};
      file.resize(bytes.size());
      std::memcpy(file.data(), bytes.data(), bytes.size());
      const std::string why = check_file(file, properties);
      if (!why.empty()) {
        warn(path_, why + "; ignored, and replaced when this run saves its cache");
        file.clear();
      }
    }
  }
  if (path_.empty()) return;  // off: pipelines are made without a cache, as before
  VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  if (!file.empty()) {
    const std::span<const std::byte> payload = std::span<const std::byte>(file).subspan(kFrame);
    info.initialDataSize = payload.size();
    info.pInitialData = payload.data();
    loaded_bytes_ = saved_size_ = payload.size();
    saved_hash_ = fnv1a(payload);
  }
  check(vkCreatePipelineCache(device, &info, nullptr, &cache_), "vkCreatePipelineCache");
}

PipelineCache::~PipelineCache() {
  try {
    save();
  } catch (...) {  // a destructor: the cache is a convenience, never a failure
  }
  vkDestroyPipelineCache(device_, cache_, nullptr);
}

bool PipelineCache::save() {
  if (path_.empty()) return true;
  std::size_t size = 0;
  check(vkGetPipelineCacheData(device_, cache_, &size, nullptr), "vkGetPipelineCacheData");
  std::vector<std::byte> data(size);
  if (size > 0) {
    check(vkGetPipelineCacheData(device_, cache_, &size, data.data()), "vkGetPipelineCacheData");
    data.resize(size);
  }
  const std::uint64_t hash = fnv1a(data);
  if (data.empty() || (size == saved_size_ && hash == saved_hash_)) return true;

  // A name of this process and call beside the target, so concurrent writers never share one.
  static std::atomic<std::uint64_t> serial{0};
  const std::filesystem::path tmp = path_.string() + ".tmp." + std::to_string(::getpid()) + "." +
                                    std::to_string(serial.fetch_add(1));
  std::error_code ec;
  std::filesystem::create_directories(path_.parent_path(), ec);
  std::string why = ec ? "cannot create its directory: " + ec.message() : "";
  if (why.empty()) {
    const std::string bytes = frame(data);
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      why = "cannot write " + tmp.string() + ": " + std::strerror(errno);
    } else {
      std::filesystem::rename(tmp, path_, ec);
      if (ec) why = "cannot rename " + tmp.string() + " over it: " + ec.message();
    }
    if (!why.empty()) std::filesystem::remove(tmp, ec);
  }
  if (!why.empty()) {
    if (!warned_) warn(path_, "not saved: " + why + " (the run goes on without it)");
    warned_ = true;
    return false;
  }
  saved_size_ = size;
  saved_hash_ = hash;
  return true;
}

}  // namespace vkphys::vk
