#version 450
#extension GL_GOOGLE_include_directive : require
// Stage integrate: x' = x + h v' with the solved velocity (leapfrog).
#include "particle_common.glsl"
layout(std430, binding = 1) buffer Pos { vec4 pos_radius[]; };
layout(std430, binding = 2) readonly buffer Vel { vec4 vel_invmass[]; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= params.counts.x) return;
  vec4 p = pos_radius[i];
  pos_radius[i] = vec4(integrate_position(p.xyz, vel_invmass[i].xyz, params.gravity_dt.w), p.w);
}
