// The solver's per-unit work for contact manifolds (the SAP pairs): row preparation, warm start,
// one projected Gauss-Seidel sweep over a manifold's rows, and the Newton-Coulomb impact pass.
// Stage functions (environment: kernels/world_bodies.inl); the row maths is kernels/rows.h.
// The contact targets and stiffness rule below serve the particle contacts too
// (kernels/contact_particle.inl).
//
// A unit is a joint (up to 6 rows) or a contact manifold (up to 4 points, each a normal row and
// two friction rows). Within a unit rows are solved one after the other (Gauss-Seidel): the
// friction rows of every point first, bounded by the points' current normal impulses, then the
// normal rows (Box2D's order: non-penetration, solved last, wins). The drivers are in
// kernels/world_units.inl. What differs between schemes is only which body velocities a unit
// sees:
//   sequential / coloured: the bodies' current velocities, written back at once (in a colour no
//     two units share a dynamic body, so this is race-free on the GPU);
//   Jacobi: copies with the mass split n ways (n = the body's unit count, Tonge et al. 2012);
//     each unit writes its copies' velocity change and each body adds the average of them.
//
// Contact rows (seed 001 eqs 25-28): normal n from a to b, r_a, r_b from the centres of mass to
// the point, G = [-n, -(r_a x n), n, r_b x n]; friction rows the same with t1, t2 (n = t1 x t2).
// The rows are prepared once per step (prepare_contact: the Jacobian with the anchors of the
// narrowphase, effective masses) and their targets once per solve phase (contact_targets, from
// the current separation and velocities: with substeps the bodies move between phases, and the
// separation follows them through the anchors, Box2D v3's soft step with SPOOK's rows).
// point_prep per point, VKPHYS_POINT_PREP vec4:
//   [0] (r_a, T)  T: the normal target of the current phase (with or without position term)
//   [1] (r_b, K_n)
//   [2] (1/(K_n + eps), 1/(K_t + eps), 1/(K_t + eps), eps)  eps: the current phase's
//   [3] (T_t1, T_t2, box bound, mu)
//   [4] (r_a in body a's frame, the narrowphase's gap g0)
//   [5] (r_b in body b's frame, K_t)
//   [6 + 3j .. 8 + 3j] the angular parts of row j (0: n, 1: t1, 2: t2; RowParts, kernels/rows.h)
//       packed as (c_a, c_b.x), (c_b.yz, i_a.xy), (i_a.z, i_b)
//   [15] (a_r, b_r, eps_r, 1/(K_t + eps_r))
// with K_t the larger of the two friction rows' effective masses (see prepare_contact) and
// (a_r, b_r, eps_r) the pair's resting SPOOK coefficients (resting_spook).
// Why [15]: the resting coefficients and the friction rows' inverse they give are fixed for the
// step (the material, the masses, the effective masses and h are), but the targets run every
// substep; recomputed there they cost a sqrt and some ten divisions a pair and one a point
// (the two friction inverses were one division done twice). A point that rests in the phase (no
// impact, not PHASE_RELAX: its eps is eps_r) takes the prepared inverse: the same operation on
// the same inputs, so the same bits. 1/(K_n + eps_r) kept there as well measured no better (the
// sweeps' instructions rose by 1%: [2] then needed K_t in its third lane). 16 vec4 keep each
// point on whole 64-byte lines. Measured on the 210-box pyramid at 8 x 1 (CPU, callgrind):
// contact_targets and its body_acceleration calls 1024M -> 925M instructions a 160-step run,
// prepare_contact 216M -> 271M (its row parts' code lost GCC's partial vectorisation with the
// stride of 16, not with 17); helper-47, stop 33.

vec4 point_prep_at(uint slot, uint k) {
  return point_prep[index_t(VKPHYS_POINT_PREP) * slot + k];
}

void store_row_parts(uint slot, uint row, RowParts r) {
  index_t at = index_t(VKPHYS_POINT_PREP) * slot + 6u + 3u * row;
  point_prep[at] = vec4(r.ca, r.cb.x);
  point_prep[at + 1u] = vec4(r.cb.y, r.cb.z, r.ia.x, r.ia.y);
  point_prep[at + 2u] = vec4(r.ia.z, r.ib);
}

RowParts row_parts_at(uint slot, uint row) {
  index_t at = index_t(VKPHYS_POINT_PREP) * slot + 6u + 3u * row;
  return unpack_row_parts(point_prep[at], point_prep[at + 1u], point_prep[at + 2u]);
}

vec3 point_rel_velocity(BodyState a, BodyState b, vec3 ra, vec3 rb) {
  return (b.v + cross(b.w, rb)) - (a.v + cross(a.w, ra));
}

// ---- preparation -----------------------------------------------------------------------------
// Contact stiffness: the materials' k, capped at m_eff (2 pi f)^2 for the pair's reduced mass
// m_eff and the cap frequency f (solver.contact_hertz, at most half the substep rate: host/sim/
// world_params.cpp, contact_cap_hertz). Why: four coplanar contact points
// between two boxes are redundant rows, and with a near-rigid k the regulariser eps is too small
// to pin down how the load is shared; Gauss-Seidel then lets the sharing wander from step to
// step, friction follows it, and stacks of more than a few boxes start to rock (measured: a
// 6-box stack with k = 1e8 rocks at 0.3 m/s after 10 s, with the cap at 30 Hz it stays within
// 1e-4 m/s). Capping k in proportion to the mass keeps eps / K fixed whatever the mass scale;
// 30 Hz is the contact softness Box2D v3 uses by default, and a 60 Hz step with one substep
// keeps it; with substeps the default 35 Hz holds a column of 24 cubes that 30 Hz let swing.
float contact_stiffness(float k, float reduced_mass) {
  float f = params.contact.z;
  if (f <= 0.0f || reduced_mass <= 0.0f) return k;
  float w = 6.2831853f * f;
  return min(k, reduced_mass * w * w);
}

// An impact: the contact approaches faster than the restitution threshold and closes within the
// step (or substep) h. A speculative contact that does not close bounces nothing: with a contact
// margin larger than a step's travel, a ball would otherwise turn round in mid-air.
bool closes_on_impact(float gap, float un, float h) {
  return un < -params.solver.y && gap + h * un < 0.0f;
}

// Whether a contact point touches within the (sub)step h: it does already (gap <= 0), or its
// approach un < 0 closes the gap within h. A speculative point that does not is no contact yet,
// and the scaled-box friction model, whose bound does not follow the normal impulse, must give
// it no friction: else a box sliding past a wall within the speculative distance is braked by
// it (Coulomb friction needs no such rule: its bound mu lambda_n is 0 until the normal row acts,
// and the normal row acts only where the approach would pass the surface within the substep).
bool contact_touches(float gap, float un, float h) {
  return gap + h * min(un, 0.0f) <= 0.0f;
}

// The scaled-box friction model's bound on a point's friction impulse: mu m_red |g| h shared by
// the manifold's points (the weight of the pair's reduced mass over a substep).
float box_friction_bound(vec4 mat, float reduced, uint points) {
  return mat.y * reduced * params.contact.y * params.gravity_dt.w / float(max(points, 1u));
}

// Newton's law for a contact that closes within the step, with the step's own motion counted:
// the normal velocity the pair should leave the step with (the stored velocity, which the
// symplectic step holds at mid-step). gap: the separation at the step's start; un0 < 0: the
// approach the step started with (held at the previous mid-step); pull: the relative
// acceleration the forces give the pair toward each other along n (g for a body above a floor).
// Derivation: under a constant pull the symplectic step moves a body exactly along a parabola
// whose velocity at mid-step is the stored one. The approach reaches the surface with the energy
// height H = gap + (|un0| + pull h / 2)^2 / (2 pull); Newton's law gives the rebound e^2 H. With
// v the stored velocity after the step, the body is at gap + h v and moves at v - pull h / 2, so
// its next apex is gap + h v + (v - pull h / 2)^2 / (2 pull) = e^2 H, that is
//     v = sqrt(S) - pull h / 2,  S = e^2 (2 pull gap + (|un0| + pull h / 2)^2) - 2 pull gap,
// which is e |un0| without a pull. A gap below 0 (the contact was found after the body had gone
// in) counts as well: the rebound brings the body back out to e^2 H, and with e = 0 to rest at
// the surface (a ball falling at 4.4 m/s moves 7.4 cm a step at 60 Hz: with a 2 cm margin it can
// start its impact step 5 cm inside). The rebound -e
// un0 alone misses both the gap the step starts with (the body turns round above the surface: up to
// h |un0|) and the pull's speed over the step: the apex of a ball dropped 1 m was 0.948 of e^2 h at
// 60 Hz (e = 0.5), 1.055 at 240 Hz and 1.166 with a 0.3 m contact margin.
float rebound_speed(float gap, float un0, float pull, float e, float h) {
  float approach = -un0 + 0.5f * pull * h;
  float s = e * e * (2.0f * pull * gap + approach * approach) - 2.0f * pull * gap;
  return max(sqrt(max(s, 0.0f)) - 0.5f * pull * h, 0.0f);
}

float reduced_mass(float im_a, float im_b) {
  return im_a + im_b > 0.0f ? 1.0f / (im_a + im_b) : 0.0f;
}

vec4 pair_material(uint a, uint b) {
  return combine_materials(params.materials[body_info[a].y], params.materials[body_info[b].y]);
}

// The rebound an impact gives this step, or -1 when it gives none yet. A contact still open at
// the step's start (gap > 0) whose rebound_speed is 0 (e = 0, or under a pull an apex e^2 H
// below the gap) cannot turn round above the surface without halting there: the bias row's
// target max(T, 0) and the Newton impulse to 0 would both stop the body in mid-air at the gap,
// where the plain speculative row T = -g/h lands it on the surface (measured: a ball at 10 m/s
// without gravity stopped for good 3 cm above a plate; with the speculative reach, kernels/
// world_bodies.inl, the rag-doll's parts stopped up to 15 cm above the floor on their landing
// step, fell again, and its hands spun past their limits). Such a contact only approaches this
// step, and takes its impact the next, touching.
float impact_rebound(float gap, float un0, float pull, float e, float h) {
  float v = rebound_speed(gap, un0, pull, e, h);
  return gap > 0.0f && v <= 0.0f ? -1.0f : v;
}

// The relative acceleration the external forces give bodies a and b toward each other along n
// (n from a to b; static bodies have none).
float contact_pull(uint a, uint b, vec3 n) {
  float im_a = body_vel[a].w;
  float im_b = body_vel[b].w;
  vec3 acc_a = im_a > 0.0f ? body_acceleration(a, im_a) : vec3(0.0f);
  vec3 acc_b = im_b > 0.0f ? body_acceleration(b, im_b) : vec3(0.0f);
  return dot(acc_a - acc_b, n);
}

// The SPOOK targets of one contact point with gap g and start-of-step normal velocity un_k, for
// the pair's combined material and its resting coefficients (resting_spook).
// Derivation (seed 001 eqs 26-28, digest B2.5/B2.6): with u_f the change the external forces
// make, SPOOK's right-hand side is B = -a g - b u_k - u_f. Written against the *current*
// relative velocity u (which already holds u_f and every impulse so far) the update is
//     dlambda = (B - (u - u_k - u_f) - eps lambda) / (K + eps) = (T - u - eps lambda) / (K + eps)
// with the velocity target T = -a g + (1 - b) u_k (row_target, kernels/spook.h). The same form
// serves resting and penetrating contacts (g <= 0), speculative ones (0 < g < margin: T = -g/h,
// close the gap and no more), impacts (T = max(T, -e u_k), Newton's law, as seed 000 section
// 8.2 puts restitution in the bias). The friction rows share the eps found here but are stick
// rows (stick_targets, kernels/rows.h).
// Approaching faster than the restitution threshold, the row keeps the material's own k: a
// capped, softer row would give back only T - eps lambda of the restitution target (2.86 of
// 3 m/s for two 1 kg spheres), and bias restitution puts max(T, -e u_n) in the target.
// The SPOOK coefficients (a, b, eps) of a pair's resting contacts (the capped stiffness); an
// impact's come from the material's own k (point_targets). Computed once per pair and step for a
// manifold (prepare_contact keeps them in point_prep), once per phase for a particle contact.
vec3 resting_spook(vec4 mat, float reduced) {
  return spook_coefficients(contact_stiffness(mat.z, reduced), mat.w * params.contact.w,
                            params.gravity_dt.w);
}

// The pull (contact_pull, bodies a and b, normal n) enters only an impact's rebound under bias
// restitution, so it is computed there: most points in most phases never need it.
// The pair's material (pair_material) likewise enters only an impact's coefficients: `resting`
// holds what a resting contact needs of it.
ContactTargets point_targets(float g, float un_k, vec3 resting, uint a, uint b, vec3 n,
                             uint phase) {
  float h = params.gravity_dt.w;
  ContactTargets t;
  if (phase == PHASE_RELAX) {
    // Rigid velocity rows (eps = 0): no approach once touching, an open gap closed at most.
    t.normal = g > 0.0f ? -g / h : 0.0f;
    t.eps = 0.0f;
    t.keep = 0.0f;
    return t;
  }
  bool impact = closes_on_impact(g, un_k, h);
  vec4 mat = impact ? pair_material(a, b) : vec4(0.0f);
  // d: the relaxation in substeps
  vec3 spook = impact ? spook_coefficients(mat.z, mat.w * params.contact.w, h) : resting;
  // PHASE_VELOCITY: no position term (the gap only counts while it is open).
  t.normal = row_target(phase == PHASE_VELOCITY ? max(g, 0.0f) : g, un_k, spook, h, true);
  if (params.modes.y == VKPHYS_RESTITUTION_BIAS && impact) {
    float rebound = impact_rebound(g, un_k, contact_pull(a, b, n), mat.x, h);
    if (rebound >= 0.0f) t.normal = max(t.normal, rebound);
  }
  t.eps = spook.z;
  t.keep = 1.0f - spook.y;
  return t;
}

void prepare_contact(uint p) {
  uvec4 info = pair_info[p];
  vec3 n = vec3(pair_normal[p]);
  vec3 t1;
  vec3 t2;
  tangent_basis(n, t1, t2);
  bool split = unit_split(params.counts.y + p);
  BodyState sa = solver_body(info.x, split);  // masses as the sweeps see them
  BodyState sb = solver_body(info.y, split);
  vec4 mat = pair_material(info.x, info.y);
  float reduced = reduced_mass(body_vel[info.x].w, body_vel[info.y].w);
  vec3 resting = resting_spook(mat, reduced);
  vec4 qa = body_rotation(info.x);
  vec4 qb = body_rotation(info.y);
  for (uint k = 0u; k < info.z; ++k) {
    index_t slot = index_t(VKPHYS_POINT_PREP) * (4u * p + k);
    vec4 geom = point_geom[4u * p + k];
    vec3 ra = vec3(geom) - vec3(body_pos[info.x]);
    vec3 rb = vec3(geom) - vec3(body_pos[info.y]);
    RowParts rn = row_parts(n, ra, rb, sa, sb);
    RowParts r1 = row_parts(t1, ra, rb, sa, sb);
    RowParts r2 = row_parts(t2, ra, rb, sa, sb);
    float kn = row_parts_mass(rn, n, sa, sb);
    // The two friction rows share one effective mass, the larger of theirs: the Coulomb disc
    // projection is radial, so the unprojected update must point along the slip (-u_t), which
    // anisotropic masses would skew (a sliding box then yaws and slides too fast).
    float kt = max(row_parts_mass(r1, t1, sa, sb), row_parts_mass(r2, t2, sa, sb));
    point_prep[slot] = vec4(ra, 0.0f);
    point_prep[slot + 1u] = vec4(rb, kn);
    point_prep[slot + 3u] = vec4(0.0f, 0.0f, 0.0f, mat.y);  // box bound: contact_targets
    point_prep[slot + 4u] = vec4(quat_rotate_inv(qa, ra), geom.w);
    point_prep[slot + 5u] = vec4(quat_rotate_inv(qb, rb), kt);
    point_prep[slot + 15u] = vec4(resting, 1.0f / (kt + resting.z));
    store_row_parts(4u * p + k, 0u, rn);
    store_row_parts(4u * p + k, 1u, r1);
    store_row_parts(4u * p + k, 2u, r2);
  }
}

// ---- Jacobi's warm start from the contact spring ---------------------------------------------
// Why a mass-split Jacobi sweep let a stack of cubes bounce (measured 2026-11-29, 10 one-metre
// cubes, 5 x 2 at the default 35 Hz: 0.3-0.9 J of kinetic energy for good, where the
// Gauss-Seidel schemes come to rest). Per substep and sweep, a split row moves its impulse by
// (T - u - eps lambda) / (D + eps), D its effective mass with the split copies (n times each
// body's 1/m and I^-1). For a slow mode of a column (the whole column breathing on its contacts,
// effective inverse mass alpha << D) the sweeps remove only a fraction
// kappa ~ sweeps (alpha + eps) / (D + eps) of the residual per substep, and the warm start carries
// the rest over: the stored normal impulse becomes an integral of the position error -a g, a
// contact force that lags the motion by about h / kappa. A spring whose force lags gains energy
// once the lag exceeds its damping time: with SPOOK's a = 4 / (h (1 + 4 d)), b = 4 d / (1 + 4 d)
// the loop (impulse, velocity, gap) is a third-order system, stable only while kappa b > a h,
// i.e. kappa > 1 / d (d the relaxation in substeps). A 1-D model of the column with these
// updates reproduces the engine: the step map's spectral radius is 1.029 at 35 Hz (the stack
// bounces), 0.87 at 15 Hz (JacobiStandsTenCubes' cap), 0.94 with a 0.8 warm-start factor (a
// leak, kappa + 0.2 a step: why 0.8 helped, at the price of the load it leaks, 1.5 cm more sink)
// and 0.80 with 8 iterations; Gauss-Seidel carries the load down a column within one sweep
// (kappa ~ 1): 0.81. Measured per phase over steps 10-40 of the stack: the warm starts added
// 0.56 J (at rest they take off the gravity's (g h)^2 / 2 per body), the sweeps removed 2.07 J.
// The stored impulse is the right one (a unit's lambda is the impulse its bodies took: each
// copy moves by n M^-1 G^T dlambda, the average by M^-1 G^T dlambda); its memory is the lag.
// So a split row that cannot outrun its own relaxation is warm-started from the one impulse that
// carries no memory: the spring law of its SPOOK row at rest, lambda = -(a / eps) g = h k (-g)
// (T - u - eps lambda = 0 with u = u_k = 0), from the point's gap at the substep's start. It is
// SPOOK's own fixed point, so a resting contact starts where it was (the stack sinks 5.2 mm, as
// with 8 iterations) and a converged solve is unchanged: only the starting iterate differs. Per
// point, not per manifold: a column's tilt modes lag as its breathing does (warm-starting each
// manifold's total only, its points keeping their shares, let the 10-cube stack fall).
// Which rows: those of a Jacobi unit with a body shared with other units (n > 1), and only while
// one sweep is too slow for the row, eps / (D + eps) < 1 / d = 4 (1 - b) / b (alpha left out:
// it only helps). A body in one unit alone is solved exactly in its unit and keeps the stored
// impulse (the spring law there, with Gauss-Seidel's own sharing of four coplanar points redone
// every substep, walked a lone box 12 cm in 10 s and slid the StaticFrictionDoesNotCreep box);
// at the 15 Hz cap a cube's rows pass the test and keep theirs. Friction rows keep their stored
// impulses (static friction needs the memory). The coloured scheme's overflow colour is left as
// it was (8 passes a sweep). Measured (CPU, 5 x 2, 35 Hz): the 210-box pyramid's top moves
// 0.0078 m in 5 s (1.14 m before); the 10-cube stack no longer bounces (it sinks 5.2 mm) but
// wandered sideways (up to 1.7 cm at 0.07 m/s) where the Gauss-Seidel schemes stand still, until
// the weighted sweep below. The spring start is an explicit spring force, so it is also held to
// springs the substep resolves: (a / eps) h (1/m_a + 1/m_b) = (w h)^2 < 1, w the row's linear
// frequency (5 x 2 at 35 Hz: 0.54). Seed 004's rag-doll at 30 Hz, one substep (w h = pi at its
// 15 Hz cap) blew apart with the spring start (pins 2.2-3.1 m open); with the stored impulse it
// keeps them within 1.0-2.6 cm (RigidRagdoll.PinsAtSeed004Settings, measured, Jacobi skipped
// there).
//
// ---- Weighted Jacobi for the manifolds ---------------------------------------------------------
// What was left: two 1 kg cubes stacked on the ground (friction 0.5, 5 x 2, 35 Hz) walked 0.78 m
// in 10 s, turning about the vertical; a 100 kg box on a 1 kg one was thrown 2.9 m and a 1 kg box
// slid 0.34 m off a 100 kg one; the 10-cube stack wandered. Each needs friction, two split box
// manifolds and too few sweeps a substep (5 x 4 and 8 x 2 stood), and no start of the impulses
// cured it (docs/benchmarks.md, stop 45): it is the sweep. Every unit of a Jacobi sweep answers
// the same residual at once, so a mode in which two manifolds on one body push it opposite ways
// (the body rocking between its ground and its top contact) is overshot by both, and the average
// of the copies swings back as far: an error mode of the sweep's iteration matrix with eigenvalue
// near -1, undamped from sweep to sweep. Weighted Jacobi damps it: with each impulse increment
// scaled by w, an eigenvalue mu of the sweep goes to 1 - w (1 - mu), so -1 goes to 1 - 2w (-0.5
// at w = 0.75) while the slow modes (mu near 1, the load carried down a column) lose a quarter of
// their speed. Which pairs: those split exactly two ways (a dynamic body in two units, none in
// more). Mass splitting itself damps the more, the more ways a body is split (each unit answers
// as if the body were n times lighter, n its unit count): the pyramid's boxes, in four to six
// units each, do not rock, and weighted they only settle slower (the 820-box pyramid kept moving
// at 2.6 cm/s after 10 s, its farthest box 3.8 cm off, against 0.8 cm/s and 3.3 cm unweighted);
// a cube in a column is split two ways, the least damped. A body in one unit alone is solved
// exactly in it. So under Jacobi a two-way pair's rows, friction and normal, take increments
// weighted by solver.jacobi_contact_relaxation (default 0.75; params.manifold.x, host/sim/
// world_params.cpp; manifold_weight below), on top of solver.relaxation. The normal rows alone stop
// the wander but leave the 10-cube stack at 1.3e-3 m/s after 20 s (4e-4 with both); the friction
// rows alone do not stop it. Measured (CPU, 5 x 2, 35 Hz, 10 s unless said), w on every split
// pair at 1 / 0.8 / 0.75 / 0.7 / 0.667:
//   2 cubes, top's drift            0.78 m / 0.3 mm / 0.3 / 0.2 / 0.2 mm
//   10 cubes, 20 s: top's drift     4.1 cm, 0.05 m/s / 6.0 mm / 5.5 mm, 4e-4 m/s / 5.3 / 5.2 mm
//   100 kg on 1 kg: top sideways    2.85 m / 9.5 cm, 0.16 m/s / 1.4 cm, 0.01 m/s / 1.2 / 1.4 cm
//   1 kg on 100 kg: top sideways    0.34 m / 0.1 mm / 0.1 / 0.1 / 0.1 mm
//   pyramid of 20, top at 5 s       7.8 mm / 7.6 / 7.7 / 20.0 / 25.3 mm
//   24 cubes, 60 s: farthest        18.0 cm / 4.8 / 4.9 / 5.0 / 5.0 cm
// and on the two-way pairs only at 0.75: the stacks and the mass ratios as in the 0.75 column,
// both pyramids as unweighted (their tops 7.8 mm at 5 s and 3.3 cm at 10 s). 0.75 is the least
// weight that kept the 20-box pyramid with every split pair weighted. The heavy box on the light
// one stands but keeps jittering at about 0.01 m/s: mass splitting gives the 1 kg box's copies
// 0.5 kg each against 100 kg, which ten sweeps do not converge. The 10-cube stack takes longer to
// settle (its cubes move vertically at up to 0.050 m/s in the first seconds, 0.028 unweighted;
// below 2e-3 m/s after 4 s). Only the manifolds: the same weight on the particle contacts kept a
// 3,000-particle box moving at 0.3 m/s (1e-6 m/s without), on the springs of a 32 x 32 hanging
// cloth (4 x 2, 3 s) raised its worst strain from 0.99 to 1.77, and left the rag-doll's joints
// unchanged. The coloured scheme's overflow colour (a Jacobi sweep too) keeps w = 1.
// Per pair (bodies a, b) under Jacobi: the most units any of its dynamic bodies is in (0: none
// is dynamic; 0 in the other schemes).
float jacobi_split_ways(uint a, uint b) {
  if (params.modes.x != VKPHYS_SCHEME_JACOBI) return 0.0f;
  float na = body_vel[a].w > 0.0f ? body_share(a, true) : 0.0f;
  float nb = body_vel[b].w > 0.0f ? body_share(b, true) : 0.0f;
  return max(na, nb);
}

// The weight on a manifold's increments for `ways` = jacobi_split_ways: solver.
// jacobi_contact_relaxation (params.manifold.x) for a Jacobi pair split exactly two ways (see
// above), else 1. contact_targets folds it into the rows' inverse effective masses
// (point_prep[2]), which only the sweep's row updates read: w (T - u - eps lambda) / (K + eps) is
// the weighted increment, and the sweep itself stays as it was (a weight per lane in the CPU's
// four-lane sweep cost 2% of its instructions in every scheme).
float manifold_weight(float ways) {
  return ways == 2.0f ? params.manifold.x : 1.0f;
}

// Per point of such a pair: rest, the point's resting SPOOK (a, b, eps); k_split, its normal
// row's D (p1.w); im_sum, the bodies' own 1/m_a + 1/m_b.
bool jacobi_spring_warm(vec4 rest, float k_split, float im_sum, float h) {
  return rest.z / (k_split + rest.z) < 4.0f * (1.0f - rest.y) / rest.y &&
         rest.x / rest.z * h * im_sum < 1.0f;
}

// The targets of pair p's rows for the coming solve phase (kernels/stages.h). The separation is
// the narrowphase's gap moved with the bodies since: g0 + n . ((x_b + R_b r_b) - (x_a + R_a r_a))
// with the anchors in each body's frame (0 at the pose the narrowphase saw); the start-of-phase
// velocities are those body_predict kept.
// The separation is taken as g0 + n . (x_b - x_a) + (R_b^T n) . r_b - (R_a^T n) . r_a: the normal
// rotated into each body's frame once a pair, not each anchor out of it once a point (n . R r =
// R^T n . r). The same separation to rounding (it moves the CPU's bits; the determinism pins
// moved with it). Measured (helper-53, the 210-box pyramid at 5 x 2, callgrind, 60 steps): this
// function 227M -> 176M instructions (281 -> 169 a point, 177 -> 283 a pair).
void contact_targets(uint p, uint phase) {
  uvec4 info = pair_info[p];
  vec3 n = vec3(pair_normal[p]);
  vec3 t1;
  vec3 t2;
  tangent_basis(n, t1, t2);
  BodyState a = start_body(info.x);
  BodyState b = start_body(info.y);
  float h = params.gravity_dt.w;
  // The scaled-box model's friction bound (only that model reads it, so only it pays for it).
  float box_bound =
      params.modes.z == VKPHYS_FRICTION_BOX
          ? box_friction_bound(pair_material(info.x, info.y), reduced_mass(a.im, b.im), info.z)
          : 0.0f;
  vec3 xa = vec3(body_pos[info.x]);
  vec3 xb = vec3(body_pos[info.y]);
  vec3 na = quat_rotate_inv(body_rotation(info.x), n);
  vec3 nb = quat_rotate_inv(body_rotation(info.y), n);
  float centres = dot(xb - xa, n);
  float ways = jacobi_split_ways(info.x, info.y);
  bool spring_start = phase == PHASE_SOLVE && ways > 1.0f;
  float w = manifold_weight(ways);
  for (uint k = 0u; k < info.z; ++k) {
    index_t slot = index_t(VKPHYS_POINT_PREP) * (4u * p + k);
    vec4 p0 = point_prep[slot];
    vec4 p1 = point_prep[slot + 1u];
    vec4 la = point_prep[slot + 4u];
    vec4 lb = point_prep[slot + 5u];
    vec4 rest = point_prep[slot + 15u];
    float gap = la.w + (centres + (dot(nb, vec3(lb)) - dot(na, vec3(la))));
    vec3 rel = point_rel_velocity(a, b, vec3(p0), vec3(p1));
    float un = dot(rel, n);
    float bound = contact_touches(gap, un, h) ? box_bound : 0.0f;
    ContactTargets t = point_targets(gap, un, vec3(rest), info.x, info.y, n, phase);
    point_prep[slot] = vec4(vec3(p0), t.normal);
    // A resting point's friction inverse is the prepared one (equal eps: equal bits).
    float inv_t = t.eps == rest.z ? rest.w : 1.0f / (lb.w + t.eps);
    point_prep[slot + 2u] = vec4(w / (p1.w + t.eps), w * inv_t, w * inv_t, t.eps);
    vec4 p3 = point_prep[slot + 3u];
    vec4 lam = point_lambda[4u * p + k];
    if (spring_start && jacobi_spring_warm(rest, p1.w, a.im + b.im, h)) {
      lam.x = max(-gap * rest.x / rest.z, 0.0f);
      point_lambda[4u * p + k] = lam;
    }
    vec2 ut = vec2(dot(rel, t1), dot(rel, t2));
    point_prep[slot + 3u] = vec4(stick_targets(vec2(lam.y, lam.z), ut, t), bound, p3.w);
  }
}

// ---- contact sweeps --------------------------------------------------------------------------
// The rows' angular parts come prepared (RowParts): a sweep reads them, the bodies' velocities
// and the targets, and never the anchors. A point's rows are three functions (its friction
// pair, its normal row, its warm start; kernels/contact_point_rows.inl) so that the CPU backend
// can sweep four manifolds that share no dynamic body together, one per SIMD lane, with the
// same arithmetic (host/cpu/manifold_lanes.inl, host/cpu/wide_lanes.h): each row waits for the
// previous row's velocity update, about 50 cycles of latency, and four independent manifolds
// share that wait.

#include "kernels/contact_point_rows.inl"

// One sweep of pair p's manifold: friction first, bounded by the current normal impulses, then
// the normal rows (the order Box2D uses: the non-penetration rows, solved last, win).
// On the CPU the bodies are swept as local copies (GLSL's inout is copy-in, copy-out anyway):
// through the references every store to point_lambda, a float array the bodies' floats might
// alias, made the compiler reload the velocities from memory before the next row.
void contact_rows(uint p, uint kind, KINOUT(BodyState) a_io, KINOUT(BodyState) b_io) {
  BodyState a = a_io;
  BodyState b = b_io;
  uvec4 info = pair_info[p];
  vec3 n = vec3(pair_normal[p]);
  vec3 t1;
  vec3 t2;
  tangent_basis(n, t1, t2);
  float relax = params.solver.x;
  bool friction = params.solver.z != 0.0f && kind != KIND_WARM;
  bool box = params.modes.z == VKPHYS_FRICTION_BOX;
  for (uint k = 0u; friction && k < info.z; ++k) {
    contact_friction_point(4u * p + k, t1, t2, box, relax, a, b);
  }
  for (uint k = 0u; k < info.z; ++k) {
    if (kind == KIND_WARM) {
      contact_warm_point(4u * p + k, n, t1, t2, a, b);
    } else {
      contact_normal_point(4u * p + k, n, relax, a, b);
    }
  }
  a_io = a;
  b_io = b;
}

// Newton-Coulomb impacts (seed 001 step 2) for the points that close on impact within the step,
// after the forces and before the solve: Newton's law gives the rebound -e u_n of the approach
// at the step's start, and the impulse brings the current velocity (this step's gravity in it)
// there, so the bounce loses no step of gravity (it lost g h, 10% of the apex of a 1 m drop at
// 60 Hz). The step-start velocities hold the impacts of the units swept before this one
// (add_impact_to_start), so in the sequential scheme an impact propagates along a row of
// touching bodies within the pass (Newton's cradle); the coloured scheme propagates it one
// colour per pass and Jacobi not at all (a simultaneous impact).
void contact_impacts(uint p, KINOUT(BodyState) a, KINOUT(BodyState) b) {
  uvec4 info = pair_info[p];
  vec3 n = vec3(pair_normal[p]);
  vec4 mat = pair_material(info.x, info.y);
  float mu = params.solver.z != 0.0f ? mat.y : 0.0f;
  BodyState a0 = start_body(info.x);
  BodyState b0 = start_body(info.y);
  float step = params.gravity_dt.w * params.contact.w;
  float pull = contact_pull(info.x, info.y, n);
  for (uint k = 0u; k < info.z; ++k) {
    vec4 geom = point_geom[4u * p + k];
    vec3 ra = vec3(geom) - vec3(body_pos[info.x]);
    vec3 rb = vec3(geom) - vec3(body_pos[info.y]);
    float un0 = dot(point_rel_velocity(a0, b0, ra, rb), n);
    if (!closes_on_impact(geom.w, un0, step)) continue;
    float rebound = impact_rebound(geom.w, un0, pull, mat.x, step);
    if (rebound < 0.0f) continue;
    vec3 j = newton_coulomb_impulse(n, point_rel_velocity(a, b, ra, rb),
                                    collision_matrix(ra, rb, a, b), rebound, mu);
    BodyState a_in = a;
    BodyState b_in = b;
    row_apply(-j, -cross(ra, j), j, cross(rb, j), 1.0f, a, b);
    // The manifold's next point sees this one's impulse in its approach.
    a0.v += a.v - a_in.v;
    a0.w += a.w - a_in.w;
    b0.v += b.v - b_in.v;
    b0.w += b.w - b_in.w;
  }
}
