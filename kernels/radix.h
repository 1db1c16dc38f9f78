// Digit helpers and block sizes for the prefix scan and the LSD radix sort, shared by the shaders
// (shaders/scan_*.comp, shaders/sort_*.comp) and their CPU twins (host/cpu/primitives.cpp).
//
// The sort takes `width` bits of the key per pass, least significant first, and only the low
// `key_bits` bits count: 13 bits at width 8 are a pass of 8 and a pass of the remaining 5 (32
// digits), so keys that differ above key_bits keep their input order. The CPU twin counts 8 bits
// a pass; a stable sort by the same bits gives the same result at any width.
//
// The GPU sort chooses its width per sort (radix_width) between VKPHYS_RADIX_BITS = 8 and
// VKPHYS_RADIX_MAX_BITS = 11, whichever records the fewest dispatches, the narrowest on a tie.
// A pass is 2 dispatches (histogram, scatter) plus the scan of its 2^bits x blocks digit-major
// histogram entries (1 dispatch up to VKPHYS_SCAN_BLOCK entries, 3 up to its square, 5 beyond).
// A wider pass saves a whole pass (a read of every key, a write of every pair and 3-5 dispatches
// with their barriers) for a histogram 2^(bits - 8) times larger to scan: the particle grid's
// 21-bit sort at 1M particles is 2 passes (11 + 10 bits, 10 dispatches) instead of 3 (8 + 8 + 5,
// 15); 32-bit keys from 8,193 keys (9 blocks) on are 3 passes instead of 4. Below that the 8-bit
// plan wins or ties: 8,192 32-bit keys are 4 passes whose histograms (2,048 entries) scan in one
// dispatch each (12), where 3 wide ones would need 3 each (15). 11 bits is the widest whose scatter fits the 16 KiB of
// shared memory Vulkan guarantees (shaders/sort_scatter.comp).
//
// Both GPU primitives work on blocks, one workgroup each: the scan on VKPHYS_SCAN_BLOCK = 128 x 16
// elements, the sort on VKPHYS_SORT_BLOCK = 64 x 16 keys; a short list sorts in one workgroup
// instead (shaders/sort_local.comp).
#ifndef VKPHYS_KERNELS_RADIX_H
#define VKPHYS_KERNELS_RADIX_H
#include "kernels/common.h"

#define VKPHYS_RADIX_BITS 8u           // the narrowest GPU pass, and the CPU twin's
#define VKPHYS_RADIX_DIGITS 256u       // 1 << VKPHYS_RADIX_BITS
#define VKPHYS_RADIX_MAX_BITS 11u      // the widest GPU pass
#define VKPHYS_RADIX_MAX_DIGITS 2048u  // 1 << VKPHYS_RADIX_MAX_BITS
#define VKPHYS_SCAN_GROUP 128u         // invocations in a scan kernel's workgroup
#define VKPHYS_SCAN_ITEMS 16u          // elements per invocation in the scan kernels
#define VKPHYS_SCAN_BLOCK 2048u        // VKPHYS_SCAN_GROUP * VKPHYS_SCAN_ITEMS
#define VKPHYS_SORT_ITEMS 16u          // elements per invocation in the sort kernels
#define VKPHYS_SORT_BLOCK 1024u        // VKPHYS_GROUP_SIZE * VKPHYS_SORT_ITEMS
// Lists of up to VKPHYS_LOCAL_SORT_MAX pairs sort in one workgroup (shaders/sort_local.comp).
#define VKPHYS_LOCAL_SORT_MAX 2048u
#define VKPHYS_LOCAL_SORT_GROUP 256u

// Scans saturate at VKPHYS_SCAN_LIMIT = 2^31 instead of wrapping modulo 2^32: an offset or a
// total that reaches it belongs to a list far past any capacity (< 2^24, grown_capacity), so the
// step stops with a capacity error, and an offset plus a count (< 2^31) cannot wrap back onto a
// slot in range. min(true sum, limit) is associative, so every blocking gives the same result.
#define VKPHYS_SCAN_LIMIT 0x80000000u

KERNELS_BEGIN

KFN uint saturating_add(uint a, uint b) {
  uint s = a + b;
  return (s < a || s > VKPHYS_SCAN_LIMIT) ? VKPHYS_SCAN_LIMIT : s;
}

// Passes needed for key_bits (0..32) bits at `width` bits a pass; 0 bits need none.
KFN uint radix_passes(uint key_bits, uint width) {
  return (key_bits + width - 1u) / width;
}

// Bits that pass `pass` (< radix_passes(key_bits, width)) sorts by: width, or fewer in the last.
KFN uint radix_pass_bits(uint pass, uint key_bits, uint width) {
  uint bits = key_bits - pass * width;
  return bits > width ? width : bits;
}

// The digit of `key` that pass `pass` sorts by: bits [width pass, min(width (pass + 1), key_bits)).
KFN uint radix_digit(uint key, uint pass, uint key_bits, uint width) {
  return (key >> (pass * width)) & ((1u << radix_pass_bits(pass, key_bits, width)) - 1u);
}

// Dispatches of one GPU scan of `count` elements: a block scan per level, and below the top
// level an add of the scanned block sums.
KFN uint scan_dispatches(uint count) {
  if (count == 0u) return 0u;
  uint n = 1u;
  while (count > VKPHYS_SCAN_BLOCK) {
    n += 2u;
    count = (count + VKPHYS_SCAN_BLOCK - 1u) / VKPHYS_SCAN_BLOCK;
  }
  return n;
}

// Dispatches of a GPU sort of `blocks` blocks by key_bits bits at `width`: per pass the
// histogram, the scan of its digit-major entries and the scatter.
KFN uint radix_block_dispatches(uint blocks, uint key_bits, uint width) {
  uint n = 0u;
  for (uint pass = 0u; pass < radix_passes(key_bits, width); ++pass) {
    n += 2u + scan_dispatches((1u << radix_pass_bits(pass, key_bits, width)) * blocks);
  }
  return n;
}

// The GPU sort's width for `count` (> VKPHYS_LOCAL_SORT_MAX) keys by key_bits bits: the fewest
// dispatches, the narrowest on a tie (the smaller histograms to scan).
KFN uint radix_width(uint count, uint key_bits) {
  uint blocks = (count + VKPHYS_SORT_BLOCK - 1u) / VKPHYS_SORT_BLOCK;
  uint best = VKPHYS_RADIX_BITS;
  uint fewest = radix_block_dispatches(blocks, key_bits, best);
  for (uint w = VKPHYS_RADIX_BITS + 1u; w <= VKPHYS_RADIX_MAX_BITS; ++w) {
    uint n = radix_block_dispatches(blocks, key_bits, w);
    if (n < fewest) {
      best = w;
      fewest = n;
    }
  }
  return best;
}

KERNELS_END
#endif
