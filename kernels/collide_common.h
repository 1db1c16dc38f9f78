// Narrowphase helpers shared by the pair tests of kernels/collide_*.h: the empty manifold, the
// point push that applies the margin rule, unit and perpendicular vectors, closest points of
// segments, and the single-point manifold of two spheres.
//
// The pair tests other than box-box are closest-point tests between the "core" shapes (a point
// for a sphere, a segment for a capsule), with the radius added afterwards: collide_points is
// that last step for two core points with radii. The closest points of two segments are
// Ericson's clamped solution (Real-Time Collision Detection 5.1.9), with the zero-length and
// parallel cases handled. The conventions every pair keeps (normal from a to b, points midway
// between the surfaces, gap, margin, at most 4 points) are listed in kernels/collide.h.
#ifndef VKPHYS_KERNELS_COLLIDE_COMMON_H
#define VKPHYS_KERNELS_COLLIDE_COMMON_H
#include "kernels/collider.h"
#include "kernels/quat.h"

KERNELS_BEGIN

// Beyond any separation or gap: the start of a search for the largest or smallest one.
#define VKPHYS_COLLIDE_BIG 3.0e38f

// A manifold with no points (every member set, so C++ returns no indeterminate values).
KFN Manifold collide_empty() {
  Manifold m;
  m.normal = vec3(0.0f, 1.0f, 0.0f);
  m.count = 0u;
  for (int i = 0; i < VKPHYS_MAX_MANIFOLD; ++i) {
    m.point[i] = vec4(0.0f);
    m.feature[i] = 0u;
  }
  return m;
}

// Appends the point p (midway) with gap g and id if g < margin and there is room.
KFN void collide_push(KINOUT(Manifold) m, vec3 p, float g, uint id, float margin) {
  if (g < margin && m.count < uint(VKPHYS_MAX_MANIFOLD)) {
    m.point[int(m.count)] = vec4(p, g);
    m.feature[int(m.count)] = id;
    m.count += 1u;
  }
}

// Unit vector along axis k (0, 1, 2).
KFN vec3 collide_unit(int k) {
  vec3 u = vec3(0.0f);
  u[k] = 1.0f;
  return u;
}

// A unit vector perpendicular to the unit vector d (deterministic, defined for any d).
KFN vec3 collide_perp(vec3 d) {
  vec3 c = abs(d.x) < 0.57f ? cross(d, vec3(1.0f, 0.0f, 0.0f)) : cross(d, vec3(0.0f, 1.0f, 0.0f));
  float l2 = dot(c, c);
  return l2 > 1.0e-12f ? c / sqrt(l2) : vec3(0.0f, 1.0f, 0.0f);
}

// Parameter in [0, 1] of the point of segment p0 + t (p1 - p0) closest to q.
KFN float collide_segment_param(vec3 p0, vec3 p1, vec3 q) {
  vec3 d = p1 - p0;
  float dd = dot(d, d);
  if (dd <= 1.0e-12f) return 0.0f;
  return clamp(dot(q - p0, d) / dd, 0.0f, 1.0f);
}

// Closest points p1 + s (q1 - p1) and p2 + t (q2 - p2) of two segments (Ericson, Real-Time
// Collision Detection 5.1.9). Zero-length segments are points; parallel segments take s = 0
// (then clamp), which is one of the closest pairs.
KFN void collide_segments(vec3 p1, vec3 q1, vec3 p2, vec3 q2, KOUT(float) s, KOUT(float) t) {
  vec3 d1 = q1 - p1;
  vec3 d2 = q2 - p2;
  vec3 r = p1 - p2;
  float a = dot(d1, d1);
  float e = dot(d2, d2);
  float f = dot(d2, r);
  s = 0.0f;
  t = 0.0f;
  if (a <= 1.0e-12f && e <= 1.0e-12f) return;
  if (a <= 1.0e-12f) {
    t = clamp(f / e, 0.0f, 1.0f);
    return;
  }
  float c = dot(d1, r);
  if (e <= 1.0e-12f) {
    s = clamp(-c / a, 0.0f, 1.0f);
    return;
  }
  float b = dot(d1, d2);
  float denom = a * e - b * b;
  s = denom > 1.0e-7f * a * e ? clamp((b * f - c * e) / denom, 0.0f, 1.0f) : 0.0f;
  float tnom = b * s + f;
  if (tnom < 0.0f) {
    t = 0.0f;
    s = clamp(-c / a, 0.0f, 1.0f);
  } else if (tnom > e) {
    t = 1.0f;
    s = clamp((b - c) / a, 0.0f, 1.0f);
  } else {
    t = tnom / e;
  }
}

// The single-point manifold of two spheres (ca, ra) and (cb, rb): the core of sphere-sphere,
// sphere-capsule and non-parallel capsule-capsule. Coincident centres: normal +y.
KFN Manifold collide_points(vec3 ca, float ra, vec3 cb, float rb, float margin, uint id) {
  Manifold m = collide_empty();
  vec3 d = cb - ca;
  float d2 = dot(d, d);
  float reach = ra + rb + margin;
  if (reach <= 0.0f || d2 >= reach * reach) return m;
  float dist = sqrt(d2);
  vec3 n = dist > 1.0e-12f ? d / dist : vec3(0.0f, 1.0f, 0.0f);
  float g = dist - ra - rb;
  m.normal = n;
  collide_push(m, ca + (ra + 0.5f * g) * n, g, id, margin);
  return m;
}

KERNELS_END
#endif
