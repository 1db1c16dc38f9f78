#version 450
#extension GL_GOOGLE_include_directive : require
// Joint trees solved directly (kernels/joint_trees.inl), one invocation per tree;
// push.x: VKPHYS_TREE_MODES, push.y: the sweep kind for TREE_SOLVE.
#include "world_common.glsl"

void main() {
  uint t = gl_GlobalInvocationID.x;
  if (t >= params.trees.x) return;
  if (push.x == TREE_FACTOR) {
    joint_tree_factor(t);
  } else {
    joint_tree_solve(t, push.y);
  }
}
