// The solver's per-unit work for particle contacts (particle-particle and particle-plane, from
// kernels/particle_grid.inl): targets, one projected Gauss-Seidel sweep of the contact's
// three rows, the Newton-Coulomb impact, and the commit that makes this step's contacts the next
// step's warm-start source. Stage functions (environment: kernels/world_bodies.inl).
//
// A particle contact is a contact manifold with one point and no rotation: both bodies are
// particles or one is a static plane, so G = [-n, n] (no r x n parts) and the effective inverse
// mass of every row is K = 1/m_a + 1/m_b (with the split masses in the Jacobi scheme). Its
// rows carry each body as (v, 1/m) only, which keeps a particle's solver work at a third of a
// rigid body's (measured: 100k particles, Jacobi, CPU). The
// targets and the stiffness rule are the manifolds' (point_targets, kernels/contact_manifold.inl),
// the row update and the Coulomb disc are kernels/spook.h, and the rows run in the manifolds'
// order: friction first, bounded by the current normal impulse, then the normal row. It is a
// unit kind of its own so that a particle pays for 4 vec4 per contact instead of a 4-point
// manifold's 20.
//   pcontact_target[c] = (T, T_t1, T_t2, eps), T the normal target of the current solve phase
//   (with or without the position term: pcontact_targets runs before each phase),
//   pcontact_lambda[c] = (lambda_n, lambda_t1, lambda_t2, mu).

void pcontact_frame(uint c, KOUT(vec3) n, KOUT(vec3) t1, KOUT(vec3) t2) {
  n = vec3(pcontact_geom[c]);
  tangent_basis(n, t1, t2);
}

// The targets of contact c for the coming solve phase (kernels/stages.h), from the current
// separation along the narrowphase's normal (which moves with the bodies between substeps: dot(x_b
// - x_a, n) minus the radii, or thicknesses, of kernels/particle_grid.inl, contact_radii; or from
// a plane's surface point) and the start-of-phase velocities
// body_predict kept; also the pair's friction coefficient.
void pcontact_targets(uint c, uint phase) {
  uvec2 ab = pcontact_bodies[c];
  vec3 n;
  vec3 t1;
  vec3 t2;
  pcontact_frame(c, n, t1, t2);
  vec4 xb = body_pos[ab.y];
  vec4 xa = body_pos[ab.x];
  float gap = dot(vec3(xb) - vec3(xa), n) - contact_radii(ab.x, ab.y);
  vec3 rel = vec3(body_start[ab.y]) - vec3(body_start[ab.x]);
  vec4 mat = pair_material(ab.x, ab.y);
  vec3 resting = resting_spook(mat, reduced_mass(body_vel[ab.x].w, body_vel[ab.y].w));
  float un = dot(rel, n);
  ContactTargets t = point_targets(gap, un, resting, ab.x, ab.y, n, phase);
  vec4 lam = pcontact_lambda[c];
  vec2 ut = vec2(dot(rel, t1), dot(rel, t2));
  pcontact_target[c] = vec4(t.normal, stick_targets(vec2(lam.y, lam.z), ut, t), t.eps);
  // The scaled-box bound (mu m_red |g| h) does not follow the normal impulse: a contact that
  // does not touch within the substep gets none (contact_touches). Coulomb's mu lambda_n needs
  // no such rule.
  bool box_off =
      params.modes.z == VKPHYS_FRICTION_BOX && !contact_touches(gap, un, params.gravity_dt.w);
  pcontact_lambda[c].w = box_off ? 0.0f : mat.y;
}

#include "kernels/pcontact_rows.inl"

// The rows of a particle contact see each body as (v, 1/m) alone (the split 1/m in the Jacobi
// scheme): no angular state is loaded or carried. Adds the impulse p on body b, -p on body a.
void pcontact_apply(vec3 p, KINOUT(vec4) a, KINOUT(vec4) b) {
  vec3 va = vec3(a);
  vec3 vb = vec3(b);
  pcontact_push(p, va, a.w, vb, b.w);
  a = vec4(va, a.w);
  b = vec4(vb, b.w);
}

// `lam`: the contact's (lambda_n, lambda_t1, lambda_t2, mu), which the caller loads and stores
// (pcontact_lambda in place; the Jacobi gather reads one copy and writes the other).
void pcontact_rows(uint c, uint kind, KINOUT(vec4) lam, KINOUT(vec4) a, KINOUT(vec4) b) {
  vec3 n;
  vec3 t1;
  vec3 t2;
  pcontact_frame(c, n, t1, t2);
  if (kind == KIND_WARM) {
    pcontact_apply(lam.x * n + lam.y * t1 + lam.z * t2, a, b);
    return;
  }
  bool box = params.modes.z == VKPHYS_FRICTION_BOX;
  vec3 va = vec3(a);
  vec3 vb = vec3(b);
  pcontact_point_rows(n, t1, t2, pcontact_target[c], params.solver.z != 0.0f, box,
                      box ? reduced_mass(a.w, b.w) : 0.0f, params.contact.y, params.gravity_dt.w,
                      params.solver.x, lam, va, a.w, vb, b.w);
  a = vec4(va, a.w);
  b = vec4(vb, b.w);
}

// Newton-Coulomb impact (seed 001 step 2, as contact_impacts: after the forces, the rebound
// rebound_speed gives for the approach at the step's start); the collision matrix of two
// particles is (1/m_a + 1/m_b) Id.
void pcontact_impact(uint c, KINOUT(vec4) a, KINOUT(vec4) b) {
  uvec2 ab = pcontact_bodies[c];
  vec4 geom = pcontact_geom[c];
  vec3 n = vec3(geom);
  float un0 = dot(vec3(body_start[ab.y]) - vec3(body_start[ab.x]), n);
  float step = params.gravity_dt.w * params.contact.w;
  if (!closes_on_impact(geom.w, un0, step)) return;
  vec4 mat = pair_material(ab.x, ab.y);
  float mu = params.solver.z != 0.0f ? mat.y : 0.0f;
  float rebound = impact_rebound(geom.w, un0, contact_pull(ab.x, ab.y, n), mat.x, step);
  if (rebound < 0.0f) return;
  vec3 j = newton_coulomb_impulse(n, vec3(b) - vec3(a), (a.w + b.w) * mat3(1.0f), rebound, mu);
  pcontact_apply(j, a, b);
}

// Sweeps contact c of kind `kind` (rows or impact) on the bodies' (v, 1/m) with its impulses
// `lam` (unchanged by the warm start and the impact).
void pcontact_sweep(uint c, uint kind, KINOUT(vec4) lam, KINOUT(vec4) a, KINOUT(vec4) b) {
  if (kind == KIND_IMPACT) {
    pcontact_impact(c, a, b);
  } else {
    pcontact_rows(c, kind, lam, a, b);
  }
}

// ---- commit: this step's contacts become the previous step's (skipped when the step is redone)
// prev_pcontact_offsets takes the current per-particle offsets (P + 1 entries) and each contact
// its other body and (lambda_n, world friction impulse), at the contact's place in owner order
// (pcontact_origin: the coloured scheme solves them in colour order). The other body's index
// (below 2^22 + 2^22 + the planes: include/vkphys/limits.h) leaves bits 26-31 free for the
// contact's kept_color_code (kernels/world_coloring.inl; 0 none, so a checkpoint written before
// the colours were kept reads as having none).
void commit_pcontact(uint c) {
  if (step_undone() || c >= stored_pcontacts()) return;
  uvec2 ab = pcontact_bodies[c];
  vec3 n;
  vec3 t1;
  vec3 t2;
  pcontact_frame(c, n, t1, t2);
  vec4 lam = pcontact_lambda[c];
  uint o = pcontact_origin[c];
  prev_pcontact_other[o] =
      (is_particle(ab.x) ? ab.y : ab.x) |
      (kept_color_code(pcontact_unit_base() + c) << VKPHYS_PCONTACT_OTHER_BITS);
  prev_pcontact_lambda[o] = vec4(lam.x, lam.y * t1 + lam.z * t2);
}

void commit_pcontact_offset(uint p) {
  if (step_undone() || p > params.kinds.y) return;
  prev_pcontact_offsets[p] = min(pcontact_offsets[p], params.kinds.z);
}
