#version 450
#extension GL_GOOGLE_include_directive : require
// Sweep and prune (kernels/world_broadphase.inl): SWEEP_SLAB and SWEEP_WALK per sorted position,
// SWEEP_COUNT and SWEEP_WRITE per work item (as many items as sorted positions); push.x:
// VKPHYS_SWEEP_MODES.
#include "world_common.glsl"

void main() {
  uint s = gl_GlobalInvocationID.x;
  if (s >= params.counts.x) return;
  if (push.x == SWEEP_SLAB) {
    sweep_slab_key(s);
  } else if (push.x == SWEEP_WALK) {
    sweep_walk_length(s);
  } else if (push.x == SWEEP_COUNT) {
    sweep_count(s);
  } else {
    sweep_write(s);
  }
}
