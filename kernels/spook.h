// SPOOK regularisation and stabilisation coefficients (seed 001, eqs 8-11; digest B2.2).
//
// SPOOK solves (G M^-1 G^T + eps I) lambda = -a g - b G W - h G M^-1 f for impulses lambda.
// It comes from a discrete variational principle with a constraint "spring" of stiffness k and a
// relaxation time of d steps:
//     a   = 4 / (h (1 + 4d))          [1/s]   position-error feedback
//     b   = 4d / (1 + 4d)             [-]     velocity-error feedback
//     eps = 4 / (h^2 k (1 + 4d))      [1/kg]  regulariser, the compliance of the spring
// Consequences the tests check: at rest under a constant load F the violation settles at
// g = -eps lambda / a = -F / k (Hooke's law); with eps = 0 and an exact solve the constraint
// velocity obeys G W' = (G W - 4 g / h) / (1 + 4d), Baumgarte with beta = 4 / (1 + 4d) plus a
// velocity memory term. A very large k is a rigid, merely stabilised constraint.
#ifndef VKPHYS_KERNELS_SPOOK_H
#define VKPHYS_KERNELS_SPOOK_H
#include "kernels/common.h"

KERNELS_BEGIN

// Returns (a, b, eps) for spring constant k [N/m], relaxation d [steps] and time step h [s].
KFN vec3 spook_coefficients(float k, float d, float h) {
  float denom = 1.0f + 4.0f * d;
  return vec3(4.0f / (h * denom), 4.0f * d / denom, 4.0f / (h * h * k * denom));
}

// Combines two materials (restitution, friction, k, d) into one contact's parameters.
// Every rule is commutative so both directed copies of a contact get bit-identical values:
// restitution: the livelier one; friction: geometric mean; k: two springs in series; d: slower.
KFN vec4 combine_materials(vec4 a, vec4 b) {
  return vec4(max(a.x, b.x), sqrt(a.y * b.y), 1.0f / (1.0f / a.z + 1.0f / b.z), max(a.w, b.w));
}

// SPOOK target of a row with violation g, start-of-step row velocity u_k and coefficients
// spook = (a, b, eps). Unilateral rows with g > 0 (open, within the margin) may close the gap
// in one step and no more: T = -g / h (speculative contact).
KFN float row_target(float g, float u_k, vec3 spook, float h, bool unilateral) {
  if (unilateral && g > 0.0f) return -g / h;
  return -spook.x * g + (1.0f - spook.y) * u_k;
}

KERNELS_END
#endif
