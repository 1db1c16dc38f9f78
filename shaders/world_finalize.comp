#version 450
#extension GL_GOOGLE_include_directive : require
// One invocation (kernels/world_broadphase.inl, world_coloring.inl); push.x:
// VKPHYS_FINALIZE_MODES: list totals and indirect sizes after the scans, the colouring passes'
// size after color_init, or per-colour indirect sizes after the colour sort (push.y: colours
// recorded).
#include "world_common.glsl"

void main() {
  if (gl_GlobalInvocationID.x != 0u) return;
  if (push.x == FINALIZE_LISTS) {
    finalize_lists();
  } else if (push.x == FINALIZE_UNCOLORED) {
    uncolored_groups();
  } else {
    color_groups(push.y);
  }
}
