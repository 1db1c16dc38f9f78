// Backward Euler for the particles (solver.integrator "implicit"): the stage functions that solve
// kernels/implicit.h's system (1) by matrix-free preconditioned conjugate gradient, over
// particle world indices i (R <= i < N) like kernels/world_ode.inl, whose marks, ode_begin and
// ode_end it shares. Also ode_pass, the one dispatcher of every ODE pass for both backends.
//
// The solve, per step or substep of h (host/sim/ode_control.h records the passes):
//   ode_begin          x0, v0 saved (no particle is marked: see "Rows" below)
//   implicit_setup     per particle: b = h (F0 + h dF/dx v0), the 3x3 diagonal block of the
//                      matrix A and its inverse (the block-Jacobi preconditioner), dv = 0, r = b,
//                      z = P^-1 r, p = z
//   cg_partial(1), cg_start      r.z and r.r; |b|^2 = r.r
//   then cg_max_iterations times:
//     cg_matvec        A p, matrix-free: each particle sums its springs' blocks (the
//                      Jacobians are recomputed at x0, nothing is stored)
//     cg_partial(0), cg_alpha      alpha = r.z / p.A p
//     cg_update        dv += alpha p, r -= alpha A p, z = P^-1 r
//     cg_partial(1), cg_beta       beta = r.z(new) / r.z; stop when |r| <= tolerance |b|
//     cg_direction     p = z + beta p
//   implicit_end       v1 = v0 + dv, x1 = x0 + h v1 become the ODE's result (ode_end): the
//                      rows see v* = v1, and body_integrate moves every particle to
//                      x1 + h (v' - v*) = x0 + h v'
// The GPU records every iteration (the command buffer is replayed every step, with no read-back
// in between); once the residual is met, cg_scalar's done flag turns the remaining passes into
// no-ops, and the CPU runs the same passes, so both stop after the same iteration.
//
// Pins (Baraff and Witkin's filter): a particle with 1/m = 0 (pinned, kinematic) is not an
// unknown: its rows of A, r, z and p are zero, so CG never moves it and it enters its
// neighbours' springs at (x0, v0) moving with v0, which F0 + h dF/dx v0 already holds.
// Rows (contacts, compliant springs): an explicit method hands the particles a row holds to the
// symplectic step, because a row's impulse is solved for the kinematics x' = x + h v'
// (world_ode.inl's essay). Backward Euler has exactly those kinematics (v1 first, then
// x1 = x0 + h v1), so here every particle takes the implicit step, held or not, and the solve's
// impulses follow as after the symplectic step. Handing held particles to the explicit
// symplectic step instead was measured: a 32 x 32 cloth of 0.44 g vertices and k = 2,000 N/m
// (h omega = 35) exploded where it touched a ball (vertices 0.35 m inside it).
//
// Reductions: chunk c sums its VKPHYS_CG_CHUNK particles in order (cg_partial, one invocation
// per chunk), and the single-invocation passes sum the chunks in order, so every dot product
// adds the same numbers in the same order on both backends and in every run.

bool implicit_filtered(uint i) {
  return !(body_vel[i].w > 0.0f);
}

uint cg_base(uint i) {
  return VKPHYS_CG_STRIDE * (i - params.kinds.x);
}

bool cg_done() {
  return cg_scalar[0].w != 0.0f;
}

uint cg_chunks() {
  return (params.kinds.y + VKPHYS_CG_CHUNK - 1u) / VKPHYS_CG_CHUNK;
}

// The other end of particle i's incident spring entry, and the spring's matrix block.
uint cg_other(uint entry) {
  uvec2 ab = fspring_ends[entry >> 1u];
  return (entry & 1u) != 0u ? ab.x : ab.y;
}

SpringJacobian cg_jacobian(uint entry) {
  uint s = entry >> 1u;
  uvec2 ab = fspring_ends[s];
  return damped_spring_jacobian(vec3(body_pos[ab.x]), vec3(body_pos[ab.y]), fspring_params[s]);
}

mat3 cg_pinv(uint c) {
  return mat3(vec3(cg_vec[c + VKPHYS_CG_PINV]), vec3(cg_vec[c + VKPHYS_CG_PINV + 1u]),
              vec3(cg_vec[c + VKPHYS_CG_PINV + 2u]));
}

void implicit_setup(uint i) {
  uint p = i - params.kinds.x;
  uint c = cg_base(i);
  vec3 b = vec3(0.0f);
  mat3 pinv = mat3(0.0f);
  if (!implicit_filtered(i)) {
    float h = params.gravity_dt.w;
    float m = 1.0f / body_vel[i].w;
    vec3 v0 = vec3(body_vel[i]);
    vec3 dfdx_v0 = vec3(0.0f);
    mat3 block = mat3(m + h * params.drag.x);
    for (uint e = fspring_offsets[p]; e < fspring_offsets[p + 1u]; ++e) {
      uint entry = fspring_incident[e];
      SpringJacobian j = cg_jacobian(entry);
      dfdx_v0 += block_times(j.dx, v0 - vec3(body_vel[cg_other(entry)]));
      block += implicit_spring_block(j, h);
    }
    b = h * (m * ode_acceleration(i) + h * dfdx_v0);
    pinv = inverse_symmetric3(block);
  }
  vec3 z = block_times(pinv, b);
  // Nothing reads the flag in this pass; the last solve (a substep or step before) left it set.
  if (p == 0u) cg_scalar[0].w = 0.0f;
  cg_vec[c + VKPHYS_CG_DV] = vec4(0.0f);
  cg_vec[c + VKPHYS_CG_R] = vec4(b, 0.0f);
  cg_vec[c + VKPHYS_CG_Z] = vec4(z, 0.0f);
  cg_vec[c + VKPHYS_CG_P] = vec4(z, 0.0f);
  cg_vec[c + VKPHYS_CG_PINV] = vec4(pinv[0], 0.0f);
  cg_vec[c + VKPHYS_CG_PINV + 1u] = vec4(pinv[1], 0.0f);
  cg_vec[c + VKPHYS_CG_PINV + 2u] = vec4(pinv[2], 0.0f);
}

// (A p)_i = (m + h c_drag) p_i + sum over springs of B (p_i - p_other); zero on a filtered row
// (a filtered neighbour's p is zero).
void cg_matvec(uint i) {
  if (cg_done()) return;
  uint c = cg_base(i);
  vec3 ap = vec3(0.0f);
  if (!implicit_filtered(i)) {
    uint p = i - params.kinds.x;
    float h = params.gravity_dt.w;
    vec3 pi = vec3(cg_vec[c + VKPHYS_CG_P]);
    ap = (1.0f / body_vel[i].w + h * params.drag.x) * pi;
    for (uint e = fspring_offsets[p]; e < fspring_offsets[p + 1u]; ++e) {
      uint entry = fspring_incident[e];
      vec3 po = vec3(cg_vec[cg_base(cg_other(entry)) + VKPHYS_CG_P]);
      ap += block_times(implicit_spring_block(cg_jacobian(entry), h), pi - po);
    }
  }
  cg_vec[c + VKPHYS_CG_AP] = vec4(ap, 0.0f);
}

// Chunk k's share of (which 0) p . A p, or (which 1) r . z and r . r.
void cg_partial_sum(uint k, uint which) {
  if (cg_done()) return;
  vec2 sum = vec2(0.0f);
  uint end = min(params.kinds.y, (k + 1u) * VKPHYS_CG_CHUNK);
  for (uint p = k * VKPHYS_CG_CHUNK; p < end; ++p) {
    uint c = VKPHYS_CG_STRIDE * p;
    if (which == 0u) {
      sum.x += dot(vec3(cg_vec[c + VKPHYS_CG_P]), vec3(cg_vec[c + VKPHYS_CG_AP]));
    } else {
      vec3 r = vec3(cg_vec[c + VKPHYS_CG_R]);
      sum.x += dot(r, vec3(cg_vec[c + VKPHYS_CG_Z]));
      sum.y += dot(r, r);
    }
  }
  cg_partial[k] = vec4(sum, 0.0f, 0.0f);
}

vec2 cg_total() {
  vec2 sum = vec2(0.0f);
  for (uint k = 0u; k < cg_chunks(); ++k) sum += vec2(cg_partial[k]);
  return sum;
}

// cg_scalar[0] = (r.z, alpha, beta, done), cg_scalar[1] = (r.r, |b|^2, iterations, 0).
// The tolerance is on the relative residual |r| / |b| (params.ode.w).
bool cg_converged(float rr, float bb) {
  float tol = uintBitsToFloat(params.ode.w);
  return rr <= tol * tol * bb;
}

void cg_start() {
  vec2 s = cg_total();
  cg_scalar[0] = vec4(s.x, 0.0f, 0.0f, cg_converged(s.y, s.y) ? 1.0f : 0.0f);
  cg_scalar[1] = vec4(s.y, s.y, 0.0f, 0.0f);
}

void cg_alpha() {
  if (cg_done()) return;
  float pap = cg_total().x;
  // A is positive definite, so p . A p > 0 unless p = 0 (nothing left to do).
  if (!(pap > 0.0f)) {
    cg_scalar[0].w = 1.0f;
    return;
  }
  cg_scalar[0].y = cg_scalar[0].x / pap;
}

void cg_update(uint i) {
  if (cg_done()) return;
  uint c = cg_base(i);
  float alpha = cg_scalar[0].y;
  vec3 r = vec3(cg_vec[c + VKPHYS_CG_R]) - alpha * vec3(cg_vec[c + VKPHYS_CG_AP]);
  cg_vec[c + VKPHYS_CG_DV] += vec4(alpha * vec3(cg_vec[c + VKPHYS_CG_P]), 0.0f);
  cg_vec[c + VKPHYS_CG_R] = vec4(r, 0.0f);
  cg_vec[c + VKPHYS_CG_Z] = vec4(block_times(cg_pinv(c), r), 0.0f);
}

void cg_beta() {
  if (cg_done()) return;
  vec2 s = cg_total();
  vec4 s0 = cg_scalar[0];
  vec4 s1 = cg_scalar[1];
  bool done = cg_converged(s.y, s1.y) || !(s0.x > 0.0f);
  cg_scalar[0] = vec4(s.x, s0.y, done ? 0.0f : s.x / s0.x, done ? 1.0f : 0.0f);
  cg_scalar[1] = vec4(s.y, s1.y, s1.z + 1.0f, 0.0f);
}

void cg_direction(uint i) {
  if (cg_done()) return;
  uint c = cg_base(i);
  cg_vec[c + VKPHYS_CG_P] =
      vec4(vec3(cg_vec[c + VKPHYS_CG_Z]) + cg_scalar[0].z * vec3(cg_vec[c + VKPHYS_CG_P]), 0.0f);
}

// v1 = v0 + dv, x1 = x0 + h v1 (body_pos and body_vel still hold x0 and v0), handed to ode_end
// like an explicit method's result. The first particle's invocation adds the solve's iterations
// and keeps the step's largest relative residual |r| / |b| (0 when b = 0) for the statistics.
void implicit_end(uint i) {
  vec4 x0 = body_pos[i];
  vec4 v0 = body_vel[i];
  vec3 v1 = vec3(v0) + vec3(cg_vec[cg_base(i) + VKPHYS_CG_DV]);
  body_pos[i] = vec4(integrate_position(vec3(x0), v1, params.gravity_dt.w), x0.w);
  body_vel[i] = vec4(v1, v0.w);
  ode_end(i);
  if (i != params.kinds.x) return;
  vec4 s1 = cg_scalar[1];
  counters.cg_iterations += uint(s1.z);
  float residual = s1.y > 0.0f ? sqrt(s1.x / s1.y) : 0.0f;
  counters.cg_residual = max(counters.cg_residual, floatBitsToUint(residual));
}

// Every ODE pass but the marks (kernels/stages.h VKPHYS_ODE_MODES): invocation x of
// ode_pass_invocations(mode, P) (a particle R + x, a chunk x, or the one invocation 0).
void ode_pass(uint mode, uint x, uint s, float h, uint role) {
  uint i = params.kinds.x + x;
  switch (mode) {
    case ODE_SPRING_FORCE:
      spring_force_pass(i);
      break;
    case ODE_BEGIN:
      ode_begin(i);
      break;
    case ODE_EVAL:
      ode_eval(i);
      break;
    case ODE_STAGE:
      ode_stage(i, s, h, role);
      break;
    case ODE_END:
      ode_end(i);
      break;
    case IMPLICIT_SETUP:
      implicit_setup(i);
      break;
    case CG_MATVEC:
      cg_matvec(i);
      break;
    case CG_PARTIAL:
      cg_partial_sum(x, s);
      break;
    case CG_START:
      cg_start();
      break;
    case CG_ALPHA:
      cg_alpha();
      break;
    case CG_UPDATE:
      cg_update(i);
      break;
    case CG_BETA:
      cg_beta();
      break;
    case CG_DIRECTION:
      cg_direction(i);
      break;
    case IMPLICIT_END:
      implicit_end(i);
      break;
    default:
      break;
  }
}
