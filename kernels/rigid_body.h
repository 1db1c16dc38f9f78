// Rigid-body motion: world inertia, the velocity update with gravity and the gyroscopic term,
// SPOOK's leapfrog position/orientation update, and bounding boxes (pure functions).
//
// Velocity first, positions last (seed 001 eqs 35-38; seed 000 eqs 3.2.1-3.2.4):
//   v*  = v + h M^-1 f                               (kernels/integrate.h: gravity, drag)
//   w*  = w + h I^-1 (tau - w x I w)                 (Euler's equations, world frame)
//   v', w' = v*, w* + M^-1 G^T lambda                (the solver)
//   x'  = x + h v'
//   q'  = normalize(q + h/2 [w', 0] q)               (the NEW w: digest B2.7)
// The gyroscopic term -w x (I w) is what makes a torque-free body precess and flip about its
// intermediate axis (digest B.6, B.9 item 6); seeds 000 and 004 drop it. Integrated explicitly
// it adds energy every step; one implicit (backward Euler) Newton step, as Bullet does, takes
// energy out instead (2% in 10 s for a box spinning at 1.7 rad/s at 120 Hz). Here it is the
// implicit midpoint rule in the body frame,
//     I (w' - w) + h w_m x (I w_m) = 0,   w_m = (w + w') / 2,
// which conserves both quadratic invariants of Euler's equations, |I w| and w.I w / 2, exactly
// when solved exactly; three Newton steps (Jacobian I + h/2 ([w_m]x I - [I w_m]x)) get there
// to float precision for |w| h well below 1.
#ifndef VKPHYS_KERNELS_RIGID_BODY_H
#define VKPHYS_KERNELS_RIGID_BODY_H
#include "kernels/collider.h"
#include "kernels/common.h"
#include "kernels/quat.h"

KERNELS_BEGIN

// The cross-product matrix [v]x, so that [v]x u = v x u (GLSL and GLM matrices are column-major).
KFN mat3 skew(vec3 v) {
  return mat3(vec3(0.0f, v.z, -v.y), vec3(-v.z, 0.0f, v.x), vec3(v.y, -v.x, 0.0f));
}

// World inverse inertia R diag(inv_i) R^T as a matrix: the sum over the body's axes e_k (the
// columns of R) of inv_i[k] e_k e_k^T, so column j is sum_k (inv_i[k] e_k) e_k[j]. Written out,
// this is 36 products instead of the two general 3x3 products' 54 (every body, every substep).
KFN mat3 world_inverse_inertia(vec4 q, vec3 inv_i) {
  vec3 ex = quat_axis_x(q);
  vec3 ey = quat_axis_y(q);
  vec3 ez = quat_axis_z(q);
  vec3 sx = inv_i.x * ex;
  vec3 sy = inv_i.y * ey;
  vec3 sz = inv_i.z * ez;
  return mat3(sx * ex.x + sy * ey.x + sz * ez.x, sx * ex.y + sy * ey.y + sz * ez.y,
              sx * ex.z + sy * ey.z + sz * ez.z);
}

// The solution of J x = f by Cramer's rule, the cofactors as cross products of J's columns:
// det J = c0 . (c1 x c2), and x_k is the determinant with column k replaced by f. Written out
// so that both backends do the same arithmetic (GLSL's inverse() and glm::inverse may not round
// alike), and a third of the work of inverting J and multiplying.
KFN vec3 solve3(mat3 j, vec3 f) {
  vec3 c12 = cross(j[1], j[2]);
  float inv = 1.0f / dot(j[0], c12);
  return vec3(dot(f, c12), dot(j[0], cross(f, j[2])), dot(j[0], cross(j[1], f))) * inv;
}

// Angular velocity after one step of the torque-free Euler equations (see the essay above).
// Bodies with a zero inverse inertia component (static ones) keep w.
KFN vec3 gyroscopic_step(vec4 q, vec3 w, vec3 inv_i, float h) {
  if (inv_i.x <= 0.0f || inv_i.y <= 0.0f || inv_i.z <= 0.0f) return w;
  vec3 w0 = quat_rotate_inv(q, w);
  // The Newton system below, scaled by the power of two s that brings the largest moment into
  // [0.5, 1): the Jacobian's determinant is the product of three moments, which underflowed to 0
  // (and made w NaN) for moments below about 2e-13 kg m^2 (a 1e-20 kg sphere of radius 0.1 m, at
  // rest). Scaling by a power of two is exact through +, -, * and / (fused or not) while the
  // numbers stay normal floats, and the solution w1 does not scale: every other body gets the
  // same bits as without it.
  vec3 moments = vec3(1.0f / inv_i.x, 1.0f / inv_i.y, 1.0f / inv_i.z);
  int e = 0;
  frexp(max(max(moments.x, moments.y), moments.z), e);
  moments *= ldexp(1.0f, -e);
  // I is diagonal in the body frame: I v is moments * v, and [w_m]x I scales [w_m]x's columns.
  // An iterate that reproduces itself bit for bit is a fixed point of the remaining iterations
  // (each is a function of w0 and w1 alone), so the CPU skips them: the same bits, and a slow
  // body (most of a resting pile, where h |w x I w| is below an ulp of I w) stops after one or
  // two (gyroscopic_step went from 8% to 3% of the 210-box pyramid's CPU step at 8 x 1). Not on
  // the GPU (KERNELS_CPU): there the exit changed lavapipe's bits (its compiler fuses and folds
  // the unrolled iterations otherwise), and a warp waits for its slowest body anyway.
  vec3 w1 = w0;
  for (int it = 0; it < 3; ++it) {
    vec3 wm = 0.5f * (w0 + w1);
    vec3 iwm = moments * wm;
    vec3 f = moments * (w1 - w0) + h * cross(wm, iwm);
    mat3 sw = skew(wm);
    mat3 si = skew(iwm);
    float hh = 0.5f * h;
    mat3 jac = mat3(vec3(moments.x, 0.0f, 0.0f) + hh * (moments.x * sw[0] - si[0]),
                    vec3(0.0f, moments.y, 0.0f) + hh * (moments.y * sw[1] - si[1]),
                    vec3(0.0f, 0.0f, moments.z) + hh * (moments.z * sw[2] - si[2]));
    vec3 next = w1 - solve3(jac, f);
    if (KERNELS_CPU && floatBitsToUint(next) == floatBitsToUint(w1)) break;
    w1 = next;
  }
  return quat_rotate(q, w1);
}

// A collider's half extents along the world axes (its AABB about its centre, unpadded).
KFN vec3 collider_half_extent(Collider c) {
  vec3 ext = vec3(c.dims.w);
  if (c.type == VKPHYS_SHAPE_CAPSULE) {
    ext = abs(quat_axis_y(c.rot)) * c.dims.y + vec3(c.dims.w);
  } else if (c.type == VKPHYS_SHAPE_BOX) {
    ext = abs(quat_axis_x(c.rot)) * c.dims.x + abs(quat_axis_y(c.rot)) * c.dims.y +
          abs(quat_axis_z(c.rot)) * c.dims.z;
  }
  return ext;
}

// World-space AABB (min in .first three of lo, max of hi) of a collider, grown by `pad`.
KFN void collider_aabb(Collider c, float pad, KOUT(vec3) lo, KOUT(vec3) hi) {
  vec3 ext = collider_half_extent(c);
  lo = c.pos - ext - vec3(pad);
  hi = c.pos + ext + vec3(pad);
}

// How far from its centre a collider's rotation moves its surface along the surface normal:
// the largest |c - x| over the points c whose normal motion is n . (v + w x (c - x)). A sphere's
// surface point is x + r n and w x n is normal to n, so its turn moves nothing along n (0); a
// capsule's is its core segment's point plus r n, so its half-length; a box's corners, so
// |half extents|. The rotation's share of a body's closing speed is at most |w| times this.
KFN float collider_lever(Collider c) {
  if (c.type == VKPHYS_SHAPE_CAPSULE) return c.dims.y;
  if (c.type == VKPHYS_SHAPE_BOX) return length(vec3(c.dims));
  return 0.0f;
}

// The radius of a collider's bounding sphere about its centre (sphere r, capsule h + r, box
// |half extents|; planes and shapeless bodies 0).
KFN float collider_radius(Collider c) {
  if (c.type == VKPHYS_SHAPE_SPHERE) return c.dims.w;
  if (c.type == VKPHYS_SHAPE_CAPSULE) return c.dims.y + c.dims.w;
  if (c.type == VKPHYS_SHAPE_BOX) return length(vec3(c.dims));
  return 0.0f;
}

// The area a collider shows a flow along the unit direction d (quadratic drag's S): a sphere's
// pi r^2; a box's projected area sum_i |d . n_i| A_i over its three face pairs; a capsule's
// stadium pi r^2 + 2 r L sin(angle between d and its axis), L = 2 half-height. Planes and
// shapeless bodies show none.
KFN float drag_area(Collider c, vec3 d) {
  float r = c.dims.w;
  if (c.type == VKPHYS_SHAPE_SPHERE) return 3.14159265f * r * r;
  if (c.type == VKPHYS_SHAPE_CAPSULE) {
    float along = dot(d, quat_axis_y(c.rot));
    return 3.14159265f * r * r + 4.0f * r * c.dims.y * sqrt(max(1.0f - along * along, 0.0f));
  }
  if (c.type == VKPHYS_SHAPE_BOX) {
    vec3 e = vec3(c.dims);
    return 4.0f * (abs(dot(d, quat_axis_x(c.rot))) * e.y * e.z +
                   abs(dot(d, quat_axis_y(c.rot))) * e.x * e.z +
                   abs(dot(d, quat_axis_z(c.rot))) * e.x * e.y);
  }
  return 0.0f;
}

// A uint whose unsigned order is the order of the float f (for radix sorting floats).
KFN uint float_sort_key(float f) {
  uint u = floatBitsToUint(f);
  return (u & 0x80000000u) != 0u ? ~u : (u | 0x80000000u);
}

KERNELS_END
#endif
