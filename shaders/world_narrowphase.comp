#version 450
#extension GL_GOOGLE_include_directive : require
// Narrowphase and warm-start matching per stored SAP pair (indirect dispatch).
#include "world_common.glsl"

void main() {
  uint p = gl_GlobalInvocationID.x;
  if (p >= stored_pairs()) return;
  narrowphase_pair(p);
  if (VKPHYS_FAULT == FAULT_NARROWPHASE) {  // test-only (kernels/stages.h)
    for (uint k = 0u; k < pair_info[p].z; ++k) point_geom[4u * p + k].w += 0.01f;
  }
}
