#version 450
#extension GL_GOOGLE_include_directive : require
// End of step: this step's contact lists and impulses become "previous" for the next step's
// warm start, unless the step overflowed (then the host redoes it and the old ones must stay).
#include "particle_common.glsl"
layout(std430, binding = 1) readonly buffer Counters { StepCounters counters; };
layout(std430, binding = 2) readonly buffer Offsets { uint contact_offset[]; };
layout(std430, binding = 3) readonly buffer Bodies { uvec2 contact_bodies[]; };
layout(std430, binding = 4) readonly buffer Lambda { vec4 contact_lambda[]; };
layout(std430, binding = 5) writeonly buffer PrevOffsets { uint prev_contact_offset[]; };
layout(std430, binding = 6) writeonly buffer PrevBodies { uvec2 prev_contact_bodies[]; };
layout(std430, binding = 7) writeonly buffer PrevLambda { vec4 prev_contact_lambda[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (counters.overflow != 0u) return;
  if (i <= params.counts.x) prev_contact_offset[i] = contact_offset[i];
  if (i < counters.contacts) {
    prev_contact_bodies[i] = contact_bodies[i];
    prev_contact_lambda[i] = contact_lambda[i];
  }
}
