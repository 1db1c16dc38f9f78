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
    case GRID_WRITE: grid_write(p); break;
    default: break;
  }
}
