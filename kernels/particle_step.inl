// The per-element stages of a particle step that read more than their own element.
//
// This file is included *inside* an environment that provides the particle buffers by name:
// the shaders declare them as std430 buffer blocks, the CPU backend (host/cpu/particle_env.h)
// as member pointers of a struct that includes this file in its body. The code below therefore
// compiles unchanged as GLSL and as C++ member functions. Names it expects:
//   params (StepParams)
//   pos_radius, vel_invmass, vel_start, vel_out (vec4[]), material (uint[])
//   sort_keys, sort_values, cell_start, cell_end, contact_offset (uint[])
//   contact_bodies (uvec2[]), contact_geom, contact_target, contact_lambda (vec4[])
//
// Stage order (see host/sim/stages.h): predict -> hash -> sort -> cell ranges -> count contacts
// -> scan -> write contacts -> prepare -> solve x iterations -> integrate.

// ---- cell ranges: sorted key k opens and/or closes its cell's run in sort_keys -------------
void find_cell_range(uint k) {
  uint n = params.counts.x;
  uint key = sort_keys[k];
  if (k == 0u || sort_keys[k - 1u] != key) cell_start[key] = k;
  if (k + 1u == n || sort_keys[k + 1u] != key) cell_end[key] = k + 1u;
}

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

// ---- contact preparation: SPOOK targets from the step-start velocities ---------------------
uint contact_end(uint b) { return min(contact_offset[b + 1u], params.counts.w); }

void prepare_contact(uint c) {
  uvec2 bodies = contact_bodies[c];
  vec4 geom = contact_geom[c];
  vec3 n = vec3(geom);
  uint self = bodies.x;
  uint other = bodies.y;
  bool plane = (other & VKPHYS_PLANE_BIT) != 0u;
  vec4 mat_self = params.materials[material[self]];
  vec4 mat_other = plane ? params.materials[params.plane_material[other & ~VKPHYS_PLANE_BIT].x]
                         : params.materials[material[other]];
  vec3 v_self = vec3(vel_start[self]);
  vec3 v_other = plane ? vec3(0.0f) : vec3(vel_start[other]);
  bool self_is_second = plane || self > other;
  vec3 rel = self_is_second ? v_self - v_other : v_other - v_self;
  vec3 t1;
  vec3 t2;
  tangent_basis(n, t1, t2);
  vec3 u_k = vec3(dot(rel, n), dot(rel, t1), dot(rel, t2));
  vec4 mat = combine_materials(mat_self, mat_other);
  contact_target[c] = contact_targets(geom.w, u_k, mat, params.gravity_dt.w, params.solver.y);
  contact_lambda[c] = vec4(0.0f, 0.0f, 0.0f, mat.y);
}

// ---- solver: one Jacobi iteration for body b (mass splitting, see contact_row.h) ----------
// Reads every velocity from vel_invmass, writes b's new velocity to vel_out and updates the
// accumulated impulses of b's own directed contacts (each copy is written by its owner only).
void solve_body(uint b) {
  vec4 vb = vel_invmass[b];
  uint begin = contact_offset[b];
  uint end = contact_end(b);
  float share_b = float(end - begin) * vb.w;
  bool friction = params.solver.z != 0.0f;
  vec3 dv = vec3(0.0f);
  for (uint c = begin; c < end; ++c) {
    uint other = contact_bodies[c].y;
    bool plane = (other & VKPHYS_PLANE_BIT) != 0u;
    vec4 vo = plane ? vec4(0.0f) : vel_invmass[other];
    float share_o = plane ? 0.0f : float(contact_end(other) - contact_offset[other]) * vo.w;
    bool b_second = plane || b > other;
    vec3 rel = b_second ? vec3(vb) - vec3(vo) : vec3(vo) - vec3(vb);
    vec3 n = vec3(contact_geom[c]);
    vec3 t1;
    vec3 t2;
    tangent_basis(n, t1, t2);
    vec4 lam = contact_lambda[c];
    vec3 old = vec3(lam);
    vec3 u = vec3(dot(rel, n), dot(rel, t1), dot(rel, t2));
    vec3 now = contact_row_update(old, contact_target[c], lam.w, u, share_b + share_o,
                                  params.solver.x, friction);
    contact_lambda[c] = vec4(now, lam.w);
    vec3 d = now - old;
    vec3 impulse = d.x * n + d.y * t1 + d.z * t2;
    dv += b_second ? impulse : -impulse;
  }
  vel_out[b] = vec4(vec3(vb) + vb.w * dv, vb.w);
}
