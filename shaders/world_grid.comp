#version 450
#extension GL_GOOGLE_include_directive : require
// The particle grid (kernels/particle_grid.inl), per particle or sorted entry;
// push.x: VKPHYS_GRID_MODES.
#include "world_common.glsl"

void main() {
  uint p = gl_GlobalInvocationID.x;
  if (p >= params.kinds.y) return;
  switch (push.x) {
    case GRID_HASH: grid_hash_particle(p); break;
    case GRID_CELL_RANGE: grid_cell_range(p); break;
    case GRID_COUNT: grid_count(p); break;
    case GRID_WRITE:
      grid_write(p);
      if (VKPHYS_FAULT == FAULT_BROADPHASE) {  // test-only (kernels/stages.h)
        uint end = min(pcontact_offsets[p + 1u], params.kinds.z);
        for (uint c = pcontact_offsets[p]; c < end; ++c) {
          vec4 g = pcontact_geom[c];
          pcontact_geom[c] = vec4(normalize(vec3(g) + vec3(0.1f, 0.0f, 0.0f)), g.w);
        }
      }
      break;
    default: break;
  }
}
