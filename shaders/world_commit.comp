#version 450
#extension GL_GOOGLE_include_directive : require
// Contact persistence (kernels/world_narrowphase.inl, contact_particle.inl); push = (mode,
// always, 0, 0), mode: VKPHYS_COMMIT_MODES:
//   COMMIT_PAIRS (over the pair capacity), COMMIT_HASH_CLEAR, COMMIT_HASH_INSERT,
//   COMMIT_PARTICLE_CONTACTS (over max(particle-contact capacity, particles + 1)).
// `always` ignores the overflow flag (rebuilding the table after a regrow).
#include "world_common.glsl"

void main() {
  uint k = gl_GlobalInvocationID.x;
  bool always = push.y != 0u;
  if (push.x == COMMIT_HASH_CLEAR) {
    if (k < params.counts.w) hash_clear(k, always);
    return;
  }
  if (push.x == COMMIT_PARTICLE_CONTACTS) {
    commit_pcontact(k);
    commit_pcontact_offset(k);
    return;
  }
  if (k >= params.counts.z) return;
  if (push.x == COMMIT_PAIRS) {
    commit_pair(k);
  } else {
    hash_insert_pair(k, always);
  }
}
