// Digit helpers and block sizes for the prefix scan and the LSD radix sort, shared by the shaders
// (shaders/scan_*.comp, shaders/sort_*.comp) and their CPU twins (host/cpu/primitives.cpp).
//
// The sort takes VKPHYS_RADIX_BITS bits of the key per pass, least significant first, and only
// the low `key_bits` bits count: the last pass of e.g. 13 bits looks at bit 12 alone, so keys
// that differ above key_bits keep their input order.
//
// Both GPU primitives work on blocks of VKPHYS_GROUP_SIZE * ITEMS elements, one workgroup each;
// a short list sorts in one workgroup instead (shaders/sort_local.comp).
#ifndef VKPHYS_KERNELS_RADIX_H
#define VKPHYS_KERNELS_RADIX_H
#include "kernels/common.h"

#define VKPHYS_RADIX_BITS 4u
#define VKPHYS_RADIX_DIGITS 16u  // 1 << VKPHYS_RADIX_BITS
#define VKPHYS_SCAN_ITEMS 16u    // elements per invocation in the scan kernels
#define VKPHYS_SORT_ITEMS 16u    // elements per invocation in the sort kernels
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

// The digit of `key` that pass `pass` sorts by: bits [4 pass, min(4 pass + 4, key_bits)).
KFN uint radix_digit(uint key, uint pass, uint key_bits) {
  uint shift = pass * VKPHYS_RADIX_BITS;
  uint bits = key_bits - shift;
  if (bits > VKPHYS_RADIX_BITS) bits = VKPHYS_RADIX_BITS;
  return (key >> shift) & ((1u << bits) - 1u);
}

KERNELS_END
#endif
