#version 450
#extension GL_GOOGLE_include_directive : require
// Stage solve, first pass: apply the warm-start impulses to each body's velocity.
#include "particle_common.glsl"
layout(std430, binding = 1) readonly buffer VelIn { vec4 vel_invmass[]; };
layout(std430, binding = 2) writeonly buffer VelOut { vec4 vel_out[]; };
layout(std430, binding = 3) readonly buffer Offsets { uint contact_offset[]; };
layout(std430, binding = 4) readonly buffer Bodies { uvec2 contact_bodies[]; };
layout(std430, binding = 5) readonly buffer Geom { vec4 contact_geom[]; };
layout(std430, binding = 6) readonly buffer Target { vec4 contact_target[]; };
layout(std430, binding = 7) buffer Lambda { vec4 contact_lambda[]; };
#include "kernels/contacts_solve.inl"

void main() {
  uint b = gl_GlobalInvocationID.x;
  if (b >= params.counts.x) return;
  warm_start_body(b);
}
