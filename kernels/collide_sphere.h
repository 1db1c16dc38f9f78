// Narrowphase pairs with a sphere: sphere-sphere, sphere-capsule, sphere-box. a is the sphere.
// Each is a closest-point test from the sphere's centre, the radius added afterwards, and gives
// one point with id 0.
//
//   sphere-sphere    centre distance; coincident centres give the normal +y.
//   sphere-capsule   sphere against the closest point of the capsule's segment.
//   sphere-box       closest point of the box (in box space: clamp the centre to the extents).
//                    A centre inside the box is pushed out through the nearest face (ties: lower
//                    axis, + side).
#ifndef VKPHYS_KERNELS_COLLIDE_SPHERE_H
#define VKPHYS_KERNELS_COLLIDE_SPHERE_H
#include "kernels/collide_common.h"

KERNELS_BEGIN

KFN Manifold collide_sphere_sphere(Collider a, Collider b, float margin) {
  return collide_points(a.pos, a.dims.w, b.pos, b.dims.w, margin, 0u);
}

KFN Manifold collide_sphere_capsule(Collider a, Collider b, float margin) {
  vec3 h = b.dims.y * quat_axis_y(b.rot);
  vec3 p0 = b.pos - h;
  vec3 p1 = b.pos + h;
  float t = collide_segment_param(p0, p1, a.pos);
  return collide_points(a.pos, a.dims.w, p0 + t * (p1 - p0), b.dims.w, margin, 0u);
}

KFN Manifold collide_sphere_box(Collider a, Collider b, float margin) {
  Manifold m = collide_empty();
  vec3 e = vec3(b.dims);
  float r = a.dims.w;
  vec3 c = quat_rotate_inv(b.rot, a.pos - b.pos);  // sphere centre in box space
  vec3 q = clamp(c, -e, e);
  vec3 w = q - c;
  float d2 = dot(w, w);
  vec3 nl;
  float g;
  if (d2 > 1.0e-12f) {
    float reach = r + margin;
    if (d2 >= reach * reach) return m;
    float dist = sqrt(d2);
    nl = w / dist;
    g = dist - r;
  } else {
    // Centre inside (or on) the box: out through the nearest face; the normal from the sphere
    // to the box is minus that face's outward normal.
    int k = 0;
    float depth = e.x - abs(c.x);
    for (int i = 1; i < 3; ++i) {
      float di = e[i] - abs(c[i]);
      if (di < depth) {
        depth = di;
        k = i;
      }
    }
    nl = collide_unit(k) * (c[k] >= 0.0f ? -1.0f : 1.0f);
    g = -depth - r;
  }
  m.normal = quat_rotate(b.rot, nl);
  collide_push(m, b.pos + quat_rotate(b.rot, c + (r + 0.5f * g) * nl), g, 0u, margin);
  return m;
}

KERNELS_END
#endif
