#version 450
#extension GL_GOOGLE_include_directive : require
// Stage write contacts: particle i stores its contacts from contact_offset[i] on, in the same
// order the count pass visited them.
#include "particle_common.glsl"
layout(std430, binding = 1) readonly buffer Pos { vec4 pos_radius[]; };
layout(std430, binding = 2) readonly buffer Values { uint sort_values[]; };
layout(std430, binding = 3) readonly buffer Start { uint cell_start[]; };
layout(std430, binding = 4) readonly buffer End { uint cell_end[]; };
layout(std430, binding = 5) readonly buffer Offsets { uint contact_offset[]; };
layout(std430, binding = 6) writeonly buffer Bodies { uvec2 contact_bodies[]; };
layout(std430, binding = 7) writeonly buffer Geom { vec4 contact_geom[]; };
layout(std430, binding = 8) writeonly buffer Target { vec4 contact_target[]; };
layout(std430, binding = 9) writeonly buffer Lambda { vec4 contact_lambda[]; };
#include "kernels/contacts_find.inl"

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= params.counts.x) return;
  particle_contacts(i, true, contact_offset[i]);
}
