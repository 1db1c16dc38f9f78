// The pipeline cache on disk: one VkPipelineCache per vk::Context, so that a second run on the
// same device and driver skips the driver's shader compilation (tens of pipelines; seconds on
// some drivers).
//
// Where: the directory $VKPHYS_PIPELINE_CACHE if set ("off" turns the cache off), else
// $XDG_CACHE_HOME/vkphys, else ~/.cache/vkphys. One file per device and driver, named by the
// vendor and device ids, the driver version and the pipelineCacheUUID, so that two cards or a
// driver update never read each other's data.
//
// The file is a small vkphys frame (magic, payload size, FNV-1a hash of the payload) around the
// driver's vkGetPipelineCacheData bytes. Before any byte reaches the driver the frame must be
// whole and its hash right (a truncated or overwritten file fails here), and the payload must
// start with a VkPipelineCacheHeaderVersionOne naming this device's vendor, device and cache
// UUID. A file that fails is ignored with a one-line warning naming it, and replaced at the next
// save. The save writes a temporary file beside the target and renames it over the target, so
// readers (another process, a crash) see the old file or the new one, never half of one. A cache
// that cannot be read or written never fails a run: it warns once and the run goes on without.
#pragma once

#include <volk.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace vkphys::vk {

class PipelineCache {
 public:
  // Loads the file for this device (if the cache is on and the file is valid) into a new
  // VkPipelineCache. Throws only for a failing vkCreatePipelineCache.
  PipelineCache(VkDevice device, const VkPhysicalDeviceProperties& properties);
  // Saves (see save) and destroys the cache.
  ~PipelineCache();
  PipelineCache(const PipelineCache&) = delete;
  PipelineCache& operator=(const PipelineCache&) = delete;

  VkPipelineCache handle() const { return cache_; }
  // The cache file; empty when the cache is off (VKPHYS_PIPELINE_CACHE=off, or no directory).
  const std::filesystem::path& path() const { return path_; }
  // Bytes of driver data read from a valid file and handed to the driver at creation (0: none).
  std::size_t loaded_bytes() const { return loaded_bytes_; }
  // Writes the driver's current data to the file, atomically, unless it equals what was loaded
  // or last saved. Returns false (after a one-line warning) when it could not be written.
  bool save();

  // Bytes of the vkphys frame before the driver's data: magic, payload size, payload hash.
  static constexpr std::size_t kFrameBytes = 24;

  // The directory the environment names (empty: off), and the file name for a device.
  static std::filesystem::path directory();
  static std::string file_name(const VkPhysicalDeviceProperties& properties);
  // Why `file` (a whole cache file) cannot be used on this device, or "" when it can.
  static std::string check_file(std::span<const std::byte> file,
                                const VkPhysicalDeviceProperties& properties);
  // The file for `payload` (the driver's data): the frame around it.
  static std::string frame(std::span<const std::byte> payload);

 private:
  VkDevice device_ = VK_NULL_HANDLE;
  VkPipelineCache cache_ = VK_NULL_HANDLE;
  std::filesystem::path path_;
  std::size_t loaded_bytes_ = 0;
  std::uint64_t saved_hash_ = 0;  // hash and size of the data on disk (loaded or saved)
  std::size_t saved_size_ = 0;
  bool warned_ = false;  // one warning per context about an unwritable location
};

}  // namespace vkphys::vk
