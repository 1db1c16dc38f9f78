// The solver's drivers: a unit (joint or contact manifold) run in place on the bodies'
// velocities (sequential and coloured schemes), or on mass-split copies whose average each body
// then takes (Jacobi). Environment: kernels/rigid_bodies.inl; the rows: rigid_solver.inl and
// rigid_joints.inl.

void prepare_unit(uint u) {
  if (!unit_active(u)) return;
  uint j = params.counts.y;
  if (u < j) {
    prepare_joint(u);
  } else {
    prepare_contact(u - j);
  }
}

void unit_sweep(uint u, uint kind, KINOUT(BodyState) a, KINOUT(BodyState) b) {
  uint j = params.counts.y;
  if (u < j) {
    if (kind != RIGID_KIND_IMPACT) joint_rows_sweep(u, kind, a, b);
  } else if (kind == RIGID_KIND_IMPACT) {
    contact_impacts(u - j, a, b);
  } else {
    contact_rows(u - j, kind, a, b);
  }
}

// Sequential and coloured schemes: read both bodies, sweep the unit's rows, write them back.
void unit_in_place(uint u, uint kind) {
  if (u == VKPHYS_UNCOLORED || !unit_active(u)) return;
  uvec2 ab = unit_bodies(u);
  BodyState a = load_body(ab.x);
  BodyState b = load_body(ab.y);
  unit_sweep(u, kind, a, b);
  store_body(ab.x, a);
  store_body(ab.y, b);
}

// ---- Jacobi with mass splitting ------------------------------------------------------------------
// A body with n units appears to each with n times its inverse mass and inertia; the unit
// writes its copies' velocity changes and the body adds their average, which is exactly
// M^-1 sum(G^T dlambda) over its units (Tonge et al. 2012).
void jacobi_unit(uint u, uint kind) {
  if (!unit_active(u)) return;
  uvec2 ab = unit_bodies(u);
  BodyState a = solver_body(ab.x);
  BodyState b = solver_body(ab.y);
  vec3 va = a.v;
  vec3 wa = a.w;
  vec3 vb = b.v;
  vec3 wb = b.w;
  unit_sweep(u, kind, a, b);
  unit_dv[4u * u] = vec4(a.v - va, 0.0f);
  unit_dv[4u * u + 1u] = vec4(a.w - wa, 0.0f);
  unit_dv[4u * u + 2u] = vec4(b.v - vb, 0.0f);
  unit_dv[4u * u + 3u] = vec4(b.w - wb, 0.0f);
}

void jacobi_body(uint b) {
  uvec2 r = body_range[b];
  if (r.y <= r.x) return;
  vec3 dv = vec3(0.0f);
  vec3 dw = vec3(0.0f);
  for (uint s = r.x; s < r.y; ++s) {
    uint e = sort_values[s];
    uint slot = 4u * (e >> 1u) + 2u * (e & 1u);
    dv += vec3(unit_dv[slot]);
    dw += vec3(unit_dv[slot + 1u]);
  }
  float inv_n = 1.0f / float(r.y - r.x);
  body_vel[b] = vec4(vec3(body_vel[b]) + inv_n * dv, 0.0f);
  body_omega[b] = vec4(vec3(body_omega[b]) + inv_n * dw, 0.0f);
}
