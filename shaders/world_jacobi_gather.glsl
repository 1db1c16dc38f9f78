// The Jacobi scheme in one dispatch a sweep, for worlds whose only units are particle contacts
// (no joints, springs or rigid bodies other than planes: host/sim/world_setup.h,
// jacobi_gathers). Included by shaders/world_pcontact.comp; the GPU backend's schedule alone.
//
// Why. The mass-split Jacobi sweep (kernels/world_units.inl) is two passes with a barrier
// between: every unit writes its split copies' velocity changes to unit_dv, then every body adds
// their average. That was two dispatches a sweep, and at 1M particles and 33 sweeps 121
// dispatches a step (H200: ~4 us of dispatch and barrier each), against issue 11's budget of
// iterations + 30 for a particle step.
//
// How. One invocation per body walks its incidence list (body_range over sort_keys, built
// without a sort by incidence_count, incidence_fill and overflow_order in kernels/
// world_coloring.inl: the entries jacobi_body walks, in the same order) and, for each of its
// contacts, runs the contact's sweep itself on the split copies of both particles, keeping its
// own end's velocity change. Both ends of a contact
// compute the same update from the same inputs, so each reads the sweep's INPUT velocities and
// impulses and writes its output elsewhere: body_vel and body_vel_next, pcontact_lambda and
// pcontact_copy_lambda take turns (`parity` 0 reads the first of each pair, 1 the second). A
// contact's impulses are written by one end, its owner: end a, or end b where a is a plane or
// a kinematic particle (every stored contact has a dynamic end, kernels/particle_grid.inl).
// A phase with an odd number of sweeps after its warm start (which runs in place) ends in the
// second buffers, and one more dispatch (jacobi_gather_settle) copies them back, so every other
// stage sees body_vel and pcontact_lambda as before. Nothing a sweep writes is read by another
// invocation of it: whether a contact's end a can move comes from the input copy's 1/m, and an
// impact pass (which moves the bodies' step-start velocities, which every contact of the pass
// reads) leaves its change in sweep_ref, free here (the gather measures the residual itself),
// for one more per-body dispatch (jacobi_gather_impact_start) to add.
//
// The same bits. Body b's new velocity is v + (1/n) sum_k dv_k, the sum over its entries in
// list order, each dv_k = (split copy after the contact's sweep) - v, with the contact's rows
// run by pcontact_sweep on exactly the inputs jacobi_pcontact gives it: the two-pass sweep's
// arithmetic, operation for operation. The fused kernel and the CPU backend still run the two
// passes, and tests/test_jacobi_gather.cpp holds the GPU's gather to their bits. The measured
// sweep adds each body's change to the residual, and checks it for NaN, as body_residual does.
//
// The price: each contact's rows run twice (once per dynamic end), and each end reads the other
// particle's velocity and share. The two-pass sweep wrote and re-read 2 vec4 of unit_dv per
// contact instead; host/sim/traffic_model.cpp counts both.

// Body i's (v, 1/m) in the sweep's input.
vec4 gather_velocity(uint i, uint parity) {
  return parity == 0u ? body_vel[i] : body_vel_next[i];
}

// Whether incidence entry e (2u + side) writes its contact's impulses: end a, or end b where a
// cannot move (`va`: end a's (v, 1/m) from a copy the sweep does not write; body_dynamic's test).
bool gather_owns_impulses(uint e, vec4 va) {
  return (e & 1u) == 0u || !(va.w > 0.0f);
}

// One sweep of kind `kind` for body b: its contacts from the `parity` buffers into the others;
// `measure`: the step's last sweep, whose velocity changes are the solver residual. The warm
// start runs in place on body_vel and pcontact_lambda instead and takes no turn (`parity`
// unused): a body's change there is its own split inverse mass times the contact's impulses,
// which it does not change, so it reads no other body's velocity and writes no impulse. (That
// keeps a phase of warm start and an even number of iterations free of the copy back.)
void jacobi_gather(uint b, uint parity, uint kind, bool measure) {
  bool warm = kind == KIND_WARM;
  bool first = warm || parity == 0u;
  vec4 vel = gather_velocity(b, first ? 0u : 1u);
  uvec2 r = body_range[b];
  uint base = pcontact_unit_base();
  vec3 dv = vec3(0.0f);
  for (uint s = r.x; s < r.y; ++s) {
    uint e = sort_keys[s];
    uint u = e >> 1u;
    uint c = u - base;
    uvec2 ab = pcontact_bodies[c];
    bool side_a = (e & 1u) == 0u;
    vec4 lam = first ? pcontact_lambda[c] : pcontact_copy_lambda[c];
    // The warm start's other end is a placeholder: nothing of it reaches this end's change.
    vec4 other = warm ? vec4(0.0f) : gather_velocity(side_a ? ab.y : ab.x, parity);
    if (!fault_skips_unit(u, kind)) {
      vec4 va = side_a ? vel : other;
      vec4 vb = side_a ? other : vel;
      vec4 sa = vec4(vec3(va), va.w * body_share(ab.x, true));
      vec4 sb = vec4(vec3(vb), vb.w * body_share(ab.y, true));
      pcontact_sweep(c, kind, lam, sa, sb);
      dv += side_a ? vec3(sa) - vec3(va) : vec3(sb) - vec3(vb);
    }
    if (!warm && gather_owns_impulses(e, side_a ? vel : other)) {
      if (parity == 0u) {
        pcontact_copy_lambda[c] = lam;
      } else {
        pcontact_lambda[c] = lam;
      }
    }
  }
  vec4 next = vel;
  if (r.y > r.x) {
    float inv_n = 1.0f / float(r.y - r.x);
    if (kind == KIND_IMPACT) sweep_ref[b] = vec4(inv_n * dv, 0.0f);
    next = vec4(vec3(vel) + inv_n * dv, vel.w);
  }
  if (warm || parity == 1u) {
    body_vel[b] = next;
  } else {
    body_vel_next[b] = next;
  }
  if (measure && vel.w > 0.0f) {
    measure_residual(vec3(vel), vec3(next));
    // As body_residual's note_nonfinite_velocity.
    if (!vec4_finite(next)) flag_nonfinite(b, STAGE_SOLVE);
  }
}

// After an impact pass: body b's share of the pass's change added to its step-start velocity,
// as jacobi_body adds it (add_impact_to_start), once no contact of the pass reads it any more.
void jacobi_gather_impact_start(uint b) {
  uvec2 r = body_range[b];
  if (r.y > r.x) add_impact_to_start(b, vec3(sweep_ref[b]), vec3(0.0f));
}

// After a phase of an odd number of sweeps: body b's velocity and its owned contacts' impulses
// back where every other stage reads them (the 1/m of end a from body_vel_next, which this pass
// does not write).
void jacobi_gather_settle(uint b) {
  body_vel[b] = body_vel_next[b];
  uvec2 r = body_range[b];
  uint base = pcontact_unit_base();
  for (uint s = r.x; s < r.y; ++s) {
    uint e = sort_keys[s];
    uint c = (e >> 1u) - base;
    if (gather_owns_impulses(e, body_vel_next[pcontact_bodies[c].x])) {
      pcontact_lambda[c] = pcontact_copy_lambda[c];
    }
  }
}
