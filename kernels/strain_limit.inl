// Strain limiting of the force springs (solver.strain_limit; Provot 1995, "Deformation
// constraints in a mass-spring model to describe rigid cloth behavior"): stage functions over
// particle world indices i (R <= i < N), run after each substep's rows and before its positions
// (body_integrate), both backends alike (host/sim/ode_control.h, for_each_strain_pass).
//
// Why. The rows (contacts, friction) act on each particle as on a free body of its own mass,
// after the springs' forces have been integrated (kernels/world_ode.inl, world_implicit.inl). A
// cloth vertex that a contact stops is then left behind by its neighbours for the substep: where
// a cloth lands on a ball at 1.3 m/s, a substep of 1/240 s carries a vertex 5.4 mm, about one
// spacing of a 256 x 256 cloth of 1.5 m, and the springs between a vertex that has landed and one
// still 3 mm above the ball are stretched 20-26% for a step (measured, docs/benchmarks.md, stop
// 40); at 512 x 512 single springs reached 2-13 times their rest length. The springs' own force
// takes that back over the next substeps, but a stiff cloth's visible stretch and the
// neighbours' jerk are there for a step. Solving the springs implicitly around the rows' outcome
// (the rows' particles held, a second CG solve) was tried and measured no better at 256 x 256
// (worst 36% against 26%, at 2.2 times the cost: docs/benchmarks.md, stop 40).
//
// What. Every force spring whose ends, moved on to the substep's end at their velocities (x_e,
// particle_end_position), would be longer than (1 + s) times its rest length r gets the
// relative velocity along it that closes the excess within the substep:
//   d = x_e,a - x_e,b,  L = |d|,  e = L - (1 + s) r > 0:  dv_a = -w_a / (w_a + w_b) (e / h) d / L,
//                                                         dv_b = +w_b / (w_a + w_b) (e / h) d / L
// with w the inverse masses (a pinned or kinematic end, w = 0, does not move), so the pair's
// momentum is kept. Compression is not limited (a cloth buckles). The passes are Jacobi: each
// particle sums its springs' shares from the pass's start (STRAIN_GATHER into ode_deriv, which
// no ODE pass needs until the next substep's forces), each weighted by its spring's excess, and
// divides the sum by the sum of the excesses, then every particle adds its change
// (STRAIN_APPLY). The average keeps a particle between two stretched springs from taking both
// corrections at once; it also means a pass leaves part of the excess, so
// solver.strain_limit.passes repeats it (each pass sees the last one's velocities). Weighted by
// the excess, a spring's part in the average goes to 0 with its excess. An average over the
// number of springs over the limit (as first written) jumped where a spring crossed the limit by
// a rounding's worth: a spring that the last pass left at the limit, counted or not by its last
// bit, halved its neighbour's correction, and on an H200 the GPU's soft hanging cloth
// (StrainLimitParity) parted from the CPU by 0.047 m/s in one step at step 9. The averaged
// shares of a pair differ where its ends' weights differ, so momentum is kept by each spring's
// correction but not exactly by the average.
// A limited spring's velocity change is what a row would give: the next substep's rows and
// forces start from it, and the positions follow from it at body_integrate.
// Measured (CPU; the bench's drape with force springs, implicit, lines, 4 x 2, cap 100; the worst
// L / rest - 1 at a step's end; docs/benchmarks.md, stops 40 and 44):
//   256 x 256, steps 15-32   no limit 0.052-0.259   limit 0.1, 4 passes: 0.052-0.102 weighted by
//                                                   the excess, 0.052-0.137 by the count
//                                                   16 passes: 0.052-0.100 either way
//   512 x 512, steps 15-33   no limit up to 12.7 (stop 39); by the count (not re-measured):
//                            4 passes 0.100-0.892, 16 passes 0.100-0.116
// so the default is 16 passes. A pass is a gather over each particle's springs that moves both
// ends of every spring on to the substep's end: on the 128 x 128 drape (CPU, 20 steps, 121 CG
// iterations a step) 64 passes a step took the step from 567 to 659 ms (+16%), a pass about a
// third of a CG iteration.

void strain_gather(uint i) {
  uint p = i - params.kinds.x;
  float wi = body_vel[i].w;
  vec3 dv = vec3(0.0f);
  if (wi > 0.0f) {
    float h = params.gravity_dt.w;
    float limit = 1.0f + params.strain.x;
    vec3 xi = particle_end_position(i, vec3(body_vel[i]));
    float weight = 0.0f;  // the sum of the excesses
    for (uint e = fspring_offsets[p]; e < fspring_offsets[p + 1u]; ++e) {
      uint entry = fspring_incident[e];
      uint o = spring_other(entry);
      vec3 d = xi - particle_end_position(o, vec3(body_vel[o]));
      float len = length(d);
      float excess = len - limit * fspring_params[entry >> 1u].x;
      if (!(excess > 0.0f)) continue;
      float share = wi / (wi + body_vel[o].w);
      dv -= (excess * (share * excess / (h * len))) * d;
      weight += excess;
    }
    if (weight > 0.0f) dv /= weight;
  }
  ode_deriv[p] = vec4(dv, 0.0f);
}

void strain_apply(uint i) {
  vec4 v = body_vel[i];
  if (!(v.w > 0.0f)) return;
  body_vel[i] = vec4(vec3(v) + vec3(ode_deriv[i - params.kinds.x]), v.w);
}
