#version 450
#extension GL_GOOGLE_include_directive : require
// Stage prepare: match each stored contact to last step's (warm start) and compute its SPOOK
// velocity targets (indirect dispatch over the GPU-written contact count).
#include "particle_common.glsl"
layout(std430, binding = 1) readonly buffer Material { uint material[]; };
layout(std430, binding = 2) readonly buffer VelStart { vec4 vel_start[]; };
layout(std430, binding = 3) readonly buffer Bodies { uvec2 contact_bodies[]; };
layout(std430, binding = 4) readonly buffer Geom { vec4 contact_geom[]; };
layout(std430, binding = 5) writeonly buffer Target { vec4 contact_target[]; };
layout(std430, binding = 6) writeonly buffer Lambda { vec4 contact_lambda[]; };
layout(std430, binding = 7) readonly buffer Counters { StepCounters counters; };
layout(std430, binding = 8) readonly buffer PrevOffsets { uint prev_contact_offset[]; };
layout(std430, binding = 9) readonly buffer PrevBodies { uvec2 prev_contact_bodies[]; };
layout(std430, binding = 10) readonly buffer PrevLambda { vec4 prev_contact_lambda[]; };
#include "kernels/contacts_prepare.inl"

void main() {
  uint c = gl_GlobalInvocationID.x;
  if (c >= min(counters.contacts, params.counts.w)) return;
  prepare_contact(c);
}
