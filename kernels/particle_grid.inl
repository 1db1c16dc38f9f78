// Broadphase and narrowphase for particles: a uniform grid finds particle-particle contacts,
// and every particle is tested against every plane. Stage functions (environment:
// kernels/world_bodies.inl); the cell hash is kernels/grid.h, the pair tests
// kernels/narrowphase.h.
//
//   hash:        grid_keys[p] = hash of particle p's cell, grid_values[p] = its body index
//   (radix sort of the keys)
//   cell range:  each hash bucket's range [cell_start, cell_end) of sorted entries
//   count/write: particle i visits the planes in order, then the 27 neighbour cells (z, y, x
//                from -1 to 1), then each cell's particles in sorted (= index) order, and keeps
//                the touching partners with a higher index: each pair once, owned by its lower
//                particle. Count, exclusive scan, write (as for the SAP pairs), so the contact
//                order is deterministic and the same on both backends, with no atomics.
// With every particle in one nonzero group (VKPHYS_FLAG_PARTICLE_PAIRS clear) the neighbour
// scan is skipped: no two particles may collide. Different cells can share a bucket, so a candidate
// counts only when its own cell is the neighbour cell being visited, which also sees each pair
// exactly once. The cell must be at least the largest contact reach 2 r_max + margin wide
// (host/sim/world_setup.cpp checks it).
//
// Warm starting: the write pass looks up last step's contacts of the same owner (its list is
// prev_pcontact_offsets[p] .. [p + 1]) for the same other body and takes its impulses, scaled
// by the warm-start factor; friction is kept as a world vector, so the tangent basis may change.

void grid_hash_particle(uint p) {
  uint i = params.kinds.x + p;
  grid_keys[p] = grid_hash(grid_cell(vec3(body_pos[i]), params.grid.y), params.kinds.w);
  grid_values[p] = i;
}

void grid_cell_range(uint k) {
  uint key = grid_keys[k];
  if (k == 0u || grid_keys[k - 1u] != key) cell_start[key] = k;
  if (k + 1u == params.kinds.y || grid_keys[k + 1u] != key) cell_end[key] = k + 1u;
}

// Last step's impulses of the contact (owner p, other body), or zero.
vec4 previous_pcontact(uint p, uint other) {
  uint end = prev_pcontact_offsets[p + 1u];
  for (uint c = prev_pcontact_offsets[p]; c < end; ++c) {
    if (prev_pcontact_other[c] == other) return prev_pcontact_lambda[c];
  }
  return vec4(0.0f);
}

void store_pcontact(uint slot, uint p, uint a, uint b, vec3 n, float g) {
  if (slot >= params.kinds.z) return;  // past capacity: counted, flagged, step redone
  pcontact_bodies[slot] = uvec2(a, b);
  pcontact_geom[slot] = vec4(n, g);
  vec4 last = previous_pcontact(p, a == params.kinds.x + p ? b : a);
  vec3 t1;
  vec3 t2;
  tangent_basis(n, t1, t2);
  vec3 friction = vec3(last.y, last.z, last.w);
  pcontact_lambda[slot] =
      vec4(params.solver.w * vec3(last.x, dot(friction, t1), dot(friction, t2)), 0.0f);
}

// Particle p's contacts, counted, and stored from `base` when `write` is set.
uint particle_contacts(uint p, bool write, uint base) {
  uint i = params.kinds.x + p;
  vec4 pi = body_pos[i];
  float margin = params.contact.x;
  uint found = 0u;
  for (uint k = 0u; k < params.coloring.z; ++k) {
    uint pb = WORLD_PLANE_BODY(k);
    if (!may_collide(pb, i)) continue;
    vec3 pn = quat_axis_y(rigid_rot[pb]);
    vec3 n;
    float g;
    if (plane_sphere(vec4(pn, dot(pn, vec3(body_pos[pb]))), pi, margin, n, g)) {
      if (write) store_pcontact(base + found, p, pb, i, n, g);
      found += 1u;
    }
  }
  if ((params.modes.w & VKPHYS_FLAG_PARTICLE_PAIRS) == 0u) return found;
  float inv_cell = params.grid.y;
  ivec3 cell = grid_cell(vec3(pi), inv_cell);
  for (int dz = -1; dz <= 1; ++dz) {
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        ivec3 nc = cell + ivec3(dx, dy, dz);
        uint h = grid_hash(nc, params.kinds.w);
        uint begin = cell_start[h];
        if (begin == VKPHYS_EMPTY_CELL) continue;
        uint end = cell_end[h];
        for (uint k = begin; k < end; ++k) {
          uint j = grid_values[k];
          if (j <= i || !may_collide(i, j)) continue;
          vec4 pj = body_pos[j];
          if (any(notEqual(grid_cell(vec3(pj), inv_cell), nc))) continue;
          vec3 n;
          float g;
          if (sphere_sphere(pi, pj, margin, n, g)) {
            if (write) store_pcontact(base + found, p, i, j, n, g);
            found += 1u;
          }
        }
      }
    }
  }
  return found;
}

void grid_count(uint p) {
  pcontact_offsets[p] = particle_contacts(p, false, 0u);
}

void grid_write(uint p) {
  particle_contacts(p, true, pcontact_offsets[p]);
}
