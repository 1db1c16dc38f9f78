// Broadphase: sweep and prune over AABBs sorted by their min x, plus every body against every
// plane. Stage functions (see kernels/rigid_bodies.inl for the environment).
//
// After body_setup and the radix sort, sort_keys/sort_values hold the bodies in order of
// min x (planes and shapeless bodies last). The body at sorted position s pairs with the bodies
// after it whose min x is <= its max x and whose y and z extents overlap; the scan stops at the
// first that starts past its max x. Each overlapping pair is therefore found exactly once, by
// the body that comes first in x, and big and small bodies mix freely (a particle grid would
// need a cell the size of the biggest body). Each position also owns its bodies' plane pairs.
//
// count -> exclusive scan -> write, with the same visiting order in both passes, so the pair
// list is identical on both backends and from run to run with no atomics. A pair is stored with
// the lower shape number first (ties: lower index), as the narrowphase wants.
//   Worst case is quadratic (all bodies overlapping in x); sorting along the axis of largest
//   spread would help scenes that are tall in y and narrow in x.

// Bodies that may touch: not both static, not in the same nonzero group.
bool may_collide(uint i, uint j) {
  if (body_pos[i].w <= 0.0f && body_pos[j].w <= 0.0f) return false;
  uint gi = body_shape[i].z;
  return gi == 0u || gi != body_shape[j].z;
}

bool aabbs_overlap(uint i, uint j) {
  vec4 lo_i = body_aabb[2u * i];
  vec4 hi_i = body_aabb[2u * i + 1u];
  vec4 lo_j = body_aabb[2u * j];
  vec4 hi_j = body_aabb[2u * j + 1u];
  return lo_i.y <= hi_j.y && lo_j.y <= hi_i.y && lo_i.z <= hi_j.z && lo_j.z <= hi_i.z;
}

// The AABB of body i reaches within the margin of plane body p.
bool aabb_meets_plane(uint i, uint p) {
  vec3 n = quat_axis_y(body_rot[p]);
  vec3 lo = vec3(body_aabb[2u * i]);
  vec3 hi = vec3(body_aabb[2u * i + 1u]);
  vec3 nearest = vec3(n.x > 0.0f ? lo.x : hi.x, n.y > 0.0f ? lo.y : hi.y, n.z > 0.0f ? lo.z : hi.z);
  return dot(n, nearest - vec3(body_pos[p])) < 0.5f * params.contact.x;
}

uvec4 ordered_pair(uint i, uint j) {
  uint si = body_shape[i].x;
  uint sj = body_shape[j].x;
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
    uint p = RIGID_PLANE_BODY(k);
    if (may_collide(i, p) && aabb_meets_plane(i, p)) {
      if (write) store_pair(base + found, p, i);
      found += 1u;
    }
  }
  float max_x = body_aabb[2u * i + 1u].x;
  for (uint t = s + 1u; t < n; ++t) {
    uint j = sort_values[t];
    if (!body_sweeps(j) || body_aabb[2u * j].x > max_x) break;
    if (may_collide(i, j) && aabbs_overlap(i, j)) {
      if (write) store_pair(base + found, i, j);
      found += 1u;
    }
  }
  return found;
}

void sweep_count(uint s) { pair_offsets[s] = sweep_pairs(s, false, 0u); }

void sweep_write(uint s) { sweep_pairs(s, true, pair_offsets[s]); }

// One invocation after the scan: total, overflow flag, indirect dispatch sizes.
void sweep_finalize() {
  uint total = pair_offsets[params.counts.x];
  uint stored = min(total, params.counts.z);
  counters.pairs = total;
  if (total > params.counts.z) counters.overflow = 1u;
  counters.pair_groups = (stored + VKPHYS_GROUP_SIZE - 1u) / VKPHYS_GROUP_SIZE;
  counters.pair_groups_y = 1u;
  counters.pair_groups_z = 1u;
  counters.unit_groups = (params.counts.y + stored + VKPHYS_GROUP_SIZE - 1u) / VKPHYS_GROUP_SIZE;
  counters.unit_groups_y = 1u;
  counters.unit_groups_z = 1u;
}

// Stored pairs this step (valid after sweep_finalize).
uint stored_pairs() { return min(counters.pairs, params.counts.z); }
