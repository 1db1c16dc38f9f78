#version 450
#extension GL_GOOGLE_include_directive : require
// Sweep and prune over sorted positions (kernels/rigid_broadphase.inl); push.x: 0 count, 1 write.
#include "rigid_common.glsl"

void main() {
  uint s = gl_GlobalInvocationID.x;
  if (s >= params.counts.x) return;
  if (push.x == 0u) {
    sweep_count(s);
  } else {
    sweep_write(s);
  }
}
