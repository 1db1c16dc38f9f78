// Stage functions included *inside* an environment that provides the buffers by name: the
// shaders declare them as std430 buffer blocks, the CPU backend (host/cpu/particle_env.h) as
// member pointers of a struct that includes this file in its body, so the code below compiles
// unchanged as GLSL and as C++ member functions. The pure maths it calls is in kernels/*.h.
// Buffers used: params, material, vel_start, contact_bodies, contact_geom, contact_target,
//   contact_lambda, prev_contact_offset, prev_contact_bodies, prev_contact_lambda
// (layouts in kernels/layout.h).

// ---- contact matching: the previous step's impulses of the same pair (warm starting) --------
// The previous step's contacts of `self` are at prev_contact_offset[self] .. [self + 1]; a pair
// has at most one contact, so the match is by the other body alone. Unmatched contacts start at 0.
vec3 warm_start_impulses(uint self, uint other) {
  uint end = prev_contact_offset[self + 1u];
  for (uint p = prev_contact_offset[self]; p < end; ++p) {
    if (prev_contact_bodies[p].y == other) return vec3(prev_contact_lambda[p]);
  }
  return vec3(0.0f);
}

// ---- contact preparation: SPOOK targets from the step-start velocities ---------------------
void prepare_contact(uint c) {
  uvec2 bodies = contact_bodies[c];
  vec4 geom = contact_geom[c];
  vec3 n = vec3(geom);
  uint self = bodies.x;
  uint other = bodies.y;
  bool plane = (other & VKPHYS_PLANE_BIT) != 0u;
  vec4 mat_self = params.materials[material[self]];
  vec4 mat_other = plane ? params.materials[params.plane_material[other & ~VKPHYS_PLANE_BIT].x]
                         : params.materials[material[other]];
  vec3 v_self = vec3(vel_start[self]);
  vec3 v_other = plane ? vec3(0.0f) : vec3(vel_start[other]);
  bool self_is_second = plane || self > other;
  vec3 rel = self_is_second ? v_self - v_other : v_other - v_self;
  vec3 t1;
  vec3 t2;
  tangent_basis(n, t1, t2);
  vec3 u_k = vec3(dot(rel, n), dot(rel, t1), dot(rel, t2));
  vec4 mat = combine_materials(mat_self, mat_other);
  contact_target[c] = contact_targets(geom.w, u_k, mat, params.gravity_dt.w, params.solver.y);
  contact_lambda[c] = vec4(params.solver.w * warm_start_impulses(self, other), mat.y);
}
