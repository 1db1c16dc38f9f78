// Backward Euler for the particles (solver.integrator "implicit"): the stage functions that solve
// kernels/implicit.h's system (1) by matrix-free preconditioned conjugate gradient, over
// particle world indices i (R <= i < N) like kernels/world_ode.inl, whose marks, ode_begin and
// ode_end it shares. Also ode_pass, the one dispatcher of every ODE pass for both backends.
//
// The solve, per step or substep of h (host/sim/ode_control.h records the passes):
//   ode_begin          x0, v0 saved (no particle is marked: see "Rows" below)
//   implicit_setup     per particle: b = h (F0 + h dF/dx v0), the 3x3 diagonal block of the
//                      matrix A and its LDL^T factor (block Jacobi's P), dv = dv0 (the
//                      warm start, below), r = b - A dv0, z = P^-1 r, p = z; the chunks' r.z,
//                      r.r and b.b
//   (lines: cg_line, factor and y = L^-1 r per line, and cg_line_sum, z and p = z: "Lines")
//   cg_start           r.z, r.r and |b|^2
//   then cg_max_iterations times, three passes (lines: four, cg_line after cg_update, which
//   then leaves z and r.z to it):
//     cg_matvec        A p: each particle sums its springs' blocks (cg_blocks, made at x0 by
//                      implicit_setup: "Stored blocks" below); the chunks' p.A p
//     cg_update        alpha = r.z / p.A p; dv += alpha p, r -= alpha A p, z = P^-1 r; the
//                      chunks' r.z and r.r
//     cg_direction     beta = r.z(new) / r.z; stop when |r| <= tolerance |b|; p = z + beta p
//   implicit_end       v1 = v0 + dv, x1 = x0 + h v1 become the ODE's result (ode_end): the
//                      rows see v* = v1, and body_integrate moves every particle to
//                      x1 + h (v' - v*) = x0 + h v'
// The GPU records R iterations (the command buffer is replayed every step, with no read-back
// in between: "Recorded iterations" below); once the residual is met, the done flag turns the
// remaining passes into no-ops, and the CPU backend skips them (cg_idle), so both stop
// after the same iteration.
// Each pass was once followed by its own reduction and scalar passes (seven dispatches an
// iteration); on an H200 each dispatch and barrier costs about 10 us whatever it holds, which
// made the 64 x 64 drape's 2,962 dispatches a step the step's time. The reductions and scalar
// steps now live inside the three passes:
//   * A pass that sums (kernels/implicit.h, cg_pass_sums) leaves each particle's products in
//     cg_dots (workgroup memory on the GPU, where a workgroup is one chunk), and cg_chunk_sum
//     adds its chunk's in particle order after the workgroup's barrier (the CPU backend: after
//     the chunk's last particle).
//   * A pass with a scalar step (cg_pass_step) starts with it (cg_begin_pass, into cg_step):
//     each workgroup adds the chunks' sums in order itself, so every workgroup gets the same
//     alpha or beta, and the CPU backend takes the step once.
//   * Nothing writes what its own pass reads. The solve's state (cg_scalar[0..1]: r.z, r.r,
//     |b|^2, done; iterations) is written by cg_start and cg_direction's first invocation;
//     cg_matvec's first invocation copies it to cg_scalar[2..3], which cg_update and
//     cg_direction read. The two halves of cg_partial hold the two kinds of sums, so cg_update
//     reads the p.A p sums while it writes the r.z and r.r ones.

// Recorded iterations. The GPU cannot stop the replayed command buffer at convergence, so it
// once recorded every iteration up to the cap (solver.cg_max_iterations) and the done flag made
// the passes after convergence no-ops; each still costs its dispatch and barrier (about 4-10 us
// on an H200), and they were most of the step: the 64 x 64 drape (4 substeps, cap 100, lines)
// used about 121 of its 400 recorded iterations a step, so about 1,100 of its 1,749 dispatches
// did nothing. Now it records R iterations a solve, R following what the last steps needed
// (host/sim/ode_control.h holds the policy: R = n + max(8, n / 4) rounded up to a multiple of
// 8 for the step's largest need n, grown at once when the need nears R, shrunk at most once in
// 16 steps). A solve that is not done after R < cap iterations would have gone on under the
// cap, so its implicit_end sets the counters' cg_short flag: the step's commit is skipped
// (step_undone) and the host restores the step's start (positions, velocities, joint impulses
// and cg_dv, the first solve's warm start) and redoes it with R = the cap. A step is thus taken
// with the same passes up to its solves' stopping iterations as under the cap, and the passes
// recorded beyond them do nothing, so R changes neither the bits nor the iteration counts
// (tests/test_implicit_recording.cpp, to the bit against the cap through a landing's redo).
// Measured on lavapipe (the bench's drapes, gpu*, lines, 4 substeps, cap 100): dispatches a
// step once settled (steps 70-120), before -> after; steps redone in the first 100; and lavapipe
// ms/step, the least of three alternating runs of each (steps 61-120; 61-70 at 128 x 128, whose
// runs spread over 1.8-2.2 s before and 1.2-2.5 s after on the loaded machine). Lavapipe
// timings only: there a small dispatch costs about 116 us.
//   32 x 32     1,727 -> 383-511   0 redone   100 -> 68 ms
//   64 x 64     1,749 -> 533-661   1 redone   541 -> 405 ms
//   128 x 128   1,756 -> 796-924   2 redone   1,831 -> 1,201 ms
// The redos are the landing's (the need jumps from a few iterations a solve in the fall to
// tens); R settles at 16 (32 x 32) to 48 (128 x 128) iterations a solve.
//
// Warm start. A solve's dv changes little from one (sub)step to the next once a cloth has settled
// (a falling cloth's is about h g everywhere, a draped one's small corrections of it), while CG
// from dv = 0 must build it from the preconditioned residual, one spring's reach an iteration:
// the 64 x 64 drape took about 96 of its 100 iterations a solve, 128 x 128 hit the cap. So each
// solve starts from dv0 = the last solve's dv (cg_dv keeps it between solves, and a checkpoint
// carries it; 0 before the first solve, which is the cold solve exactly, and on filtered rows),
// with r = b - A dv0: implicit_setup already computes every spring's block for the diagonal, so
// A dv0 is one more block product per spring there, no pass and no dispatch more. The tolerance
// stays relative to |b| (implicit_setup sums b.b beside r.z and r.r), as without the warm start.
// Measured on the 64 x 64 drape, CG iterations a step over steps 21-65: cold 390, this 240.
// Two variants were no better: a line search along the last dv as the first iteration (dv0 =
// alpha d, alpha = b.d / d.A d, then p = z) 240, and it takes 2 iterations where the
// preconditioner is exact (one particle) and the cold start 1; the first iteration minimising
// over dv0 + span{z0, dv0} (a 2 x 2 Galerkin step, one more slot and two more sums) 229.
//
// Why the landing is slow (measured on the bench's 64 x 64 drape, 4 substeps, cap 100, 1e-4,
// stop 33). Steps 19 and 20 end two solves at the cap (1.49e-4 and 1.38e-4); the settled steps
// take 60-90 iterations a solve. What it is not:
//   * the warm start: r0 / |b| is 1.0-2.3 in the landing (the last dv is worse than 0 by the
//     residual's norm), yet from dv = 0 steps 15-22 take 255-400 iterations a step against
//     262-388 warm, and 11 of their 32 solves end at the cap against 2 (a step costs less cold
//     only at steps 15 and 20, by 9 and 6). The warm start's extra error is in modes CG removes
//     within its first ten iterations (1.8 to 0.036).
//   * a small |b|: |b|^2 rises 5e5-fold at the landing (2.7e-9 to 1.6e-3), and 85-99% of it is on
//     the vertices touching the ball, 90-99% of that tangential: the cloth's in-plane tension and
//     the friction that holds it, not the contact normal. So a Baraff-Witkin filter of the contact
//     normals would leave almost all of b, and the iterations, as they are.
//   * the compression clamp: A is fixed within a solve.
// What it is: the conditioning. A stretched structural spring is stiff along its axis only (its
// transverse factor 1 - r/L is about 0.005 at 0.5% strain), so the grid's rows carry the x
// motion and its columns the z motion as stiff 1D chains, h^2 k / m = 316 (64 x 64) or 1,264
// (128 x 128), weakly tied to each other by the shear springs. Block Jacobi scales a chain of 64
// to lambda from (1 + 2 a (1 - cos(pi / 64))) / (1 + 2 a) to 2, a condition of about 720; CG's tail
// shrinks the residual by 0.93 an iteration, sqrt(kappa) about 28, kappa about 760. Measured
// preconditioners (CPU only, dense Cholesky, not kept): exact solves of the 64-particle chunks
// (one grid row each, the best any chunk-local smoother such as a few Gauss-Seidel sweeps can
// do) save 5-15% of the iterations and still end step 20 at 1.35e-4; adding a coarse space of
// the chunks' translations is worse than without; exact solves of every row and every column,
// added, take 94-155 iterations a step (from 222-388) and meet the tolerance in every step. A
// preconditioner along the grid's lines (block-tridiagonal, factored once a solve) is what the
// landing needs: solver.cg_preconditioner "lines" ("Lines" below).
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
// Reductions: chunk c sums its VKPHYS_CG_CHUNK particles in order, and the scalar steps sum
// the chunks in order, so every dot product adds the same numbers in the same order on both
// backends and in every run.

bool implicit_filtered(uint i) {
  return !(body_vel[i].w > 0.0f);
}

bool cg_lines_on() {
  return params.lines.x == VKPHYS_CG_LINES;
}

uint cg_base(uint i) {
  return VKPHYS_CG_STRIDE * (i - params.kinds.x);
}

// The solve's done flag (cg_matvec, which does not write it); cg_update and cg_direction read
// cg_matvec's copy (cg_begin_pass).
bool cg_done() {
  return cg_scalar[0].w != 0.0f;
}

// Whether an iteration's passes (kernels/implicit.h cg_iteration_pass) would change nothing:
// the solve is done and cg_matvec's copy of its state is current, so cg_matvec copies the same
// values, cg_update and cg_line return, cg_direction sets the flag that is set, and no chunk
// sums. The GPU's recorded passes then run as no-ops; the CPU backend skips them (host/cpu/
// cpu_backend.cpp, predict_forces), which was about 10 ms of the 64 x 64 drape's CPU step at
// cap 100. Only cg_step keeps the last pass's outcome, and every pass that reads it writes it
// first (cg_begin_pass).
bool cg_idle() {
  return cg_done() && cg_scalar[2] == cg_scalar[0] && cg_scalar[3] == cg_scalar[1];
}

// Particle p's products for its chunk's sums (cg_chunk_sum).
void cg_dot(uint p, vec3 products) {
  cg_dots[p % VKPHYS_CG_CHUNK] = products;
}

// The spring's matrix block from particle i's incident spring entry.
SpringJacobian cg_jacobian(uint entry) {
  uint s = entry >> 1u;
  uvec2 ab = fspring_ends[s];
  return damped_spring_jacobian(vec3(body_pos[ab.x]), vec3(body_pos[ab.y]), fspring_params[s]);
}

// Stored blocks. A spring's block B = implicit_spring_block(its Jacobian at x0) is fixed for a
// solve, and every CG iteration needs it twice (A p, from each end); once recomputed there from
// the positions (a length, a division, an outer product and some 40 products), it was 65% of the
// CPU's implicit step (the bench's 64 x 64 drape, perf). implicit_setup, which computes every
// spring's block for the diagonal anyway, now stores it (from the spring's first end, entry
// side 0, pinned or not) and cg_matvec and cg_coupling read it: the same function of the same
// inputs, so the same bits on both backends, for 48 bytes a spring.
void cg_store_block(uint entry, mat3 block) {
  if ((entry & 1u) != 0u) return;
  uint at = 3u * (entry >> 1u);
  cg_blocks[at] = vec4(block[0], 0.0f);
  cg_blocks[at + 1u] = vec4(block[1], 0.0f);
  cg_blocks[at + 2u] = vec4(block[2], 0.0f);
}

mat3 cg_block(uint entry) {
  uint at = 3u * (entry >> 1u);
  return mat3(vec3(cg_blocks[at]), vec3(cg_blocks[at + 1u]), vec3(cg_blocks[at + 2u]));
}

mat3 cg_diag(uint c) {
  return mat3(vec3(cg_vec[c + VKPHYS_CG_DIAG]), vec3(cg_vec[c + VKPHYS_CG_DIAG + 1u]),
              vec3(cg_vec[c + VKPHYS_CG_DIAG + 2u]));
}

// Particle i's dv in cg_dv, 0 on a filtered row (a pin is not an unknown; its cg_dv is 0 anyway
// unless it was pinned after a solve moved it). Before a solve: the last solve's, its start.
vec3 cg_dv_of(uint i) {
  return implicit_filtered(i) ? vec3(0.0f) : vec3(cg_dv[i - params.kinds.x]);
}

// A load the solve cannot take in float: the sums of squares (|b|^2, r.r) would pass the largest
// float, the solve would stop at once (p . A p not finite, or |r| <= tolerance |b| read as
// inf <= inf) and leave the particle at dv0 without a word. A sum of P terms passes FLT_MAX only
// if one term passes FLT_MAX / P, so particle i flags itself as the step's NaN check does, in
// `stage` (the predict stage in the first substep), when its own |b_i|^2 P is not finite: the
// step stops naming it, where before backward Euler held a particle under a 3e38 N/m spring
// stretched 1 m at rest (tests/test_nonfinite_stage.cpp).
void check_implicit_load(uint i, vec3 b, uint stage) {
  float share = dot(b, b) * float(params.kinds.y);
  if (isnan(share) || isinf(share)) flag_nonfinite(i, stage);
}

// `stage`: the stage a load past float range is named in (check_implicit_load).
void implicit_setup(uint i, uint stage) {
  uint p = i - params.kinds.x;
  uint c = cg_base(i);
  vec3 b = vec3(0.0f);
  vec3 r = vec3(0.0f);
  mat3 diag = mat3(0.0f);
  if (!implicit_filtered(i)) {
    float h = params.gravity_dt.w;
    float m = 1.0f / body_vel[i].w;
    vec3 v0 = vec3(body_vel[i]);
    vec3 dfdx_v0 = vec3(0.0f);
    // The warm start (see "Warm start" above): dv0 = the last solve's dv, and A dv0 summed with
    // the block, from the same Jacobians.
    vec3 d = cg_dv_of(i);
    float mass = m + h * params.drag.x;
    mat3 block = mat3(mass);
    vec3 ad = mass * d;
    for (uint e = fspring_offsets[p]; e < fspring_offsets[p + 1u]; ++e) {
      uint entry = fspring_incident[e];
      uint other = spring_other(entry);
      SpringJacobian j = cg_jacobian(entry);
      dfdx_v0 += block_times(j.dx, v0 - vec3(body_vel[other]));
      mat3 spring = implicit_spring_block(j, h);
      cg_store_block(entry, spring);
      block += spring;
      ad += block_times(spring, d - cg_dv_of(other));
    }
    b = h * (m * ode_acceleration(i) + h * dfdx_v0);
    check_implicit_load(i, b, stage);
    r = b - ad;
    // Lines: the block itself, which cg_line factors with its line's couplings.
    diag = cg_lines_on() ? block : ldlt3(block);
  } else {
    // A pin is no unknown, but its springs' blocks enter its neighbours' rows.
    float h = params.gravity_dt.w;
    for (uint e = fspring_offsets[p]; e < fspring_offsets[p + 1u]; ++e) {
      uint entry = fspring_incident[e];
      if ((entry & 1u) == 0u) cg_store_block(entry, implicit_spring_block(cg_jacobian(entry), h));
    }
  }
  // Lines: z and p come from cg_line and cg_line_sum.
  vec3 z = cg_lines_on() ? vec3(0.0f) : ldlt3_solve(diag, r);
  // Nothing reads the flag in this pass; the last solve (a substep or step before) left it set.
  if (p == 0u) cg_scalar[0].w = 0.0f;
  cg_vec[c + VKPHYS_CG_R] = vec4(r, 0.0f);
  cg_vec[c + VKPHYS_CG_Z] = vec4(z, 0.0f);
  cg_vec[c + VKPHYS_CG_P] = vec4(z, 0.0f);
  cg_vec[c + VKPHYS_CG_DIAG] = vec4(diag[0], 0.0f);
  cg_vec[c + VKPHYS_CG_DIAG + 1u] = vec4(diag[1], 0.0f);
  cg_vec[c + VKPHYS_CG_DIAG + 2u] = vec4(diag[2], 0.0f);
  cg_dot(p, vec3(dot(r, z), dot(r, r), dot(b, b)));
}

// (A p)_i = (m + h c_drag) p_i + sum over springs of B (p_i - p_other); zero on a filtered row
// (a filtered neighbour's p is zero). The first invocation copies the solve's state for
// cg_update and cg_direction.
void cg_matvec(uint i) {
  if (i == params.kinds.x) {
    cg_scalar[2] = cg_scalar[0];
    cg_scalar[3] = cg_scalar[1];
  }
  if (cg_done()) return;
  uint p = i - params.kinds.x;
  uint c = cg_base(i);
  vec3 pi = vec3(cg_vec[c + VKPHYS_CG_P]);
  vec3 ap = vec3(0.0f);
  if (!implicit_filtered(i)) {
    float h = params.gravity_dt.w;
    ap = (1.0f / body_vel[i].w + h * params.drag.x) * pi;
    for (uint e = fspring_offsets[p]; e < fspring_offsets[p + 1u]; ++e) {
      uint entry = fspring_incident[e];
      vec3 po = vec3(cg_vec[cg_base(spring_other(entry)) + VKPHYS_CG_P]);
      ap += block_times(cg_block(entry), pi - po);
    }
  }
  cg_vec[c + VKPHYS_CG_AP] = vec4(ap, 0.0f);
  cg_dot(p, vec3(dot(pi, ap), 0.0f, 0.0f));
}

// Lines (solver.cg_preconditioner "lines"; see "Why the landing is slow" above). The particles
// lie on two families of vertex-disjoint lines along their springs, found at load
// (host/sim/cg_lines.h: a taut grid's rows and its columns). Family 0 covers every particle (one
// not on a longer line is a line of its own); family 1 only the particles of its lines of two or
// more. L_f is A restricted to family f's lines: block tridiagonal, its diagonal blocks A's, the
// block between consecutive particles A's coupling of the two, -B summed over the springs that
// join them, zero at a pin (a pin's rows of A are zero, so a pin is a line of its own). The
// preconditioner is additive,
//   z = P^-1 r = sum over f of R_f^T L_f^-1 R_f r
// (R_f picks family f's particles): each term is symmetric positive semidefinite, since L_f is
// positive definite (the mass, plus each link's springs as the PSD pair block [B -B; -B B],
// plus every other spring's PSD B on the diagonal only: A with the couplings off the line
// dropped, a bend spring's along it too), and family 0's term is definite, since its lines cover
// every particle; so P^-1 is symmetric positive definite and CG stays CG. (A symmetric
// multiplicative variant, rows then columns then rows on the residual left, is also SPD but needs a
// matrix product between the family solves and a second solve of one family an iteration; not
// tried.) A single line that holds every coupling of A (a chain) makes P^-1 = A^-1 exactly: CG then
// converges at its first iteration. Block Jacobi is the case of 1-particle lines. Each line is
// solved by block LDL^T (block Thomas), one invocation per line walking it in order, so the sums
// are in a fixed order on both backends:
//   D_1 = A_11, D_k = A_kk - E_k D_(k-1)^-1 E_k   (E_k = A_(k,k-1), symmetric: spring blocks)
//   forward   g_k = D_k^-1 (r_k - E_k g_(k-1))
//   backward  y_n = g_n, y_k = g_k - D_k^-1 E_(k+1) y_(k+1)
// where every D_k^-1 is a solve with D_k's own LDL^T factor, never an inverse (kernels/implicit.h,
// ldlt3: with inverses the factor lost definiteness in float32 and CG broke down). The factor
// (D_k's and E) is made once a solve, in implicit_setup's cg_line (`factor`), from the
// diagonal blocks implicit_setup left in the CG_DIAG slots and the couplings (its cg_blocks);
// each line also sums its share of r.z (r.y_f along it) in its backward sweep, and its
// workgroup (a chunk of 64 lines) the chunk's, in line order (cg_chunk_sum); cg_direction then
// reads z = y_0 + y_1 itself (cg_line_z), and cg_update sums r.r alone. An iteration is four
// passes (cg_matvec, cg_update, cg_line, cg_direction), block Jacobi's three; the solve's
// start adds cg_line_sum (z, and p = z) after its factoring cg_line.
// Measured (CPU, the bench's drapes, 4 substeps, cap 100, 1e-4; block Jacobi -> lines): 64 x 64
// steps 15-25 325 -> 127 iterations a step, steps 21-65 240 -> 87, no step misses the tolerance
// (block Jacobi: 19 and 20), half the CPU time; 128 x 128 steps 21-60 363 -> 155, none misses
// it (block Jacobi: 25 steps from 15 to 42). A chain that is one line: 1 iteration. A 5 x 4 x 3
// soft box with face and body diagonals: no gain (1,171 iterations in 30 steps against 1,141).

// The coupling A_(i,o) of particles i and o (world indices): -B summed over every spring that
// joins them; zero where either is filtered.
mat3 cg_coupling(uint i, uint o) {
  mat3 e = mat3(0.0f);
  if (implicit_filtered(i) || implicit_filtered(o)) return e;
  uint p = i - params.kinds.x;
  for (uint k = fspring_offsets[p]; k < fspring_offsets[p + 1u]; ++k) {
    uint entry = fspring_incident[k];
    if (spring_other(entry) == o) e -= cg_block(entry);
  }
  return e;
}

mat3 cg_line_block(uint at) {
  return mat3(vec3(cg_factor[at]), vec3(cg_factor[at + 1u]), vec3(cg_factor[at + 2u]));
}

void cg_set_line_block(uint at, mat3 m) {
  cg_factor[at] = vec4(m[0], 0.0f);
  cg_factor[at + 1u] = vec4(m[1], 0.0f);
  cg_factor[at + 2u] = vec4(m[2], 0.0f);
}

// Line x of both families (family 0's L0 first): y_f = L^-1 r along it into its particles'
// VKPHYS_LINE_Y slots, factoring L first when `factor` (implicit_setup's call).
void cg_line(uint x, bool factor) {
  if (cg_done()) return;
  uint np = params.kinds.y;
  uint f = x < params.lines.y ? 0u : 1u;
  uint head = cg_lines[4u * np + x];
  // Forward: D_k's factor (and E_k) and g_k, from the first particle to the last.
  uint prev = VKPHYS_NO_LINK;
  uint last = head;
  mat3 dk_prev = mat3(0.0f);
  vec3 g_prev = vec3(0.0f);
  for (uint q = head; q != VKPHYS_NO_LINK; q = cg_lines[4u * q + 2u * f + 1u]) {
    uint i = params.kinds.x + q;
    uint at = VKPHYS_LINE_STRIDE * q + 7u * f;
    mat3 e = mat3(0.0f);
    mat3 dk = mat3(0.0f);  // a filtered particle's: every solve with it gives 0
    if (factor) {
      if (prev != VKPHYS_NO_LINK) e = cg_coupling(i, params.kinds.x + prev);
      if (!implicit_filtered(i)) {
        // The diagonal block (implicit_setup) less E D_(k-1)^-1 E (E is symmetric).
        dk = ldlt3(cg_diag(cg_base(i)) - ldlt3_congruence(dk_prev, e));
      }
      cg_set_line_block(at + VKPHYS_LINE_D, dk);
      cg_set_line_block(at + VKPHYS_LINE_E, e);
    } else {
      dk = cg_line_block(at + VKPHYS_LINE_D);
      e = cg_line_block(at + VKPHYS_LINE_E);
    }
    vec3 g = ldlt3_solve(dk, vec3(cg_vec[cg_base(i) + VKPHYS_CG_R]) - block_times(e, g_prev));
    cg_factor[at + VKPHYS_LINE_Y] = vec4(g, 0.0f);
    dk_prev = dk;
    g_prev = g;
    prev = q;
    last = q;
  }
  // Backward: y_k = g_k - D_k^-1 E_(k+1) y_(k+1), from the last particle to the first, and the
  // line's share of r . z (z = y_0 + y_1 is linear in the families' y).
  vec3 y_next = vec3(0.0f);
  mat3 e_next = mat3(0.0f);
  float rz = 0.0f;
  for (uint q = last; q != VKPHYS_NO_LINK; q = cg_lines[4u * q + 2u * f]) {
    uint at = VKPHYS_LINE_STRIDE * q + 7u * f;
    mat3 dk = cg_line_block(at + VKPHYS_LINE_D);
    vec3 y = vec3(cg_factor[at + VKPHYS_LINE_Y]) - ldlt3_solve(dk, block_times(e_next, y_next));
    cg_factor[at + VKPHYS_LINE_Y] = vec4(y, 0.0f);
    rz += dot(vec3(cg_vec[cg_base(params.kinds.x + q) + VKPHYS_CG_R]), y);
    y_next = y;
    e_next = cg_line_block(at + VKPHYS_LINE_E);
  }
  cg_dot(x, vec3(rz, 0.0f, 0.0f));
}

// Particle i's z = y_0 (+ y_1 on a family-1 line).
vec3 cg_line_z(uint i) {
  uint q = i - params.kinds.x;
  uint at = VKPHYS_LINE_STRIDE * q;
  vec3 z = vec3(cg_factor[at + VKPHYS_LINE_Y]);
  bool family1 = cg_lines[4u * q + 2u] != VKPHYS_NO_LINK || cg_lines[4u * q + 3u] != VKPHYS_NO_LINK;
  if (family1) z += vec3(cg_factor[at + 7u + VKPHYS_LINE_Y]);
  return z;
}

// After implicit_setup's lines: z, and p = z (`first`; the iterations' cg_direction reads
// cg_line_z itself).
void cg_line_sum(uint i, bool first) {
  if (cg_done()) return;
  uint c = cg_base(i);
  vec3 z = cg_line_z(i);
  cg_vec[c + VKPHYS_CG_Z] = vec4(z, 0.0f);
  if (first) cg_vec[c + VKPHYS_CG_P] = vec4(z, 0.0f);
}

// Whether the pass `mode` skips this iteration: cg_matvec by the solve's flag, the others by
// their scalar step.
bool cg_pass_skipped(uint mode) {
  if (mode == CG_MATVEC || mode == CG_LINES) return cg_done();
  return mode != IMPLICIT_SETUP && cg_step.outcome != VKPHYS_CG_CONTINUE;
}

// Chunk k's sums of its particles' products (cg_dot), in particle order: p . A p after
// cg_matvec into the first half of cg_partial, r . z and r . r after implicit_setup and
// cg_update into the second; after cg_line the chunk's lines' r . z, in line order, after them.
void cg_chunk_sum(uint mode, uint k) {
  if (cg_pass_skipped(mode)) return;
  uint particles = params.kinds.y;
  uint items = mode == CG_LINES ? params.lines.y + params.lines.z : particles;
  vec3 sum = vec3(0.0f);
  uint n = min(items - k * VKPHYS_CG_CHUNK, VKPHYS_CG_CHUNK);
  for (uint j = 0u; j < n; ++j) sum += cg_dots[j];
  uint first = mode == CG_MATVEC ? 0u : cg_chunks(particles);
  if (mode == CG_LINES) first = 2u * cg_chunks(particles);
  cg_partial[first + k] = vec4(sum, 0.0f);
}

// The chunks' sums (cg_partial from `first` on), in chunk order.
vec3 cg_total(uint first) {
  vec3 sum = vec3(0.0f);
  for (uint k = 0u; k < cg_chunks(params.kinds.y); ++k) sum += vec3(cg_partial[first + k]);
  return sum;
}

// cg_scalar[0] = (r.z, r.r, |b|^2, done), cg_scalar[1] = (iterations, 0, 0, 0); [2] and [3]
// the iteration's copy (cg_matvec). The tolerance is on the relative residual |r| / |b|
// (params.ode.w).
bool cg_converged(float rr, float bb) {
  float tol = uintBitsToFloat(params.ode.w);
  return rr <= tol * tol * bb;
}

// b = 0 (a cloth at rest with no load: |b|^2 sums to exactly 0) has the solution dv = 0, A being
// positive definite, whatever the warm start: the solve stops before its first iteration and
// implicit_end takes dv = 0 (cg_solution). Relative to |b| = 0 the tolerance could never be met
// from a warm start dv0 != 0 (r = -A dv0), and such a solve ran to the cap to approach the 0 it
// could have taken at once. Also a b whose squares underflow (every |b_i| below about 4e-23 N s),
// where dv = 0 is within |b| / m of the solution. (A b that is not finite, or whose squares pass
// the largest float, is not this case: implicit_setup's check_implicit_load stops the step.)
bool cg_trivial(float bb) {
  return bb == 0.0f;
}

// Lines: r.z is the lines' sums (cg_line), in line order.
float cg_line_rz() {
  float sum = 0.0f;
  uint first = 2u * cg_chunks(params.kinds.y);
  for (uint k = 0u; k < cg_chunks(params.lines.y + params.lines.z); ++k) {
    sum += cg_partial[first + k].x;
  }
  return sum;
}

void cg_start() {
  vec3 s = cg_total(cg_chunks(params.kinds.y));
  if (cg_lines_on()) s.x = cg_line_rz();
  bool done = cg_trivial(s.z) || cg_converged(s.y, s.z);
  cg_scalar[0] = vec4(s.x, s.y, s.z, done ? 1.0f : 0.0f);
  cg_scalar[1] = vec4(0.0f);
}

// cg_update's and cg_direction's scalar step, from the iteration's copy of the state and the
// chunks' sums. A is positive definite, so p . A p > 0 unless p = 0 (nothing left to do).
void cg_begin_pass(uint mode) {
  vec4 s = cg_scalar[2];
  cg_step.coef = 0.0f;
  cg_step.outcome = VKPHYS_CG_STOPPED;
  cg_step.rz = 0.0f;
  cg_step.rr = 0.0f;
  if (s.w != 0.0f) return;
  float pap = cg_total(0u).x;
  if (!(pap > 0.0f)) return;
  cg_step.outcome = VKPHYS_CG_CONTINUE;
  if (mode == CG_UPDATE) {
    cg_step.coef = s.x / pap;
    return;
  }
  vec3 t = cg_total(cg_chunks(params.kinds.y));
  if (cg_lines_on()) t.x = cg_line_rz();
  bool done = cg_converged(t.y, s.z) || !(s.x > 0.0f);
  cg_step.coef = done ? 0.0f : t.x / s.x;
  cg_step.outcome = done ? VKPHYS_CG_CONVERGED : VKPHYS_CG_CONTINUE;
  cg_step.rz = t.x;
  cg_step.rr = t.y;
}

void cg_update(uint i) {
  if (cg_step.outcome != VKPHYS_CG_CONTINUE) return;
  uint c = cg_base(i);
  float alpha = cg_step.coef;
  vec3 r = vec3(cg_vec[c + VKPHYS_CG_R]) - alpha * vec3(cg_vec[c + VKPHYS_CG_AP]);
  cg_dv[i - params.kinds.x] += vec4(alpha * vec3(cg_vec[c + VKPHYS_CG_P]), 0.0f);
  cg_vec[c + VKPHYS_CG_R] = vec4(r, 0.0f);
  // Lines: z = P^-1 r and r.z are cg_line's, the next pass.
  if (cg_lines_on()) {
    cg_dot(i - params.kinds.x, vec3(0.0f, dot(r, r), 0.0f));
    return;
  }
  vec3 z = ldlt3_solve(cg_diag(c), r);
  cg_vec[c + VKPHYS_CG_Z] = vec4(z, 0.0f);
  cg_dot(i - params.kinds.x, vec3(dot(r, z), dot(r, r), 0.0f));
}

// The first invocation writes the solve's state: an iteration stopped by p . A p <= 0 only
// sets the flag (the state was the copy's), one that ran counts and takes the new sums.
void cg_direction(uint i) {
  if (i == params.kinds.x) {
    if (cg_step.outcome == VKPHYS_CG_STOPPED) {
      cg_scalar[0].w = 1.0f;
    } else {
      bool done = cg_step.outcome == VKPHYS_CG_CONVERGED;
      cg_scalar[0] = vec4(cg_step.rz, cg_step.rr, cg_scalar[2].z, done ? 1.0f : 0.0f);
      cg_scalar[1] = vec4(cg_scalar[3].x + 1.0f, 0.0f, 0.0f, 0.0f);
    }
  }
  if (cg_step.outcome != VKPHYS_CG_CONTINUE) return;
  uint c = cg_base(i);
  vec3 z = cg_lines_on() ? cg_line_z(i) : vec3(cg_vec[c + VKPHYS_CG_Z]);
  cg_vec[c + VKPHYS_CG_P] = vec4(z + cg_step.coef * vec3(cg_vec[c + VKPHYS_CG_P]), 0.0f);
}

// v1 = v0 + dv, x1 = x0 + h v1 (body_pos and body_vel still hold x0 and v0), handed to ode_end
// like an explicit method's result. The first particle's invocation adds the solve's iterations,
// counts it if it ended above the tolerance (at the cap, or stopped by p . A p <= 0 or r . z <= 0,
// which only rounding reaches) and keeps the step's largest relative residual |r| / |b| (0 when
// b = 0) for the statistics.
// Particle i's solution: cg_dv, or 0 where b = 0 (cg_trivial), which also becomes the next
// solve's warm start.
vec3 cg_solution(uint i) {
  if (!cg_trivial(cg_scalar[0].z)) return cg_dv_of(i);
  cg_dv[i - params.kinds.x] = vec4(0.0f);
  return vec3(0.0f);
}

// `short_recording`: fewer iterations were recorded than solver.cg_max_iterations, so a solve
// that is not done has stopped short of what the cap would run: cg_short asks the host to redo
// the step with the cap ("Recorded iterations" above).
void implicit_end(uint i, bool short_recording) {
  vec4 x0 = body_pos[i];
  vec4 v0 = body_vel[i];
  vec3 v1 = vec3(v0) + cg_solution(i);  // 0 on a filtered row
  body_pos[i] = vec4(integrate_position(vec3(x0), v1, params.gravity_dt.w), x0.w);
  body_vel[i] = vec4(v1, v0.w);
  ode_end(i);
  if (i != params.kinds.x) return;
  vec4 s0 = cg_scalar[0];
  uint iterations = uint(cg_scalar[1].x);
  counters.cg_iterations += iterations;
  counters.cg_most = max(counters.cg_most, iterations);
  if (short_recording && !cg_done()) counters.cg_short = 1u;
  if (!cg_trivial(s0.z) && !cg_converged(s0.y, s0.z)) counters.cg_unmet += 1u;
  float residual = s0.z > 0.0f ? sqrt(s0.y / s0.z) : 0.0f;
  counters.cg_residual = max(counters.cg_residual, floatBitsToUint(residual));
}

// Every ODE pass but the marks (kernels/stages.h VKPHYS_ODE_MODES): invocation x of
// ode_pass_invocations(mode, P, lines) (a particle R + x, a line x, or the one invocation 0);
// s is the stage IMPLICIT_SETUP names a load past float range in (check_implicit_load); s = 1
// marks implicit_setup's CG_LINES and CG_LINE_SUM (factor, p = z), a short recording's
// IMPLICIT_END (implicit_end) and ODE_END's flag of a step to redo (ode_flag_over); the ends'
// ODE_END_CHECKS bit, the first substep's, checks the velocities v* for NaN as the predict
// stage's (flag_nonfinite). A CG pass's scalar step comes before (cg_begin_pass), its chunk sums
// after (cg_chunk_sum).
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
      if ((s & 1u) != 0u) ode_flag_over(i);
      if ((s & ODE_END_CHECKS) != 0u) note_nonfinite_velocity(i, STAGE_PREDICT);
      break;
    case IMPLICIT_SETUP:
      implicit_setup(i, s);
      break;
    case CG_MATVEC:
      cg_matvec(i);
      break;
    case CG_START:
      cg_start();
      break;
    case CG_UPDATE:
      cg_update(i);
      break;
    case CG_DIRECTION:
      cg_direction(i);
      break;
    case IMPLICIT_END:
      implicit_end(i, (s & 1u) != 0u);
      if ((s & ODE_END_CHECKS) != 0u) note_nonfinite_velocity(i, STAGE_PREDICT);
      break;
    case CG_LINES:
      cg_line(x, s != 0u);
      break;
    case CG_LINE_SUM:
      cg_line_sum(i, s != 0u);
      break;
    case STRAIN_GATHER:
      strain_gather(i);
      break;
    case STRAIN_APPLY:
      strain_apply(i);
      break;
    default:
      break;
  }
}
