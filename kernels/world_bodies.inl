// Per-body stage functions of the world step: set-up (bounding boxes, sweep keys, world
// inertia), the velocity update, integration, and how the solver's rows see a body. Included
// inside an environment that provides the buffers by name (shaders/world_common.glsl on the
// GPU, host/cpu/world_env.h on the CPU); layouts in kernels/world_layout.h, the rigid-body
// maths in kernels/rigid_body.h.
//
// Two body kinds share the index space: rigid bodies below R = params.kinds.x, particles from
// R on. A particle is a point mass with a radius: the functions below give it no rotation
// (its collider is an unrotated sphere, its row state has w = 0 and I^-1 = 0), so every row,
// pair test and scheme written for rigid bodies serves particles unchanged, and nothing
// rotational is stored or read for them.

bool is_particle(uint i) {
  return i >= params.kinds.x;
}

bool body_dynamic(uint i) {
  return body_vel[i].w > 0.0f;
}

Collider body_collider(uint i) {
  Collider c;
  c.type = body_info[i].x;
  c.pos = vec3(body_pos[i]);
  if (is_particle(i)) {
    c.rot = vec4(0.0f, 0.0f, 0.0f, 1.0f);
    c.dims = vec4(0.0f, 0.0f, 0.0f, body_pos[i].w);
  } else {
    c.rot = rigid_rot[i];
    c.dims = rigid_dims[i];
  }
  return c;
}

// Rigid bodies the sweep starts from (planes are tested against every body separately;
// shapeless bodies never collide; particles are found by the sweeps of rigid bodies and by
// the particle grid, never sweep themselves).
bool body_sweeps(uint i) {
  if (is_particle(i)) return false;
  uint s = body_info[i].x;
  return s != VKPHYS_SHAPE_PLANE && s != VKPHYS_SHAPE_NONE;
}

// The body's bounding box, grown by half the contact margin or by its speculative reach if that
// is larger (rigid bodies: body_setup, body_reach_setup).
void body_bounds(uint i, KOUT(vec3) lo, KOUT(vec3) hi) {
  if (is_particle(i)) {
    vec4 p = body_pos[i];
    vec3 reach = vec3(p.w + 0.5f * params.contact.x);
    lo = vec3(p) - reach;
    hi = vec3(p) + reach;
  } else {
    lo = vec3(rigid_aabb[2u * i]);
    hi = vec3(rigid_aabb[2u * i + 1u]);
  }
}

// ---- set-up: AABB, sweep key (sortable min x), world inverse inertia -------------------------
void body_setup(uint i) {
  uint key = 0xFFFFFFFFu;  // planes and shapeless bodies sort last and are skipped
  if (is_particle(i)) {
    // The very min x the sweep tests against (body_bounds), so that the sorted keys bound the
    // sweep's walks exactly (kernels/world_broadphase.inl).
    vec3 lo;
    vec3 hi;
    body_bounds(i, lo, hi);
    key = float_sort_key(lo.x);
  } else {
    vec3 lo = vec3(0.0f);
    vec3 hi = vec3(0.0f);
    if (body_sweeps(i)) {
      collider_aabb(body_collider(i), 0.5f * params.contact.x, lo, hi);
      key = float_sort_key(lo.x);
    }
    rigid_aabb[2u * i] = vec4(lo, 0.0f);
    rigid_aabb[2u * i + 1u] = vec4(hi, 0.0f);
    mat3 ii = world_inverse_inertia(rigid_rot[i], vec3(rigid_inertia[i]));
    rigid_iinv[3u * i] = vec4(ii[0], 0.0f);
    rigid_iinv[3u * i + 1u] = vec4(ii[1], 0.0f);
    rigid_iinv[3u * i + 2u] = vec4(ii[2], 0.0f);
  }
  sort_keys[i] = key;
  sort_values[i] = i;
  // No row holds the particle yet this step (kernels/world_ode.inl, ode_mark_unit).
  if (is_particle(i) && params.ode.x != VKPHYS_INTEGRATOR_SYMPLECTIC) {
    ode_touched[i - params.kinds.x] = 0u;
  }
}

mat3 body_world_iinv(uint i) {
  return mat3(vec3(rigid_iinv[3u * i]), vec3(rigid_iinv[3u * i + 1u]),
              vec3(rigid_iinv[3u * i + 2u]));
}

// The body's velocities and inverse mass, without its inverse inertia (left zero): what a sweep
// of contact rows needs, whose prepared parts already hold I^-1 (r x n) (kernels/rows.h).
BodyState load_velocities(uint i) {
  vec4 v = body_vel[i];
  BodyState s;
  s.v = vec3(v);
  s.im = v.w;
  s.w = is_particle(i) ? vec3(0.0f) : vec3(rigid_omega[i]);
  s.ii = mat3(0.0f);
  return s;
}

BodyState load_body(uint i) {
  BodyState s = load_velocities(i);
  if (!is_particle(i)) s.ii = body_world_iinv(i);
  return s;
}

// The body as the solver's rows see it: a unit solved on mass-split copies (unit_split) sees a
// body with n units in the split set as n times its inverse mass and inertia (kernels/
// world_units.inl), and its rows' effective masses must be computed with those split masses, or
// every update overshoots n-fold. body_range[i] spans the body's entries in the split set:
// Jacobi's every unit, the coloured scheme's overflow colour (kernels/world_coloring.inl); a
// unit solved in place (`split` false) sees the body's own masses.
float body_share(uint i, bool split) {
  if (!split) return 1.0f;
  uvec2 r = body_range[i];
  return float(max(r.y - r.x, 1u));
}

// Whether unit u runs on mass-split copies of its bodies: every unit in the Jacobi scheme; in the
// coloured scheme the overflow colour's units (those the colouring left uncoloured, which
// kernels/world_coloring.inl solves by mass-split Jacobi), known once the colouring has run.
bool unit_split(uint u) {
  if (params.modes.x == VKPHYS_SCHEME_JACOBI) return true;
  return params.modes.x == VKPHYS_SCHEME_COLORED && unit_color[u] == VKPHYS_UNCOLORED;
}

// The body as a sweep of prepared contact rows sees it: solver_body's velocities and inverse
// mass without the inverse inertia (left zero, as load_velocities): the rows' parts hold the
// split I^-1 (r x n) already (prepare_contact), and loading and scaling the 3x3 for every
// manifold and sweep was 5% of a Jacobi step's instructions (helper-53).
BodyState solver_velocities(uint i, bool split) {
  BodyState s = load_velocities(i);
  s.im *= body_share(i, split);
  return s;
}

BodyState solver_body(uint i, bool split) {
  BodyState s = load_body(i);
  float share = body_share(i, split);
  s.im *= share;
  s.ii = share * s.ii;
  return s;
}

// Static bodies are never written: many units may share one in the same colour. `s` must come
// from load_body (its im is the body's own 1/m).
void store_body(uint i, BodyState s) {
  if (s.im <= 0.0f) return;
  body_vel[i] = vec4(s.v, s.im);
  if (!is_particle(i)) rigid_omega[i] = vec4(s.w, 0.0f);
}

// The body's velocities at the start of the step (after an impact pass, if any), with its inverse
// mass; no inverse inertia (left zero, as load_velocities): the targets that read these want the
// velocities alone (the contact targets run every substep).
BodyState start_body(uint i) {
  BodyState s = load_velocities(i);
  s.v = vec3(body_start[i]);
  if (!is_particle(i)) s.w = vec3(rigid_omega_start[i]);
  return s;
}

// ---- velocity update: forces, fields, drag and the gyroscopic term ----------------------------
// The external acceleration of body i at the start of the step (kernels/integrate.h): gravity,
// the central field, the applied force over the mass.
vec3 body_acceleration(uint i, float im) {
  vec3 a = vec3(params.gravity_dt) +
           central_acceleration(vec3(body_pos[i]), params.central, params.drive.x);
  if (!is_particle(i)) a += im * vec3(rigid_force[i]);
  return a;
}

// ---- speculative reach: how far a rigid body may travel toward anything within the step ------
// A contact is only a row if the narrowphase finds it, and the narrowphase runs once a step (the
// substeps keep its anchors, kernels/contact_manifold.inl), from the step's start. A body that
// crosses more than the contact margin in a step reaches a surface the step did not know of: the
// rag-doll at seed 004's 30 Hz falls 15 cm a step at 4.4 m/s, finds the floor only once inside
// the 2 cm margin, lands up to 10 cm into it and opens its pins by 2.3 cm on that step; a ball at
// 10 m/s at 60 Hz (17 cm a step) passes through a 2 cm plate between two steps. So each rigid
// body gets a speculative reach, the distance any point of it can move in the step (Jolt's
// velocity-expanded bounds with its speculative contact distance; Bepu's speculative margin):
//     e_i = min(H (|v| + |a| H + |w| L), 2 R),
// H the step (not the substep), v and w its velocities, a its external acceleration (gravity,
// the central field, the applied force: the step adds a H to v before it moves), L the lever of
// its rotation (collider_lever: a sphere's turn moves none of its surface along the normal),
// R its bounding radius. A pair's speculative distance is then
//     D = max(margin, e_a + e_b)
// (pair_margin, kernels/world_narrowphase.inl; particles and static bodies reach 0): any two
// points closing within the step are found while their gap is below D, and a pair at rest keeps
// the plain margin (g H^2 is 2.7 mm at 60 Hz, below the margin: nothing changes for a resting
// pile). The broadphase box grows by max(margin / 2, e_i) on every side: two boxes grown so
// overlap whenever the shapes are closer than D along any axis, since D <= pad_a + pad_b; and a
// box reaching within margin / 2 of a plane (aabb_meets_plane) reaches D = max(margin, e_i)
// of it. Isotropic rather than along v: D is a distance in any direction (the normal is not known
// before the pair test), and a box grown only forward would miss a pair whose speculative row the
// narrowphase keeps (harmless, as it separates, but the two stages would disagree and the pair
// list would depend on the direction of motion).
// The cap 2 R: a body looks ahead at most its own size in a step, so a fast body's box is at
// most five of its widths across and meets a bounded number of neighbours, and a speculative row
// (a half-space at the nearest feature) cannot stop a body far from anything it would touch.
// In a world cut into slabs (kernels/world_broadphase.inl) every box must also stay within the
// extent the slab width was made for (0.8 W, host/sim/world_params.cpp, sweep_slab_width), so
// there the reach is also at most 0.4 W less the body's half extent along x and z (with margin
// / 2 below it by construction); a pile of equal spheres then keeps the plain margin.
// The restitution and friction of a speculative row stay those of a contact that closes within
// the step (closes_on_impact, impact_rebound, contact_touches, kernels/contact_manifold.inl).
// Computed only with solver.speculative_reach (body_reach_setup's pass is recorded only then; on
// by default, off for version-1 files); off, body_setup's reach is 0 and every pair keeps the
// margin. Measured at seed 004's 30 Hz, 1 x 2, the rag-doll's worst pin gap after every step
// falls from 2.32 to 0.41 cm and its landing depth from 12.7 cm to the resting sink; its landing,
// now stopped at the floor in one step, overshot the locked shoulder limits by 0.31-0.33 rad
// while those were swept after the joint tree, 0.14 with them in the tree's solve
// (joint_tree_row_mask, kernels/world_layout.h), which made the reach the default.
float speculative_reach(uint i, Collider c) {
  float step = params.gravity_dt.w * params.contact.w;
  float im = body_vel[i].w;
  vec3 acc = im > 0.0f ? body_acceleration(i, im) : vec3(0.0f);
  float speed = length(vec3(body_vel[i])) + length(acc) * step +
                length(vec3(rigid_omega[i])) * collider_lever(c);
  float reach = min(speed * step, 2.0f * collider_radius(c));
  if (params.sweep.x != 0.0f) {
    vec3 ext = collider_half_extent(c);
    reach = min(reach, 0.4f * params.sweep.x - max(ext.x, ext.z));
  }
  return max(reach, 0.0f);
}

// Body i's speculative reach this step (rigid bodies that sweep; 0 for particles, planes,
// shapeless bodies).
float body_reach(uint i) {
  return is_particle(i) ? 0.0f : rigid_aabb[2u * i].w;
}

// Grows rigid body i's box (body_setup's) by its speculative reach where that exceeds half the
// margin, keeps the reach in rigid_aabb[2i].w for the narrowphase (pair_margin) and re-keys the
// sweep. A pass of its own after body_setup, run only with solver.speculative_reach (the CPU
// backend's set-up loop; on the GPU shaders/world_reach.comp, recorded only then): inside the
// body kernel, whose one pipeline serves every per-body stage, this code made lavapipe (Mesa
// 22.3) re-specialise that pipeline on every dispatch even with the reach off (its uniform
// inlining clones, optimises and rebuilds the shader per dispatch once it judges the inlined
// variant worth it: measured, the pyramid of 10's setup 0.04 -> 7-11 ms a step on one thread,
// one shader-cache entry opened 15 times a step). Kept apart, the body kernel is main's.
void body_reach_setup(uint i) {
  if (is_particle(i) || !body_sweeps(i)) return;
  Collider c = body_collider(i);
  float reach = speculative_reach(i, c);
  vec3 lo;
  vec3 hi;
  collider_aabb(c, max(0.5f * params.contact.x, reach), lo, hi);
  rigid_aabb[2u * i] = vec4(lo, reach);
  rigid_aabb[2u * i + 1u] = vec4(hi, 0.0f);
  sort_keys[i] = float_sort_key(lo.x);
}

// Quadratic drag's 1/2 rho C_D S for body i moving along v.
float body_quadratic_drag(uint i, vec3 v) {
  float rho_cd = params.drag.y;
  float speed = length(v);
  if (rho_cd <= 0.0f || speed <= 0.0f) return 0.0f;
  return rho_cd * drag_area(body_collider(i), v / speed);
}

// Whether particles feel forces that depend on other particles (force springs, the wind on
// triangles; kernels/world_ode.inl particle_force): symplectic Euler then runs spring_force_pass.
bool particle_forces_on() {
  return params.ode.y > 0u || params.aero.x > 0u;
}

// save_start: keep v_k, w_k for the row targets first (the second solve of the split impulse
// re-predicts from the saved values instead).
void body_predict(uint i, bool save_start) {
  vec4 vel = body_vel[i];
  vec3 v = vec3(vel);
  if (save_start) {
    body_start[i] = vec4(v, 0.0f);
  } else {
    v = vec3(body_start[i]);
  }
  float im = vel.w;
  float h = params.gravity_dt.w;
  // An explicit integrator takes the particles' forces in kernels/world_ode.inl.
  if (is_particle(i) && params.ode.x != VKPHYS_INTEGRATOR_SYMPLECTIC) return;
  vec3 accel = body_acceleration(i, im);
  // Symplectic Euler's force springs and wind: their f/m at the step's start (spring_force_pass).
  if (is_particle(i) && particle_forces_on()) accel += vec3(ode_deriv[i - params.kinds.x]);
  body_vel[i] =
      vec4(predict_velocity(v, im, accel, params.drag.x, body_quadratic_drag(i, v), h), im);
  if (is_particle(i)) return;
  vec3 w = vec3(rigid_omega[i]);
  if (save_start) {
    rigid_omega_start[i] = vec4(w, 0.0f);
  } else {
    w = vec3(rigid_omega_start[i]);
  }
  if (im > 0.0f) {
    w += h * (body_world_iinv(i) * vec3(rigid_torque[i]));
    if ((params.modes.w & VKPHYS_FLAG_GYROSCOPIC) != 0u) {
      w = gyroscopic_step(rigid_rot[i], w, vec3(rigid_inertia[i]), h);
    }
  }
  rigid_omega[i] = vec4(w, 0.0f);
}

// ---- driven motion: scheduled impulses and kinematic paths (host/sim/drive.h) ----------------
// One invocation, before the forces: impulse m adds J/m to v and I^-1 (p - x) x J to w. They run
// in order, so two impulses on one body add up.
void apply_impulses() {
  for (uint m = 0u; m < params.drive.z; ++m) {
    vec4 j = drive_impulses[2u * m];
    uint i = floatBitsToUint(j.w);
    vec4 vel = body_vel[i];
    body_vel[i] = vec4(vec3(vel) + vel.w * vec3(j), vel.w);
    if (!is_particle(i) && vel.w > 0.0f) {
      vec3 r = vec3(drive_impulses[2u * m + 1u]) - vec3(body_pos[i]);
      rigid_omega[i] = vec4(vec3(rigid_omega[i]) + body_world_iinv(i) * cross(r, vec3(j)), 0.0f);
    }
  }
}

// Kinematic path k, before the forces: its body moves with this step's path velocity, which
// the rows see like any body's (1/m = 0: nothing pushes back).
void drive_path_velocity(uint k) {
  vec4 v = drive_paths[4u * k];
  uint i = floatBitsToUint(v.w);
  body_vel[i] = vec4(vec3(v), 0.0f);
  if (!is_particle(i)) rigid_omega[i] = drive_paths[4u * k + 1u];
}

// Kinematic path k, at integration: the body lands exactly on its path (no drift).
void drive_path_pose(uint k) {
  uint i = floatBitsToUint(drive_paths[4u * k].w);
  body_pos[i] = vec4(vec3(drive_paths[4u * k + 2u]), body_pos[i].w);
  if (!is_particle(i)) rigid_rot[i] = drive_paths[4u * k + 3u];
}

// ---- integration: x += h v, q += h/2 [w, 0] q (with the split impulse's velocities if on) -----
// Where particle i ends the substep at velocity v (body_integrate; kernels/strain_limit.inl
// looks ahead with it).
vec3 particle_end_position(uint i, vec3 v) {
  float h = params.gravity_dt.w;
  if (params.ode.x != VKPHYS_INTEGRATOR_SYMPLECTIC && ode_touched[i - params.kinds.x] == 0u) {
    // The ODE's x (kernels/world_ode.inl), plus h times any velocity a later stage added.
    uint b = VKPHYS_ODE_STRIDE * (i - params.kinds.x);
    return vec3(ode_state[b + 5u]) + h * (v - vec3(ode_state[b + 6u]));
  }
  return integrate_position(vec3(body_pos[i]), v, h);
}

// ---- a state gone NaN or infinite ------------------------------------------------------------
// Every step checks the bodies where a stage leaves their state: the velocities the rows will
// see at the end of the first substep's prediction (body_predict and the ODE's end, and after
// Newton restitution's impact passes BODY_CHECK_PREDICTED, as the predict stage:
// world_body.comp, ode_pass), and the state each substep's integration leaves
// (positions, orientations and the velocities they came from) and the step's measured last
// sweep leaves (body_residual: what a relax sweep changed after integration), as the solve
// stage. The earliest stage's lowest such body goes into counters.nonfinite (nonfinite_code in
// kernels/stages.h), and the step commits nothing (step_undone). The GPU backend then restores
// the step's start, the last finite state, and names the step, the stage and the body, as the
// CPU backend's per-stage check does, without reading the state back each step. A later
// substep's prediction is checked at the integration that follows it, in the solve stage, where
// the per-stage check counts it too.
bool vec4_finite(vec4 v) {
  return !any(isnan(v)) && !any(isinf(v));
}

void flag_nonfinite(uint i, uint stage) {
  atomicMax(counters.nonfinite, nonfinite_code(i, stage));
}

// The velocities alone (the poses are checked at integration, and the fused solve, which
// measures the residual, binds no orientations).
void note_nonfinite_velocity(uint i, uint stage) {
  bool ok = vec4_finite(body_vel[i]);
  if (!is_particle(i)) ok = ok && vec4_finite(rigid_omega[i]);
  if (!ok) flag_nonfinite(i, stage);
}

void note_nonfinite(uint i) {
  bool ok = vec4_finite(body_pos[i]) && vec4_finite(body_vel[i]);
  if (!is_particle(i)) ok = ok && vec4_finite(rigid_rot[i]) && vec4_finite(rigid_omega[i]);
  if (!ok) flag_nonfinite(i, STAGE_SOLVE);
}

void body_integrate(uint i) {
  vec4 vel = body_vel[i];
  if (vel.w <= 0.0f) return;
  vec3 v = vec3(vel);
  float h = params.gravity_dt.w;
  if (is_particle(i)) {
    body_pos[i] = vec4(particle_end_position(i, v), body_pos[i].w);
    note_nonfinite(i);
    return;
  }
  vec3 w = vec3(rigid_omega[i]);
  if ((params.modes.w & VKPHYS_FLAG_SPLIT) != 0u) {
    v = vec3(rigid_vel_pos[2u * i]);
    w = vec3(rigid_vel_pos[2u * i + 1u]);
  }
  body_pos[i] = vec4(integrate_position(vec3(body_pos[i]), v, h), body_pos[i].w);
  rigid_rot[i] = quat_integrate(rigid_rot[i], w, h);
  note_nonfinite(i);
}

// Split impulse: after the position solve, keep its velocities for the integration (rigid
// bodies only: scenes with particles do not take the split impulse, host/sim/world_params.cpp).
void body_save_position_velocity(uint i) {
  if (is_particle(i)) return;
  rigid_vel_pos[2u * i] = vec4(vec3(body_vel[i]), 0.0f);
  rigid_vel_pos[2u * i + 1u] = rigid_omega[i];
}
