#include "host/vk/buffer.h"

#include <cstring>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

#include "host/vk/record_counts.h"

namespace vkphys::vk {

namespace {

struct Raw {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  VkDeviceSize bytes = 0;           // the allocation's size
  VkMemoryPropertyFlags flags = 0;  // its memory type's
};

// Host-visible memory is where the host reads what the device wrote (the state, the step's
// counters, downloads) and writes what it reads (the step constants, uploads): cached memory
// where the device has a host-visible, coherent type that is. On a discrete NVIDIA GPU the
// first such type is not: it is write-combined, which suits the host's writes but makes its
// reads uncached. (On an H200 the soak of 100,000 particles, which reads their 3.2 MB of state
// back every step, took 5.3 ms a step against the bench's 3.0 without the reads; docs/soak.md.)
constexpr VkMemoryPropertyFlags kHostVisible =
    VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
constexpr VkMemoryPropertyFlags kHostPreferred = VK_MEMORY_PROPERTY_HOST_CACHED_BIT;

Raw make(const Context& ctx, VkDeviceSize size, VkBufferUsageFlags usage,
         VkMemoryPropertyFlags props) {
  Raw raw;
  VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  info.size = size;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check(vkCreateBuffer(ctx.device(), &info, nullptr, &raw.buffer), "vkCreateBuffer");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(ctx.device(), raw.buffer, &req);
  VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  alloc.allocationSize = req.size;
  const Context::MemoryType type =
      ctx.find_memory_type(req.memoryTypeBits, props, props == kHostVisible ? kHostPreferred : 0u);
  alloc.memoryTypeIndex = type.index;
  raw.flags = type.flags;
  VkResult r = ctx.injected_allocation_result(size);
  if (r == VK_SUCCESS) r = vkAllocateMemory(ctx.device(), &alloc, nullptr, &raw.memory);
  if (r != VK_SUCCESS) {
    vkDestroyBuffer(ctx.device(), raw.buffer, nullptr);
    if (r == VK_ERROR_DEVICE_LOST) throw DeviceLost("vkAllocateMemory");
    // storage_buffer names the buffer; elsewhere (staging, step constants) the bytes must do.
    throw OutOfMemory(size, r, "a buffer", "use a smaller scene or --backend cpu");
  }
  check(vkBindBufferMemory(ctx.device(), raw.buffer, raw.memory, 0), "vkBindBufferMemory");
  raw.bytes = req.size;
  return raw;
}

// A temporary host-visible buffer for one transfer.
struct Staging {
  const Context& ctx;
  Raw raw;
  void* ptr = nullptr;
  Staging(const Context& c, VkDeviceSize size) : ctx(c) {
    raw = make(c, size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
               kHostVisible);
    check(vkMapMemory(c.device(), raw.memory, 0, VK_WHOLE_SIZE, 0, &ptr), "vkMapMemory");
  }
  ~Staging() {
    vkUnmapMemory(ctx.device(), raw.memory);
    vkDestroyBuffer(ctx.device(), raw.buffer, nullptr);
    vkFreeMemory(ctx.device(), raw.memory, nullptr);
  }
};

}  // namespace

Buffer::Buffer(const Context& ctx, VkDeviceSize size, VkBufferUsageFlags extra_usage,
               bool host_visible)
    : ctx_(&ctx), size_(size) {
  VkDeviceSize alloc_size = size < 16 ? 16 : (size + 15) / 16 * 16;
  VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                             VK_BUFFER_USAGE_TRANSFER_DST_BIT | extra_usage;
  Raw raw = make(
      ctx, alloc_size, usage,
      host_visible ? kHostVisible : VkMemoryPropertyFlags{VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT});
  buffer_ = raw.buffer;
  memory_ = raw.memory;
  allocated_ = raw.bytes;
  memory_flags_ = raw.flags;
  ctx.count_allocation(static_cast<std::int64_t>(allocated_));
  if (host_visible)
    check(vkMapMemory(ctx.device(), memory_, 0, VK_WHOLE_SIZE, 0, &mapped_), "vkMapMemory");
}

Buffer::~Buffer() {
  release();
}

void Buffer::release() {
  if (!ctx_) return;
  if (mapped_) vkUnmapMemory(ctx_->device(), memory_);
  if (buffer_) vkDestroyBuffer(ctx_->device(), buffer_, nullptr);
  if (memory_) vkFreeMemory(ctx_->device(), memory_, nullptr);
  ctx_->count_allocation(-static_cast<std::int64_t>(allocated_));
  allocated_ = 0;
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  mapped_ = nullptr;
  memory_flags_ = 0;
}

Buffer::Buffer(Buffer&& other) noexcept {
  *this = std::move(other);
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    ctx_ = std::exchange(other.ctx_, nullptr);
    buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    size_ = std::exchange(other.size_, 0);
    allocated_ = std::exchange(other.allocated_, 0);
    memory_flags_ = std::exchange(other.memory_flags_, 0);
    mapped_ = std::exchange(other.mapped_, nullptr);
  }
  return *this;
}

void Buffer::upload(const void* data, VkDeviceSize bytes, VkDeviceSize offset) {
  const UploadPart part{this, offset, data, bytes};
  vk::upload(*ctx_, std::span(&part, 1));
}

void Buffer::download(void* data, VkDeviceSize bytes, VkDeviceSize offset) const {
  const DownloadPart part{this, offset, data, bytes};
  vk::download(*ctx_, std::span(&part, 1));
}

namespace {

// A part moves through the staging buffer unless it is empty or its buffer is mapped (then the
// host copies it directly).
template <class Part>
bool staged(const Part& p) {
  return p.bytes != 0 && !p.buffer->mapped();
}

// Each staged part's offset in the staging buffer, 16-byte aligned, and their total; a part past
// its buffer's end throws, naming the direction, before anything moves.
template <class Part>
std::vector<VkDeviceSize> staging_offsets(std::span<const Part> parts, const char* what,
                                          VkDeviceSize& total) {
  std::vector<VkDeviceSize> at(parts.size(), 0);
  total = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const Part& p = parts[i];
    if (p.offset + p.bytes > p.buffer->size())
      throw Error(std::string(what) + " past the end of the buffer");
    if (!staged(p)) continue;
    at[i] = total;
    total += (p.bytes + 15) / 16 * 16;
  }
  return at;
}

}  // namespace

void upload(const Context& ctx, std::span<const UploadPart> parts) {
  VkDeviceSize total = 0;
  const std::vector<VkDeviceSize> at = staging_offsets(parts, "Buffer::upload", total);
  std::optional<Staging> staging;
  if (total > 0) staging.emplace(ctx, total);
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const UploadPart& p = parts[i];
    if (p.bytes == 0) continue;
    char* to = staged(p) ? static_cast<char*>(staging->ptr) + at[i]
                         : static_cast<char*>(p.buffer->mapped()) + p.offset;
    std::memcpy(to, p.host, p.bytes);
  }
  if (!staging) return;
  ctx.run_once([&](VkCommandBuffer cb) {
    for (std::size_t i = 0; i < parts.size(); ++i) {
      if (!staged(parts[i])) continue;
      const VkBufferCopy region{at[i], parts[i].offset, parts[i].bytes};
      vkCmdCopyBuffer(cb, staging->raw.buffer, parts[i].buffer->handle(), 1, &region);
    }
  });
}

void download(const Context& ctx, std::span<const DownloadPart> parts) {
  VkDeviceSize total = 0;
  const std::vector<VkDeviceSize> at = staging_offsets(parts, "Buffer::download", total);
  std::optional<Staging> staging;
  if (total > 0) {
    staging.emplace(ctx, total);
    ctx.run_once([&](VkCommandBuffer cb) {
      for (std::size_t i = 0; i < parts.size(); ++i) {
        if (!staged(parts[i])) continue;
        const VkBufferCopy region{parts[i].offset, at[i], parts[i].bytes};
        vkCmdCopyBuffer(cb, parts[i].buffer->handle(), staging->raw.buffer, 1, &region);
      }
      barrier_to_host(cb);
    });
  }
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const DownloadPart& p = parts[i];
    if (p.bytes == 0) continue;
    const char* from = staged(p) ? static_cast<const char*>(staging->ptr) + at[i]
                                 : static_cast<const char*>(p.buffer->mapped()) + p.offset;
    std::memcpy(p.host, from, p.bytes);
  }
}

void barrier_to_host(VkCommandBuffer cb) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0,
                       nullptr, 0, nullptr);
  RecordCounts::count_barrier();
}

void Buffer::fill(VkCommandBuffer cb, std::uint32_t value, VkDeviceSize offset,
                  VkDeviceSize bytes) const {
  if (offset >= size_ || bytes == 0) return;
  vkCmdFillBuffer(cb, buffer_, offset, bytes, value);
}

void copy(VkCommandBuffer cb, const Buffer& src, const Buffer& dst, VkDeviceSize bytes) {
  if (bytes == 0) return;
  VkBufferCopy region{0, 0, bytes};
  vkCmdCopyBuffer(cb, src.handle(), dst.handle(), 1, &region);
}

Buffer storage_buffer(const Context& ctx, VkDeviceSize bytes, const std::string& what,
                      const std::string& advice) {
  if (bytes > ctx.info().max_storage_buffer_range) {
    throw std::runtime_error(what + " need " + std::to_string(bytes) +
                             " bytes, over this device's maxStorageBufferRange of " +
                             std::to_string(ctx.info().max_storage_buffer_range) + " bytes; " +
                             advice);
  }
  try {
    return Buffer(ctx, bytes);
  } catch (const OutOfMemory& e) {
    throw OutOfMemory(e.bytes, e.result, what, advice);
  }
}

}  // namespace vkphys::vk
