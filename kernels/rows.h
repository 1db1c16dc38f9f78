// Constraint rows between two bodies: the SPOOK row update shared by contacts and joints,
// impulse application, and the Newton-Coulomb impact law (pure functions). A particle is a body
// with w = 0 and I^-1 = 0, so its rows are the linear parts alone.
//
// A row has a Jacobian G = [l_a, a_a, l_b, a_b] (linear and angular parts for bodies a and b),
// so its velocity is u = l_a.v_a + a_a.w_a + l_b.v_b + a_b.w_b and an impulse lambda changes
// the velocities by M^-1 G^T lambda (seed 001 eqs 33-34 with the signs of eq 25: body a gets
// -n, body b gets +n for a contact). Its effective inverse mass is
//     K = G M^-1 G^T = l_a.l_a / m_a + a_a.I_a^-1 a_a + l_b.l_b / m_b + a_b.I_b^-1 a_b
// with I^-1 in world coordinates. The SPOOK Gauss-Seidel update of one row is seed 001 eq 28
// written against the current row velocity u (which holds every impulse applied so far):
//     dlambda = (T - u - eps lambda) / (K + eps),     lambda <- project(lambda + dlambda)
// with the row's target T = -a g + (1 - b) u_k (point_targets, contact_manifold.inl; friction
// rows: stick_targets, below) and the projection applied to the ACCUMULATED lambda (eq 32),
// never to the increment. row_target is in kernels/spook.h; row_update, coulomb_disc and the
// prepared rows' velocity and impulse are in kernels/row_sweep.inl.
#ifndef VKPHYS_KERNELS_ROWS_H
#define VKPHYS_KERNELS_ROWS_H
#include "kernels/common.h"
#include "kernels/spook.h"

KERNELS_BEGIN

// The velocity state of one body as a row sees it. Static bodies have im = 0 and ii = 0;
// particles have w = 0 and ii = 0.
struct BodyState {
  vec3 v;
  vec3 w;
  float im;  // 1/m
  mat3 ii;   // world inverse inertia
};

// The velocity targets of one contact point for one solve phase (point_targets,
// kernels/contact_manifold.inl, derives them).
struct ContactTargets {
  float normal;  // T_n = -a g + (1 - b) u_n,k (or -g / h when open, restitution)
  float eps;     // the rows' regulariser (the friction rows' too: stick_targets)
  float keep;    // 1 - b: the share of the start-of-phase velocity a row's target keeps
};

// Static friction: the targets of a point's two friction rows for a solve phase, from their
// accumulated impulses lambda_t0 and start-of-phase slip velocities u_t,k then, with the normal
// row's SPOOK coefficients t:
//     T_t = (1 - b) u_t,k + eps lambda_t0,
//     dlambda = ((1 - b) u_t,k - u - eps (lambda - lambda_t0)) / (K + eps).
// The regulariser acts on the change of impulse within the phase only. Under a steady load
// (lambda = lambda_t0, u = u_t,k) the row settles at b u = 0: no slip whatever the load.
// Seed 001's friction row T_t = (1 - b) u_t,k with eps on the whole impulse (digest B2.9)
// settles at u = -eps lambda / b instead: a dashpot. A box at 0.9 of its friction angle crept
// at 0.59 mm/s with it, and a 24-cube stack tilted over within 30 s. A change of load still
// meets SPOOK's spring-damper (k, d), so sways are damped as before. Tried and rejected:
//   - rigid rows (eps = 0): the redundant friction rows of coplanar points wandered. A 1-ulp
//     nudge moved a resting 4-box stack 3.7e-5 m in 1 s, and seed 000's pushed pendulum grid
//     let only 1 of its 3 slabs fall through;
//   - the change-only regulariser without the (1 - b) u_t,k term: an undamped tangential spring
//     (stiffness 1 / (eps h^2)). The top of a 210-box pyramid rocked out of its plane, growing
//     to 0.25 m/s in 10 s at 1 x 25 iterations (coloured).
KFN vec2 stick_targets(vec2 lambda_t, vec2 ut_k, ContactTargets t) {
  return t.keep * ut_k + t.eps * lambda_t;
}

// Effective inverse mass of a row with parts (la, aa) on body a and (lb, ab) on body b.
KFN float row_mass(vec3 la, vec3 aa, vec3 lb, vec3 ab, BodyState a, BodyState b) {
  return a.im * dot(la, la) + dot(aa, a.ii * aa) + b.im * dot(lb, lb) + dot(ab, b.ii * ab);
}

KFN float row_velocity(vec3 la, vec3 aa, vec3 lb, vec3 ab, BodyState a, BodyState b) {
  return dot(la, a.v) + dot(aa, a.w) + dot(lb, b.v) + dot(ab, b.w);
}

// A row's prepared angular parts (Jolt's constraint parts, PhysX's raXn and its inertia-scaled
// twin) for a row along the unit direction d with anchors r_a, r_b, G = [-d, -c_a, d, c_b]:
//     c_a = r_a x d,  c_b = r_b x d,  i_a = I_a^-1 c_a,  i_b = I_b^-1 c_b
// (i_a, i_b: the angular velocity changes of a unit impulse). Within a step the anchors, the
// direction and the world inverse inertia are fixed, so they are prepared once and every sweep's
// row update is three dot products and four scaled adds, where row_velocity and row_apply from
// the anchors cost two cross products and two 3x3 products more (measured: the contact sweep of
// the 210-box pyramid took 60% of the CPU step's instructions before).
struct RowParts {
  vec3 ca;
  vec3 cb;
  vec3 ia;
  vec3 ib;
};

KFN RowParts row_parts(vec3 d, vec3 ra, vec3 rb, BodyState a, BodyState b) {
  RowParts p;
  p.ca = cross(ra, d);
  p.cb = cross(rb, d);
  p.ia = a.ii * p.ca;
  p.ib = b.ii * p.cb;
  return p;
}

// The row's effective inverse mass K (row_mass) from its parts: the same bits, since
// c.(I^-1 c) is row_mass's (-c).(I^-1 (-c)), without its cross and matrix products again.
KFN float row_parts_mass(RowParts p, vec3 d, BodyState a, BodyState b) {
  return a.im * dot(d, d) + dot(p.ca, p.ia) + b.im * dot(d, d) + dot(p.cb, p.ib);
}

// The scalar forms of the lane helpers kernels/row_sweep.inl is written with (host/cpu/
// wide_lanes.h has the four-lane ones).
KFN vec2 lane_select(bool c, vec2 a, vec2 b) {
  return c ? a : b;
}
KFN bool any_lane(bool c) {
  return c;
}

#include "kernels/row_sweep.inl"

// Adds M^-1 G^T dlambda to both bodies.
KFN void row_apply(vec3 la, vec3 aa, vec3 lb, vec3 ab, float dlambda, KINOUT(BodyState) a,
                   KINOUT(BodyState) b) {
  a.v += (a.im * dlambda) * la;
  a.w += a.ii * (dlambda * aa);
  b.v += (b.im * dlambda) * lb;
  b.w += b.ii * (dlambda * ab);
}

// The matrix [r]x M^-1-weighted: K = (1/m_a + 1/m_b) Id - [r_a]x I_a^-1 [r_a]x - [r_b]x I_b^-1
// [r_b]x, the "collision matrix" mapping an impulse at the contact to the relative velocity change
// (digest B2.1; symmetric positive definite when either body moves).
KFN mat3 collision_matrix(vec3 ra, vec3 rb, BodyState a, BodyState b) {
  mat3 sa = mat3(vec3(0.0f, ra.z, -ra.y), vec3(-ra.z, 0.0f, ra.x), vec3(ra.y, -ra.x, 0.0f));
  mat3 sb = mat3(vec3(0.0f, rb.z, -rb.y), vec3(-rb.z, 0.0f, rb.x), vec3(rb.y, -rb.x, 0.0f));
  mat3 id = mat3(1.0f);
  return (a.im + b.im) * id - sa * a.ii * sa - sb * b.ii * sb;
}

// Newton-Coulomb impact impulse (seed 001 eqs 1-5, digest B2.1) for a contact with normal n
// (from a to b), relative velocity u = v_b(point) - v_a(point), collision matrix k and the
// normal speed `rebound` Newton's law gives it (-e u_n at the moment of impact).
// Assume sticking (target u' = rebound n); if that impulse leaves the friction cone, slide:
// j = (rebound - u_n) / n.K(n - mu t) along n - mu t with t the unit sliding direction.
// Returns the impulse on b (a gets its negative); zero when the contact separates.
KFN vec3 newton_coulomb_impulse(vec3 n, vec3 u, mat3 k, float rebound, float mu) {
  float un = dot(u, n);
  if (un >= 0.0f) return vec3(0.0f);
  vec3 stick = inverse(k) * (rebound * n - u);
  float jn = dot(stick, n);
  vec3 jt = stick - jn * n;
  if (length(jt) <= mu * jn) return stick;
  vec3 ut = u - un * n;
  float slide = length(ut);
  vec3 t = slide > 0.0f ? ut / slide : vec3(0.0f);
  vec3 dir = n - mu * t;
  float denom = dot(n, k * dir);
  if (denom <= 0.0f) return vec3(0.0f);  // degenerate coupling: leave it to the solver
  float j = (rebound - un) / denom;
  return j * dir;
}

KERNELS_END
#endif
