// Backward Euler for the particles' force springs (seed 003 section 4, digest T7): the pure
// functions; kernels/world_implicit.inl runs them over the buffers.
//
// The step. For x'' = F(x, v) / m, backward Euler takes v1 = v0 + dv, x1 = x0 + h v1 with
// dv = h M^-1 F(x1, v1). Linearising F about (x0, v0), x1 - x0 = h (v0 + dv), gives seed 003's
// second-order form, with masses (the digest's T7, derived):
//   (M - h dF/dv - h^2 dF/dx) dv = h (F0 + h dF/dx v0)                                    (1)
// For a linear force (a spring along its axis, linear drag) (1) is exact backward Euler.
//
// The spring's Jacobian blocks. With l = x_a - x_b, L = |l|, n = l / L, l' = v_a - v_b and
// kernels/spring_force.h's f_a = -[k (L - r) + c (l' . n)] n, f_b = -f_a:
//   dn/dl = (I - n n^T) / L
//   stretch  f_s = -k (L - r) n:  df_s/dl = -k [n n^T + (1 - r / L)(I - n n^T)]          (2)
//   damping  f_d = -c (l' . n) n: df_d/dl' = -c n n^T                                      (3)
//            df_d/dl = -(c / L) [(l' . n)(I - n n^T) + n l'^T (I - n n^T)]                 (4)
// and df_a/dx_a = df/dl, df_a/dx_b = -df/dl, df_b/dx_a = -df/dl, df_b/dx_b = df/dl (the same
// for v with dl'), so a spring adds -J (p_a - p_b) to side a of dF/dx p and +J (p_a - p_b) to
// side b: each particle sums J (p_i - p_other) over its springs.
// What is kept, and why:
//   * (4) is dropped (Baraff and Witkin 1998 drop it too): it is not symmetric, so with it the
//     matrix of (1) is not, and conjugate gradient needs a symmetric positive definite matrix.
//     It is zero when the spring's ends move together (l' = 0), so a system at rest and the
//     finite-difference test at l' = 0 see the exact Jacobian; a moving spring loses a term
//     of order c |l'| / L, which makes the method's damping only approximately linearised.
//   * Compression: for L < r the factor (1 - r / L) of (2) is negative, so -h^2 dF/dx has
//     negative transverse eigenvalues and (1) can lose positive definiteness when h^2 k (r/L - 1)
//     reaches the mass (CG then diverges or stalls). The standard fix chosen here clamps the
//     factor at 0 under compression: max(0, 1 - r / L). In tension (a hanging cloth, a stiff
//     rope) the Jacobian stays exact; a compressed spring keeps its exact axial block k n n^T,
//     and only the transverse term that drives buckling is left explicit. The other common fix,
//     dropping the transverse term always, would also make a stretched spring's sideways
//     stiffness explicit, which is what limits the explicit step in a taut cloth.
// With both, every spring block -J = h c n n^T + h^2 k (n n^T + s (I - n n^T)), s >= 0, is
// positive semidefinite, and the mass (plus linear drag h c_drag I) makes (1) positive definite.
// What stays explicit (in F0 only): quadratic drag and the central field (their Jacobians are
// not built), and a row's impulse (kernels/world_implicit.inl).
#ifndef VKPHYS_KERNELS_IMPLICIT_H
#define VKPHYS_KERNELS_IMPLICIT_H
#include "kernels/common.h"
#include "kernels/stages.h"

KERNELS_BEGIN

// CG's dot products are summed in chunks of this many particles, each chunk in particle order,
// then the chunks in order (kernels/world_implicit.inl): the same fixed order on both backends
// and in every run, whatever the GPU's scheduling.
#define VKPHYS_CG_CHUNK 64u

// Slots of cg_vec per particle (kernels/world_layout.h).
// The unknown dv has its own buffer, cg_dv: it outlives the solve as the next one's warm start.
#define VKPHYS_CG_STRIDE 7u
#define VKPHYS_CG_R 0u   // residual r = b - A dv
#define VKPHYS_CG_Z 1u   // preconditioned residual z = P^-1 r
#define VKPHYS_CG_P 2u   // search direction p
#define VKPHYS_CG_AP 3u  // A p
#define VKPHYS_CG_DIAG \
  4u  // 3 slots: the diagonal block's ldlt3 factor (block Jacobi: P^-1 r is its
      // solve), or the diagonal block itself (lines: the line factor's input)

// The preconditioner (solver.cg_preconditioner, params.lines.x): block Jacobi, or the exact
// solves along two families of lines (kernels/world_implicit.inl, "Lines").
#define VKPHYS_CG_BLOCK_JACOBI 0u
#define VKPHYS_CG_LINES 1u
// cg_lines: no predecessor or successor in the family.
#define VKPHYS_NO_LINK 0xFFFFFFFFu
// cg_factor per particle and family f, from 7 f on: D_k's ldlt3 factor (3), the coupling E to
// its predecessor (3), then the family's solve y_f.
#define VKPHYS_LINE_STRIDE 14u
#define VKPHYS_LINE_D 0u
#define VKPHYS_LINE_E 3u
#define VKPHYS_LINE_Y 6u

struct SpringJacobian {
  mat3 dx;  // df_a/dx_a, (2) with the compression clamp
  mat3 dv;  // df_a/dv_a, (3)
};

// spring = (rest length r, k, c, unused) as for damped_spring_force. A collapsed spring (L = 0)
// has no direction and no force (kernels/spring_force.h), so no Jacobian either.
KFN SpringJacobian damped_spring_jacobian(vec3 xa, vec3 xb, vec4 spring) {
  SpringJacobian j;
  j.dx = mat3(0.0f);
  j.dv = mat3(0.0f);
  vec3 l = xa - xb;
  float len = length(l);
  if (len <= 0.0f) return j;
  vec3 n = l / len;
  mat3 nn = mat3(n * n.x, n * n.y, n * n.z);  // n n^T, column by column
  float s = max(0.0f, 1.0f - spring.x / len);
  j.dx = -spring.y * (nn + s * (mat3(1.0f) - nn));
  j.dv = -spring.z * nn;
  return j;
}

// The spring's block of the matrix of (1) seen from one end: -(h dF/dv + h^2 dF/dx) restricted
// to the pair, so that (A p)_a gains B (p_a - p_b). Positive semidefinite (see above).
KFN mat3 implicit_spring_block(SpringJacobian j, float h) {
  return -(h * j.dv + (h * h) * j.dx);
}

// A 3x3 block times a vector: m[0] v.x + m[1] v.y + m[2] v.z, added left to right on both
// backends. Not GLSL's m * v: Mesa's SPIR-V translation (lavapipe's and every Mesa driver's)
// makes OpMatrixTimesVector fma(m[0], v.x, fma(m[1], v.y, m[2] v.z)), the columns summed in the
// other order, where glm adds them left to right, so with m * v the GPU's solve rounded apart
// from the CPU's from the first matrix product on (8 x 8 cloth: 1.4e-4 m after 100 steps, and
// different CG iteration counts).
KFN vec3 block_times(mat3 m, vec3 v) {
  return m[0] * v.x + m[1] * v.y + m[2] * v.z;
}

// A symmetric positive definite 3x3 block D as D = L diag(d) L^T, L unit lower triangular (no
// square roots, so both backends round alike), stored in a mat3 as its columns
//   (1/d0, l10, l20), (0, 1/d1, l21), (0, 0, 1/d2)
// Why factors and not the inverse: a cloth vertex's block is stiff in its plane and soft out of
// it (its springs' axial h^2 k against its mass: h^2 k / m = 20,000 at 512 x 512 and at the
// repro below), and the inverse of such a block, by cofactors in float32, is accurate only to
// eps x condition x its largest entry, about 400 on entries whose exact value along a spring is
// about 2 (1 / h^2 k). The lines' factor subtracts E D^-1 E along that spring, so its D_k lost
// definiteness, r . z came out negative and CG broke down mid-solve (the 128 x 128 drape with
// k x 16: 3 breakdowns in 200 solves over 50 steps; the 512 x 512 drape's solves that ended at
// residuals 0.03-0.25 and threw the cloth). Forward and backward substitution with the factor,
// and E D^-1 E as the Gram product W^T diag(1/d) W of W = L^-1 E, are backward stable: they
// compute exactly for a D perturbed by eps times its largest entry, which stays definite.
KFN mat3 ldlt3(mat3 a) {
  float id0 = 1.0f / a[0][0];
  float l10 = a[0][1] * id0;
  float l20 = a[0][2] * id0;
  float id1 = 1.0f / (a[1][1] - l10 * a[0][1]);
  float c21 = a[1][2] - l20 * a[0][1];  // l21 d1
  float l21 = c21 * id1;
  float id2 = 1.0f / (a[2][2] - l20 * a[0][2] - l21 * c21);
  return mat3(vec3(id0, l10, l20), vec3(0.0f, id1, l21), vec3(0.0f, 0.0f, id2));
}

// L^-1 b, the forward substitution of ldlt3's factor f.
KFN vec3 ldlt3_forward(mat3 f, vec3 b) {
  float u1 = b.y - f[0][1] * b.x;
  return vec3(b.x, u1, b.z - f[0][2] * b.x - f[1][2] * u1);
}

// D^-1 b from ldlt3's factor f.
KFN vec3 ldlt3_solve(mat3 f, vec3 b) {
  vec3 u = ldlt3_forward(f, b);
  float x2 = u.z * f[2][2];
  float x1 = u.y * f[1][1] - f[1][2] * x2;
  return vec3(u.x * f[0][0] - f[0][1] * x1 - f[0][2] * x2, x1, x2);
}

// E^T D^-1 E = W^T diag(1/d) W with W = L^-1 E, from ldlt3's factor f of D: each entry summed
// once and mirrored, so the result is exactly symmetric.
KFN mat3 ldlt3_congruence(mat3 f, mat3 e) {
  vec3 w0 = ldlt3_forward(f, e[0]);
  vec3 w1 = ldlt3_forward(f, e[1]);
  vec3 w2 = ldlt3_forward(f, e[2]);
  vec3 id = vec3(f[0][0], f[1][1], f[2][2]);
  vec3 s0 = id * w0;
  vec3 s1 = id * w1;
  float c00 = dot(s0, w0);
  float c10 = dot(s0, w1);
  float c20 = dot(s0, w2);
  float c11 = dot(s1, w1);
  float c21 = dot(s1, w2);
  float c22 = dot(id * w2, w2);
  return mat3(vec3(c00, c10, c20), vec3(c10, c11, c21), vec3(c20, c21, c22));
}

// The CG passes' shared steps (kernels/world_implicit.inl; on the GPU a workgroup of
// VKPHYS_GROUP_SIZE = VKPHYS_CG_CHUNK invocations is one chunk, shaders/world_ode.comp):
// cg_pass_sums: each invocation leaves its particle's products in cg_dots, and the chunk's sums
// of them follow (cg_chunk_sum); cg_pass_step: the pass's scalars (cg_step) come first.
KFN bool cg_pass_sums(uint mode) {
  return mode == IMPLICIT_SETUP || mode == CG_MATVEC || mode == CG_UPDATE || mode == CG_LINES;
}

KFN bool cg_pass_step(uint mode) {
  return mode == CG_UPDATE || mode == CG_DIRECTION;
}

// The passes of one CG iteration (stage s = 0 of CG_LINES; stage 1 is implicit_setup's).
KFN bool cg_iteration_pass(uint mode, uint s) {
  return mode == CG_MATVEC || mode == CG_UPDATE || mode == CG_DIRECTION ||
         (mode == CG_LINES && s == 0u);
}

// CG_UPDATE's and CG_DIRECTION's scalars, the same for every invocation: the step's coefficient
// (alpha, beta), what the iteration does (VKPHYS_CG_*) and the new r.z and r.r (CG_DIRECTION).
#define VKPHYS_CG_CONTINUE 0u   // update, and go on
#define VKPHYS_CG_CONVERGED 1u  // update, and stop: the residual is met (or r.z = 0)
#define VKPHYS_CG_STOPPED 2u    // stopped before this pass: converged, or p.A p <= 0
struct CgStep {
  float coef;
  uint outcome;
  float rz;
  float rr;
};

// The chunks of P particles (or of the lines), and cg_partial's entries: the chunks' p.A p,
// then their r.z, r.r, then (the lines preconditioner) the chunks of `lines` lines' r.z.
KFN uint cg_chunks(uint particles) {
  return (particles + VKPHYS_CG_CHUNK - 1u) / VKPHYS_CG_CHUNK;
}

KFN uint cg_partials(uint particles, uint lines) {
  return 2u * cg_chunks(particles) + cg_chunks(lines);
}

// Invocations of an ODE pass (kernels/world_implicit.inl, ode_pass) over P particles and
// `lines` lines (both families): CG_START one, CG_LINES one per line, everything else one per
// particle.
KFN uint ode_pass_invocations(uint mode, uint particles, uint lines) {
  if (mode == CG_LINES) return lines;
  return mode == CG_START ? 1u : particles;
}

KERNELS_END
#endif
