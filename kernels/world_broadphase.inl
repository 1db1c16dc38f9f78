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
// Slabs. A walk along x alone visits every body in a slab of the pile one body wide in x: in 10,000
// spheres in a 30 m box about 340 candidates a sphere for 3 pairs, a third of the CPU step. A world
// whose bodies start spread over many body widths in z (host/sim/world_params.cpp,
// sweep_slab_width) therefore cuts z into slabs of width W, at least every body's z extent (with a
// quarter spare for rounding), and sorts by (slab of min z, min x): SWEEP_SLAB writes each sorted
// position's slab into the low 10 bits of its key and a stable sort by those 10 bits follows the
// sort by min x. The key's upper 22 bits (min x to 2^-13 of itself) ride along, so the walks'
// binary searches read the order where they stand, and the walks test x where that rounding leaves
// a doubt. Two boxes that overlap in z have min z within W of each other, so their slabs are the
// same or neighbours: the walks above stay within the body's own slab k, and two more walk the
// neighbours over the min x range that can reach the body,
//   * up, slab k + 1: every body whose min x is in [min x - W, max x] (W bounds every x extent
//     too), rigid or particle;
//   * down, slab k - 1: the particles whose min x is in [min x - D, max x] (a rigid body there
//     found this one in its up walk);
// each candidate tested in x, y and z. Slab numbers are taken modulo VKPHYS_SWEEP_SLABS = 1023, so
// any z range sorts in 10 bits: bodies far apart whose slabs alias share a walk's candidates and
// fail its z test; nothing is missed. z / W is clamped to +-2^20 before it becomes an integer
// (two overlapping boxes have z / W within 0.8 of each other, each rounded by at most 1/16 there,
// so their floors stay within one). A world of one slab (W = 0: a pyramid, a stack, anything
// spanning few body widths in z) records neither SWEEP_SLAB nor the second sort, and its sweep is
// the plain one, bit for bit.
//
// Work is split by walk entries, not by bodies: with a few rigid bodies among many particles,
// one body's walk covers most of the particles (on an H200 a ball under a 256 x 256 cloth spent
// 44 of 49 ms per step in one invocation's loop). So:
//   SWEEP_WALK   per sorted position: the walk's length (planes + forward + backward + up +
//                down), its ends found by binary search in the sorted order (monotone, unlike a
//                test on recomputed bounds), into sweep_walk[s], its parts into
//                sweep_ranges[s], and the body's y and z extents into sweep_yz[s], so that the
//                walks stream through sorted positions instead of gathering bounds by body
//                index;
//   scan         sweep_walk becomes each walk's start: the walks laid end to end, T entries;
//   SWEEP_COUNT  per work item w < N: the entries [w C, (w + 1) C) of that line, C =
//                max(VKPHYS_SWEEP_CHUNK, ceil(T / N)) so that N items always suffice; a binary
//                search in sweep_walk finds the body of the first entry, and the item walks on
//                through the next bodies' walks until its C entries are done;
//   scan         pair_offsets;
//   SWEEP_WRITE  the same items again, storing from their offsets (the CPU backend stores in
//                the count's pass from a running total: host/cpu/cpu_backend.cpp,
//                sweep_and_prune).
// Items in order, entries in walk order: the pair list is the one a single serial walk per body
// stores (plane pairs, forward pairs, backward pairs from s - 1 down, up pairs, down pairs, body
// after body), whatever C is, on both backends and from run to run, with no atomics and no host
// round trip. The longest serial loop is C entries plus a binary search per body it enters. A
// pair is stored with the lower shape number first (ties: lower index), as the narrowphase
// wants. Pairs past the capacity are counted, not stored: finalize_lists flags the step, which
// is redone larger.
//   Worst case stays quadratic in pairs (all rigid bodies overlapping in x within a slab), now
// spread over the items.

// Bodies that may touch: not both static, not in the same nonzero group.
bool may_collide(uint i, uint j) {
  if (!body_dynamic(i) && !body_dynamic(j)) return false;
  uint gi = body_info[i].z;
  return gi == 0u || gi != body_info[j].z;
}

// Body j's bounding box (body_bounds) overlaps (lo, hi) in x.
bool boxes_overlap_x(uint j, vec3 lo, vec3 hi) {
  vec3 lo_j;
  vec3 hi_j;
  body_bounds(j, lo_j, hi_j);
  return lo_j.x <= hi.x && hi_j.x >= lo.x;
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

// The slab of a min z (W = 1 / params.sweep.y): floor(z / W), clamped to +-2^20 (NaN to the
// bottom) before it becomes an integer, modulo VKPHYS_SWEEP_SLABS.
uint sweep_slab(float z) {
  const float bound = 1048576.0f;
  float c = floor(z * params.sweep.y);
  c = c >= -bound ? min(c, bound) : -bound;
  return uint(c + bound) % VKPHYS_SWEEP_SLABS;
}

// SWEEP_SLAB, per sorted position after the sort by min x: the body's slab (planes and
// shapeless bodies: VKPHYS_SWEEP_SLAB_LAST) replaces the low VKPHYS_SWEEP_SLAB_BITS bits of its
// key, and the stable sort by those bits follows. The key's other bits ride along: the sweep's
// searches then read (slab, min x to 2^-13 of itself) at a sorted position without looking the
// body up, and the walks test min x exactly where that rounding matters.
void sweep_slab_key(uint s) {
  uint i = sort_values[s];
  uint slab = VKPHYS_SWEEP_SLAB_LAST;
  if (body_sweeps(i) || is_particle(i)) {
    vec3 lo;
    vec3 hi;
    body_bounds(i, lo, hi);
    slab = sweep_slab(lo.z);
  }
  sort_keys[s] = (sort_keys[s] & ~VKPHYS_SWEEP_SLAB_LAST) | slab;
}

// The sweep's order at sorted position t, compared lexicographically: without slabs (0, key of
// min x; planes and shapeless bodies hold the largest, above any finite min x), with slabs
// (slab, the key's upper bits).
uvec2 sweep_order(uint t) {
  uint key = sort_keys[t];
  if (params.sweep.x == 0.0f) return uvec2(0u, key);
  return uvec2(key & VKPHYS_SWEEP_SLAB_LAST, key >> VKPHYS_SWEEP_SLAB_BITS);
}

bool sweep_order_le(uvec2 a, uvec2 b) {
  return a.x < b.x || (a.x == b.x && a.y <= b.y);
}

// The sweep's order of slab k and min x: with slabs the key's upper bits, which order as x
// does but may tie where x does not (a walk's ends are then inclusive, and its entries tested).
uvec2 sweep_at(uint slab, float x) {
  uint key = float_sort_key(x);
  if (params.sweep.x == 0.0f) return uvec2(0u, key);
  return uvec2(slab, key >> VKPHYS_SWEEP_SLAB_BITS);
}

// Whether the order at t is below `key`.
bool sweep_order_below(uint t, uvec2 key) {
  return !sweep_order_le(key, sweep_order(t));
}

// Whether a search for the first position above `key` (`strict`) or at least `key` passes t.
bool sweep_passes(uint t, uvec2 key, bool strict) {
  return strict ? sweep_order_le(sweep_order(t), key) : sweep_order_below(t, key);
}

// First sorted position in [a, b) whose order is above `key` (`strict`) or at least `key` (b if
// none); the order ascends. Gallops from a, so a short walk (a pile of boxes) costs O(log of its
// length), not O(log N).
uint sweep_search(uint a, uint b, uvec2 key, bool strict) {
  uint lo = a;
  uint hi = a;
  uint step = 1u;
  while (hi < b && sweep_passes(hi, key, strict)) {
    lo = hi + 1u;
    hi = min(b, hi + step);
    step *= 2u;
  }
  while (lo < hi) {
    uint mid = lo + (hi - lo) / 2u;
    if (sweep_passes(mid, key, strict)) {
      lo = mid + 1u;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// First sorted position t <= b from which every order up to b is at least `key`; gallops down
// from b.
uint sweep_search_down(uint b, uvec2 key) {
  uint lo = b;
  uint hi = b;
  uint step = 1u;
  while (lo > 0u && !sweep_order_below(lo - 1u, key)) {
    hi = lo - 1u;
    lo = hi > step ? hi - step + 1u : 0u;
    step *= 2u;
  }
  while (lo < hi) {
    uint mid = lo + (hi - lo) / 2u;
    if (!sweep_order_below(mid, key)) {
      hi = mid;
    } else {
      lo = mid + 1u;
    }
  }
  return lo;
}

// The slabs above and below slab k (modulo VKPHYS_SWEEP_SLABS).
uint slab_up(uint k) {
  return (k + 1u) % VKPHYS_SWEEP_SLABS;
}
uint slab_down(uint k) {
  return (k + VKPHYS_SWEEP_SLABS - 1u) % VKPHYS_SWEEP_SLABS;
}

// The up walk's length from its first position (sweep_ranges[s].z) for a body of slab k and
// max x hi_x: the rest of slab k + 1 up to hi_x.
uint sweep_up_length(uint start, uint k, float hi_x) {
  if (params.sweep.x == 0.0f) return 0u;
  return sweep_search(start, params.counts.x, sweep_at(slab_up(k), hi_x), true) - start;
}

// The length of the walk of sorted position s; its parts into sweep_ranges[s]; its body's y and
// z extents into sweep_yz[s].
void sweep_walk_length(uint s) {
  uint n = params.counts.x;
  if (s >= n) return;
  uint i = sort_values[s];
  bool sweeps = body_sweeps(i);
  uvec4 ranges = uvec4(0u);
  uint walk = 0u;
  // Every body a walk can reach has bounds: rigid bodies with a shape and particles (planes and
  // shapeless bodies sort after them all).
  vec3 lo = vec3(0.0f);
  vec3 hi = vec3(0.0f);
  if (sweeps || is_particle(i)) body_bounds(i, lo, hi);
  if (sweeps) {
    uint k = sweep_order(s).x;
    bool particles = params.kinds.y > 0u;
    // The forward walk ends before the next slab, and before planes and shapeless bodies (the
    // largest order, above any finite max x).
    ranges.x = sweep_search(s + 1u, n, sweep_at(k, hi.x), true) - (s + 1u);
    if (particles) ranges.y = s - sweep_search_down(s, sweep_at(k, lo.x - params.grid.z));
    uint up = 0u;
    uint down = 0u;
    if (params.sweep.x != 0.0f) {
      ranges.z = sweep_search(0u, n, sweep_at(slab_up(k), lo.x - params.sweep.x), false);
      up = sweep_up_length(ranges.z, k, hi.x);
      if (particles) {
        uint kd = slab_down(k);
        ranges.w = sweep_search(0u, n, sweep_at(kd, lo.x - params.grid.z), false);
        down = sweep_search(ranges.w, n, sweep_at(kd, hi.x), true) - ranges.w;
      }
    }
    walk = params.coloring.z + ranges.x + ranges.y + up + down;
  }
  sweep_walk[s] = walk;
  sweep_ranges[s] = ranges;
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
  uvec4 ranges = sweep_ranges[s];
  uint planes = params.coloring.z;
  uint forward_end = planes + ranges.x;
  uint backward_end = forward_end + ranges.y;
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
  // Forward: t = s + 1 + (k - planes); without slabs the walk's end already tested min x
  // against max x exactly (with slabs, to the key's rounding: tested here).
  // The y and z test comes first, on the extents laid out in sorted order (a run of the walk
  // reads consecutive vec4s): in a pile most candidates fail it (10,000 spheres in a box
  // without slabs: about 340 candidates a sphere for 3 pairs), and only those that pass look up
  // the body.
  bool slabs = params.sweep.x != 0.0f;
  for (uint k = max(first, planes); k < min(last, forward_end); ++k) {
    uint t = s + 1u + k - planes;
    if (!boxes_overlap_yz(lo, hi, sweep_yz[t])) continue;
    uint j = sort_values[t];
    if (may_collide(i, j) && (!slabs || boxes_overlap_x(j, lo, hi))) {
      if (write) store_pair(base + found, i, j);
      found += 1u;
    }
  }
  // Backward: t = s - 1 - (k - forward_end); only particles, and only those reaching min x.
  for (uint k = max(first, forward_end); k < min(last, backward_end); ++k) {
    uint t = s - 1u - (k - forward_end);
    uint j = sort_values[t];
    if (is_particle(j) && boxes_overlap_yz(lo, hi, sweep_yz[t]) && may_collide(i, j) &&
        boxes_overlap_x(j, lo, hi)) {
      if (write) store_pair(base + found, i, j);
      found += 1u;
    }
  }
  if (last <= backward_end) return found;
  // Up, then down: t = ranges.z + (k - backward_end), t = ranges.w + (k - up_end); their ends
  // bound min x to the key's rounding, so x is tested (and y and z first, as above).
  uint k_slab = sweep_order(s).x;
  uint up_end = backward_end + sweep_up_length(ranges.z, k_slab, hi.x);
  for (uint k = max(first, backward_end); k < min(last, up_end); ++k) {
    uint t = ranges.z + (k - backward_end);
    if (!boxes_overlap_yz(lo, hi, sweep_yz[t])) continue;
    uint j = sort_values[t];
    if (may_collide(i, j) && boxes_overlap_x(j, lo, hi)) {
      if (write) store_pair(base + found, i, j);
      found += 1u;
    }
  }
  for (uint k = max(first, up_end); k < last; ++k) {
    uint t = ranges.w + (k - up_end);
    uint j = sort_values[t];
    if (is_particle(j) && boxes_overlap_yz(lo, hi, sweep_yz[t]) && may_collide(i, j) &&
        boxes_overlap_x(j, lo, hi)) {
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
  counters.units = units;
  counters.unit_sides = 2u * units;
}

// Stored pairs and particle contacts this step (valid after finalize_lists).
uint stored_pairs() {
  return min(counters.pairs, params.counts.z);
}
uint stored_pcontacts() {
  return min(counters.pcontacts, params.kinds.z);
}
