// Integration: SPOOK's leapfrog (seed 001 eqs 35-37; seed 000 section 3.2, semi-implicit Euler).
//
//   v* = v + h M^-1 f          forces first (gravity, linear drag f = -c v)
//   v' = v* + M^-1 G^T lambda  the solver adds constraint impulses
//   x' = x + h v'              positions last, with the NEW velocity
// Free fall from rest therefore gives x_n = x_0 + g h^2 n (n + 1) / 2 exactly (digest A4.1),
// which the tests assert. A particle with 1/m = 0 is static: forces do not move it.
#ifndef VKPHYS_KERNELS_INTEGRATE_H
#define VKPHYS_KERNELS_INTEGRATE_H
#include "kernels/common.h"

KERNELS_BEGIN

// Velocity after external forces: gravity and linear drag with coefficient c [kg/s].
KFN vec3 predict_velocity(vec3 v, float inv_mass, vec3 gravity, float drag, float h) {
  vec3 accel = gravity - (drag * inv_mass) * v;
  return inv_mass > 0.0f ? v + h * accel : v;
}

KFN vec3 integrate_position(vec3 x, vec3 v, float h) { return x + h * v; }

KERNELS_END
#endif
