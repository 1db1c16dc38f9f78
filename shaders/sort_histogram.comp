// Radix sort, step 1 of each pass: the digit histogram of each block of BLOCK = 64 x 16 keys,
// stored digit-major (hist[digit * blocks + block]) so that an exclusive scan of the whole
// array gives every (digit, block) its first output position, in stable order.
//
// With up to 2,048 digits (a pass of pc.width <= 11 bits) a count per (digit, invocation) would
// not fit in shared memory, so the block counts with shared atomics: a histogram does not
// depend on the order of the increments. Only the 2^bits digits the pass can have are written
// (a short last pass scans fewer entries).
//
// Only the first n = min(count, live[live_word]) keys are counted (host/gpu/primitives.h: the
// rest stay where they are); a block past them writes a histogram of zeros.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "kernels/limits.h"
#include "kernels/radix.h"

#define GROUP VKPHYS_GROUP_SIZE
#define ITEMS VKPHYS_SORT_ITEMS
#define DIGITS VKPHYS_RADIX_MAX_DIGITS
#define BLOCK (VKPHYS_GROUP_SIZE * VKPHYS_SORT_ITEMS)

layout(local_size_x = VKPHYS_GROUP_SIZE) in;

layout(std430, binding = 0) readonly buffer Keys { uint keys[]; };
layout(std430, binding = 1) writeonly buffer Hist { uint hist[]; };
layout(std430, binding = 2) readonly buffer Live { uint live[]; };

layout(push_constant) uniform Push {
  uint count;
  uint pass_index;
  uint key_bits;
  uint blocks;
  uint width;
  uint live_word;
} pc;

shared uint s_count[DIGITS];

void main() {
  uint t = gl_LocalInvocationID.x;
  uint base = gl_WorkGroupID.x * BLOCK;
  uint n = min(pc.count, live[pc.live_word]);

  uint digits = 1u << radix_pass_bits(pc.pass_index, pc.key_bits, pc.width);
  for (uint d = t; d < digits; d += GROUP) s_count[d] = 0u;
  memoryBarrierShared();
  barrier();
  for (uint i = 0u; i < ITEMS; ++i) {
    uint g = base + i * GROUP + t;
    if (g < n) {
      atomicAdd(s_count[radix_digit(keys[g], pc.pass_index, pc.key_bits, pc.width)], 1u);
    }
  }
  memoryBarrierShared();
  barrier();

  for (uint d = t; d < digits; d += GROUP) hist[d * pc.blocks + gl_WorkGroupID.x] = s_count[d];
}
