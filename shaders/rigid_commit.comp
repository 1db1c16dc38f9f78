#version 450
#extension GL_GOOGLE_include_directive : require
// Contact persistence (kernels/rigid_narrowphase.inl); push = (mode, always, 0, 0):
//   0 commit pairs (over the capacity)   1 clear the hash table   2 insert the pairs
// `always` ignores the overflow flag (rebuilding the table after a regrow).
#include "rigid_common.glsl"

void main() {
  uint k = gl_GlobalInvocationID.x;
  bool always = push.y != 0u;
  if (push.x == 1u) {
    if (k < params.counts.w) hash_clear(k, always);
    return;
  }
  if (k >= params.counts.z) return;
  if (push.x == 0u) {
    commit_pair(k);
  } else {
    hash_insert_pair(k, always);
  }
}
