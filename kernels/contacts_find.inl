// Stage functions included *inside* an environment that provides the buffers by name: the
// shaders declare them as std430 buffer blocks, the CPU backend (host/cpu/particle_env.h) as
// member pointers of a struct that includes this file in its body, so the code below compiles
// unchanged as GLSL and as C++ member functions. The pure maths it calls is in kernels/*.h.
// Buffers used: params, pos_radius, sort_values, cell_start, cell_end, contact_bodies,
//   contact_geom, contact_target, contact_lambda
// (layouts in kernels/layout.h).

// ---- narrowphase: particle i's contacts, in a fixed order ----------------------------------
void store_contact(uint slot, uint self, uint other, vec3 n, float g) {
  if (slot >= params.counts.w) return;  // past capacity: counted, flagged, step redone
  contact_bodies[slot] = uvec2(self, other);
  contact_geom[slot] = vec4(n, g);
  contact_target[slot] = vec4(0.0f);
  contact_lambda[slot] = vec4(0.0f);
}

// Visits the planes in order, then the 27 neighbour cells (z, y, x from -1 to 1), then each
// cell's particles in sorted (= index) order. Counts the contacts, and stores them from `base`
// when `write` is set: the count pass and the write pass see exactly the same sequence.
uint particle_contacts(uint i, bool write, uint base) {
  vec4 pi = pos_radius[i];
  float margin = params.grid.z;
  uint found = 0u;
  for (uint p = 0u; p < params.counts.y; ++p) {
    vec3 n;
    float g;
    if (plane_sphere(params.planes[p], pi, margin, n, g)) {
      if (write) store_contact(base + found, i, VKPHYS_PLANE_BIT | p, n, g);
      found += 1u;
    }
  }
  float inv_cell = params.grid.y;
  ivec3 cell = grid_cell(vec3(pi), inv_cell);
  for (int dz = -1; dz <= 1; ++dz) {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        ivec3 nc = cell + ivec3(dx, dy, dz);
        uint h = grid_hash(nc, params.counts.z);
        uint begin = cell_start[h];
        if (begin == VKPHYS_EMPTY_CELL) continue;
        uint end = cell_end[h];
        for (uint k = begin; k < end; ++k) {
          uint j = sort_values[k];
          if (j == i) continue;
          vec4 pj = pos_radius[j];
          if (any(notEqual(grid_cell(vec3(pj), inv_cell), nc))) continue;
          // Canonical order (lower index first) so both directed copies are bit-identical.
          vec3 n;
          float g;
          bool touching = i < j ? sphere_sphere(pi, pj, margin, n, g)
                                : sphere_sphere(pj, pi, margin, n, g);
          if (touching) {
            if (write) store_contact(base + found, i, j, n, g);
            found += 1u;
          }
        }
      }
    }
  }
  return found;
}
