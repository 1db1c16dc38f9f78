#version 450
#extension GL_GOOGLE_include_directive : require
// Stage prepare: SPOOK velocity targets per stored contact (indirect dispatch).
#include "particle_common.glsl"
layout(std430, binding = 1) readonly buffer Material { uint material[]; };
layout(std430, binding = 2) readonly buffer VelStart { vec4 vel_start[]; };
layout(std430, binding = 3) readonly buffer Bodies { uvec2 contact_bodies[]; };
layout(std430, binding = 4) readonly buffer Geom { vec4 contact_geom[]; };
layout(std430, binding = 5) writeonly buffer Target { vec4 contact_target[]; };
layout(std430, binding = 6) writeonly buffer Lambda { vec4 contact_lambda[]; };
layout(std430, binding = 7) readonly buffer Counters { StepCounters counters; };
#include "kernels/contacts_prepare.inl"

void main() {
  uint c = gl_GlobalInvocationID.x;
  if (c >= min(counters.contacts, params.counts.w)) return;
  prepare_contact(c);
}
