// Radix sort, step 1 of each pass: the digit histogram of each block of BLOCK = 64 x 16 keys,
// stored digit-major (hist[digit * blocks + block]) so that an exclusive scan of the whole
// array gives every (digit, block) its first output position, in stable order.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "kernels/limits.h"
#include "kernels/radix.h"

#define GROUP VKPHYS_GROUP_SIZE
#define ITEMS VKPHYS_SORT_ITEMS
#define DIGITS VKPHYS_RADIX_DIGITS
#define BLOCK (VKPHYS_GROUP_SIZE * VKPHYS_SORT_ITEMS)

layout(local_size_x = VKPHYS_GROUP_SIZE) in;

layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) writeonly buffer Hist { uint hist[]; };

layout(push_constant) uniform Push {
  uint count;
  uint pass_index;
  uint key_bits;
  uint blocks;
} pc;

shared uint s_count[DIGITS * GROUP];  // [digit][invocation]

void main() {
  uint t = gl_LocalInvocationID.x;
  uint base = gl_WorkGroupID.x * BLOCK;

  // Per-invocation counts (no atomics: each invocation owns one column).
  for (uint d = 0u; d < DIGITS; ++d) s_count[d * GROUP + t] = 0u;
  for (uint i = 0u; i < ITEMS; ++i) {
    uint g = base + i * GROUP + t;
    if (g < pc.count) s_count[radix_digit(keys[g], pc.pass_index, pc.key_bits) * GROUP + t] += 1u;
  }
  memoryBarrierShared();
  barrier();

  if (t < DIGITS) {
    uint total = 0u;
    for (uint k = 0u; k < GROUP; ++k) total += s_count[t * GROUP + k];
    hist[t * pc.blocks + gl_WorkGroupID.x] = total;
  }
}
