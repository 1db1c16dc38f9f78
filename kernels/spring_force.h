// The damped spring as a force: the one function both backends evaluate for every force spring
// (kernels/world_ode.inl sums it per particle).
//
// Seed 003 eq. (1) (digest T11), the same as seed 002 eqs 21-22 with its d from a to b:
//   l = x_a - x_b,  l' = v_a - v_b,  n = l / |l|
//   f_a = -[ k (|l| - r) + c (l' . l) / |l| ] n,   f_b = -f_a
// The damping acts along the spring only, so it is zero for a rigid motion of the pair and
// never changes the pair's momentum. Side b takes the negated force computed with the same
// arguments in the same order, so f_a + f_b = 0 exactly and a spring network conserves momentum
// to the rounding of each particle's sum.
// At |l| = 0 the direction is undefined: the force is 0 there, which is the limit of the
// zero-rest-length spring (-k l -> 0) and stops a collapsed spring from producing NaN.
#ifndef VKPHYS_KERNELS_SPRING_FORCE_H
#define VKPHYS_KERNELS_SPRING_FORCE_H
#include "kernels/common.h"

KERNELS_BEGIN

// spring = (rest length r [m], stiffness k [N/m], damping c [kg/s], unused). Returns f_a [N].
KFN vec3 damped_spring_force(vec3 xa, vec3 xb, vec3 va, vec3 vb, vec4 spring) {
  vec3 l = xa - xb;
  float len = length(l);
  if (len <= 0.0f) return vec3(0.0f);
  vec3 n = l / len;
  float magnitude = spring.y * (len - spring.x) + spring.z * dot(va - vb, n);
  return -magnitude * n;
}

KERNELS_END
#endif
