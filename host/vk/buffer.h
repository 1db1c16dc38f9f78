// Storage buffers: device-local memory for the kernels, with blocking uploads and downloads
// through a host-visible staging buffer. On a unified-memory device (lavapipe) the memory type
// is host-visible too, but the staging path is kept so both cases run the same code.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "host/vk/context.h"

namespace vkphys::vk {

class Buffer {
 public:
  Buffer() = default;
  // size may be 0: a 16-byte buffer is made so descriptors stay valid.
  Buffer(const Context& ctx, VkDeviceSize size, VkBufferUsageFlags extra_usage = 0,
         bool host_visible = false);
  ~Buffer();
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  VkBuffer handle() const { return buffer_; }
  VkDeviceSize size() const { return size_; }
  void* mapped() const { return mapped_; }  // only for host_visible buffers
  // The properties of the memory type it was given (buffer.cpp says which it asks for).
  VkMemoryPropertyFlags memory_flags() const { return memory_flags_; }

  void upload(const void* data, VkDeviceSize bytes, VkDeviceSize offset = 0);
  void download(void* data, VkDeviceSize bytes, VkDeviceSize offset = 0) const;

  template <class T>
  void upload(std::span<const T> data, VkDeviceSize offset = 0) {
    upload(data.data(), data.size_bytes(), offset);
  }
  template <class T>
  std::vector<T> download(std::size_t count, VkDeviceSize offset = 0) const {
    std::vector<T> out(count);
    if (count) download(out.data(), count * sizeof(T), offset);
    return out;
  }
  // Records a fill with a 32-bit value of `bytes` (a multiple of 4; VK_WHOLE_SIZE: to the end
  // of the buffer) from byte `offset` (a multiple of 4): the whole buffer by default, nothing
  // for an offset at or past size() or no bytes.
  void fill(VkCommandBuffer cb, std::uint32_t value, VkDeviceSize offset = 0,
            VkDeviceSize bytes = VK_WHOLE_SIZE) const;

 private:
  void release();
  const Context* ctx_ = nullptr;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize size_ = 0;
  VkDeviceSize allocated_ = 0;  // device memory held (counted in Context::allocated_bytes)
  void* mapped_ = nullptr;
  VkMemoryPropertyFlags memory_flags_ = 0;
};

// One part of a batched transfer: `bytes` from `offset` in `buffer` to `host`, or back.
struct DownloadPart {
  const Buffer* buffer;
  VkDeviceSize offset;
  void* host;
  VkDeviceSize bytes;
};
struct UploadPart {
  Buffer* buffer;
  VkDeviceSize offset;
  const void* host;
  VkDeviceSize bytes;
};
// Every part in one submission and one wait, through one staging buffer (mapped buffers are
// copied directly): a checkpoint's dozen carried buffers cost one submit, not a dozen. A part
// past its buffer's end throws before anything moves.
void download(const Context& ctx, std::span<const DownloadPart> parts);
void upload(const Context& ctx, std::span<const UploadPart> parts);

// A device-local storage buffer of `bytes`, after checking them against the device's
// maxStorageBufferRange; the error names the buffer (`what`) and says what to do (`advice`).
Buffer storage_buffer(const Context& ctx, VkDeviceSize bytes, const std::string& what,
                      const std::string& advice);

// Records a copy of `bytes` from src to dst.
void copy(VkCommandBuffer cb, const Buffer& src, const Buffer& dst, VkDeviceSize bytes);

// Transfer writes made available and visible to the host, recorded after the copies the host
// will read once the submission's fence has signalled: a fence orders the device's writes
// before the wait but makes none of them visible to the host by itself (the Vulkan spec's
// note under "Fences").
void barrier_to_host(VkCommandBuffer cb);

}  // namespace vkphys::vk
