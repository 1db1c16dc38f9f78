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

// An orthonormal tangent basis (t1, t2) with t1 x t2 = n, continuous except across n.z = 0
// (Duff et al. 2017, "Building an orthonormal basis, revisited").
KFN void tangent_basis(vec3 n, KOUT(vec3) t1, KOUT(vec3) t2) {
  float s = n.z >= 0.0f ? 1.0f : -1.0f;
  float a = -1.0f / (s + n.z);
  float b = n.x * n.y * a;
  t1 = vec3(1.0f + s * n.x * n.x * a, s * b, -s * n.x);
  t2 = vec3(b, s + n.y * n.y * a, -n.y);
}

KERNELS_END
#endif
