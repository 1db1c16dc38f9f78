#include "host/gpu/device_speed.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>

#include "host/gpu/primitives.h"
#include "host/vk/buffer.h"
#include "host/vk/kernel.h"
#include "scan_blocks.spv.h"
#include "vkphys/error.h"

namespace vkphys::gpu {
namespace {

constexpr int kRepeats = 3;
// Large enough that a copy is bandwidth-bound on a GPU (a few hundred microseconds on an H100),
// small enough for a CPU driver's memcpy to take a fraction of a second.
constexpr VkDeviceSize kGpuCopyBytes = VkDeviceSize{256} << 20;
constexpr VkDeviceSize kCpuCopyBytes = VkDeviceSize{32} << 20;
// A chain long enough that the submit's own cost is negligible beside it.
constexpr std::uint32_t kChain = 256;

// The milliseconds between two timestamps around what `record` records, best of kRepeats.
template <class Record>
double best_ms(const vk::Context& ctx, Record record) {
  double best = std::numeric_limits<double>::infinity();
  for (int k = 0; k < kRepeats; ++k) {
    vk::Timestamps stamps(ctx, 2);
    ctx.run_once([&](VkCommandBuffer cb) {
      stamps.reset(cb);
      vk::barrier(cb);
      stamps.write(cb, 0);
      record(cb);
      stamps.write(cb, 1);
    });
    best = std::min(best, stamps.read_intervals_ms().at(0));
  }
  return best;
}

}  // namespace

DeviceSpeed measure_device_speed(const vk::Context& ctx) {
  if (!ctx.info().timestamps) {
    throw Error("measure_speed: " + ctx.info().name + " has no timestamps to time with");
  }
  const VkDeviceSize bytes = ctx.info().type == "cpu" ? kCpuCopyBytes : kGpuCopyBytes;
  const vk::Buffer from(ctx, bytes), to(ctx, bytes);
  const double copy_ms = best_ms(ctx, [&](VkCommandBuffer cb) { vk::copy(cb, from, to, bytes); });

  // A compute kernel streaming bytes, as the step's own kernels move theirs: the in-place scan
  // (primitives.h) of half the buffer as 32-bit words (all of it would need 65,536 workgroups in
  // one dispatch, one past what a device must allow). Its first level reads and writes every
  // word twice (scan_blocks, then scan_add): 4 x its bytes moved; the upper levels' block sums
  // (1/1024 of that) are not counted, so the figure errs low.
  const auto words = static_cast<std::uint32_t>(bytes / (2 * sizeof(std::uint32_t)));
  Scan stream(ctx, words);
  const double kernel_ms =
      best_ms(ctx, [&](VkCommandBuffer cb) { stream.record(cb, from, words); });
  const double kernel_bytes = 4.0 * sizeof(std::uint32_t) * words;

  // The smallest real dispatch there is, followed as the step follows most of its own: one
  // workgroup of the scan's first level over one element, then a compute-only barrier
  // (vk::compute_barrier; the full one costs about twice as much a link on an H200).
  const vk::Buffer word(ctx, sizeof(std::uint32_t)), sum(ctx, sizeof(std::uint32_t));
  vk::Kernel blocks(ctx, "scan_blocks", std::span<const std::uint32_t>(scan_blocks_spv),
                    sizeof(std::uint32_t));
  const VkDescriptorSet set = blocks.bind({&word, &sum});
  const std::uint32_t one = 1;
  const double chain_ms = best_ms(ctx, [&](VkCommandBuffer cb) {
    for (std::uint32_t k = 0; k < kChain; ++k) {
      blocks.dispatch(cb, set, 1, &one);
      vk::compute_barrier(cb);
    }
  });
  DeviceSpeed s;
  s.copy_gb_per_s = copy_ms > 0.0 ? 2.0 * static_cast<double>(bytes) / (copy_ms * 1e6) : 0.0;
  s.kernel_gb_per_s = kernel_ms > 0.0 ? kernel_bytes / (kernel_ms * 1e6) : 0.0;
  s.dispatch_us = 1000.0 * chain_ms / kChain;
  return s;
}

}  // namespace vkphys::gpu
