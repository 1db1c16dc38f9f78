// Digit helpers and block sizes for the prefix scan and the LSD radix sort, shared by the shaders
// (shaders/scan_*.comp, shaders/sort_*.comp) and their CPU twins (host/cpu/primitives.cpp).
//
// The sort takes VKPHYS_RADIX_BITS = 8 bits of the key per pass (256 digits), least significant
// first, and only the low `key_bits` bits count: 13 bits are a pass of 8 and a pass of the
// remaining 5 (32 digits), so keys that differ above key_bits keep their input order. 8 bits
// rather than 4 halve the passes (4 for 32-bit keys, each 3 dispatches and their barriers); the
// price is 16x the per-block histogram entries to scan, which a short last pass trims to the
// digits it can have (radix_pass_bits).
//
// Both GPU primitives work on blocks of VKPHYS_GROUP_SIZE * ITEMS elements, one workgroup each;
// a short list sorts in one workgroup instead (shaders/sort_local.comp).
#ifndef VKPHYS_KERNELS_RADIX_H
#define VKPHYS_KERNELS_RADIX_H
#include "kernels/common.h"

#define VKPHYS_RADIX_BITS 8u
#define VKPHYS_RADIX_DIGITS 256u  // 1 << VKPHYS_RADIX_BITS
#define VKPHYS_SCAN_ITEMS 16u     // elements per invocation in the scan kernels
#define VKPHYS_SORT_ITEMS 16u     // elements per invocation in the sort kernels
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

// Passes needed for key_bits (0..32) bits; 0 bits need none.
KFN uint radix_passes(uint key_bits) {
  return (key_bits + VKPHYS_RADIX_BITS - 1u) / VKPHYS_RADIX_BITS;
}

// Bits that pass `pass` (< radix_passes(key_bits)) sorts by: 8, or fewer in the last pass.
KFN uint radix_pass_bits(uint pass, uint key_bits) {
  uint bits = key_bits - pass * VKPHYS_RADIX_BITS;
  return bits > VKPHYS_RADIX_BITS ? VKPHYS_RADIX_BITS : bits;
}

// The digit of `key` that pass `pass` sorts by: bits [8 pass, min(8 pass + 8, key_bits)).
KFN uint radix_digit(uint key, uint pass, uint key_bits) {
  return (key >> (pass * VKPHYS_RADIX_BITS)) & ((1u << radix_pass_bits(pass, key_bits)) - 1u);
}

KERNELS_END
#endif
