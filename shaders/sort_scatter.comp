// Radix sort, step 2 of each pass: stable scatter of each block of BLOCK = 64 x 16 pairs.
//
// The block first sorts itself by the pass's digit, stably, in shared memory; then the key at
// position p of that order, with digit d, goes to hist[d * blocks + block] + p - first(d), where
// first(d) is the block's first position holding d and hist is the scanned global histogram.
// Equal digits therefore keep their input order: block, then position in the block.
//
// Why a local sort: ranking each key among the block's keys of its digit by per-invocation
// counters, as a 16-digit pass can, needs a (digit, invocation) table of 256 x 64 words with
// 256 digits, 64 KiB, past the 16 KiB of shared memory Vulkan guarantees. The local sort is
// 4-bit counting passes (ceil(bits / 4): three for an 11-bit pass) over (digit, position)
// entries packed in one word each, which need a 16 x 64 table (4 KiB) and no subgroup
// operations. A side effect: equal digits leave the block as contiguous runs, so the global
// writes coalesce.
//
// Shared memory, 16 KiB in all at the widest pass (11 bits, 2,048 digits): the entries' two
// halves (8 KiB) and one 2,048-word table (8 KiB) that the local passes use for their counts and
// run totals and the writes then use for each digit's start.
//
// Only the first n = min(count, live[live_word]) pairs are sorted (host/gpu/primitives.h). The
// rest are copied to the same places, so that a pass moves the whole list into the other buffer
// of the ping-pong pair, whose tail is stale; a block wholly past n only copies.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "kernels/limits.h"
#include "kernels/radix.h"

#define GROUP VKPHYS_GROUP_SIZE
#define ITEMS VKPHYS_SORT_ITEMS
#define DIGITS VKPHYS_RADIX_MAX_DIGITS
#define BLOCK (VKPHYS_GROUP_SIZE * VKPHYS_SORT_ITEMS)
#define NIBBLE_BITS 4u
#define NIBBLES 16u
#define DIGIT_SHIFT 16u  // an entry is digit << 16 | position in the block (< BLOCK)

layout(local_size_x = VKPHYS_GROUP_SIZE) in;

layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 1) readonly buffer ValuesIn { uint values_in[]; };
layout(std430, binding = 2) readonly buffer Hist { uint hist[]; };
layout(std430, binding = 3) writeonly buffer KeysOut { uint keys_out[]; };
layout(std430, binding = 4) writeonly buffer ValuesOut { uint values_out[]; };
layout(std430, binding = 5) readonly buffer Live { uint live[]; };

layout(push_constant) uniform Push {
  uint count;
  uint pass_index;
  uint key_bits;
  uint blocks;
  uint width;
  uint live_word;
} pc;

shared uint s_entry[2 * BLOCK];  // two halves, ping-pong of the local passes
// The local passes' [nibble][invocation] counts, then ranks (COUNT), and run totals (PART); after
// them, each digit's first position in the block, then its output slot minus that position.
shared uint s_table[DIGITS];
#define COUNT 0u
#define PART (NIBBLES * GROUP)

uint nibble(uint entry, uint shift) {
  return (entry >> (DIGIT_SHIFT + shift)) & (NIBBLES - 1u);
}

// Stable counting pass over the block's `valid` entries by the nibble at `shift`, from half
// `src` into half `dst`. Invocation t owns the contiguous run [t * ITEMS, (t + 1) * ITEMS); its
// counts, scanned nibble-major across the workgroup, give each run's first rank per nibble.
void local_pass(uint src, uint dst, uint shift, uint valid) {
  uint t = gl_LocalInvocationID.x;
  for (uint d = 0u; d < NIBBLES; ++d) s_table[COUNT + d * GROUP + t] = 0u;
  for (uint i = 0u; i < ITEMS; ++i) {
    uint j = t * ITEMS + i;
    if (j < valid) s_table[COUNT + nibble(s_entry[src + j], shift) * GROUP + t] += 1u;
  }
  memoryBarrierShared();
  barrier();

  // Exclusive scan of the counts in nibble-major order: invocation t scans entries
  // [t * NIBBLES, (t + 1) * NIBBLES), then the GROUP partial sums are scanned.
  uint sum = 0u;
  for (uint k = 0u; k < NIBBLES; ++k) {
    uint e = t * NIBBLES + k;
    uint v = s_table[COUNT + e];
    s_table[COUNT + e] = sum;
    sum += v;
  }
  s_table[PART + t] = sum;
  memoryBarrierShared();
  barrier();
  for (uint off = 1u; off < GROUP; off <<= 1u) {
    uint v = s_table[PART + t];
    if (t >= off) v += s_table[PART + t - off];
    memoryBarrierShared();
    barrier();
    s_table[PART + t] = v;
    memoryBarrierShared();
    barrier();
  }
  uint prefix = s_table[PART + t] - sum;
  for (uint k = 0u; k < NIBBLES; ++k) s_table[COUNT + t * NIBBLES + k] += prefix;
  memoryBarrierShared();
  barrier();

  // Ordered moves of this invocation's run.
  for (uint i = 0u; i < ITEMS; ++i) {
    uint j = t * ITEMS + i;
    if (j < valid) {
      uint entry = s_entry[src + j];
      uint c = nibble(entry, shift) * GROUP + t;
      s_entry[dst + s_table[COUNT + c]] = entry;
      s_table[COUNT + c] += 1u;
    }
  }
  memoryBarrierShared();
  barrier();
}

void main() {
  uint t = gl_LocalInvocationID.x;
  uint block = gl_WorkGroupID.x;
  uint base = block * BLOCK;
  uint n = min(pc.count, live[pc.live_word]);
  uint valid = base < n ? min(BLOCK, n - base) : 0u;
  uint held = min(BLOCK, pc.count - base);
  for (uint j = valid + t; j < held; j += GROUP) {
    keys_out[base + j] = keys_in[base + j];
    values_out[base + j] = values_in[base + j];
  }
  if (valid == 0u) return;  // the whole workgroup: n is the same in every invocation
  uint bits = radix_pass_bits(pc.pass_index, pc.key_bits, pc.width);

  // Coalesced load of the block's digits.
  for (uint i = 0u; i < ITEMS; ++i) {
    uint j = i * GROUP + t;
    if (j < valid) {
      uint digit = radix_digit(keys_in[base + j], pc.pass_index, pc.key_bits, pc.width);
      s_entry[j] = digit << DIGIT_SHIFT | j;
    }
  }
  memoryBarrierShared();
  barrier();

  // LSD over the digit's nibbles: the entries end in (digit, position) order.
  uint src = 0u;
  for (uint shift = 0u; shift < bits; shift += NIBBLE_BITS) {
    local_pass(src, BLOCK - src, shift, valid);
    src = BLOCK - src;
  }

  // Each digit's first position in the block, then its output slot minus that position (the
  // entries of digits absent from the block are never read).
  for (uint i = 0u; i < ITEMS; ++i) {
    uint p = i * GROUP + t;
    if (p < valid) {
      uint digit = s_entry[src + p] >> DIGIT_SHIFT;
      if (p == 0u || s_entry[src + p - 1u] >> DIGIT_SHIFT != digit) s_table[digit] = p;
    }
  }
  memoryBarrierShared();
  barrier();
  for (uint d = t; d < (1u << bits); d += GROUP) {
    s_table[d] = hist[d * pc.blocks + block] - s_table[d];
  }
  memoryBarrierShared();
  barrier();

  // Writes in digit order: a run of equal digits goes to consecutive slots.
  for (uint i = 0u; i < ITEMS; ++i) {
    uint p = i * GROUP + t;
    if (p < valid) {
      uint entry = s_entry[src + p];
      uint j = entry & (BLOCK - 1u);
      uint slot = s_table[entry >> DIGIT_SHIFT] + p;
      keys_out[slot] = keys_in[base + j];
      values_out[slot] = values_in[base + j];
    }
  }
}
