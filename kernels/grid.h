// Uniform-grid hashing for the particle broadphase.
//
// A particle belongs to the cell floor(x / cell); cells map into a power-of-two hash table with
// the classic three-prime spatial hash (Teschner et al. 2003). Different cells can share a
// bucket; the narrowphase therefore checks that a candidate's own cell is the neighbour cell it
// is visiting, which both rejects collisions and guarantees each pair is seen exactly once.
#ifndef VKPHYS_KERNELS_GRID_H
#define VKPHYS_KERNELS_GRID_H
#include "kernels/common.h"

KERNELS_BEGIN

// Cell coordinates stop at +-2^30 (a NaN counts as -2^30): converting a float beyond the int
// range is undefined, and a neighbour cell (cell +- 1) must not overflow. Clamping keeps
// neighbouring cells neighbours, so far-out particles only share cells, and no pair is lost.
#define VKPHYS_GRID_CELL_LIMIT 1073741824.0f

KFN ivec3 grid_cell(vec3 p, float inv_cell) {
  vec3 c = floor(p * inv_cell);
  vec3 lo = vec3(-VKPHYS_GRID_CELL_LIMIT);
  c = mix(lo, min(c, vec3(VKPHYS_GRID_CELL_LIMIT)), greaterThanEqual(c, lo));
  return ivec3(c);
}

KFN uint grid_hash(ivec3 cell, uint table_size) {
  uvec3 u = uvec3(cell);
  uint h = (u.x * 73856093u) ^ (u.y * 19349663u) ^ (u.z * 83492791u);
  return h & (table_size - 1u);
}

KERNELS_END
#endif
