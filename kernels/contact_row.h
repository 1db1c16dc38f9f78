// Contact rows: SPOOK targets at preparation and one projected Jacobi update per iteration.
//
// Row preparation (seed 001 eq 26-28, digest B2.5/B2.6). For a contact with gap g, relative
// normal velocity u_k at the start of the step and u_f the change the external forces make,
// SPOOK's right-hand side is B = -a g - b u_k - u_f. Writing the iteration in terms of the
// *current* relative velocity u (which already contains u_f and every impulse so far) gives
//     dlambda = (B - (u - u_k - u_f) - eps lambda) / (K + eps) = (T - u - eps lambda) / (K + eps)
// with the velocity target T = -a g + (1 - b) u_k. The same form serves:
//   * resting / penetrating contacts (g <= 0):  T = -a g + (1 - b) u_k
//   * speculative contacts (0 < g < margin):    T = -g / h, i.e. close the gap and no more
//   * impacts (u_k < -threshold):               T = max(T, -e u_k), Newton's restitution law
//     (seed 000 section 8.2 puts restitution in the bias the same way)
//   * friction rows along t1, t2:               T_t = (1 - b) u_t,k, no position term
//     (digest B2.9: friction is a velocity constraint with the normal row's regulariser)
// K is the row's effective inverse mass G M^-1 G^T. The Jacobi solver splits each body's mass
// among its n_b contacts (Tonge et al. 2012), so K = n_1/m_1 + n_2/m_2 and the per-body average
// of the split velocities is exactly v + M^-1 sum(G^T dlambda): under-relaxation is then not
// needed for convergence, and `relaxation` (default 1) scales each increment.
//
// Projection (seed 001 eq 32): the accumulated normal impulse is clamped at 0, never the
// increment; friction is clamped to the Coulomb disc |lambda_t| <= mu lambda_n with the current
// normal impulse.
#ifndef VKPHYS_KERNELS_CONTACT_ROW_H
#define VKPHYS_KERNELS_CONTACT_ROW_H
#include "kernels/common.h"
#include "kernels/spook.h"

KERNELS_BEGIN

// Velocity targets (T_n, T_t1, T_t2, eps) for one contact.
//   g: gap; u_k: relative velocity (n, t1, t2 components) at the start of the step;
//   mat: combined material (restitution, friction, k, d); h: time step;
//   threshold: approach speed above which restitution applies.
KFN vec4 contact_targets(float g, vec3 u_k, vec4 mat, float h, float threshold) {
  vec3 spook = spook_coefficients(mat.z, mat.w, h);
  float t_n = row_target(g, u_k.x, spook, h, true);
  if (u_k.x < -threshold) t_n = max(t_n, -mat.x * u_k.x);
  return vec4(t_n, row_target(0.0f, u_k.y, spook, h, false),
              row_target(0.0f, u_k.z, spook, h, false), spook.z);
}

// One projected Jacobi update of a contact's three rows. lambda = (n, t1, t2) accumulated
// impulses, u = current relative velocity (n, t1, t2), k_eff = the rows' effective inverse mass.
// Returns the new accumulated impulses.
KFN vec3 contact_row_update(vec3 lambda, vec4 target, float mu, vec3 u, float k_eff, float relax,
                        bool friction) {
  float eps = target.w;
  float inv = 1.0f / (k_eff + eps);
  float ln = max(row_update(lambda.x, target.x, u.x, eps, inv, relax), 0.0f);
  vec2 lt = vec2(0.0f);
  if (friction) {
    lt = coulomb_disc(vec2(row_update(lambda.y, target.y, u.y, eps, inv, relax),
                           row_update(lambda.z, target.z, u.z, eps, inv, relax)),
                      mu * ln);
  }
  return vec3(ln, lt.x, lt.y);
}

KERNELS_END
#endif
