// The prefix scan and the radix sort: GPU (host/gpu/primitives.h) and CPU twins
// (host/cpu/primitives.h) against std::exclusive_scan and std::stable_sort.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "host/cpu/primitives.h"
#include "host/gpu/primitives.h"
#include "host/vk/buffer.h"
#include "kernels/radix.h"
#include "tests/gpu_env.h"

namespace vkphys {
namespace {

using u32 = std::uint32_t;
using Words = std::vector<u32>;

constexpr u32 kLarge = (1u << 22) + 3u;  // > 2048^2, needs three scan levels
// 2,049 sort blocks: an 11-bit pass's 4,196,352 histogram entries need a three-level scan.
constexpr u32 kLargeSort = (1u << 21) + 3u;

// Sizes around the workgroup (64) and the block (1024) sizes, and one > 2^20.
const u32 kSizes[] = {0, 1, 63, 64, 65, 1237, 2048, 2049, 100000, 1234567};

u32 mask_of(u32 key_bits) {
  return key_bits >= 32 ? ~0u : (1u << key_bits) - 1u;
}

Words random_words(std::size_t n, u32 seed) {
  std::mt19937 rng(seed);
  Words out(n);
  for (u32& v : out) v = static_cast<u32>(rng());
  return out;
}

// Full 32-bit keys with many repeats (about n / 8 distinct values), so that stability matters
// in every pass even with key_bits = 32.
Words repeating_keys(std::size_t n, u32 seed) {
  const Words table = random_words(std::max<std::size_t>(1, n / 8), seed);
  std::mt19937 rng(seed + 1);
  std::uniform_int_distribution<std::size_t> pick(0, table.size() - 1);
  Words out(n);
  for (u32& v : out) v = table[pick(rng)];
  return out;
}

Words iota_words(std::size_t n) {
  Words out(n);
  std::iota(out.begin(), out.end(), 0u);
  return out;
}

// Values below 2^12: the sums of the large sizes pass 2^31 (about a million elements in), so one
// scan checks exact offsets and the saturation after them.
Words scan_words(std::size_t n, u32 seed) {
  Words out = random_words(n, seed);
  for (u32& v : out) v &= 0xFFFu;
  return out;
}

// The exclusive scan in 64 bits, saturated at VKPHYS_SCAN_LIMIT = 2^31 (kernels/radix.h).
Words reference_scan(const Words& in) {
  Words out(in.size());
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < in.size(); ++i) {
    out[i] = static_cast<u32>(std::min<std::uint64_t>(sum, VKPHYS_SCAN_LIMIT));
    sum += in[i];
  }
  return out;
}

// std::stable_sort of the pairs by the low key_bits bits of the keys.
void reference_sort(Words& keys, Words& values, u32 key_bits) {
  const u32 mask = mask_of(key_bits);
  Words order = iota_words(keys.size());
  std::stable_sort(order.begin(), order.end(),
                   [&](u32 a, u32 b) { return (keys[a] & mask) < (keys[b] & mask); });
  Words k(keys.size()), v(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) {
    k[i] = keys[order[i]];
    v[i] = values[order[i]];
  }
  keys = std::move(k);
  values = std::move(v);
}

vk::Buffer make_buffer(const vk::Context& ctx, const Words& data, std::size_t capacity = 0) {
  vk::Buffer buf(ctx, std::max(capacity, data.size()) * sizeof(u32));
  if (!data.empty()) buf.upload(data.data(), data.size() * sizeof(u32));
  return buf;
}

Words gpu_scan(const vk::Context& ctx, const Words& data) {
  const u32 n = static_cast<u32>(data.size());
  vk::Buffer buf = make_buffer(ctx, data);
  gpu::Scan scan(ctx, n);
  ctx.run_once([&](VkCommandBuffer cb) { scan.record(cb, buf, n); });
  return buf.download<u32>(n);
}

void gpu_sort(const vk::Context& ctx, Words& keys, Words& values, u32 key_bits) {
  const u32 n = static_cast<u32>(keys.size());
  vk::Buffer kbuf = make_buffer(ctx, keys);
  vk::Buffer vbuf = make_buffer(ctx, values);
  gpu::RadixSort sort(ctx, n);
  ctx.run_once([&](VkCommandBuffer cb) { sort.record(cb, kbuf, vbuf, n, key_bits); });
  keys = kbuf.download<u32>(n);
  values = vbuf.download<u32>(n);
}

// ---- CPU twins -------------------------------------------------------------------------------

TEST(CpuScan, MatchesStdExclusiveScan) {
  std::vector<u32> sizes(std::begin(kSizes), std::end(kSizes));
  sizes.push_back(kLarge);
  for (u32 n : sizes) {
    SCOPED_TRACE("n = " + std::to_string(n));
    for (const Words& in : {scan_words(n, 100 + n), random_words(n, 100 + n)}) {
      Words data = in;
      Words extended = in;
      extended.push_back(0);
      const u32 total = reference_scan(extended).back();
      EXPECT_EQ(cpu::exclusive_scan(data), total);
      EXPECT_EQ(data, reference_scan(in));
    }
  }
}

// Sums past 2^32 used to wrap to small offsets, so a list sized to the total was overrun.
TEST(CpuScan, SaturatesInsteadOfWrapping) {
  const u32 limit = VKPHYS_SCAN_LIMIT;
  Words data{5u, 0xFFFFFFFFu, 7u, 0x7FFFFFFAu, 1u};
  EXPECT_EQ(cpu::exclusive_scan(data), limit);
  EXPECT_EQ(data, (Words{0u, 5u, limit, limit, limit}));
  data = {0x7FFFFFF0u, 0x0Fu, 1u, 1u};
  EXPECT_EQ(cpu::exclusive_scan(data), limit);
  EXPECT_EQ(data, (Words{0u, 0x7FFFFFF0u, 0x7FFFFFFFu, limit}));
}

// Every pass shape of the 8-bit digits: none, one short pass, one full, full + short (9, 13),
// three passes (24) and four (32).
const u32 kKeyBits[] = {0, 1, 4, 7, 8, 9, 13, 24, 32};

TEST(CpuRadixSort, MatchesStableSort) {
  for (u32 key_bits : kKeyBits) {
    for (u32 n : kSizes) {
      SCOPED_TRACE("n = " + std::to_string(n) + ", key_bits = " + std::to_string(key_bits));
      Words keys = key_bits == 32 ? repeating_keys(n, 200 + n) : random_words(n, 300 + n);
      Words values = iota_words(n);
      Words expected_keys = keys, expected_values = values;
      reference_sort(expected_keys, expected_values, key_bits);
      cpu::radix_sort(keys, values, key_bits);
      EXPECT_EQ(keys, expected_keys);
      EXPECT_EQ(values, expected_values);
    }
  }
}

TEST(CpuRadixSort, RejectsBadArguments) {
  Words keys(4), values(4), three(3);
  EXPECT_THROW(cpu::radix_sort(keys, three), std::invalid_argument);
  EXPECT_THROW(cpu::radix_sort(keys, values, 33), std::invalid_argument);
}

TEST(CpuRadixSort, ZeroKeyBitsChangesNothing) {
  Words keys = random_words(1000, 42), values = iota_words(1000);
  const Words keys_in = keys, values_in = values;
  cpu::radix_sort(keys, values, 0);
  EXPECT_EQ(keys, keys_in);
  EXPECT_EQ(values, values_in);
}

// ---- GPU scan --------------------------------------------------------------------------------

class GpuScan : public ::testing::TestWithParam<u32> {};

TEST_P(GpuScan, MatchesStdExclusiveScan) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  const u32 n = GetParam();
  const Words data = scan_words(n, 400 + n);
  EXPECT_EQ(gpu_scan(ctx, data), reference_scan(data));
  // Full 32-bit values: every level saturates, as on the CPU, never wraps.
  const Words full = random_words(n, 400 + n);
  EXPECT_EQ(gpu_scan(ctx, full), reference_scan(full));
}

INSTANTIATE_TEST_SUITE_P(Sizes, GpuScan,
                         ::testing::Values(0u, 1u, 63u, 64u, 65u, 1023u, 1024u, 1025u, 1237u,
                                           100000u, 1234567u, kLarge));

// One Scan reused for several counts below its capacity: elements past count stay untouched.
// Host-visible buffers (the state's and the counters' readback, staging) get a cached memory
// type wherever the device has one for them: on a discrete NVIDIA GPU the first host-visible,
// coherent type is write-combined, and the host's reads of it are uncached (host/vk/buffer.cpp).
// Device-local buffers stay device-local.
TEST(HostVisibleBuffer, CachedWhereTheDeviceHasIt) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  constexpr VkMemoryPropertyFlags kVisible =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  vk::Buffer host(ctx, 4096, 0, true), device(ctx, 4096);
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(ctx.device(), host.handle(), &req);
  VkPhysicalDeviceMemoryProperties mem;
  vkGetPhysicalDeviceMemoryProperties(ctx.physical(), &mem);
  bool cached_exists = false;
  for (std::uint32_t i = 0; i < mem.memoryTypeCount; ++i) {
    const VkMemoryPropertyFlags f = mem.memoryTypes[i].propertyFlags;
    cached_exists =
        cached_exists || ((req.memoryTypeBits & (1u << i)) && (f & kVisible) == kVisible &&
                          (f & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) != 0);
  }
  EXPECT_EQ(host.memory_flags() & kVisible, kVisible);
  EXPECT_EQ((host.memory_flags() & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) != 0, cached_exists);
  EXPECT_NE(device.memory_flags() & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0u);
  // The mapped memory holds what the device copies into it.
  std::vector<std::uint32_t> data(1024);
  std::iota(data.begin(), data.end(), 7u);
  device.upload(std::span<const std::uint32_t>(data));
  ctx.run_once([&](VkCommandBuffer cb) {
    vk::copy(cb, device, host, 4096);
    vk::barrier_to_host(cb);
  });
  EXPECT_EQ(std::memcmp(host.mapped(), data.data(), 4096), 0);
}

TEST(GpuScanReuse, PartialCountsLeaveTheTailAlone) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  constexpr u32 kCapacity = 70000;
  gpu::Scan scan(ctx, kCapacity);
  for (u32 n : {0u, 1u, 1025u, 66000u, 3000u}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    const Words data = scan_words(kCapacity, 500 + n);
    vk::Buffer buf = make_buffer(ctx, data);
    ctx.run_once([&](VkCommandBuffer cb) { scan.record(cb, buf, n); });
    const Words got = buf.download<u32>(kCapacity);
    Words expected = reference_scan(Words(data.begin(), data.begin() + n));
    expected.insert(expected.end(), data.begin() + n, data.end());
    EXPECT_EQ(got, expected);
  }
  vk::Buffer small(ctx, 16);
  ctx.run_once([&](VkCommandBuffer cb) {
    EXPECT_THROW(scan.record(cb, small, 5), std::invalid_argument);  // buffer too small
    EXPECT_THROW(scan.record(cb, small, kCapacity + 1), std::invalid_argument);
  });
}

TEST(GpuScanReuse, DispatchCount) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  gpu::Scan scan(ctx, kLarge);
  EXPECT_EQ(scan.dispatches(0), 0u);
  EXPECT_EQ(scan.dispatches(1), 1u);
  EXPECT_EQ(scan.dispatches(2048), 1u);  // one block of 128 x 16
  EXPECT_EQ(scan.dispatches(2049), 3u);
  EXPECT_EQ(scan.dispatches(2048 * 2048), 3u);
  EXPECT_EQ(scan.dispatches(kLarge), 5u);
}

// ---- GPU radix sort --------------------------------------------------------------------------

class GpuRadixSort : public ::testing::TestWithParam<std::tuple<u32, u32>> {};

TEST_P(GpuRadixSort, MatchesStableSortAndCpuTwin) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  const auto [n, key_bits] = GetParam();
  // With key_bits < 32 the keys keep their high bits: only the low bits may order them.
  const Words keys = key_bits == 32 ? repeating_keys(n, 600 + n) : random_words(n, 700 + n);
  const Words values = iota_words(n);

  Words expected_keys = keys, expected_values = values;
  reference_sort(expected_keys, expected_values, key_bits);
  Words got_keys = keys, got_values = values;
  gpu_sort(ctx, got_keys, got_values, key_bits);
  EXPECT_EQ(got_keys, expected_keys);
  EXPECT_EQ(got_values, expected_values);

  Words cpu_keys = keys, cpu_values = values;
  cpu::radix_sort(cpu_keys, cpu_values, key_bits);
  EXPECT_EQ(cpu_keys, got_keys);
  EXPECT_EQ(cpu_values, got_values);
}

std::string sort_name(const ::testing::TestParamInfo<std::tuple<u32, u32>>& info) {
  return "n" + std::to_string(std::get<0>(info.param)) + "_bits" +
         std::to_string(std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Sizes, GpuRadixSort,
                         ::testing::Combine(::testing::ValuesIn(kSizes),
                                            ::testing::Values(32u, 13u)),
                         sort_name);

// Odd pass counts (the result is copied back from the scratch pair: 1..8 and 17..24 bits at 8
// bits a pass), and the largest size at each width the sort chooses there (kern::radix_width):
// 9 bits in one pass of 9, 17 in 9 + 8, 20 in 10 + 10, 21 in 11 + 10.
INSTANTIATE_TEST_SUITE_P(
    OddPasses, GpuRadixSort,
    ::testing::Values(std::tuple<u32, u32>{5000u, 1u}, std::tuple<u32, u32>{5000u, 4u},
                      std::tuple<u32, u32>{5000u, 9u}, std::tuple<u32, u32>{kLargeSort, 9u},
                      std::tuple<u32, u32>{kLargeSort, 17u}, std::tuple<u32, u32>{kLargeSort, 20u},
                      std::tuple<u32, u32>{kLargeSort, 21u}),
    sort_name);

// Every pass shape (kKeyBits) on counts that are no multiple of the workgroup (64) or the block
// (1,024): 3,001 is three blocks, the last one partial; 70,001 is 69 blocks, whose 256-digit
// histograms (17,664 entries) need a three-dispatch scan.
INSTANTIATE_TEST_SUITE_P(KeyBits, GpuRadixSort,
                         ::testing::Combine(::testing::Values(3001u, 70001u),
                                            ::testing::ValuesIn(kKeyBits)),
                         sort_name);

// Two sorts of the same input recorded into one command buffer (two buffer pairs, one sorter)
// give identical results, with every value still next to its key.
TEST(GpuRadixSortReuse, DeterministicAndPaired) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  constexpr u32 n = 100000;
  const Words keys = repeating_keys(n, 800);
  const Words values = random_words(n, 801);
  vk::Buffer k1 = make_buffer(ctx, keys), v1 = make_buffer(ctx, values);
  vk::Buffer k2 = make_buffer(ctx, keys), v2 = make_buffer(ctx, values);
  gpu::RadixSort sort(ctx, n);
  ctx.run_once([&](VkCommandBuffer cb) {
    sort.record(cb, k1, v1, n);
    sort.record(cb, k2, v2, n);
  });
  const Words out_k1 = k1.download<u32>(n), out_v1 = v1.download<u32>(n);
  EXPECT_EQ(out_k1, k2.download<u32>(n));
  EXPECT_EQ(out_v1, v2.download<u32>(n));
  EXPECT_TRUE(std::is_sorted(out_k1.begin(), out_k1.end()));

  // Pairing: the sorted pairs are a permutation of the input pairs.
  std::vector<std::pair<u32, u32>> in_pairs(n), out_pairs(n);
  for (u32 i = 0; i < n; ++i) {
    in_pairs[i] = {keys[i], values[i]};
    out_pairs[i] = {out_k1[i], out_v1[i]};
  }
  std::sort(in_pairs.begin(), in_pairs.end());
  std::sort(out_pairs.begin(), out_pairs.end());
  EXPECT_EQ(in_pairs, out_pairs);

  // A second run of the same sorter on the first pair again changes nothing (already sorted).
  ctx.run_once([&](VkCommandBuffer cb) { sort.record(cb, k1, v1, n); });
  EXPECT_EQ(k1.download<u32>(n), out_k1);
  EXPECT_EQ(v1.download<u32>(n), out_v1);
}

// A sorter reused below its capacity leaves the elements past count untouched.
TEST(GpuRadixSortReuse, PartialCountsLeaveTheTailAlone) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  constexpr u32 kCapacity = 20000;
  gpu::RadixSort sort(ctx, kCapacity);
  for (const std::pair<u32, u32>& case_ : {std::pair<u32, u32>{0, 32},
                                           {1, 32},
                                           {2, 1},
                                           {3000, 13},
                                           {19999, 32},
                                           {777, 5},
                                           {5000, 0}}) {
    const u32 n = case_.first, key_bits = case_.second;  // not bindings: the lambda takes them
    SCOPED_TRACE("n = " + std::to_string(n) + ", key_bits = " + std::to_string(key_bits));
    const Words keys = random_words(kCapacity, 900 + n);
    const Words values = iota_words(kCapacity);
    vk::Buffer kbuf = make_buffer(ctx, keys), vbuf = make_buffer(ctx, values);
    ctx.run_once([&](VkCommandBuffer cb) { sort.record(cb, kbuf, vbuf, n, key_bits); });
    Words expected_keys(keys.begin(), keys.begin() + n);
    Words expected_values(values.begin(), values.begin() + n);
    reference_sort(expected_keys, expected_values, key_bits);
    expected_keys.insert(expected_keys.end(), keys.begin() + n, keys.end());
    expected_values.insert(expected_values.end(), values.begin() + n, values.end());
    EXPECT_EQ(kbuf.download<u32>(kCapacity), expected_keys);
    EXPECT_EQ(vbuf.download<u32>(kCapacity), expected_values);
  }
}

// A live count on the device (gpu::LiveCount): a list of `count` whose tail past the live pairs
// holds the largest key, in input order (a colouring's unused unit capacity), sorts to exactly
// what sorting the whole list gives, for live counts of 0, 1, below, at and past the count, on
// both the one-workgroup sort (count <= 2,048) and the block sort, which sorts the whole list.
TEST(GpuRadixSortReuse, ALiveCountGivesTheWholeListsOrder) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  constexpr u32 kBits = 6, kTailKey = (1u << kBits) - 1u;
  for (const u32 count : {1088u, 2048u, 5000u}) {
    gpu::RadixSort sort(ctx, count);
    for (const u32 live : {0u, 1u, 2u, 37u, count / 2 + 1, count, count + 5}) {
      SCOPED_TRACE("count " + std::to_string(count) + ", live " + std::to_string(live));
      Words keys = random_words(count, 1000 + live);
      for (u32 i = 0; i < count; ++i) {
        // Live keys below the tail's, except a few equal to it; the tail all the largest key.
        keys[i] = i < live ? (i % 97 == 5 ? kTailKey : keys[i] % kTailKey) : kTailKey;
      }
      const Words values = iota_words(count);
      Words expected_keys = keys, expected_values = values;
      reference_sort(expected_keys, expected_values, kBits);
      // The live count in the middle of a buffer of other words.
      const Words counter_words{7u, 9u, live, 11u};
      vk::Buffer counters = make_buffer(ctx, counter_words);
      vk::Buffer kbuf = make_buffer(ctx, keys), vbuf = make_buffer(ctx, values);
      ctx.run_once([&](VkCommandBuffer cb) {
        sort.record(cb, kbuf, vbuf, count, kBits, gpu::LiveCount{&counters, 2});
      });
      EXPECT_EQ(kbuf.download<u32>(count), expected_keys);
      EXPECT_EQ(vbuf.download<u32>(count), expected_values);
    }
  }
  // Both sorts read only the live pairs: a tail out of order (the colouring's stale keys past
  // its live units) stays as it was. The one-workgroup sort (1,500 pairs) and the block sort,
  // its live pairs ending inside a block of 1,024 and on a block's edge, in an odd number of
  // passes (9,000 32-bit keys: 3 of 11 bits, the last into the scratch, then copied back) and an
  // even one (3,000: 4 of 8 bits).
  // (Not a structured binding: clang 14 refuses to capture one in the lambda below.)
  for (const std::pair<u32, u32>& count_live :
       {std::pair{1500u, 300u}, std::pair{9000u, 1700u}, std::pair{9000u, 8192u},
        std::pair{3000u, 1100u}, std::pair{3000u, 2048u}}) {
    const u32 count = count_live.first, live = count_live.second;
    SCOPED_TRACE("count " + std::to_string(count) + ", live " + std::to_string(live));
    gpu::RadixSort sort(ctx, count);
    const Words keys = random_words(count, 1234 + live), values = iota_words(count);
    Words expected_keys(keys.begin(), keys.begin() + live);
    Words expected_values(values.begin(), values.begin() + live);
    reference_sort(expected_keys, expected_values, 32);
    expected_keys.insert(expected_keys.end(), keys.begin() + live, keys.end());
    expected_values.insert(expected_values.end(), values.begin() + live, values.end());
    vk::Buffer counters = make_buffer(ctx, Words{live});
    vk::Buffer kbuf = make_buffer(ctx, keys), vbuf = make_buffer(ctx, values);
    ctx.run_once([&](VkCommandBuffer cb) {
      sort.record(cb, kbuf, vbuf, count, 32, gpu::LiveCount{&counters, 0});
    });
    EXPECT_EQ(kbuf.download<u32>(count), expected_keys);
    EXPECT_EQ(vbuf.download<u32>(count), expected_values);
    if (count > VKPHYS_LOCAL_SORT_MAX) {
      EXPECT_EQ(kern::radix_passes(32, kern::radix_width(count, 32)), count == 9000u ? 3u : 4u);
    }
  }
}

TEST(GpuRadixSortReuse, RejectsBadArgumentsAndCountsDispatches) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  gpu::RadixSort sort(ctx, 4096);
  vk::Buffer keys(ctx, 4096 * sizeof(u32)), values(ctx, 4096 * sizeof(u32)), small(ctx, 16);
  ctx.run_once([&](VkCommandBuffer cb) {
    EXPECT_THROW(sort.record(cb, keys, values, 10, 33), std::invalid_argument);
    EXPECT_THROW(sort.record(cb, keys, values, 4097), std::invalid_argument);
    EXPECT_THROW(sort.record(cb, keys, small, 10), std::invalid_argument);
  });
  EXPECT_EQ(sort.dispatches(0), 0u);
  EXPECT_EQ(sort.dispatches(1), 0u);
  EXPECT_EQ(sort.dispatches(2), 1u);  // one workgroup sorts up to 2048 pairs
  EXPECT_EQ(sort.dispatches(2048), 1u);
  // 4 passes x (histogram, scan, scatter): 3 blocks' 8-bit histograms (768 entries) scan in one
  // dispatch, where 3 passes of 11 bits (6,144 entries) would need three scan dispatches each.
  EXPECT_EQ(kern::radix_width(2049, 32), 8u);
  EXPECT_EQ(sort.dispatches(2049), 4u * 3u);
  // 4 blocks: passes of 8 and 5 bits, histograms of 1,024 and 128 entries, one-dispatch scans.
  EXPECT_EQ(sort.dispatches(4096, 13), 2u * 3u);
  EXPECT_EQ(sort.dispatches(4096, 1), 3u);
  EXPECT_EQ(sort.dispatches(4096, 8), 3u);
  EXPECT_EQ(kern::radix_width(4096, 9), 9u);  // one pass of 2,048 entries, not 8 + 1 bits
  EXPECT_EQ(sort.dispatches(4096, 9), 3u);
  EXPECT_EQ(sort.dispatches(4096, 0), 0u);
  EXPECT_EQ(sort.dispatches(2, 0), 0u);

  // The particle grid's sorts (grid_table_size: 2n cells, rounded up to a power of two). At 1M
  // particles, 977 blocks: 21 bits in 2 passes of 11 and 10 bits (2,000,896 and 1,000,448
  // entries, three-dispatch scans) instead of 8 + 8 + 5 bits (15 dispatches); at 100k, 18 bits
  // in 2 passes of 9; at 10k, 15 bits in 8 + 7 (a one-dispatch scan of the 7-bit pass's 1,280
  // entries), which 11 + 4 only ties.
  gpu::RadixSort big(ctx, 1u << 20);
  EXPECT_EQ(kern::radix_width(1000000, 21), 11u);
  EXPECT_EQ(big.dispatches(1000000, 21), 2u * 5u);
  EXPECT_EQ(kern::radix_width(100000, 18), 9u);
  EXPECT_EQ(big.dispatches(100000, 18), 2u * 5u);
  EXPECT_EQ(kern::radix_width(10000, 15), 8u);
  EXPECT_EQ(big.dispatches(10000, 15), 5u + 3u);
  // 1,024 blocks: 32-bit keys in 3 passes of 11, 11 and 10 bits (2,097,152 entries at most,
  // three-dispatch scans) instead of 4 of 8; the colour keys' 6 bits in one pass.
  EXPECT_EQ(kern::radix_width(1u << 20, 32), 11u);
  EXPECT_EQ(big.dispatches(1u << 20), 3u * 5u);
  EXPECT_EQ(big.dispatches(1u << 20, 20), 2u * 5u);
  EXPECT_EQ(big.dispatches(1u << 20, 6), 5u);
}

}  // namespace
}  // namespace vkphys
