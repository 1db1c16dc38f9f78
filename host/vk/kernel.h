// A compute kernel: one SPIR-V shader module, its pipeline, and descriptor sets that bind
// buffers by binding number.
//
// The descriptor-set layout holds exactly the bindings the shader statically uses, read from its
// SPIR-V (host/vk/spirv_reflect.h): a shader may declare more buffers than a stage may bind, as
// long as the functions main() reaches use few enough. bind() takes a table indexed by binding
// number and writes the entries the kernel uses. Push constants are a small block of up to 16
// uint32 words for per-dispatch values (sizes, pass numbers).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>
#include <vector>

#include "host/vk/buffer.h"
#include "host/vk/spirv_reflect.h"

namespace vkphys::vk {

class Kernel {
 public:
  // spirv: the embedded words; push_bytes: push constant size; constants: the values of the
  // shader's 32-bit specialization constants, constant_id i = constants[i] (ids the shader does
  // not declare are ignored).
  Kernel(const Context& ctx, std::string name, std::span<const std::uint32_t> spirv,
         std::uint32_t push_bytes = 0, std::span<const std::uint32_t> constants = {});
  ~Kernel();
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  const std::string& name() const { return name_; }
  // A descriptor set binding buffers[b] to each binding b the shader uses (entries for bindings
  // it does not use are ignored and may be null). The set lives as long as the Kernel (or until
  // reset_sets); the buffers must outlive its use.
  VkDescriptorSet bind(std::initializer_list<const Buffer*> buffers);
  VkDescriptorSet bind(std::span<const Buffer* const> buffers);
  void reset_sets();

  void dispatch(VkCommandBuffer cb, VkDescriptorSet set, std::uint32_t groups,
                const void* push = nullptr) const;
  void dispatch_indirect(VkCommandBuffer cb, VkDescriptorSet set, const Buffer& args,
                         VkDeviceSize offset, const void* push = nullptr) const;

 private:
  void bind_common(VkCommandBuffer cb, VkDescriptorSet set, const void* push) const;
  const Context& ctx_;
  std::string name_;
  std::vector<ShaderBinding> bindings_;
  std::uint32_t push_bytes_;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  std::vector<VkDescriptorPool> pools_;
  std::uint32_t sets_in_pool_ = 0;
};

// Workgroups needed to cover `count` elements with `group_size` invocations each.
inline std::uint32_t groups_for(std::uint64_t count, std::uint32_t group_size) {
  return static_cast<std::uint32_t>((count + group_size - 1) / group_size);
}

// A full barrier between dependent compute dispatches (and transfers, and indirect reads).
void barrier(VkCommandBuffer cb);

// A full barrier whose second scope is the host as well: after a submission's last copies, it
// makes them visible to a host that has waited for the fence (barrier_to_host) and orders
// every later command on the queue, in later submissions too, after everything before it.
// A submission may then follow this one before the host has waited for it.
void barrier_to_host_and_queue(VkCommandBuffer cb);

// A barrier between compute dispatches only: earlier storage writes made visible to later
// dispatches' storage reads and writes, after earlier indirect-argument reads (so a dispatch may
// overwrite what an earlier one read its size from). It does not make writes visible to indirect
// reads or transfers: a dispatch whose size was written since the last full barrier, or a
// transfer, needs barrier() first. Why both: on an H200 a chain of one-workgroup dispatches cost
// 7.6 us a link with two full barriers and 4.0 us with two barriers without the indirect-read
// stage as destination, whose wait holds the command front end (docs/benchmarks.md, 2026-11-28).
void compute_barrier(VkCommandBuffer cb);

// GPU timestamps for per-stage timing. write(cb, i) records timestamp i after all prior work.
class Timestamps {
 public:
  Timestamps(const Context& ctx, std::uint32_t count);
  ~Timestamps();
  Timestamps(const Timestamps&) = delete;
  Timestamps& operator=(const Timestamps&) = delete;
  bool supported() const { return pool_ != VK_NULL_HANDLE; }
  void reset(VkCommandBuffer cb) const;
  void write(VkCommandBuffer cb, std::uint32_t index) const;
  // Milliseconds between consecutive timestamps 0..count-1 (count-1 values); empty if unsupported.
  std::vector<double> read_intervals_ms() const;
  // The same from `ticks`, the count values copy_to left in a buffer.
  std::vector<double> intervals_ms(const std::uint64_t* ticks) const;
  // Copies the timestamps (64-bit ticks, waiting until they are written) into `dst`: a transfer
  // write, to be made visible by the caller's barrier. Nothing if unsupported.
  void copy_to(VkCommandBuffer cb, const Buffer& dst) const;

 private:
  const Context& ctx_;
  std::uint32_t count_;
  VkQueryPool pool_ = VK_NULL_HANDLE;
};

}  // namespace vkphys::vk
