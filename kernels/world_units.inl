// The solver's drivers: a unit (joint, contact manifold or particle contact) run in place on
// the bodies' velocities (sequential and coloured schemes), or on mass-split copies whose
// average each body then takes (Jacobi). Environment: kernels/world_bodies.inl; the unit kinds:
// kernels/joints.inl, contact_manifold.inl, contact_particle.inl. Every kind is one prepare and
// one sweep function; the colouring, the incidence lists and the averaging serve them all.

// Once per step, after the narrowphase: what stays fixed while the bodies move through the
// step's substeps (contact Jacobians, effective masses, anchors; the joints' warm start).
void prepare_unit(uint u) {
  if (!unit_active(u)) return;
  uint j = params.counts.y;
  if (u < j) {
    joint_warm_start(u);
  } else if (u < pcontact_unit_base()) {
    prepare_contact(u - j);
  }
}

// Before each solve phase: the rows' targets from the current poses and the velocities at the
// phase's start, for `phase` (kernels/stages.h: VKPHYS_TARGET_PHASES).
void unit_targets(uint u, uint phase) {
  if (!unit_active(u)) return;
  uint j = params.counts.y;
  uint c = pcontact_unit_base();
  if (u < j) {
    uvec4 info = joint_info[u];
    if (joint_is_spring(info)) {
      spring_targets(u, info);
    } else {
      joint_targets(u, info);
    }
  } else if (u < c) {
    contact_targets(u - j, phase);
  } else {
    pcontact_targets(u - c, phase);
  }
}

// Joints and contact manifolds on the bodies' full state (particle contacts: pcontact_sweep).
void unit_sweep(uint u, uint kind, KINOUT(BodyState) a, KINOUT(BodyState) b) {
  uint j = params.counts.y;
  if (u < j) {
    if (kind != KIND_IMPACT) joint_rows_sweep(u, kind, a, b);
  } else if (kind == KIND_IMPACT) {
    contact_impacts(u - j, a, b);
  } else {
    contact_rows(u - j, kind, a, b);
  }
}

// An impact pass's velocity change also goes into the body's step-start velocities: the next
// unit's Newton's law sees the approach the impacts so far have made (a ball stopped by an
// impact passes its speed on to the ball it touches, so an e = 1 Newton's cradle sends the
// last ball off in one pass), and the rows' targets and the split impulse's re-prediction
// start from the velocities after the impacts.
void add_impact_to_start(uint i, vec3 dv, vec3 dw) {
  if (body_vel[i].w <= 0.0f) return;
  body_start[i] += vec4(dv, 0.0f);
  if (!is_particle(i)) rigid_omega_start[i] += vec4(dw, 0.0f);
}

// Particle contact c in place on its bodies' (v, 1/m).
void pcontact_in_place(uint c, uint kind) {
  uvec2 ab = pcontact_bodies[c];
  vec4 va = body_vel[ab.x];
  vec4 vb = body_vel[ab.y];
  vec4 va_in = va;
  vec4 vb_in = vb;
  vec4 lam = pcontact_lambda[c];
  pcontact_sweep(c, kind, lam, va, vb);
  pcontact_lambda[c] = lam;
  if (kind == KIND_IMPACT) {
    add_impact_to_start(ab.x, vec3(va - va_in), vec3(0.0f));
    add_impact_to_start(ab.y, vec3(vb - vb_in), vec3(0.0f));
  }
  if (va.w > 0.0f) body_vel[ab.x] = va;
  if (vb.w > 0.0f) body_vel[ab.y] = vb;
}

// Spring j (kernels/joints.inl) in place on its particles' (v, 1/m).
void spring_in_place(uint j, uvec2 ab, uint kind) {
  vec4 va = body_vel[ab.x];
  vec4 vb = body_vel[ab.y];
  spring_sweep(j, kind, va, vb);
  if (va.w > 0.0f) body_vel[ab.x] = va;
  if (vb.w > 0.0f) body_vel[ab.y] = vb;
}

// Sequential and coloured schemes: read both bodies, sweep the unit's rows, write them back.
void unit_in_place(uint u, uint kind) {
  if (u == VKPHYS_UNCOLORED) return;
  // Springs first, before the unit-kind bookkeeping: a cloth is mostly springs (joints are
  // always active).
  if (u < params.counts.y) {
    uvec4 info = joint_info[u];
    if (joint_is_spring(info)) {
      spring_in_place(u, uvec2(info), kind);
      return;
    }
  }
  if (!unit_active(u)) return;
  uint c = pcontact_unit_base();
  if (u >= c) {
    pcontact_in_place(u - c, kind);
    return;
  }
  uvec2 ab = unit_bodies(u);
  // A manifold's sweep reads no inverse inertia (its rows' parts are prepared); its impacts and
  // the joints do.
  bool prepared = u >= params.counts.y && kind != KIND_IMPACT;
  BodyState a = prepared ? load_velocities(ab.x) : load_body(ab.x);
  BodyState b = prepared ? load_velocities(ab.y) : load_body(ab.y);
  BodyState a_in = a;
  BodyState b_in = b;
  unit_sweep(u, kind, a, b);
  if (kind == KIND_IMPACT) {
    add_impact_to_start(ab.x, a.v - a_in.v, a.w - a_in.w);
    add_impact_to_start(ab.y, b.v - b_in.v, b.w - b_in.w);
  }
  store_body(ab.x, a);
  store_body(ab.y, b);
}

// ---- Jacobi with mass splitting ---------------------------------------------------------------
// The Jacobi scheme's every unit, and the coloured scheme's overflow colour (kernels/
// world_coloring.inl). A body with n units appears to each with n times its inverse mass and
// inertia; the unit writes its copies' velocity changes and the body adds their average, which is
// exactly M^-1 sum(G^T dlambda) over its units (Tonge et al. 2012). Unit u keeps its copies'
// velocity changes in unit_dv: joints and manifolds at 4u (dv_a, dw_a, dv_b, dw_b), the particle
// contacts after them at 4c + 2(u - c), 2 entries each (dv_a, dv_b), c the first of them.

// Particle contact c (unit pcontact_unit_base() + c) on the split copies of its bodies.
void jacobi_pcontact(uint c, uint kind) {
  uvec2 ab = pcontact_bodies[c];
  vec4 va = body_vel[ab.x];
  vec4 vb = body_vel[ab.y];
  vec4 sa = vec4(vec3(va), va.w * body_share(ab.x, true));
  vec4 sb = vec4(vec3(vb), vb.w * body_share(ab.y, true));
  vec4 lam = pcontact_lambda[c];
  pcontact_sweep(c, kind, lam, sa, sb);
  pcontact_lambda[c] = lam;
  uint slot = 4u * pcontact_unit_base() + 2u * c;
  unit_dv[slot] = vec4(vec3(sa) - vec3(va), 0.0f);
  unit_dv[slot + 1u] = vec4(vec3(sb) - vec3(vb), 0.0f);
}

// Spring j on the split copies of its particles. Only the dv slots are written: jacobi_body
// reads a unit's dw slots for every body but adds them to rigid bodies only, and a spring's ends
// are particles.
void jacobi_spring(uint j, uvec2 ab, uint kind) {
  vec4 va = body_vel[ab.x];
  vec4 vb = body_vel[ab.y];
  vec4 sa = vec4(vec3(va), va.w * body_share(ab.x, true));
  vec4 sb = vec4(vec3(vb), vb.w * body_share(ab.y, true));
  spring_sweep(j, kind, sa, sb);
  unit_dv[4u * j] = vec4(vec3(sa) - vec3(va), 0.0f);
  unit_dv[4u * j + 2u] = vec4(vec3(sb) - vec3(vb), 0.0f);
}

// Unit u's velocity changes on its split copies (from a0, b0 to a, b), which jacobi_body averages.
void store_unit_dv(uint u, BodyState a0, BodyState b0, BodyState a, BodyState b) {
  uint slot = 4u * u;
  unit_dv[slot] = vec4(a.v - a0.v, 0.0f);
  unit_dv[slot + 1u] = vec4(a.w - a0.w, 0.0f);
  unit_dv[slot + 2u] = vec4(b.v - b0.v, 0.0f);
  unit_dv[slot + 3u] = vec4(b.w - b0.w, 0.0f);
}

void jacobi_unit(uint u, uint kind) {
  if (!unit_active(u)) return;
  uint c = pcontact_unit_base();
  if (u >= c) {
    jacobi_pcontact(u - c, kind);
    return;
  }
  if (u < params.counts.y) {
    uvec4 info = joint_info[u];
    if (joint_is_spring(info)) {
      jacobi_spring(u, uvec2(info), kind);
      return;
    }
  }
  uvec2 ab = unit_bodies(u);
  // A manifold's sweep reads its prepared rows, not the inverse inertia (an impact does).
  bool prepared = kind != KIND_IMPACT && u >= params.counts.y;
  BodyState a = prepared ? solver_velocities(ab.x, true) : solver_body(ab.x, true);
  BodyState b = prepared ? solver_velocities(ab.y, true) : solver_body(ab.y, true);
  BodyState a0 = a;
  BodyState b0 = b;
  unit_sweep(u, kind, a, b);
  store_unit_dv(u, a0, b0, a, b);
}

// The body takes the average of its units' velocity changes (`kind`: the sweep's): the units of
// body_range (every unit on it in the Jacobi scheme, its overflow units in the coloured one).
void jacobi_body(uint b, uint kind) {
  uvec2 r = body_range[b];
  if (r.y <= r.x) return;
  vec3 dv = vec3(0.0f);
  vec3 dw = vec3(0.0f);
  uint c = pcontact_unit_base();
  for (uint s = r.x; s < r.y; ++s) {
    uint e = incidence_entry(s);
    uint u = e >> 1u;
    if (u >= c) {
      dv += vec3(unit_dv[4u * c + 2u * (u - c) + (e & 1u)]);
    } else {
      uint slot = 4u * u + 2u * (e & 1u);
      dv += vec3(unit_dv[slot]);
      dw += vec3(unit_dv[slot + 1u]);
    }
  }
  float inv_n = 1.0f / float(r.y - r.x);
  if (kind == KIND_IMPACT) add_impact_to_start(b, inv_n * dv, inv_n * dw);
  vec4 vel = body_vel[b];
  body_vel[b] = vec4(vec3(vel) + inv_n * dv, vel.w);
  if (!is_particle(b)) rigid_omega[b] = vec4(vec3(rigid_omega[b]) + inv_n * dw, 0.0f);
}

// ---- The solver residual ---------------------------------------------------------------------
// How far the step's solve is from converged: the largest change any body's velocity (and a
// rigid body's angular velocity) took in the step's last sweep, the last iteration of the last
// substep (or its last relax sweep). A sweep changes a body's velocity by M^-1 G^T dlambda over
// its rows, so this is zero exactly when a further sweep would change nothing: the projected
// Gauss-Seidel fixed point (for Jacobi, the fixed point of the averaged update). In m/s and
// rad/s, comparable between scenes, schemes and backends, and measured on the bodies alone, the
// same for every unit kind. The maximum of non-negative floats through their bits does not
// depend on the order of the atomics, so repeated runs give the same bits.
// body_keep_reference keeps the velocities a measured sweep starts from, and a carried warm
// start's (below) the velocities a substep's solve starts from.
void body_keep_reference(uint i) {
  sweep_ref[i] = body_vel[i];
  if (!is_particle(i)) sweep_ref[params.counts.x + i] = rigid_omega[i];
}

// A dynamic body's velocity change over the measured sweep, into the residual.
void measure_residual(vec3 before, vec3 after) {
  float dv = length(after - before);
  if (dv > 0.0f) atomicMax(counters.residual, floatBitsToUint(dv));
}

void body_residual(uint i) {
  if (body_vel[i].w <= 0.0f) return;  // static and kinematic bodies: no sweep moves them
  note_nonfinite_velocity(i, STAGE_SOLVE);
  measure_residual(vec3(sweep_ref[i]), vec3(body_vel[i]));
  if (is_particle(i)) return;
  float dw = length(vec3(rigid_omega[i]) - vec3(sweep_ref[params.counts.x + i]));
  if (dw > 0.0f) atomicMax(counters.residual_w, floatBitsToUint(dw));
}

// ---- The warm start carried from substep to substep ------------------------------------------
// A substep's solve begins with the warm start, every unit's accumulated impulses applied
// again, and its sweeps then change the impulses, each change applied to the bodies through the
// unit's rows. A manifold's rows (RowParts, kernels/rows.h) and a particle contact's are prepared
// once a step and fixed through its substeps. So a solve changes a body's velocity by
// M^-1 G^T lambda, lambda the impulses it ends with, whatever the sweeps' order: the next
// substep's warm start, exactly. (A mass-split sweep too: a unit's copy has n times the inverse
// mass and the body takes the mean of its n copies.) A later substep therefore takes its warm
// start from the bodies: body_predict_carrying adds the change the last substep's solve made,
// v_end - v_start, to the predicted velocity, where a sweep over every unit's rows did the same
// sum in another order (equal to rounding). v_start is kept in sweep_ref (body_keep_reference,
// before the first substep's warm start and by each later predict); the step's last sweep may
// overwrite it for the residual, as the last substep carries nothing on. The Newton-Coulomb
// impacts before the first substep's warm start are no impulses of the rows, so its v_start is
// kept after them.
// Where the identity fails, the sweep stays (carries_warm_start, host/sim/world_setup.h): under
// Jacobi the spring start rewrites normal impulses between substeps; a joint's rows (and a
// compliant spring's) are taken again each phase from its anchors' new poses (joint_targets),
// so its impulses meet other rows in the next substep (measured: a 20-link chain 1.6e-3 m/s and
// a rag-doll 0.1 m/s off the sweep after one step); the strain limit and the explicit and
// implicit integrators move velocities outside the rows. (The split impulse takes no substeps.)
// Measured: docs/benchmarks.md (stop 48).
void body_predict_carrying(uint i) {
  uint n = params.counts.x;
  vec3 dv = vec3(body_vel[i]) - vec3(sweep_ref[i]);
  vec3 dw = is_particle(i) ? vec3(0.0f) : vec3(rigid_omega[i]) - vec3(sweep_ref[n + i]);
  body_predict(i, true);
  body_keep_reference(i);
  vec4 vel = body_vel[i];
  if (vel.w <= 0.0f) return;  // static and kinematic bodies: no row moves them
  body_vel[i] = vec4(vec3(vel) + dv, vel.w);
  if (!is_particle(i)) rigid_omega[i] = vec4(vec3(rigid_omega[i]) + dw, 0.0f);
}
