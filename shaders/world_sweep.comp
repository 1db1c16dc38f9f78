#version 450
#extension GL_GOOGLE_include_directive : require
// Sweep and prune over sorted positions (kernels/world_broadphase.inl);
// push.x: VKPHYS_SWEEP_MODES.
#include "world_common.glsl"

void main() {
  uint s = gl_GlobalInvocationID.x;
  if (s >= params.counts.x) return;
  if (push.x == SWEEP_COUNT) {
    sweep_count(s);
  } else {
    sweep_write(s);
  }
}
