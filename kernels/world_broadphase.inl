// Broadphase for pairs that involve a rigid body: sweep and prune over bounding boxes sorted by
// their min x, plus every rigid body against every plane. Pairs of particles (and particles
// against planes) come from the particle grid instead (kernels/particle_grid.inl). Stage
// functions (environment: kernels/world_bodies.inl).
//
// After body_setup and the radix sort, sort_keys/sort_values hold every body in order of
// min x (planes and shapeless bodies last; a key is float_sort_key of body_bounds' min x). The
// rigid body at sorted position s pairs with
//   * every plane (its plane pairs, in plane order);
//   * the bodies after it whose min x is <= its max x and whose y and z extents overlap (the
//     forward walk ends at the first that starts past its max x), rigid bodies and particles
//     alike;
//   * the particles before it that still reach it: a particle's box is at most D = 2 r_max +
//     margin wide, so the backward walk (from s - 1 down) ends at the first body whose min x is
//     below min x(s) - D.
// Particles never start a sweep (a pile of them overlaps along every axis, which would make the
// sweep quadratic), so every pair with a rigid body is found exactly once, by the rigid body
// (the earlier one of two rigid bodies), and big and small bodies mix freely.
//
// Work is split by walk entries, not by bodies: with a few rigid bodies among many particles,
// one body's walk covers most of the particles (on an H200 a ball under a 256 x 256 cloth spent
// 44 of 49 ms per step in one invocation's loop). So:
//   SWEEP_WALK   per sorted position: the walk's length (planes + forward + backward), its ends
//                found by binary search in the sorted keys (monotone, unlike a test on recomputed
//                bounds), into sweep_walk[s], the forward part into sweep_forward[s], and the
//                body's y and z extents into sweep_yz[s], so that the forward walks stream
//                through sorted positions instead of gathering bounds by body index;
//   scan         sweep_walk becomes each walk's start: the walks laid end to end, T entries;
//   SWEEP_COUNT  per work item w < N: the entries [w C, (w + 1) C) of that line, C =
//                max(VKPHYS_SWEEP_CHUNK, ceil(T / N)) so that N items always suffice; a binary
//                search in sweep_walk finds the body of the first entry, and the item walks on
//                through the next bodies' walks until its C entries are done;
//   scan         pair_offsets;
//   SWEEP_WRITE  the same items again, storing from their offsets.
// Items in order, entries in walk order: the pair list is the one a single serial walk per body
// stores (plane pairs, forward pairs, backward pairs from s - 1 down, body after body), whatever
// C is, on both backends and from run to run, with no atomics and no host round trip. The
// longest serial loop is C entries plus a binary search per body it enters. A pair is stored
// with the lower shape number first (ties: lower index), as the narrowphase wants. Pairs past
// the capacity are counted, not stored: finalize_lists flags the step, which is redone larger.
//   Worst case stays quadratic in pairs (all rigid bodies overlapping in x), now spread over
// the items; sorting along the axis of largest spread would help scenes tall in y, narrow in x.

// Bodies that may touch: not both static, not in the same nonzero group.
bool may_collide(uint i, uint j) {
  if (!body_dynamic(i) && !body_dynamic(j)) return false;
  uint gi = body_info[i].z;
  return gi == 0u || gi != body_info[j].z;
}

// Box i (lo, hi) and box j's y and z extents yz_j = (min y, min z, max y, max z) overlap. The
// four comparisons as one vector compare, without a branch each: the sweep's candidates fail
// them at random.
bool boxes_overlap_yz(vec3 lo, vec3 hi, vec4 yz_j) {
  return all(lessThanEqual(vec4(lo.y, yz_j.x, lo.z, yz_j.y), vec4(yz_j.z, hi.y, yz_j.w, hi.z)));
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

// First sorted position in [a, b) whose key is above `key` (b if none); keys ascend. Gallops
// from a, so a short walk (a pile of boxes) costs O(log of its length), not O(log N).
uint sweep_key_after(uint a, uint b, uint key) {
  uint lo = a;
  uint hi = a;
  uint step = 1u;
  while (hi < b && sort_keys[hi] <= key) {
    lo = hi + 1u;
    hi = min(b, hi + step);
    step *= 2u;
  }
  while (lo < hi) {
    uint mid = lo + (hi - lo) / 2u;
    if (sort_keys[mid] <= key) {
      lo = mid + 1u;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// First sorted position t <= b from which every key up to b is at least `key`; gallops down
// from b.
uint sweep_key_from(uint b, uint key) {
  uint lo = b;
  uint hi = b;
  uint step = 1u;
  while (lo > 0u && sort_keys[lo - 1u] >= key) {
    hi = lo - 1u;
    lo = hi > step ? hi - step + 1u : 0u;
    step *= 2u;
  }
  while (lo < hi) {
    uint mid = lo + (hi - lo) / 2u;
    if (sort_keys[mid] >= key) {
      hi = mid;
    } else {
      lo = mid + 1u;
    }
  }
  return lo;
}

// The length of the walk of sorted position s; its forward part into sweep_forward[s]; its
// body's y and z extents into sweep_yz[s].
void sweep_walk_length(uint s) {
  uint n = params.counts.x;
  if (s >= n) return;
  uint i = sort_values[s];
  bool sweeps = body_sweeps(i);
  uint forward = 0u;
  uint walk = 0u;
  // Every body a forward walk can reach has bounds: rigid bodies with a shape and particles
  // (planes and shapeless bodies sort after them all).
  vec3 lo = vec3(0.0f);
  vec3 hi = vec3(0.0f);
  if (sweeps || is_particle(i)) body_bounds(i, lo, hi);
  if (sweeps) {
    // Planes and shapeless bodies hold the largest key, above any finite max x: the forward
    // walk ends before them.
    forward = sweep_key_after(s + 1u, n, float_sort_key(hi.x)) - (s + 1u);
    uint backward = 0u;
    if (params.kinds.y > 0u) backward = s - sweep_key_from(s, float_sort_key(lo.x - params.grid.z));
    walk = params.coloring.z + forward + backward;
  }
  sweep_walk[s] = walk;
  sweep_forward[s] = forward;
  sweep_yz[s] = vec4(lo.y, lo.z, hi.y, hi.z);
}

// The last sorted position t in [a, N) whose walk starts at or before entry g (after the scan;
// sweep_walk[a] <= g < sweep_walk[N]).
uint sweep_walk_owner(uint a, uint g) {
  uint lo = a;
  uint hi = params.counts.x;
  while (hi - lo > 1u) {
    uint mid = lo + (hi - lo) / 2u;
    if (sweep_walk[mid] <= g) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// Entries [first, last) of the walk of sorted position s; pairs stored from `base` when `write`.
uint sweep_entries(uint s, uint first, uint last, bool write, uint base) {
  uint i = sort_values[s];
  uint planes = params.coloring.z;
  uint forward_end = planes + sweep_forward[s];
  uint found = 0u;
  for (uint k = first; k < min(last, planes); ++k) {
    uint p = WORLD_PLANE_BODY(k);
    if (may_collide(i, p) && aabb_meets_plane(i, p)) {
      if (write) store_pair(base + found, p, i);
      found += 1u;
    }
  }
  vec3 lo;
  vec3 hi;
  body_bounds(i, lo, hi);
  // Forward: t = s + 1 + (k - planes); the walk's end already tested min x against max x.
  // The y and z test comes first, on the extents laid out in sorted order (a run of the walk
  // reads consecutive vec4s): in a pile most candidates fail it (10,000 spheres in a box: about
  // 340 candidates a sphere for 3 pairs), and only those that pass look up the body.
  for (uint k = max(first, planes); k < min(last, forward_end); ++k) {
    uint t = s + 1u + k - planes;
    if (!boxes_overlap_yz(lo, hi, sweep_yz[t])) continue;
    uint j = sort_values[t];
    if (may_collide(i, j)) {
      if (write) store_pair(base + found, i, j);
      found += 1u;
    }
  }
  // Backward: t = s - 1 - (k - forward_end); only particles, and only those reaching min x.
  for (uint k = max(first, forward_end); k < last; ++k) {
    uint j = sort_values[s - 1u - (k - forward_end)];
    vec3 lo_j;
    vec3 hi_j;
    body_bounds(j, lo_j, hi_j);
    if (is_particle(j) && hi_j.x >= lo.x && may_collide(i, j) &&
        boxes_overlap_yz(lo, hi, vec4(lo_j.y, lo_j.z, hi_j.y, hi_j.z))) {
      if (write) store_pair(base + found, i, j);
      found += 1u;
    }
  }
  return found;
}

// Pairs of work item w: walk entries [w C, (w + 1) C) of the walks laid end to end; stored from
// `base` when `write` is set.
uint sweep_pairs(uint w, bool write, uint base) {
  uint n = params.counts.x;
  if (w >= n) return 0u;
  uint total = sweep_walk[n];
  uint chunk = max(VKPHYS_SWEEP_CHUNK, total / n + (total % n != 0u ? 1u : 0u));
  uint g = w * chunk;  // below 2^32 while the walks total less than 2^32 - N entries
  if (g >= total) return 0u;
  uint end = min(total, g + chunk);
  uint s = sweep_walk_owner(0u, g);
  uint found = 0u;
  while (g < end) {
    uint next = min(end, sweep_walk[s + 1u]);
    found += sweep_entries(s, g - sweep_walk[s], next - sweep_walk[s], write, base + found);
    g = next;
    // The next body with a walk: usually s + 1 (a pile), else a search past the particles.
    if (g < end) s = sweep_walk[s + 2u] > g ? s + 1u : sweep_walk_owner(s + 1u, g);
  }
  return found;
}

void sweep_count(uint w) {
  pair_offsets[w] = sweep_pairs(w, false, 0u);
}

void sweep_write(uint w) {
  sweep_pairs(w, true, pair_offsets[w]);
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
