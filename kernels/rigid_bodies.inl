// Rigid-body stage functions, per body: set-up (bounding box, sort key, world inertia), the
// velocity update, integration. Included inside an environment that provides the buffers by
// name (shaders/rigid_common.glsl on the GPU, host/cpu/rigid_env.h on the CPU); layouts in
// kernels/rigid_layout.h, the maths in kernels/rigid_body.h.

Collider body_collider(uint i) {
  Collider c;
  c.type = body_shape[i].x;
  c.pos = vec3(body_pos[i]);
  c.rot = body_rot[i];
  c.dims = body_dims[i];
  return c;
}

// True for shapes the sweep handles (planes are tested against every body separately; shapeless
// bodies never collide).
bool body_sweeps(uint i) {
  uint s = body_shape[i].x;
  return s != VKPHYS_SHAPE_PLANE && s != VKPHYS_SHAPE_NONE;
}

// ---- set-up: AABB, sweep key (sortable min x), world inverse inertia -------------------------
void body_setup(uint i) {
  vec3 lo = vec3(0.0f);
  vec3 hi = vec3(0.0f);
  uint key = 0xFFFFFFFFu;  // planes and shapeless bodies sort last and are skipped
  if (body_sweeps(i)) {
    collider_aabb(body_collider(i), 0.5f * params.contact.x, lo, hi);
    key = float_sort_key(lo.x);
  }
  body_aabb[2u * i] = vec4(lo, 0.0f);
  body_aabb[2u * i + 1u] = vec4(hi, 0.0f);
  sort_keys[i] = key;
  sort_values[i] = i;
  mat3 ii = world_inverse_inertia(body_rot[i], vec3(body_inertia[i]));
  body_iinv[3u * i] = vec4(ii[0], 0.0f);
  body_iinv[3u * i + 1u] = vec4(ii[1], 0.0f);
  body_iinv[3u * i + 2u] = vec4(ii[2], 0.0f);
}

mat3 body_world_iinv(uint i) {
  return mat3(vec3(body_iinv[3u * i]), vec3(body_iinv[3u * i + 1u]), vec3(body_iinv[3u * i + 2u]));
}

BodyState load_body(uint i) {
  BodyState s;
  s.v = vec3(body_vel[i]);
  s.w = vec3(body_omega[i]);
  s.im = body_pos[i].w;
  s.ii = body_world_iinv(i);
  return s;
}

// The body as the solver's rows see it: in the Jacobi scheme a body with n units appears to
// each with n times its inverse mass and inertia (mass splitting, kernels/rigid_units.inl), and
// the rows' effective masses must be computed with those split masses, or every Jacobi update
// overshoots n-fold.
BodyState solver_body(uint i) {
  BodyState s = load_body(i);
  if (params.modes.x == VKPHYS_SCHEME_JACOBI) {
    uvec2 r = body_range[i];
    float share = float(max(r.y - r.x, 1u));
    s.im *= share;
    s.ii = share * s.ii;
  }
  return s;
}

// Static bodies are never written: many units may share one in the same colour.
void store_body(uint i, BodyState s) {
  if (s.im <= 0.0f) return;
  body_vel[i] = vec4(s.v, 0.0f);
  body_omega[i] = vec4(s.w, 0.0f);
}

// The body's velocities at the start of the step (after an impact pass, if any).
BodyState start_body(uint i) {
  BodyState s = load_body(i);
  s.v = vec3(body_start[2u * i]);
  s.w = vec3(body_start[2u * i + 1u]);
  return s;
}

// ---- velocity update: gravity and the gyroscopic term -----------------------------------------
// save_start: keep v_k, w_k for the row targets first (the second solve of the split impulse
// re-predicts from the saved values instead).
void body_predict(uint i, bool save_start) {
  vec3 v = vec3(body_vel[i]);
  vec3 w = vec3(body_omega[i]);
  if (save_start) {
    body_start[2u * i] = vec4(v, 0.0f);
    body_start[2u * i + 1u] = vec4(w, 0.0f);
  } else {
    v = vec3(body_start[2u * i]);
    w = vec3(body_start[2u * i + 1u]);
  }
  float im = body_pos[i].w;
  float h = params.gravity_dt.w;
  v = rigid_predict_velocity(v, im, vec3(params.gravity_dt), h);
  if (im > 0.0f && (params.modes.w & VKPHYS_FLAG_GYROSCOPIC) != 0u) {
    w = gyroscopic_step(body_rot[i], w, vec3(body_inertia[i]), h);
  }
  body_vel[i] = vec4(v, 0.0f);
  body_omega[i] = vec4(w, 0.0f);
}

// ---- integration: x += h v, q += h/2 [w, 0] q (with the split impulse's velocities if on) -----
void body_integrate(uint i) {
  if (body_pos[i].w <= 0.0f) return;
  vec3 v = vec3(body_vel[i]);
  vec3 w = vec3(body_omega[i]);
  if ((params.modes.w & VKPHYS_FLAG_SPLIT) != 0u) {
    v = vec3(body_vel_pos[2u * i]);
    w = vec3(body_vel_pos[2u * i + 1u]);
  }
  float h = params.gravity_dt.w;
  body_pos[i] = vec4(vec3(body_pos[i]) + h * v, body_pos[i].w);
  body_rot[i] = quat_integrate(body_rot[i], w, h);
}

// Split impulse: after the position solve, keep its velocities for the integration.
void body_save_position_velocity(uint i) {
  body_vel_pos[2u * i] = body_vel[i];
  body_vel_pos[2u * i + 1u] = body_omega[i];
}
