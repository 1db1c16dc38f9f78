// GPU prefix scan and radix sort (see host/gpu/primitives.h and kernels/radix.h).
//
// Scan: level 0 is the caller's data. Each level runs scan_blocks (exclusive scan of each block
// of kScanBlock elements in place, block totals into the level's sums buffer); when a level has
// more than one block, its sums are scanned as the next level and scan_add adds them back.
//
// RadixSort: per pass of up to `width` bits (8 to 11, kernels/radix.h radix_width), sort_histogram
// writes per-block digit counts digit-major (2^bits digits x blocks entries), Scan turns them into
// output offsets, and sort_scatter moves
// the pairs stably into the other buffer of a ping-pong pair (the caller's buffers and an
// internal scratch pair). After an odd number of passes the result is copied back into the
// caller's buffers. Up to VKPHYS_LOCAL_SORT_MAX pairs sort in one dispatch of one workgroup
// instead (shaders/sort_local.comp), with the same result.
//
// Descriptor sets for the caller's buffers are made on first use and cached per VkBuffer handle
// (and size): pass long-lived buffers, and make a new Scan/RadixSort after destroying a buffer
// that was passed to it, since a new buffer may reuse the old handle.
#include "host/gpu/primitives.h"

#include <algorithm>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/limits.h"
#include "kernels/radix.h"
#include "scan_add.spv.h"
#include "scan_blocks.spv.h"
#include "sort_histogram.spv.h"
#include "sort_local.spv.h"
#include "sort_scatter.spv.h"

namespace vkphys::gpu {

namespace {

constexpr std::uint32_t kScanBlock = VKPHYS_SCAN_BLOCK;
constexpr std::uint32_t kSortBlock = VKPHYS_SORT_BLOCK;
constexpr std::uint32_t kMaxDigits = VKPHYS_RADIX_MAX_DIGITS;
static_assert(kScanBlock == VKPHYS_SCAN_GROUP * VKPHYS_SCAN_ITEMS);
static_assert(kSortBlock == VKPHYS_GROUP_SIZE * VKPHYS_SORT_ITEMS);
static_assert(kMaxDigits == 1u << VKPHYS_RADIX_MAX_BITS);
constexpr VkDeviceSize kWord = sizeof(std::uint32_t);

template <std::size_t N>
std::span<const std::uint32_t> spirv(const std::uint32_t (&words)[N]) {
  return std::span<const std::uint32_t>(words, N);
}

std::uint32_t blocks_for(std::uint32_t count, std::uint32_t block) {
  return vk::groups_for(count, block);
}

// Throws unless `words` 32-bit words of `what` fit in one storage buffer binding on this device.
void check_range(const vk::Context& ctx, std::uint64_t words, const std::string& what) {
  const std::uint64_t limit = ctx.info().max_storage_buffer_range;
  if (limit != 0 && words * kWord > limit) {
    throw std::invalid_argument(what + " needs " + std::to_string(words * kWord) +
                                " bytes, over the device's storage buffer range of " +
                                std::to_string(limit) + " bytes");
  }
}

// Returns `capacity` after checking that it fits in one storage buffer binding on this device
// and that one dispatch of a block per workgroup stays within the guaranteed 65535 workgroups.
std::uint32_t checked_capacity(const vk::Context& ctx, std::uint32_t capacity, const char* what) {
  check_range(ctx, capacity, std::string(what) + ": capacity " + std::to_string(capacity));
  constexpr std::uint64_t kMaxGroups = 65535;
  if (capacity > kMaxGroups * std::min(kScanBlock, kSortBlock)) {
    throw std::invalid_argument(std::string(what) + ": capacity " + std::to_string(capacity) +
                                " needs more than 65535 workgroups per dispatch");
  }
  return capacity;
}

struct ScanPush {
  std::uint32_t count;
};

// Entries of a pass's digit-major histogram: only the digits the pass's bits can take.
std::uint32_t histogram_entries(std::uint32_t pass, std::uint32_t key_bits, std::uint32_t width,
                                std::uint32_t blocks) {
  return (1u << kern::radix_pass_bits(pass, key_bits, width)) * blocks;
}

struct SortPush {
  std::uint32_t count;
  std::uint32_t pass_index;
  std::uint32_t key_bits;
  std::uint32_t blocks;
  std::uint32_t width;
  std::uint32_t live_word;  // where the live count is in the Live binding (shaders/sort_*.comp)
};

}  // namespace

// ---- Scan ------------------------------------------------------------------------------------

struct Scan::Impl {
  struct Level {
    VkDescriptorSet blocks = VK_NULL_HANDLE;  // scan_blocks(data of this level, sums[level])
    VkDescriptorSet add = VK_NULL_HANDLE;     // scan_add(data of this level, sums[level])
  };
  struct Cached {
    VkBuffer handle;
    VkDeviceSize size;
    Level sets;
  };

  Impl(const vk::Context& context, std::uint32_t cap)
      : capacity(checked_capacity(context, cap, "Scan")),
        blocks(context, "scan_blocks", spirv(scan_blocks_spv), sizeof(ScanPush)),
        add(context, "scan_add", spirv(scan_add_spv), sizeof(ScanPush)) {
    // sums[l] holds the block totals of level l; the last level fits in one block.
    std::uint32_t n = cap;
    for (;;) {
      const std::uint32_t nb = std::max(1u, blocks_for(n, kScanBlock));
      sums.emplace_back(context, nb * kWord);
      if (n <= kScanBlock) break;
      n = nb;
    }
    levels.resize(sums.size());
    for (std::size_t l = 1; l < sums.size(); ++l) {
      levels[l].blocks = blocks.bind({&sums[l - 1], &sums[l]});
      levels[l].add = add.bind({&sums[l - 1], &sums[l]});
    }
  }

  const Level& level0(const vk::Buffer& data) {
    for (const Cached& c : cache) {
      if (c.handle == data.handle() && c.size == data.size()) return c.sets;
    }
    Level sets;
    sets.blocks = blocks.bind({&data, &sums[0]});
    sets.add = add.bind({&data, &sums[0]});
    cache.push_back({data.handle(), data.size(), sets});
    return cache.back().sets;
  }

  // Scans `count` (> 0) elements of level `l`, whose sets are `sets`.
  void record_level(VkCommandBuffer cb, std::size_t l, const Level& sets, std::uint32_t count) {
    const std::uint32_t nb = blocks_for(count, kScanBlock);
    const ScanPush push{count};
    blocks.dispatch(cb, sets.blocks, nb, &push);
    if (nb > 1) {
      vk::compute_barrier(cb);
      record_level(cb, l + 1, levels[l + 1], nb);
      vk::compute_barrier(cb);
      add.dispatch(cb, sets.add, nb, &push);
    }
  }

  std::uint32_t capacity;
  vk::Kernel blocks;
  vk::Kernel add;
  std::vector<vk::Buffer> sums;
  std::vector<Level> levels;  // levels[0] unused: level 0's sets depend on the caller's buffer
  std::vector<Cached> cache;
};

Scan::Scan(const vk::Context& ctx, std::uint32_t capacity)
    : impl_(std::make_unique<Impl>(ctx, capacity)) {}

Scan::~Scan() = default;

void Scan::record(VkCommandBuffer cb, const vk::Buffer& data, std::uint32_t count) {
  if (count > impl_->capacity) {
    throw std::invalid_argument("Scan: count " + std::to_string(count) + " exceeds capacity " +
                                std::to_string(impl_->capacity));
  }
  if (data.size() < count * kWord) {
    throw std::invalid_argument("Scan: buffer too small for " + std::to_string(count) +
                                " elements");
  }
  vk::barrier(cb);
  if (count > 0) {
    const Impl::Level& sets = impl_->level0(data);
    impl_->record_level(cb, 0, sets, count);
  }
  vk::barrier(cb);
}

std::uint32_t Scan::dispatches(std::uint32_t count) const {
  if (count == 0) return 0;
  return kern::scan_dispatches(count);
}

// ---- RadixSort -------------------------------------------------------------------------------

struct RadixSort::Impl {
  struct Sets {
    VkDescriptorSet histogram = VK_NULL_HANDLE;          // histogram of the caller's keys
    VkDescriptorSet histogram_scratch = VK_NULL_HANDLE;  // histogram of the scratch keys
    VkDescriptorSet to_scratch = VK_NULL_HANDLE;         // scatter caller -> scratch
    VkDescriptorSet to_caller = VK_NULL_HANDLE;          // scatter scratch -> caller
    VkDescriptorSet local = VK_NULL_HANDLE;              // the one-workgroup sort, in place
  };
  struct Cached {
    VkBuffer keys, values, live;
    VkDeviceSize keys_size, values_size, live_size;
    Sets sets;
  };

  static std::uint32_t max_blocks(std::uint32_t cap) {
    return std::max(1u, blocks_for(cap, kSortBlock));
  }

  // The histograms of the widest pass: 2^11 entries per block of 1,024 keys, 8 bytes per key of
  // capacity (the keys' and values' scratch pair is another 8).
  static std::uint32_t hist_entries(const vk::Context& context, std::uint32_t cap) {
    const std::uint64_t entries = std::uint64_t{kMaxDigits} * max_blocks(cap);
    check_range(context, entries, "RadixSort: capacity " + std::to_string(cap) + "'s histograms");
    return static_cast<std::uint32_t>(entries);
  }

  Impl(const vk::Context& context, std::uint32_t cap)
      : capacity(checked_capacity(context, cap, "RadixSort")),
        keys_scratch(context, VkDeviceSize{cap} * kWord),
        values_scratch(context, VkDeviceSize{cap} * kWord),
        hist_capacity(hist_entries(context, cap)),
        hist(context, VkDeviceSize{hist_capacity} * kWord),
        scan(context, hist_capacity),
        histogram(context, "sort_histogram", spirv(sort_histogram_spv), sizeof(SortPush)),
        scatter(context, "sort_scatter", spirv(sort_scatter_spv), sizeof(SortPush)),
        local(context, "sort_local", spirv(sort_local_spv), sizeof(SortPush)),
        no_live(context, kWord) {
    const std::uint32_t all = 0xFFFFFFFFu;  // min(count, all) = count
    no_live.upload(&all, kWord);
  }

  const Sets& sets_for(const vk::Buffer& keys, const vk::Buffer& values, const vk::Buffer& live) {
    for (const Cached& c : cache) {
      if (c.keys == keys.handle() && c.values == values.handle() && c.live == live.handle() &&
          c.keys_size == keys.size() && c.values_size == values.size() &&
          c.live_size == live.size()) {
        return c.sets;
      }
    }
    Sets sets;
    sets.histogram = histogram.bind({&keys, &hist, &live});
    sets.histogram_scratch = histogram.bind({&keys_scratch, &hist, &live});
    sets.to_scratch = scatter.bind({&keys, &values, &hist, &keys_scratch, &values_scratch, &live});
    sets.to_caller = scatter.bind({&keys_scratch, &values_scratch, &hist, &keys, &values, &live});
    sets.local = local.bind({&keys, &values, &live});
    cache.push_back({keys.handle(), values.handle(), live.handle(), keys.size(), values.size(),
                     live.size(), sets});
    return cache.back().sets;
  }

  std::uint32_t capacity;
  vk::Buffer keys_scratch;
  vk::Buffer values_scratch;
  std::uint32_t hist_capacity;  // entries: the widest pass's histograms at the capacity
  vk::Buffer hist;              // hist[digit * blocks + block]
  Scan scan;
  vk::Kernel histogram;
  vk::Kernel scatter;
  vk::Kernel local;
  vk::Buffer no_live;  // one word, 0xFFFFFFFF: the live count of a list without one
  std::vector<Cached> cache;
};

RadixSort::RadixSort(const vk::Context& ctx, std::uint32_t capacity)
    : impl_(std::make_unique<Impl>(ctx, capacity)) {}

RadixSort::~RadixSort() = default;

namespace {
void check_key_bits(std::uint32_t key_bits) {
  // key_bits = 0 is accepted: every key compares equal, so the stable sort changes nothing.
  if (key_bits > 32) {
    throw std::invalid_argument("RadixSort: key_bits must be 0..32, got " +
                                std::to_string(key_bits));
  }
}
}  // namespace

void RadixSort::record(VkCommandBuffer cb, const vk::Buffer& keys, const vk::Buffer& values,
                       std::uint32_t count, std::uint32_t key_bits, LiveCount live) {
  check_key_bits(key_bits);
  if (count > impl_->capacity) {
    throw std::invalid_argument("RadixSort: count " + std::to_string(count) + " exceeds capacity " +
                                std::to_string(impl_->capacity));
  }
  if (keys.size() < count * kWord || values.size() < count * kWord) {
    throw std::invalid_argument("RadixSort: buffers too small for " + std::to_string(count) +
                                " elements");
  }
  vk::barrier(cb);
  const std::uint32_t width = kern::radix_width(count, key_bits);
  const std::uint32_t passes = kern::radix_passes(key_bits, width);
  Impl& im = *impl_;
  const vk::Buffer& live_buffer = live.buffer ? *live.buffer : im.no_live;
  const std::uint32_t live_word = live.buffer ? live.word : 0u;
  if (count > 1 && passes > 0 && count <= VKPHYS_LOCAL_SORT_MAX) {
    const SortPush push{count, 0, key_bits, 1, width, live_word};
    im.local.dispatch(cb, im.sets_for(keys, values, live_buffer).local, 1, &push);
  } else if (count > 1) {
    const Impl::Sets& sets = im.sets_for(keys, values, live_buffer);
    const std::uint32_t blocks = blocks_for(count, kSortBlock);
    for (std::uint32_t pass = 0; pass < passes; ++pass) {
      const bool from_caller = pass % 2 == 0;
      const SortPush push{count, pass, key_bits, blocks, width, live_word};
      im.histogram.dispatch(cb, from_caller ? sets.histogram : sets.histogram_scratch, blocks,
                            &push);
      im.scan.record(cb, im.hist, histogram_entries(pass, key_bits, width, blocks));  // barriers
      im.scatter.dispatch(cb, from_caller ? sets.to_scratch : sets.to_caller, blocks, &push);
      // Full before the copies back (an odd number of passes), compute-only between passes.
      if (pass + 1 == passes && passes % 2 == 1) {
        vk::barrier(cb);
      } else {
        vk::compute_barrier(cb);
      }
    }
    if (passes % 2 == 1) {
      vk::copy(cb, im.keys_scratch, keys, count * kWord);
      vk::copy(cb, im.values_scratch, values, count * kWord);
    }
  }
  vk::barrier(cb);
}

std::uint32_t RadixSort::dispatches(std::uint32_t count, std::uint32_t key_bits) const {
  check_key_bits(key_bits);
  if (count <= 1 || key_bits == 0) return 0;
  if (count <= VKPHYS_LOCAL_SORT_MAX) return 1;
  return kern::radix_block_dispatches(blocks_for(count, kSortBlock), key_bits,
                                      kern::radix_width(count, key_bits));
}

}  // namespace vkphys::gpu
