// The solver's drivers: a unit (joint, contact manifold or particle contact) run in place on
// the bodies' velocities (sequential and coloured schemes), or on mass-split copies whose
// average each body then takes (Jacobi). Environment: kernels/world_bodies.inl; the unit kinds:
// kernels/joints.inl, contact_manifold.inl, contact_particle.inl. Every kind is one prepare and
// one sweep function; the colouring, the incidence lists and the averaging serve them all.

void prepare_unit(uint u) {
  if (!unit_active(u)) return;
  uint j = params.counts.y;
  uint c = pcontact_unit_base();
  if (u < j) {
    prepare_joint(u);
  } else if (u < c) {
    prepare_contact(u - j);
  } else {
    prepare_pcontact(u - c);
  }
}

void unit_sweep(uint u, uint kind, KINOUT(BodyState) a, KINOUT(BodyState) b) {
  uint j = params.counts.y;
  uint c = pcontact_unit_base();
  if (u < j) {
    if (kind != KIND_IMPACT) joint_rows_sweep(u, kind, a, b);
  } else if (u >= c) {
    if (kind == KIND_IMPACT) {
      pcontact_impact(u - c, a, b);
    } else {
      pcontact_rows(u - c, kind, a, b);
    }
  } else if (kind == KIND_IMPACT) {
    contact_impacts(u - j, a, b);
  } else {
    contact_rows(u - j, kind, a, b);
  }
}

// Jacobi: where unit u keeps its copies' velocity changes (4 entries for joints and manifolds,
// 2 for particle contacts, which have no angular parts) and how many entries a side takes.
uint unit_dv_slot(uint u) {
  uint c = pcontact_unit_base();
  return u < c ? 4u * u : 4u * c + 2u * (u - c);
}
uint unit_dv_side(uint u) { return u < pcontact_unit_base() ? 2u : 1u; }

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
  uint slot = unit_dv_slot(u);
  if (unit_dv_side(u) == 1u) {
    unit_dv[slot] = vec4(a.v - va, 0.0f);
    unit_dv[slot + 1u] = vec4(b.v - vb, 0.0f);
    return;
  }
  unit_dv[slot] = vec4(a.v - va, 0.0f);
  unit_dv[slot + 1u] = vec4(a.w - wa, 0.0f);
  unit_dv[slot + 2u] = vec4(b.v - vb, 0.0f);
  unit_dv[slot + 3u] = vec4(b.w - wb, 0.0f);
}

void jacobi_body(uint b) {
  uvec2 r = body_range[b];
  if (r.y <= r.x) return;
  vec3 dv = vec3(0.0f);
  vec3 dw = vec3(0.0f);
  for (uint s = r.x; s < r.y; ++s) {
    uint e = sort_values[s];
    uint u = e >> 1u;
    uint side = unit_dv_side(u);
    uint slot = unit_dv_slot(u) + side * (e & 1u);
    dv += vec3(unit_dv[slot]);
    if (side == 2u) dw += vec3(unit_dv[slot + 1u]);
  }
  float inv_n = 1.0f / float(r.y - r.x);
  vec4 vel = body_vel[b];
  body_vel[b] = vec4(vec3(vel) + inv_n * dv, vel.w);
  if (!is_particle(b)) rigid_omega[b] = vec4(vec3(rigid_omega[b]) + inv_n * dw, 0.0f);
}
