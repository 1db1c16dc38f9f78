// Broadphase for pairs that involve a rigid body: sweep and prune over bounding boxes sorted by
// their min x, plus every rigid body against every plane. Pairs of particles (and particles
// against planes) come from the particle grid instead (kernels/particle_grid.inl). Stage
// functions (environment: kernels/world_bodies.inl).
//
// After body_setup and the radix sort, sort_keys/sort_values hold every body in order of
// min x (planes and shapeless bodies last). The rigid body at sorted position s pairs with
//   * the bodies after it whose min x is <= its max x and whose y and z extents overlap (the
//     scan stops at the first that starts past its max x), rigid bodies and particles alike;
//   * the particles before it that still reach it: a particle's box is at most D = 2 r_max +
//     margin wide, so the backward scan stops at the first body whose min x is below
//     min x(s) - D.
// Particles never start a sweep (a pile of them overlaps along every axis, which would make the
// sweep quadratic), so every pair with a rigid body is found exactly once, by the rigid body
// (the earlier one of two rigid bodies), and big and small bodies mix freely. Each position
// also owns its rigid body's plane pairs.
//
// count -> exclusive scan -> write, with the same visiting order in both passes, so the pair
// list is identical on both backends and from run to run with no atomics. A pair is stored with
// the lower shape number first (ties: lower index), as the narrowphase wants.
//   Worst case is quadratic (all rigid bodies overlapping in x); sorting along the axis of
//   largest spread would help scenes that are tall in y and narrow in x.

// Bodies that may touch: not both static, not in the same nonzero group.
bool may_collide(uint i, uint j) {
  if (!body_dynamic(i) && !body_dynamic(j)) return false;
  uint gi = body_info[i].z;
  return gi == 0u || gi != body_info[j].z;
}

bool boxes_overlap_yz(vec3 lo_i, vec3 hi_i, vec3 lo_j, vec3 hi_j) {
  return lo_i.y <= hi_j.y && lo_j.y <= hi_i.y && lo_i.z <= hi_j.z && lo_j.z <= hi_i.z;
}

// The AABB of rigid body i reaches within the margin of plane body p.
bool aabb_meets_plane(uint i, uint p) {
  vec3 n = quat_axis_y(rigid_rot[p]);
  vec3 lo = vec3(rigid_aabb[2u * i]);
  vec3 hi = vec3(rigid_aabb[2u * i + 1u]);
  vec3 nearest = vec3(n.x > 0.0f ? lo.x : hi.x, n.y > 0.0f ? lo.y : hi.y, n.z > 0.0f ? lo.z : hi.z);
  return dot(n, nearest - vec3(body_pos[p])) < 0.5f * params.contact.x;
}

uvec4 ordered_pair(uint i, uint j) {
  uint si = body_info[i].x;
  uint sj = body_info[j].x;
  bool swap = sj < si || (sj == si && j < i);
  return swap ? uvec4(j, i, 0u, 0u) : uvec4(i, j, 0u, 0u);
}

void store_pair(uint slot, uint i, uint j) {
  if (slot >= params.counts.z) return;  // past capacity: counted, flagged, step redone
  pair_info[slot] = ordered_pair(i, j);
}

// Pairs owned by sorted position s; stored from `base` when `write` is set.
uint sweep_pairs(uint s, bool write, uint base) {
  uint n = params.counts.x;
  if (s >= n) return 0u;
  uint i = sort_values[s];
  if (!body_sweeps(i)) return 0u;
  uint found = 0u;
  for (uint k = 0u; k < params.coloring.z; ++k) {
    uint p = WORLD_PLANE_BODY(k);
    if (may_collide(i, p) && aabb_meets_plane(i, p)) {
      if (write) store_pair(base + found, p, i);
      found += 1u;
    }
  }
  vec3 lo;
  vec3 hi;
  body_bounds(i, lo, hi);
  for (uint t = s + 1u; t < n; ++t) {
    uint j = sort_values[t];
    if (!body_sweeps(j) && !is_particle(j)) break;  // planes and shapeless bodies sort last
    vec3 lo_j;
    vec3 hi_j;
    body_bounds(j, lo_j, hi_j);
    if (lo_j.x > hi.x) break;
    if (may_collide(i, j) && boxes_overlap_yz(lo, hi, lo_j, hi_j)) {
      if (write) store_pair(base + found, i, j);
      found += 1u;
    }
  }
  float reach = params.grid.z;
  for (uint t = s; params.kinds.y > 0u && t > 0u; --t) {
    uint j = sort_values[t - 1u];
    vec3 lo_j;
    vec3 hi_j;
    body_bounds(j, lo_j, hi_j);
    if (lo_j.x < lo.x - reach) break;
    if (is_particle(j) && hi_j.x >= lo.x && may_collide(i, j) &&
        boxes_overlap_yz(lo, hi, lo_j, hi_j)) {
      if (write) store_pair(base + found, i, j);
      found += 1u;
    }
  }
  return found;
}

void sweep_count(uint s) {
  pair_offsets[s] = sweep_pairs(s, false, 0u);
}

void sweep_write(uint s) {
  sweep_pairs(s, true, pair_offsets[s]);
}

// One invocation after the scans of the pair and particle-contact counts: totals, the overflow
// flag, indirect dispatch sizes.
void finalize_lists() {
  uint rigid_total = pair_offsets[params.counts.x];
  uint particle_total = pcontact_offsets[params.kinds.y];
  uint pairs = min(rigid_total, params.counts.z);
  uint contacts = min(particle_total, params.kinds.z);
  counters.pairs = rigid_total;
  counters.pcontacts = particle_total;
  if (rigid_total > params.counts.z || particle_total > params.kinds.z) counters.overflow = 1u;
  counters.pair_groups = (pairs + VKPHYS_GROUP_SIZE - 1u) / VKPHYS_GROUP_SIZE;
  counters.pair_groups_y = 1u;
  counters.pair_groups_z = 1u;
  counters.pcontact_groups = (contacts + VKPHYS_GROUP_SIZE - 1u) / VKPHYS_GROUP_SIZE;
  counters.pcontact_groups_y = 1u;
  counters.pcontact_groups_z = 1u;
  counters.rigid_unit_groups =
      (params.counts.y + pairs + VKPHYS_GROUP_SIZE - 1u) / VKPHYS_GROUP_SIZE;
  counters.rigid_unit_groups_y = 1u;
  counters.rigid_unit_groups_z = 1u;
  uint units = params.counts.y + pairs + contacts;
  counters.unit_groups = (units + VKPHYS_GROUP_SIZE - 1u) / VKPHYS_GROUP_SIZE;
  counters.unit_groups_y = 1u;
  counters.unit_groups_z = 1u;
}

// Stored pairs and particle contacts this step (valid after finalize_lists).
uint stored_pairs() {
  return min(counters.pairs, params.counts.z);
}
uint stored_pcontacts() {
  return min(counters.pcontacts, params.kinds.z);
}
