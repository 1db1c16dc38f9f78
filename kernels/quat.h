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

// How far quat_integrate carries a point r (from the body's centre) toward the turning axis in
// one step, the part of its chord across the path. quat_integrate turns the body about
// k = w / |w| by phi with tan(phi / 2) = s, s = |w| h / 2, so the chord is
//   R r - r = sin phi (k x r) - (1 - cos phi) r_perp,   r_perp = r - (r . k) k,
// and its part across the path (k x r) is -(1 - cos phi) r_perp. With 1 - cos phi =
// 2 s^2 / (1 + s^2) and |w|^2 r_perp = (w x r) x w:
//   drift = -(h^2 / 2) / (1 + s^2) ((w x r) x w),
// no branch at w = 0 and no difference of two rotated points. That difference (the chord less
// its part along the path) was how it was first written: it cancels all but the second-order
// part, so its rounding was the point's (about 3e-8 m at 0.25 m) over h, and on an H200, where
// normalize's reciprocal square root and fused multiply-adds round otherwise, chain_20's joint
// impulses came out 3.8e-4 N s from the CPU's at step 10, past the 2e-4 the compare allows.
KFN vec3 quat_arc_drift(vec3 r, vec3 w, float h) {
  float s = 0.5f * h;
  return (-0.5f * h * h / (1.0f + s * s * dot(w, w))) * cross(cross(w, r), w);
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
