// Scan, step 2 of each level: adds the scanned block sums back, data[i] += sums[i / BLOCK]
// (saturating: kernels/radix.h, saturating_add).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "kernels/limits.h"
#include "kernels/radix.h"

#define GROUP VKPHYS_SCAN_GROUP
#define ITEMS VKPHYS_SCAN_ITEMS
#define BLOCK VKPHYS_SCAN_BLOCK

layout(local_size_x = VKPHYS_SCAN_GROUP) in;

layout(std430, binding = 0) buffer Data { uint data[]; };
layout(std430, binding = 1) readonly buffer Sums { uint sums[]; };

layout(push_constant) uniform Push { uint count; } pc;

void main() {
  uint t = gl_LocalInvocationID.x;
  uint base = gl_WorkGroupID.x * BLOCK;
  uint add = sums[gl_WorkGroupID.x];
  for (uint i = 0u; i < ITEMS; ++i) {
    uint g = base + i * GROUP + t;
    if (g < pc.count) data[g] = saturating_add(data[g], add);
  }
}
