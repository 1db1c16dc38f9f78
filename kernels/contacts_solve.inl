// Stage functions included *inside* an environment that provides the buffers by name: the
// shaders declare them as std430 buffer blocks, the CPU backend (host/cpu/particle_env.h) as
// member pointers of a struct that includes this file in its body, so the code below compiles
// unchanged as GLSL and as C++ member functions. The pure maths it calls is in kernels/*.h.
// Buffers used: params, vel_invmass (input), vel_out, contact_offset, contact_bodies,
//   contact_geom, contact_target, contact_lambda
// (layouts in kernels/layout.h).

// End of body b's stored contacts (the count may exceed capacity before a regrow).
uint contact_end(uint b) { return min(contact_offset[b + 1u], params.counts.w); }

// The impulse a contact's accumulated lambda applies to its body `b`, in world coordinates.
vec3 contact_impulse_on(uint b, uint c, vec3 lambda) {
  uint other = contact_bodies[c].y;
  bool b_second = (other & VKPHYS_PLANE_BIT) != 0u || b > other;
  vec3 n = vec3(contact_geom[c]);
  vec3 t1;
  vec3 t2;
  tangent_basis(n, t1, t2);
  vec3 impulse = lambda.x * n + lambda.y * t1 + lambda.z * t2;
  return b_second ? impulse : -impulse;
}

// ---- warm start: v = v* + M^-1 G^T lambda_warm for body b (seed 001, digest B2.6) -----------
void warm_start_body(uint b) {
  vec4 vb = vel_invmass[b];
  vec3 dv = vec3(0.0f);
  for (uint c = contact_offset[b]; c < contact_end(b); ++c) {
    dv += contact_impulse_on(b, c, vec3(contact_lambda[c]));
  }
  vel_out[b] = vec4(vec3(vb) + vb.w * dv, vb.w);
}

// ---- solver: one Jacobi iteration for body b (mass splitting, see contact_row.h) ----------
// Reads every velocity from vel_invmass, writes b's new velocity to vel_out and updates the
// accumulated impulses of b's own directed contacts (each copy is written by its owner only).
void solve_body(uint b) {
  vec4 vb = vel_invmass[b];
  uint begin = contact_offset[b];
  uint end = contact_end(b);
  float share_b = float(end - begin) * vb.w;
  bool friction = params.solver.z != 0.0f;
  vec3 dv = vec3(0.0f);
  for (uint c = begin; c < end; ++c) {
    uint other = contact_bodies[c].y;
    bool plane = (other & VKPHYS_PLANE_BIT) != 0u;
    vec4 vo = plane ? vec4(0.0f) : vel_invmass[other];
    float share_o = plane ? 0.0f : float(contact_end(other) - contact_offset[other]) * vo.w;
    bool b_second = plane || b > other;
    vec3 rel = b_second ? vec3(vb) - vec3(vo) : vec3(vo) - vec3(vb);
    vec3 n = vec3(contact_geom[c]);
    vec3 t1;
    vec3 t2;
    tangent_basis(n, t1, t2);
    vec4 lam = contact_lambda[c];
    vec3 old = vec3(lam);
    vec3 u = vec3(dot(rel, n), dot(rel, t1), dot(rel, t2));
    vec3 now = contact_row_update(old, contact_target[c], lam.w, u, share_b + share_o,
                                  params.solver.x, friction);
    contact_lambda[c] = vec4(now, lam.w);
    dv += contact_impulse_on(b, c, now - old);
  }
  vel_out[b] = vec4(vec3(vb) + vb.w * dv, vb.w);
}
