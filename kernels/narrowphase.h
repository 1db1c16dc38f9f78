// Narrowphase pair tests for spheres (seed 001 eq 21, digest B2.4).
//
// A contact is (n, g): n is the unit normal pointing out of the first body towards the second,
// g = (x_2 - x_1) . n - r_1 - r_2 is the gap, negative when the spheres overlap. Contacts are
// kept while g < margin so that a pair about to touch is already a (speculative) row.
#ifndef VKPHYS_KERNELS_NARROWPHASE_H
#define VKPHYS_KERNELS_NARROWPHASE_H
#include "kernels/common.h"

KERNELS_BEGIN

// Sphere a against sphere b. Coincident centres get the normal +y so the result is defined.
KFN bool sphere_sphere(vec4 a, vec4 b, float margin, KOUT(vec3) n, KOUT(float) g) {
  vec3 d = vec3(b) - vec3(a);
  float dist2 = dot(d, d);
  float reach = a.w + b.w + margin;
  if (dist2 >= reach * reach) return false;
  float dist = sqrt(dist2);
  n = dist > 0.0f ? d / dist : vec3(0.0f, 1.0f, 0.0f);
  g = dist - a.w - b.w;
  return true;
}

// Static plane (n, offset) against sphere s; the normal points from the plane into the sphere.
KFN bool plane_sphere(vec4 plane, vec4 s, float margin, KOUT(vec3) n, KOUT(float) g) {
  n = vec3(plane);
  g = dot(n, vec3(s)) - plane.w - s.w;
  return g < margin;
}

// The scalar form of the lane helper kernels/tangent_basis.inl is written with (host/cpu/
// wide_lanes.h has the four-lane one).
KFN float lane_select(bool c, float a, float b) {
  return c ? a : b;
}

#include "kernels/tangent_basis.inl"

KERNELS_END
#endif
