// Integration and applied forces: SPOOK's leapfrog (seed 001 eqs 35-37; seed 000 section 3.2,
// semi-implicit Euler), for every body kind.
//
//   v* = v + h M^-1 f          forces first: gravity, fields, applied forces, drag
//   v' = v* + M^-1 G^T lambda  the solver adds constraint impulses
//   x' = x + h v'              positions last, with the NEW velocity
// Free fall from rest therefore gives x_n = x_0 + g h^2 n (n + 1) / 2 exactly (digest A4.1),
// and a constant force F the same with g = F/m; the tests assert both. A body with 1/m = 0
// (static or kinematic) is not moved by forces.
//
// Forces (seed 000 section 3, seed 002 eqs 21-27, seed 003 section 4):
//   gravity g and central fields act per unit mass (accelerations);
//   linear drag f = -c v (seed 003 T10);
//   quadratic drag f = -1/2 rho C_D S |v| v (seed 002 eq 23, reconstructed in the digest), S the
//     area the body shows the flow. Explicitly it is unstable once h k |v| > 1 (k = 1/2 rho
//     C_D S / m; a light, fast particle in air reaches that), so it is taken semi-implicitly,
//     linearised about |v|:  v* = (v + h a) / (1 + h k |v|). The fixed point is exact:
//     k |v| v = a, the terminal speed sqrt(2 m g / (rho C_D S)) for a = g.
#ifndef VKPHYS_KERNELS_INTEGRATE_H
#define VKPHYS_KERNELS_INTEGRATE_H
#include "kernels/common.h"

KERNELS_BEGIN

#define VKPHYS_CENTRAL_INVERSE_SQUARE 0u  // a = -s (x - c) / r^3 (vkphys/scene.h CentralLaw)
#define VKPHYS_CENTRAL_LINEAR 1u          // a = -s (x - c)

// Acceleration of the central field (centre c = field.xyz, strength s = field.w) at x.
KFN vec3 central_acceleration(vec3 x, vec4 field, uint law) {
  if (field.w == 0.0f) return vec3(0.0f);
  vec3 d = x - vec3(field);
  if (law == VKPHYS_CENTRAL_LINEAR) return -field.w * d;
  float r2 = dot(d, d);
  if (r2 <= 0.0f) return vec3(0.0f);
  return (-field.w / (r2 * sqrt(r2))) * d;
}

// Velocity after the external forces: acceleration `accel` (gravity, fields, F/m), linear drag
// coefficient c [kg/s] and quadratic drag `quad` = 1/2 rho C_D S [kg/m].
KFN vec3 predict_velocity(vec3 v, float inv_mass, vec3 accel, float drag, float quad, float h) {
  if (inv_mass <= 0.0f) return v;
  vec3 v1 = v + h * (accel - (drag * inv_mass) * v);
  if (quad > 0.0f) v1 = v1 / (1.0f + h * quad * inv_mass * length(v));
  return v1;
}

KFN vec3 integrate_position(vec3 x, vec3 v, float h) {
  return x + h * v;
}

KERNELS_END
#endif
