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
    vec4 old = prev_point_lambda[2u * (4u * prev + q) + 1u];
    if (old.w == feature_bits(feature)) return 4u * prev + q;
    vec3 d = vec3(old) - local;
    if (dot(d, d) < best_d2) {
      best_d2 = dot(d, d);
      best = 4u * prev + q;
    }
  }
  return best;
}

void narrowphase_pair(uint p) {
  uvec4 info = pair_info[p];
  Manifold m = collide(body_collider(info.x), body_collider(info.y), params.contact.x);
  pair_info[p] = uvec4(info.x, info.y, m.count, 0u);
  pair_normal[p] = vec4(m.normal, 0.0f);
  atomicAdd(counters.points, m.count);
  if (m.count > 0u) atomicAdd(counters.manifolds, 1u);
  uint prev = find_previous_pair(info.x, info.y);
  vec3 t1;
  vec3 t2;
  tangent_basis(m.normal, t1, t2);
  vec3 xa = vec3(body_pos[info.x]);
  vec4 qa = body_rotation(info.x);
  for (uint k = 0u; k < uint(VKPHYS_MAX_MANIFOLD); ++k) {
    uint slot = 4u * p + k;
    if (k >= m.count) {
      point_geom[slot] = vec4(0.0f);
      point_lambda[slot] = vec4(0.0f);
      continue;
    }
    point_geom[slot] = m.point[int(k)];
    uint feature = m.feature[int(k)];
    uint old = match_previous_point(prev, feature, quat_rotate_inv(qa, vec3(m.point[int(k)]) - xa));
    vec3 lambda = vec3(0.0f);
    if (old != VKPHYS_EMPTY_SLOT) {
      // Friction is kept as a world vector, so the tangent basis may differ between steps.
      vec4 last = prev_point_lambda[2u * old];
      vec3 friction = vec3(last.y, last.z, last.w);
      lambda = params.solver.w * vec3(last.x, dot(friction, t1), dot(friction, t2));
    }
    point_lambda[slot] = vec4(lambda, feature_bits(feature));
  }
}

// The host will restore the step-start state and redo this step.
bool step_undone() {
  return counters.overflow != 0u || counters.redo != 0u;
}

// ---- commit: this step's pairs become the previous step's (skipped when the step is redone) ----
// Runs after the solve. Each point keeps (lambda_n, friction impulse as a world vector) and (the
// point in body a's frame, feature id). Runs over the whole capacity: slots past this step's pairs
// are cleared, so the table can be rebuilt from prev_pair_info alone (after a regrow, too).
void commit_pair(uint p) {
  if (step_undone()) return;
  bool live = p < stored_pairs();
  uvec4 info = live ? pair_info[p] : uvec4(0u);
  prev_pair_info[p] = info;
  vec3 t1 = vec3(0.0f);
  vec3 t2 = vec3(0.0f);
  if (info.z > 0u) tangent_basis(vec3(pair_normal[p]), t1, t2);
  for (uint k = 0u; k < 4u; ++k) {
    uint slot = 4u * p + k;
    vec4 next = vec4(0.0f);
    vec4 where = vec4(0.0f);
    if (k < info.z) {
      vec4 lam = point_lambda[slot];
      next = vec4(lam.x, lam.y * t1 + lam.z * t2);
      vec3 local = vec3(point_prep[VKPHYS_POINT_PREP * slot + 4u]);  // in body a's frame
      where = vec4(local, lam.w);
    }
    prev_point_lambda[2u * slot] = next;
    prev_point_lambda[2u * slot + 1u] = where;
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
