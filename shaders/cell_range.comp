#version 450
#extension GL_GOOGLE_include_directive : require
// Stage cell ranges: [cell_start, cell_end) of each hash bucket in the sorted order.
#include "particle_common.glsl"
layout(std430, binding = 1) readonly buffer Keys { uint sort_keys[]; };
layout(std430, binding = 2) writeonly buffer Start { uint cell_start[]; };
layout(std430, binding = 3) writeonly buffer End { uint cell_end[]; };
#include "kernels/cell_range.inl"

void main() {
  uint k = gl_GlobalInvocationID.x;
  if (k >= params.counts.x) return;
  find_cell_range(k);
}
