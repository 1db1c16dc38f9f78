// Radix sort, step 2 of each pass: stable scatter of each block of BLOCK = 64 x 16 pairs.
//
// The block is staged in shared memory; invocation t then owns the contiguous run
// [t * ITEMS, (t + 1) * ITEMS). Per-invocation digit counts, scanned digit-major across the
// workgroup, give each run's rank among the block's keys of the same digit; the scanned global
// histogram (hist[digit * blocks + block]) gives the block's first slot for that digit. Writing
// each run in order therefore keeps equal digits in input order: block, run, element.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "kernels/limits.h"
#include "kernels/radix.h"

#define GROUP VKPHYS_GROUP_SIZE
#define ITEMS VKPHYS_SORT_ITEMS
#define DIGITS VKPHYS_RADIX_DIGITS
#define BLOCK (VKPHYS_GROUP_SIZE * VKPHYS_SORT_ITEMS)

layout(local_size_x = VKPHYS_GROUP_SIZE) in;

layout(std430, binding = 0) readonly buffer KeysIn { uint keys_in[]; };
layout(std430, binding = 1) readonly buffer ValuesIn { uint values_in[]; };
layout(std430, binding = 2) readonly buffer Hist { uint hist[]; };
layout(std430, binding = 3) writeonly buffer KeysOut { uint keys_out[]; };
layout(std430, binding = 4) writeonly buffer ValuesOut { uint values_out[]; };

layout(push_constant) uniform Push {
  uint count;
  uint pass_index;
  uint key_bits;
  uint blocks;
} pc;

shared uint s_keys[BLOCK];
shared uint s_values[BLOCK];
shared uint s_count[DIGITS * GROUP];  // [digit][invocation]: counts, then ranks
shared uint s_part[GROUP];
shared uint s_start[DIGITS];

void main() {
  uint t = gl_LocalInvocationID.x;
  uint block = gl_WorkGroupID.x;
  uint base = block * BLOCK;
  uint valid = min(BLOCK, pc.count - base);

  // Coalesced load of the block.
  for (uint i = 0u; i < ITEMS; ++i) {
    uint j = i * GROUP + t;
    if (j < valid) {
      s_keys[j] = keys_in[base + j];
      s_values[j] = values_in[base + j];
    }
  }
  for (uint d = 0u; d < DIGITS; ++d) s_count[d * GROUP + t] = 0u;
  memoryBarrierShared();
  barrier();

  // Digit counts of this invocation's run.
  for (uint i = 0u; i < ITEMS; ++i) {
    uint j = t * ITEMS + i;
    if (j < valid) s_count[radix_digit(s_keys[j], pc.pass_index, pc.key_bits) * GROUP + t] += 1u;
  }
  memoryBarrierShared();
  barrier();

  // Exclusive scan of s_count in digit-major order: invocation t scans entries
  // [t * DIGITS, (t + 1) * DIGITS), then the GROUP partial sums are scanned.
  uint sum = 0u;
  for (uint k = 0u; k < DIGITS; ++k) {
    uint e = t * DIGITS + k;
    uint v = s_count[e];
    s_count[e] = sum;
    sum += v;
  }
  s_part[t] = sum;
  memoryBarrierShared();
  barrier();
  for (uint off = 1u; off < GROUP; off <<= 1u) {
    uint v = s_part[t];
    if (t >= off) v += s_part[t - off];
    memoryBarrierShared();
    barrier();
    s_part[t] = v;
    memoryBarrierShared();
    barrier();
  }
  uint prefix = s_part[t] - sum;
  for (uint k = 0u; k < DIGITS; ++k) s_count[t * DIGITS + k] += prefix;
  memoryBarrierShared();
  barrier();

  // Output slot of the block's first key with digit d, minus its rank in the block (wraps).
  if (t < DIGITS) s_start[t] = hist[t * pc.blocks + block] - s_count[t * GROUP];
  memoryBarrierShared();
  barrier();

  // Ordered writes of this invocation's run.
  for (uint i = 0u; i < ITEMS; ++i) {
    uint j = t * ITEMS + i;
    if (j < valid) {
      uint key = s_keys[j];
      uint e = radix_digit(key, pc.pass_index, pc.key_bits) * GROUP + t;
      uint slot = s_start[e / GROUP] + s_count[e];
      s_count[e] += 1u;
      keys_out[slot] = key;
      values_out[slot] = s_values[j];
    }
  }
}
