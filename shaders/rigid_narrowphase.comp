#version 450
#extension GL_GOOGLE_include_directive : require
// Narrowphase and warm-start matching per stored pair (indirect dispatch).
#include "rigid_common.glsl"

void main() {
  uint p = gl_GlobalInvocationID.x;
  if (p >= stored_pairs()) return;
  narrowphase_pair(p);
}
