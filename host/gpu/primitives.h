// GPU primitives: exclusive prefix scan and a stable key-value LSD radix sort on 32-bit keys.
//
// Both record into a caller's command buffer so they can be part of a recorded step, and own
// their scratch buffers (sized for `capacity` elements at construction). Their CPU twins, the
// same algorithms as plain loops, are in host/cpu/primitives.h.
#pragma once

#include <cstdint>
#include <memory>

#include "host/vk/kernel.h"

namespace vkphys::gpu {

// In-place exclusive scan of `count` uint32 values at the start of `data`.
class Scan {
 public:
  Scan(const vk::Context& ctx, std::uint32_t capacity);
  ~Scan();
  // Records the scan; a barrier is recorded before and after. count <= capacity.
  void record(VkCommandBuffer cb, const vk::Buffer& data, std::uint32_t count);
  std::uint32_t dispatches(std::uint32_t count) const;  // dispatches one record() makes

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// In-place stable sort of (keys, values) pairs by the low `key_bits` bits of the keys.
class RadixSort {
 public:
  RadixSort(const vk::Context& ctx, std::uint32_t capacity);
  ~RadixSort();
  void record(VkCommandBuffer cb, const vk::Buffer& keys, const vk::Buffer& values,
              std::uint32_t count, std::uint32_t key_bits = 32);
  std::uint32_t dispatches(std::uint32_t count, std::uint32_t key_bits = 32) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vkphys::gpu
