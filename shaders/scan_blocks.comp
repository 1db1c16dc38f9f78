// Scan, step 1 of each level: exclusive scan of each block of BLOCK = 128 x 16 elements in place,
// and the block's total into sums[block] (the next level scans the sums; scan_add adds them back).
// Sums saturate at VKPHYS_SCAN_LIMIT (kernels/radix.h, saturating_add) like the CPU twin.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "kernels/limits.h"
#include "kernels/radix.h"

#define GROUP VKPHYS_SCAN_GROUP
#define ITEMS VKPHYS_SCAN_ITEMS
#define BLOCK VKPHYS_SCAN_BLOCK

layout(local_size_x = VKPHYS_SCAN_GROUP) in;

layout(std430, binding = 0) buffer Data { uint data[]; };
layout(std430, binding = 1) writeonly buffer Sums { uint sums[]; };

layout(push_constant) uniform Push { uint count; } pc;

shared uint s_data[BLOCK];
shared uint s_part[GROUP];

void main() {
  uint t = gl_LocalInvocationID.x;
  uint base = gl_WorkGroupID.x * BLOCK;

  // Coalesced load; elements past count read as 0.
  for (uint i = 0u; i < ITEMS; ++i) {
    uint j = i * GROUP + t;
    uint g = base + j;
    s_data[j] = g < pc.count ? data[g] : 0u;
  }
  memoryBarrierShared();
  barrier();

  // Each invocation scans its own contiguous run of ITEMS elements.
  uint sum = 0u;
  for (uint i = 0u; i < ITEMS; ++i) {
    uint j = t * ITEMS + i;
    uint v = s_data[j];
    s_data[j] = sum;
    sum = saturating_add(sum, v);
  }
  s_part[t] = sum;
  memoryBarrierShared();
  barrier();

  // Inclusive scan of the run totals across the workgroup (Hillis-Steele).
  for (uint off = 1u; off < GROUP; off <<= 1u) {
    uint v = s_part[t];
    if (t >= off) v = saturating_add(v, s_part[t - off]);
    memoryBarrierShared();
    barrier();
    s_part[t] = v;
    memoryBarrierShared();
    barrier();
  }
  // The runs before this one (no subtraction: a saturated sum cannot be taken apart).
  uint prefix = t == 0u ? 0u : s_part[t - 1u];
  for (uint i = 0u; i < ITEMS; ++i) {
    s_data[t * ITEMS + i] = saturating_add(s_data[t * ITEMS + i], prefix);
  }
  if (t == GROUP - 1u) sums[gl_WorkGroupID.x] = s_part[t];
  memoryBarrierShared();
  barrier();

  for (uint i = 0u; i < ITEMS; ++i) {
    uint j = i * GROUP + t;
    uint g = base + j;
    if (g < pc.count) data[g] = s_data[j];
  }
}
