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
//                order is deterministic and the same on both backends, with no atomics (the
//                CPU backend writes in the count's walk from a running total, which is the
//                scan on one thread: host/cpu/cpu_backend.cpp, particle_contacts_in_one_walk).
// With every particle in one nonzero group and no self-collision (VKPHYS_FLAG_PARTICLE_PAIRS
// clear) the neighbour scan is skipped: no two particles may collide. Different cells can share a
// bucket, so a candidate counts only when its own cell is the neighbour cell being visited, which
// also sees each pair exactly once. The cell must be at least the largest contact reach 2 max(r,
// t/2) + margin wide (host/sim/world_params.cpp checks it).
//
// Thickness and self-collision (vkphys/scene.h, Particles::thickness): body_info[i].w holds half
// a particle's thickness t as float bits (0: none). Against another particle it shows the
// radius max(r, t/2), so two vertices of one cloth with thickness t touch at distance t (when
// t >= 2 r): a thickness above the vertex spheres' diameter closes the holes between a cloth's
// vertices, which a sphere of radius under s / sqrt(2) - r slips through (s the grid spacing).
// Planes and rigid bodies still see the particle's own radius. Two particles of one nonzero
// group, which otherwise never collide, collide when both have a thickness (self-collision)
// and no spring joins them: spring partners sit at their rest length, closer than t by design,
// so the filter skips pairs, not groups. Each particle's spring partners are a sorted list
// (partner_offsets / partner_list, built once on the host at load): a cloth vertex has at most
// 12, so a linear scan that stops at the first partner not below j beats a binary search, and
// the list costs nothing per step. (A bit mask of grid offsets would be smaller but holds only
// for generated grids; the list serves any springs, ropes and soft bodies alike.) A
// self-collision pair's speculative distance is capped near its thickness unless it closes
// fast (particle_pair_margin, below).
//
// Warm starting: the write pass looks up last step's contacts of the same owner (its list is
// prev_pcontact_offsets[p] .. [p + 1]) for the same other body and takes its impulses, scaled
// by the warm-start factor; friction is kept as a world vector, so the tangent basis may change.

// Half the thickness of particle i (0: none).
float half_thickness(uint i) {
  return uintBitsToFloat(body_info[i].w);
}

// The radius particle i shows other particles.
float pair_radius(uint i) {
  return max(body_pos[i].w, half_thickness(i));
}

// The sum of the radii of contact (a, b): thickness counts only between two particles (a
// plane body has radius 0 and no thickness).
float contact_radii(uint a, uint b) {
  bool particles = a >= params.kinds.x && b >= params.kinds.x;
  return particles ? pair_radius(a) + pair_radius(b) : body_pos[a].w + body_pos[b].w;
}

// Whether a spring joins particles i < j: i's sorted partner list holds j.
bool spring_partners(uint i, uint j) {
  uint p = i - params.kinds.x;
  uint end = partner_offsets[p + 1u];
  for (uint e = partner_offsets[p]; e < end; ++e) {
    uint q = partner_list[e];
    if (q >= j) return q == j;
  }
  return false;
}

// The speculative distance of particles i < j, or a negative value when they may not touch
// (both static; one nonzero group without self-collision; joined by a spring). Pairs of
// different groups take the world's margin. A self-collision pair (one group, both with a
// thickness, no spring) takes min(margin, max(rho, 2 |v_j - v_i| h)), rho its contact radius sum
// (the thickness t for one cloth). The world's margin is sized for rigid bodies (2 cm with any
// in the scene) and for bodies that close fast, while neighbouring vertices of one cloth move
// almost together. Without the cap the 128 x 128 drape over a ball (spacing s = 1.18 cm, t =
// 0.75 s) reached every vertex's nearest unjoined neighbours at sqrt(5) s = 2.64 cm: 64,008
// speculative contacts in the flat cloth, 44% of the units in the overflow colour, 255 ms of
// solve a step on an H200 (docs/benchmarks.md). With it a resting cloth reaches 2 t (1.5 s
// there), and the relative-velocity term, twice the step's closing at its start velocities,
// still sees a fast fold coming as the world's margin did. A floor of t / 2 instead let the
// crumpling heap of tests/test_cloth_self_collision.cpp sink 2.3 mm into itself (0.5 mm with the
// full margin): velocities change within a step of a heap, so a slow pair's contact must exist
// before it closes.
float particle_pair_margin(uint i, uint j) {
  float margin = params.contact.x;
  if (may_collide(i, j)) return margin;
  if (!body_dynamic(i) && !body_dynamic(j)) return -1.0f;
  if (body_info[i].w == 0u || body_info[j].w == 0u || spring_partners(i, j)) return -1.0f;
  float closing = 2.0f * params.gravity_dt.w * length(vec3(body_vel[j]) - vec3(body_vel[i]));
  return min(margin, max(pair_radius(i) + pair_radius(j), closing));
}

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

// Last step's entry of the contact (owner p, other body) among prev_pcontact_other, or
// VKPHYS_EMPTY_SLOT.
uint previous_pcontact(uint p, uint other) {
  uint end = prev_pcontact_offsets[p + 1u];
  for (uint c = prev_pcontact_offsets[p]; c < end; ++c) {
    if ((prev_pcontact_other[c] & VKPHYS_PCONTACT_OTHER_MASK) == other) return c;
  }
  return VKPHYS_EMPTY_SLOT;
}

void store_pcontact(uint slot, uint p, uint a, uint b, vec3 n, float g) {
  if (slot >= params.kinds.z) return;  // past capacity: counted, flagged, step redone
  pcontact_bodies[slot] = uvec2(a, b);
  pcontact_geom[slot] = vec4(n, g);
  pcontact_origin[slot] = slot;
  uint prev = previous_pcontact(p, a == params.kinds.x + p ? b : a);
  vec4 last = prev != VKPHYS_EMPTY_SLOT ? prev_pcontact_lambda[prev] : vec4(0.0f);
  if (params.modes.x == VKPHYS_SCHEME_COLORED) {
    unit_color[pcontact_unit_base() + slot] =
        prev != VKPHYS_EMPTY_SLOT
            ? kept_color(prev_pcontact_other[prev] >> VKPHYS_PCONTACT_OTHER_BITS)
            : VKPHYS_UNCOLORED;
  }
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
  vec4 reach_i = vec4(vec3(pi), pair_radius(i));
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
          if (j <= i) continue;
          vec4 pj = body_pos[j];
          if (any(notEqual(grid_cell(vec3(pj), inv_cell), nc))) continue;
          float pair_margin = particle_pair_margin(i, j);
          if (pair_margin < 0.0f) continue;
          vec3 n;
          float g;
          if (sphere_sphere(reach_i, vec4(vec3(pj), pair_radius(j)), pair_margin, n, g)) {
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
