// Quaternions as vec4 (x, y, z, w), w the scalar part, in the common GLSL/C++ subset.
//
// Rotations map body to world: x_world = x + quat_rotate(q, x_body). The time derivative with a
// world-frame angular velocity w is dq/dt = 1/2 [w, 0] q (left multiplication; seed 000 12.5,
// seed 002 "q dot = 1/2 w q"); seed 004's right-multiplied body-frame form 1/2 q [w_body, 0] is
// the same thing, since w = q w_body q* (digest C.1, tested).
#ifndef VKPHYS_KERNELS_QUAT_H
#define VKPHYS_KERNELS_QUAT_H
#include "kernels/common.h"

KERNELS_BEGIN

// Hamilton product a b (apply b first, then a).
KFN vec4 quat_mul(vec4 a, vec4 b) {
  vec3 av = vec3(a);
  vec3 bv = vec3(b);
  return vec4(a.w * bv + b.w * av + cross(av, bv), a.w * b.w - dot(av, bv));
}

KFN vec4 quat_conj(vec4 q) {
  return vec4(-q.x, -q.y, -q.z, q.w);
}

// q v q* for a unit quaternion, without building a matrix. Always inlined: GCC kept it a call,
// a few dozen flops behind a call whose vec3 arguments and result went through the stack, in
// the manifold cache's check and the contact targets (3% of the pyramid's CPU step).
KINLINE KFN vec3 quat_rotate(vec4 q, vec3 v) {
  vec3 u = vec3(q);
  vec3 t = 2.0f * cross(u, v);
  return v + q.w * t + cross(u, t);
}

// q* v q: world to body. Always inlined too: the narrowphase calls it twice for each new contact
// point, and as a call it was 1% of the pyramid's CPU instructions.
KINLINE KFN vec3 quat_rotate_inv(vec4 q, vec3 v) {
  return quat_rotate(quat_conj(q), v);
}

// Rotation by `angle` [rad] about the unit `axis`.
KFN vec4 quat_axis_angle(vec3 axis, float angle) {
  return vec4(sin(0.5f * angle) * axis, cos(0.5f * angle));
}

// One leapfrog orientation step: q' = normalize(q + h/2 [w, 0] q) with the NEW w (seed 001 eq 38
// read with w^{k+1}, digest B2.7; seed 000 eq 3.2.4).
KFN vec4 quat_integrate(vec4 q, vec3 w, float h) {
  vec4 dq = quat_mul(vec4(w, 0.0f), q);
  return normalize(q + (0.5f * h) * dq);
}

// The body's three axes in world coordinates (the columns of its rotation matrix). Always
// inlined: the box-box test takes all six at its start and world_inverse_inertia three per
// body, and as calls they went through the stack like quat_rotate's did.
KINLINE KFN vec3 quat_axis_x(vec4 q) {
  return quat_rotate(q, vec3(1.0f, 0.0f, 0.0f));
}
KINLINE KFN vec3 quat_axis_y(vec4 q) {
  return quat_rotate(q, vec3(0.0f, 1.0f, 0.0f));
}
KINLINE KFN vec3 quat_axis_z(vec4 q) {
  return quat_rotate(q, vec3(0.0f, 0.0f, 1.0f));
}

KERNELS_END
#endif
