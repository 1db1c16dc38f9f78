#version 450
#extension GL_GOOGLE_include_directive : require
// Stage hash: key = hash of the particle's grid cell, value = particle index (sorted next).
#include "particle_common.glsl"
layout(std430, binding = 1) readonly buffer Pos { vec4 pos_radius[]; };
layout(std430, binding = 2) writeonly buffer Keys { uint sort_keys[]; };
layout(std430, binding = 3) writeonly buffer Values { uint sort_values[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= params.counts.x) return;
  sort_keys[i] = grid_hash(grid_cell(pos_radius[i].xyz, params.grid.y), params.counts.z);
  sort_values[i] = i;
}
