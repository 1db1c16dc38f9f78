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

// Where a list's live count is on the device: the 32-bit word `word` of `buffer`, written by an
// earlier command of the same submission.
struct LiveCount {
  const vk::Buffer* buffer = nullptr;
  std::uint32_t word = 0;
};

// In-place stable sort of (keys, values) pairs by the low `key_bits` bits of the keys.
class RadixSort {
 public:
  RadixSort(const vk::Context& ctx, std::uint32_t capacity);
  ~RadixSort();
  // With `live`, only the first min(count, live count) pairs are sorted and the rest are left
  // where they are: the whole list's order when they are in their sorted places already (each
  // key after every key before it, in input order among equals, as a tail of the largest key),
  // and otherwise the order of the live pairs for a caller that reads only those (the
  // colouring's passes, host/gpu/step_recording.cpp). A colouring's 1,088-unit capacity with no
  // unit took 7 ms a step on lavapipe sorted whole, nothing at the live count. The block sort's
  // dispatches are still sized on the host for `count`: its blocks past the live pairs copy them
  // through each pass, and the scans cover every block's (zero) histogram.
  void record(VkCommandBuffer cb, const vk::Buffer& keys, const vk::Buffer& values,
              std::uint32_t count, std::uint32_t key_bits = 32, LiveCount live = {});
  std::uint32_t dispatches(std::uint32_t count, std::uint32_t key_bits = 32) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vkphys::gpu
