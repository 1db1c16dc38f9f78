// Narrowphase and contact persistence: the manifold of each stored pair, matched against the
// previous step's manifold of the same pair for warm starting, and the commit that makes this
// step's manifolds the next step's "previous". Stage functions (environment: see
// kernels/world_bodies.inl); the pair tests themselves are kernels/collide*.h. A pair's body a
// may be a particle (a sphere against a capsule or box): its frame is the world's, unrotated.
//
// Matching (warm starting, seed 001 line 265; Box2D and Bullet do the same): last step's pairs
// are in an open-addressing hash table keyed by (a, b); a new point takes the impulses of the
// old point of the same pair with the same feature id, scaled by the warm-start factor, and
// starts from zero otherwise. Table positions depend on insertion order on the GPU, but every
// key is unique, so what a lookup finds does not: the match is deterministic.
//
// The manifold cache (solver.contact_cache; Jolt's body pair cache does the same): a pair whose
// two bodies have barely moved relative to each other since its manifold was computed keeps
// that manifold instead of running the pair test again. Each manifold keeps its reference: the
// normal in body a's frame, the relative rotation conj(q_a) q_b, and per point the contact
// point p in both bodies' frames (l_a, l_b) and its gap g. At the reference pose both anchors
// are p, so at the current pose the anchors p_a = x_a + R_a l_a and p_b = x_b + R_b l_b have
// moved apart by exactly the bodies' relative motion at that point, and the point's gap is
//     g' = g + n . (p_b - p_a),    n = R_a n_a
// (the first-order separation contact_targets also uses within a step), at (p_a + p_b) / 2.
// The manifold is kept while every point's |p_b - p_a| stays below VKPHYS_CACHE_DRIFT and the
// relative rotation within 2 degrees of the reference (Jolt's defaults: 1 mm, 2 degrees).
// Only pairs of flat shapes use it (box-box, plane-box): a sphere or capsule rolls, and rolling
// keeps the two material points of the old contact together to second order (|p_b - p_a| ~
// r theta^2 / 2) while the real contact point moves by r theta, so a rolling ball would push
// on a stale lever arm for up to 2 degrees of roll (with it, seed 000's funnel of balls still
// moved at 0.11 m/s after 10 s, and the pushed pendulum grid dropped 1 of its 3 slabs). Their pair
// tests are closed forms that cost little anyway; the box-box test (separating axes and clipping)
// is the one worth skipping. The reference is the pose the pair test last ran at, not last step's
// pose, so slow motion cannot creep past the tolerances one small step at a time. A pair the cache
// serves keeps its points' feature ids and impulses as they were (no matching). Measured on the
// 210-box pyramid at rest (CPU, 1 x 10): see docs/benchmarks.md, "The manifold cache".

// A body's orientation: a particle's frame is the world's.
vec4 body_rotation(uint i) {
  return is_particle(i) ? vec4(0.0f, 0.0f, 0.0f, 1.0f) : rigid_rot[i];
}

uint pair_hash(uint a, uint b) {
  uint h = a * 0x9E3779B1u ^ (b + 0x7F4A7C15u) * 0x85EBCA77u;
  h ^= h >> 15u;
  return h & (params.counts.w - 1u);
}

// Last step's pair index of (a, b), or VKPHYS_EMPTY_SLOT.
uint find_previous_pair(uint a, uint b) {
  uint slot = pair_hash(a, b);
  for (uint probe = 0u; probe < params.counts.w; ++probe) {
    uint p = prev_hash[slot];
    if (p == VKPHYS_EMPTY_SLOT) return VKPHYS_EMPTY_SLOT;
    if (prev_pair_info[p].x == a && prev_pair_info[p].y == b) return p;
    slot = (slot + 1u) & (params.counts.w - 1u);
  }
  return VKPHYS_EMPTY_SLOT;
}

// Feature ids travel in the w component of a float vector. Setting bit 30 makes every id a
// normal float (exponent 128), so no denormal flushing can touch it; ids use bits 0-15.
float feature_bits(uint feature) {
  return uintBitsToFloat(feature | 0x40000000u);
}

// Last step's point of pair `prev` that continues point (feature, local): the one with the same
// feature id, else the nearest one within the contact margin in body a's frame (ids can change
// when a contact vertex crosses a clipping plane, e.g. two aligned boxes of one size), else none.
uint match_previous_point(uint prev, uint feature, vec3 local) {
  uint count = prev == VKPHYS_EMPTY_SLOT ? 0u : prev_pair_info[prev].z;
  uint best = VKPHYS_EMPTY_SLOT;
  float best_d2 = params.contact.x * params.contact.x;
  for (uint q = 0u; q < count; ++q) {
    vec4 old = prev_point_lambda[3u * (4u * prev + q) + 1u];
    if (old.w == feature_bits(feature)) return 4u * prev + q;
    vec3 d = vec3(old) - local;
    if (dot(d, d) < best_d2) {
      best_d2 = dot(d, d);
      best = 4u * prev + q;
    }
  }
  return best;
}

// A previous point's impulses as this step's start (seed 001 line 265): lambda_n and the world
// friction impulse in this manifold's tangent basis (it may differ between steps), scaled by the
// warm-start factor.
vec3 warm_start_impulse(vec4 last, vec3 t1, vec3 t2) {
  vec3 friction = vec3(last.y, last.z, last.w);
  return params.solver.w * vec3(last.x, dot(friction, t1), dot(friction, t2));
}

// Whether pair p (bodies a, b) may keep last step's manifold `prev` (see above), and if so,
// writes it as this step's.
bool reuse_manifold(uint p, uint a, uint b, uint prev) {
  if ((params.modes.w & VKPHYS_FLAG_CONTACT_CACHE) == 0u || prev == VKPHYS_EMPTY_SLOT) return false;
  uint shape_a = body_info[a].x;
  if (body_info[b].x != VKPHYS_SHAPE_BOX ||
      (shape_a != VKPHYS_SHAPE_BOX && shape_a != VKPHYS_SHAPE_PLANE)) {
    return false;
  }
  vec4 qa = body_rotation(a);
  vec4 qb = body_rotation(b);
  // The angle between the reference and current relative rotations conj(q_a) q_b is
  // 2 acos(|q_ref . q_now|) for unit quaternions (q and -q are one rotation, hence the |.|).
  if (abs(dot(prev_pair_frame[2u * prev + 1u], quat_mul(quat_conj(qa), qb))) <
      VKPHYS_CACHE_COS_HALF_ANGLE) {
    return false;
  }
  uint count = prev_pair_info[prev].z;
  vec3 xa = vec3(body_pos[a]);
  vec3 xb = vec3(body_pos[b]);
  vec3 pa[VKPHYS_MAX_MANIFOLD];  // each point's anchors at the current pose
  vec3 pb[VKPHYS_MAX_MANIFOLD];
  for (uint q = 0u; q < count; ++q) {
    uint old = 3u * (4u * prev + q);
    pa[q] = xa + quat_rotate(qa, vec3(prev_point_lambda[old + 1u]));
    pb[q] = xb + quat_rotate(qb, vec3(prev_point_lambda[old + 2u]));
    vec3 d = pb[q] - pa[q];
    if (dot(d, d) >= VKPHYS_CACHE_DRIFT * VKPHYS_CACHE_DRIFT) return false;
  }
  vec3 n = quat_rotate(qa, vec3(prev_pair_frame[2u * prev]));
  vec3 t1;
  vec3 t2;
  tangent_basis(n, t1, t2);
  pair_info[p] = uvec4(a, b, count, 0u);
  pair_normal[p] = vec4(n, 0.0f);
  pair_frame[2u * p] = prev_pair_frame[2u * prev];
  pair_frame[2u * p + 1u] = prev_pair_frame[2u * prev + 1u];
  for (uint k = 0u; k < uint(VKPHYS_MAX_MANIFOLD); ++k) {
    uint slot = 4u * p + k;
    if (k >= count) {
      point_geom[slot] = vec4(0.0f);
      point_lambda[slot] = vec4(0.0f);
      continue;
    }
    uint old = 3u * (4u * prev + k);
    vec4 la = prev_point_lambda[old + 1u];  // (l_a, feature id)
    vec4 lb = prev_point_lambda[old + 2u];  // (l_b, g)
    point_geom[slot] = vec4(0.5f * (pa[k] + pb[k]), lb.w + dot(pb[k] - pa[k], n));
    point_ref[2u * slot] = la;
    point_ref[2u * slot + 1u] = lb;
    point_lambda[slot] = vec4(warm_start_impulse(prev_point_lambda[old], t1, t2), la.w);
  }
  return true;
}

// The speculative distance of the pair (a, b): the contact margin, or the distance the two
// bodies can close within the step if that is larger (speculative_reach, kernels/
// world_bodies.inl; the broadphase boxes are grown to match).
float pair_margin(uint a, uint b) {
  return max(params.contact.x, body_reach(a) + body_reach(b));
}

// Pair p's manifold, from last step's (reuse_manifold) or from the pair test, with its points'
// warm starts. Returns what the step's counters count of it: (points, manifolds, reused), for
// add_narrowphase_counts, which the GPU calls once per subgroup with the subgroup's sums
// (shaders/world_narrowphase.comp), instead of three atomics a pair on the counters' one cache
// line, which every pair of the dispatch contends for.
uvec3 narrowphase_pair(uint p) {
  uvec4 info = pair_info[p];
  uint prev = find_previous_pair(info.x, info.y);
  if (reuse_manifold(p, info.x, info.y, prev)) return uvec3(pair_info[p].z, 1u, 1u);
  Manifold m = collide(body_collider(info.x), body_collider(info.y), pair_margin(info.x, info.y));
  pair_info[p] = uvec4(info.x, info.y, m.count, 0u);
  pair_normal[p] = vec4(m.normal, 0.0f);
  vec3 t1;
  vec3 t2;
  tangent_basis(m.normal, t1, t2);
  vec3 xa = vec3(body_pos[info.x]);
  vec3 xb = vec3(body_pos[info.y]);
  vec4 qa = body_rotation(info.x);
  vec4 qb = body_rotation(info.y);
  pair_frame[2u * p] = vec4(quat_rotate_inv(qa, m.normal), 0.0f);
  pair_frame[2u * p + 1u] = quat_mul(quat_conj(qa), qb);
  for (uint k = 0u; k < uint(VKPHYS_MAX_MANIFOLD); ++k) {
    uint slot = 4u * p + k;
    if (k >= m.count) {
      point_geom[slot] = vec4(0.0f);
      point_lambda[slot] = vec4(0.0f);
      continue;
    }
    vec4 geom = m.point[int(k)];
    point_geom[slot] = geom;
    uint feature = m.feature[int(k)];
    vec3 local = quat_rotate_inv(qa, vec3(geom) - xa);
    point_ref[2u * slot] = vec4(local, feature_bits(feature));
    point_ref[2u * slot + 1u] = vec4(quat_rotate_inv(qb, vec3(geom) - xb), geom.w);
    uint old = match_previous_point(prev, feature, local);
    vec3 lambda = old != VKPHYS_EMPTY_SLOT ? warm_start_impulse(prev_point_lambda[3u * old], t1, t2)
                                           : vec3(0.0f);
    point_lambda[slot] = vec4(lambda, feature_bits(feature));
  }
  return uvec3(m.count, m.count > 0u ? 1u : 0u, 0u);
}

// The host will restore the step-start state and redo this step: a list overflowed, fewer
// colours were recorded than the colouring needed, a CG solve needed more iterations than
// were recorded (kernels/world_implicit.inl, "Recorded iterations"), or the adaptive step's
// error passed its tolerance (kernels/world_ode.inl, ode_flag_over); or restore it and stop:
// the step left a body NaN or infinite (kernels/world_bodies.inl, flag_nonfinite). Or the step
// before was undone: this step ran ahead of the host's read of it (GPU, pipelined steps), and the
// host will restore that step's start and redo both, so this one must leave last step's contact
// lists as they were.
bool step_undone() {
  return counters.overflow != 0u || counters.redo != 0u || counters.cg_short != 0u ||
         counters.ode_over != 0u || counters.nonfinite != 0u || counters.undone_before[0] != 0u ||
         counters.undone_before[1] != 0u || counters.undone_before[2] != 0u ||
         counters.undone_before[3] != 0u || counters.undone_before[4] != 0u;
}

// The narrowphase's counts (narrowphase_pair) into the step's counters.
void add_narrowphase_counts(uvec3 c) {
  if (c.x > 0u) atomicAdd(counters.points, c.x);
  if (c.y > 0u) atomicAdd(counters.manifolds, c.y);
  if (c.z > 0u) atomicAdd(counters.reused, c.z);
}

// ---- commit: this step's pairs become the previous step's (skipped when the step is redone) ----
// Runs after the solve. Each point keeps (lambda_n, friction impulse as a world vector), (the
// point in body a's frame, feature id) and (the point in body b's frame, gap) at its manifold's
// reference pose, and each pair that reference (the manifold cache, above). Runs over the whole
// capacity: slots past this step's pairs are cleared, so the table can be rebuilt from
// prev_pair_info alone (after a regrow, too).
void commit_pair(uint p) {
  if (step_undone()) return;
  bool live = p < stored_pairs();
  uvec4 info = live ? pair_info[p] : uvec4(0u);
  prev_pair_info[p] = info;
  prev_pair_frame[2u * p] = info.z > 0u ? pair_frame[2u * p] : vec4(0.0f);
  prev_pair_frame[2u * p + 1u] = info.z > 0u ? pair_frame[2u * p + 1u] : vec4(0.0f);
  vec3 t1 = vec3(0.0f);
  vec3 t2 = vec3(0.0f);
  if (info.z > 0u) tangent_basis(vec3(pair_normal[p]), t1, t2);
  for (uint k = 0u; k < 4u; ++k) {
    uint slot = 4u * p + k;
    vec4 next = vec4(0.0f);
    vec4 where_a = vec4(0.0f);
    vec4 where_b = vec4(0.0f);
    if (k < info.z) {
      vec4 lam = point_lambda[slot];
      next = vec4(lam.x, lam.y * t1 + lam.z * t2);
      where_a = point_ref[2u * slot];
      where_b = point_ref[2u * slot + 1u];
    }
    prev_point_lambda[3u * slot] = next;
    prev_point_lambda[3u * slot + 1u] = where_a;
    prev_point_lambda[3u * slot + 2u] = where_b;
  }
}

void hash_clear(uint slot, bool always) {
  if (always || !step_undone()) prev_hash[slot] = VKPHYS_EMPTY_SLOT;
}

// After commit_pair and hash_clear: enter previous pair p (if it had contact points).
void hash_insert_pair(uint p, bool always) {
  if (!always && step_undone()) return;
  uvec4 info = prev_pair_info[p];
  if (info.z == 0u) return;
  uint slot = pair_hash(info.x, info.y);
  for (uint probe = 0u; probe < params.counts.w; ++probe) {
    if (atomicCompSwap(prev_hash[slot], VKPHYS_EMPTY_SLOT, p) == VKPHYS_EMPTY_SLOT) return;
    slot = (slot + 1u) & (params.counts.w - 1u);
  }
}
