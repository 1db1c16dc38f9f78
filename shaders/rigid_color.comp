#version 450
#extension GL_GOOGLE_include_directive : require
// Colouring and incidence lists (kernels/rigid_coloring.inl); push = (mode, colour, pass, 0):
//   0 init   1 propose   2 assign   3 sort key   4 colour ranges     (over units J + P)
//   5 incidence keys   6 incidence ranges                            (over 2 (J + P) entries)
#include "rigid_common.glsl"

void main() {
  uint k = gl_GlobalInvocationID.x;
  uint units = params.coloring.w;
  if (k >= (push.x >= 5u ? 2u * units : units)) return;
  switch (push.x) {
    case 0u: color_init(k); break;
    case 1u: color_propose(k, push.y, push.z); break;
    case 2u: color_assign(k, push.y, push.z); break;
    case 3u: color_key(k); break;
    case 4u: color_range(k); break;
    case 5u: incidence_key(k); break;
    default: incidence_range(k); break;
  }
}
