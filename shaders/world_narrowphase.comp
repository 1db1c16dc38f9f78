#version 450
#extension GL_GOOGLE_include_directive : require
// Narrowphase and warm-start matching per stored SAP pair (indirect dispatch).
#include "world_common.glsl"

void main() {
  uint p = gl_GlobalInvocationID.x;
  if (p >= stored_pairs()) return;
  narrowphase_pair(p);
}
