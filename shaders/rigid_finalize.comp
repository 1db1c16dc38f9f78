#version 450
#extension GL_GOOGLE_include_directive : require
// One invocation: push.x 0 = pair totals and indirect sizes after the scan, 1 = per-colour
// indirect sizes after the colour sort (push.y: colours recorded).
#include "rigid_common.glsl"

void main() {
  if (gl_GlobalInvocationID.x != 0u) return;
  if (push.x == 0u) {
    sweep_finalize();
  } else {
    color_groups(push.y);
  }
}
