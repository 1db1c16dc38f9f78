// Force springs and seed 003's explicit integrators for the particles: stage functions over
// particle world indices i (R <= i < N), included like the other .inl files (buffers by name,
// kernels/world_layout.h). The physics is kernels/spring_force.h (the force), kernels/aero.h
// (the wind on triangles) and kernels/ode.h (the methods' tables); this file only moves states
// through the buffers.
//
// How an explicit method composes with the world step (per step or substep of size H):
//   0. ode_mark_unit: every particle that a live unit holds this step (a contact, a compliant
//      spring) is marked; body_setup cleared the marks.
//   1. body_predict saves every body's v at the start of the step (the rows' targets use it)
//      and takes the rigid bodies' forces symplectically as before; it leaves particles alone.
//   2. ode_begin gives each marked particle the world's symplectic velocity update
//      v* = v + H a(x0, v0) (springs included) and freezes it at (x0, v0) for the stages; then
//      n ODE steps of h = H / n over the unmarked particles, each S stages of [ode_eval,
//      ode_stage] (one pass each: a stage reads every neighbour's stage state, so the whole
//      state must be written before the next evaluation), then ode_end: (x_ode, v*) is the
//      ODE's result, body_vel = v*, and body_pos is back at the step's start for the rows.
//   3. the solve adds the constraint impulses to the marked particles: v' = v* + M^-1 J^T lambda.
//   4. body_integrate: marked particles x += H v' (the symplectic step); the others land on
//      x_ode (+ H (v' - v*), which no row makes nonzero).
// Why marked particles leave the method: a row's impulse is solved for the symplectic step's
// kinematics (x' = x + H v'). Run through an explicit method instead, a constant contact force
// (a particle resting on a plane) is an impulse the method's position update does not cancel:
// measured, a particle at rest on a plane at 60 Hz jittered by 1.4 mm (rk4) and 2.7 mm (euler)
// with velocities of g H and 2 g H; moving only a method's own share of the impulse into x
// (1/2 for rk4: exact at rest) let a dropped particle sink 6 cm into the plane instead of the
// symplectic step's 1.6 cm. So the forces of free particles and force-spring networks are
// integrated to the method's order, and anything a constraint holds is the world's step.
// Symplectic Euler with force springs or wind skips all of this: spring_force_pass writes their
// f/m into ode_deriv before body_predict, which adds it to gravity and the fields.

// The other end of a particle's incident force-spring entry (fspring_incident: spring << 1 | the
// particle's side, 0 for a, 1 for b).
uint spring_other(uint entry) {
  uvec2 ab = fspring_ends[entry >> 1u];
  return (entry & 1u) != 0u ? ab.x : ab.y;
}

// The force springs' total force on particle i at the current body_pos and body_vel, summed in
// spring order (fixed, so both backends add in the same order).
vec3 particle_spring_force(uint i) {
  uint p = i - params.kinds.x;
  vec3 f = vec3(0.0f);
  for (uint e = fspring_offsets[p]; e < fspring_offsets[p + 1u]; ++e) {
    uint entry = fspring_incident[e];
    uint s = entry >> 1u;
    uvec2 ab = fspring_ends[s];
    vec3 fa = damped_spring_force(vec3(body_pos[ab.x]), vec3(body_pos[ab.y]), vec3(body_vel[ab.x]),
                                  vec3(body_vel[ab.y]), fspring_params[s]);
    f += (entry & 1u) != 0u ? -fa : fa;
  }
  return f;
}

// The wind's force on particle i: a third of each of its triangles' force (kernels/aero.h),
// summed in triangle order. Each of a triangle's three particles evaluates the triangle itself
// (the same function of the same values, so the same floats): a gather, no atomics.
vec3 particle_wind_force(uint i) {
  if (params.aero.x == 0u) return vec3(0.0f);
  uint p = i - params.kinds.x;
  vec3 wind = vec3(params.wind);
  vec3 coeffs = vec3(params.drag.z, params.drag.w, params.wind.w);
  vec3 f = vec3(0.0f);
  for (uint e = wind_offsets[p]; e < wind_offsets[p + 1u]; ++e) {
    uvec4 t = wind_tris[wind_incident[e]];
    f += triangle_wind_force(vec3(body_pos[t.x]), vec3(body_pos[t.y]), vec3(body_pos[t.z]),
                             vec3(body_vel[t.x]), vec3(body_vel[t.y]), vec3(body_vel[t.z]), wind,
                             coeffs, t.w);
  }
  return f * (1.0f / 3.0f);
}

// Every force on particle i that depends on other particles' states: the force springs and
// the wind.
vec3 particle_force(uint i) {
  return particle_spring_force(i) + particle_wind_force(i);
}

// Symplectic Euler's particle forces (springs and wind): f/m at the step's start state.
void spring_force_pass(uint i) {
  float im = body_vel[i].w;
  vec3 a = im > 0.0f ? im * particle_force(i) : vec3(0.0f);
  ode_deriv[i - params.kinds.x] = vec4(a, 0.0f);
}

// a(x, v) of particle i at its current (stage) state: gravity, the central field, linear drag,
// quadratic drag (explicitly here: the ODE's stages are what make it accurate), the springs and
// the wind.
vec3 ode_acceleration(uint i) {
  vec4 vel = body_vel[i];
  float im = vel.w;
  if (im <= 0.0f) return vec3(0.0f);  // static and kinematic particles keep their velocity
  vec3 v = vec3(vel);
  vec3 a = body_acceleration(i, im) - (params.drag.x * im) * v + im * particle_force(i);
  float quad = body_quadratic_drag(i, v);
  if (quad > 0.0f) a -= (quad * im * length(v)) * v;
  return a;
}

uint ode_base(uint i) {
  return VKPHYS_ODE_STRIDE * (i - params.kinds.x);
}

bool ode_marked(uint i) {
  return ode_touched[i - params.kinds.x] != 0u;
}

// Unit u's particles take the symplectic step this step (several units may write one flag:
// they all write 1).
void ode_mark_unit(uint u) {
  if (!unit_active(u)) return;
  uvec2 ab = unit_bodies(u);
  if (is_particle(ab.x)) ode_touched[ab.x - params.kinds.x] = 1u;
  if (is_particle(ab.y)) ode_touched[ab.y - params.kinds.x] = 1u;
}

// Reads only (x0, v0) of every particle (no stage has moved one yet) and writes the particle's
// own slots: a marked particle's symplectic v* (the world's predict_velocity, springs added to
// the acceleration) goes to slot 6.
void ode_begin(uint i) {
  uint b = ode_base(i);
  ode_state[b] = body_pos[i];
  ode_state[b + 1u] = body_pos[i];
  ode_state[b + 2u] = body_vel[i];
  if (!ode_marked(i)) return;
  vec4 vel = body_vel[i];
  float im = vel.w;
  vec3 v = vec3(vel);
  vec3 accel = body_acceleration(i, im);
  if (im > 0.0f) accel += im * particle_force(i);
  float h = params.gravity_dt.w;
  ode_state[b + 6u] =
      vec4(predict_velocity(v, im, accel, params.drag.x, body_quadratic_drag(i, v), h), im);
}

void ode_eval(uint i) {
  if (ode_marked(i)) return;
  ode_deriv[i - params.kinds.x] = vec4(ode_acceleration(i), 0.0f);
}

// Stage s of an ODE step of size h: k_s = (v_s, a_s) joins the weighted sum; then either the
// next stage's state x0 + offset h k_s, or (last stage) the step's result, which `role`
// (kernels/ode.h VKPHYS_ODE_*) places.
void ode_stage(uint i, uint s, float h, uint role) {
  if (ode_marked(i)) return;  // frozen at (x0, v0): the symplectic step (ode_begin)
  uint method = params.ode.x;
  uint b = ode_base(i);
  vec3 kx = vec3(body_vel[i]);
  vec3 kv = vec3(ode_deriv[i - params.kinds.x]);
  float w = ode_weight(method, s);
  vec3 sum_x = w * kx;
  vec3 sum_v = w * kv;
  if (s > 0u) {
    sum_x = vec3(ode_state[b + 3u]) + sum_x;
    sum_v = vec3(ode_state[b + 4u]) + sum_v;
  }
  vec4 x0 = ode_state[b + 1u];
  vec4 v0 = ode_state[b + 2u];
  if (s + 1u < ode_stages(method)) {
    ode_state[b + 3u] = vec4(sum_x, 0.0f);
    ode_state[b + 4u] = vec4(sum_v, 0.0f);
    float o = ode_offset(method, s) * h;
    body_pos[i] = vec4(vec3(x0) + o * kx, x0.w);
    body_vel[i] = vec4(vec3(v0) + o * kv, v0.w);
    return;
  }
  vec3 x1 = vec3(x0) + h * sum_x;
  vec3 v1 = vec3(v0) + h * sum_v;
  if (role == VKPHYS_ODE_FULL) {
    ode_state[b + 5u] = vec4(x1, 0.0f);
    ode_state[b + 6u] = vec4(v1, 0.0f);
    body_pos[i] = x0;
    body_vel[i] = v0;
    return;
  }
  if (role == VKPHYS_ODE_HALF_SECOND) {
    // Seed 003's e = |x_a - x_b| over the particle's whole state (x [m], v [m/s]).
    vec3 dx = x1 - vec3(ode_state[b + 5u]);
    vec3 dv = v1 - vec3(ode_state[b + 6u]);
    float e = sqrt(dot(dx, dx) + dot(dv, dv));
    atomicMax(counters.ode_error, floatBitsToUint(e));
  }
  body_pos[i] = vec4(x1, x0.w);
  body_vel[i] = vec4(v1, v0.w);
  ode_state[b + 1u] = body_pos[i];
  ode_state[b + 2u] = body_vel[i];
}

// The ODE's result is kept for body_integrate; the contact and row stages see the particle at
// the step's start position with velocity v* (a marked particle's from ode_begin).
void ode_end(uint i) {
  uint b = ode_base(i);
  if (ode_marked(i)) {
    body_vel[i] = ode_state[b + 6u];
    return;
  }
  ode_state[b + 5u] = vec4(vec3(body_pos[i]), 0.0f);
  ode_state[b + 6u] = body_vel[i];
  body_pos[i] = ode_state[b];
}

// A recording whose steps can still double (host/sim/ode_control.h, may_redo): the host redoes
// a step whose error passed the tolerance (params.ode.w) from its start. The first particle's
// ODE_END flags it (every stage's atomicMax on ode_error came before this pass, and the error
// only grows over the substeps), so the step's commit is skipped (step_undone) and nothing of
// the rejected attempt, no contact's impulse, becomes the redo's warm start. Without the flag
// the GPU committed it and parted from the CPU by the last bits after a redo with contacts
// (tests/test_force_spring_parity.cpp, AdaptiveRedosWithContactsBitForBit).
void ode_flag_over(uint i) {
  if (i != params.kinds.x) return;
  if (uintBitsToFloat(counters.ode_error) > uintBitsToFloat(params.ode.w)) counters.ode_over = 1u;
}
