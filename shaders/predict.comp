#version 450
#extension GL_GOOGLE_include_directive : require
// Stage predict: v* = v + h M^-1 f (gravity, linear drag). Also keeps the step-start velocity.
#include "particle_common.glsl"
layout(std430, binding = 1) buffer Vel { vec4 vel_invmass[]; };
layout(std430, binding = 2) writeonly buffer VelStart { vec4 vel_start[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= params.counts.x) return;
  vec4 v = vel_invmass[i];
  vel_start[i] = v;
  vel_invmass[i] = vec4(predict_velocity(v.xyz, v.w, params.gravity_dt.xyz, params.grid.w,
                                         params.gravity_dt.w), v.w);
}
