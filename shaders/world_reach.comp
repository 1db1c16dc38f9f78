#version 450
#extension GL_GOOGLE_include_directive : require
// The speculative reach (kernels/world_bodies.inl, body_reach_setup): each rigid body's box grown
// to what it may cross this step. Recorded after the body set-up only with
// solver.speculative_reach, and a shader of its own: inside world_body.comp it slowed every
// per-body stage on lavapipe (body_reach_setup says why).
#include "world_common.glsl"

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= params.counts.x) return;
  body_reach_setup(i);
}
