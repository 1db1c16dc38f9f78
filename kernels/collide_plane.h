// Narrowphase pairs with a plane: plane-sphere, plane-capsule, plane-box. a is the plane, the
// half-space below the plane through a.pos with outward normal local +y; the manifold's normal
// is that outward normal, and every gap is a height over the plane.
//
//   plane-sphere     the sphere centre's height over the plane. id 0.
//   plane-capsule    both segment ends against the plane. ids 0 (-y end) and 1 (+y end); a
//                    zero-length capsule gives only the point 0.
//   plane-box        the 8 corners against the plane. If more than 4 are within the margin, the 4
//                    deepest are kept (ties: lower corner index). A box lying on a face therefore
//                    keeps that face's corners; a box sinking on an edge keeps the edge's two
//                    corners and the next two deepest. id = corner index, bit 0/1/2 = +x/+y/+z.
#ifndef VKPHYS_KERNELS_COLLIDE_PLANE_H
#define VKPHYS_KERNELS_COLLIDE_PLANE_H
#include "kernels/collide_common.h"

KERNELS_BEGIN

KFN Manifold collide_plane_sphere(Collider a, Collider b, float margin) {
  Manifold m = collide_empty();
  vec3 n = quat_axis_y(a.rot);
  m.normal = n;
  float g = dot(b.pos - a.pos, n) - b.dims.w;
  collide_push(m, b.pos - (b.dims.w + 0.5f * g) * n, g, 0u, margin);
  return m;
}

KFN Manifold collide_plane_capsule(Collider a, Collider b, float margin) {
  Manifold m = collide_empty();
  vec3 n = quat_axis_y(a.rot);
  m.normal = n;
  vec3 h = b.dims.y * quat_axis_y(b.rot);
  int ends = b.dims.y > 0.0f ? 2 : 1;  // a zero-length capsule is a sphere: one point
  for (int i = 0; i < 2; ++i) {
    if (i >= ends) break;
    vec3 e = i == 0 ? b.pos - h : b.pos + h;
    float g = dot(e - a.pos, n) - b.dims.w;
    collide_push(m, e - (b.dims.w + 0.5f * g) * n, g, uint(i), margin);
  }
  return m;
}

// Corner i of a box (centre c, half-extent vectors hx, hy, hz): bit 0/1/2 of i = +x/+y/+z side.
KFN vec3 collide_box_corner(vec3 c, vec3 hx, vec3 hy, vec3 hz, int i) {
  float sx = (i & 1) != 0 ? 1.0f : -1.0f;
  float sy = (i & 2) != 0 ? 1.0f : -1.0f;
  float sz = (i & 4) != 0 ? 1.0f : -1.0f;
  return c + sx * hx + sy * hy + sz * hz;
}

KFN Manifold collide_plane_box(Collider a, Collider b, float margin) {
  Manifold m = collide_empty();
  vec3 n = quat_axis_y(a.rot);
  m.normal = n;
  vec3 hx = b.dims.x * quat_axis_x(b.rot);
  vec3 hy = b.dims.y * quat_axis_y(b.rot);
  vec3 hz = b.dims.z * quat_axis_z(b.rot);
  vec3 corner[8];
  float gap[8];
  for (int i = 0; i < 8; ++i) {
    corner[i] = collide_box_corner(b.pos, hx, hy, hz, i);
    gap[i] = dot(corner[i] - a.pos, n);
  }
  // The (up to) 4 deepest corners within the margin; strict < keeps the lower index on ties.
  uint used = 0u;
  for (int k = 0; k < VKPHYS_MAX_MANIFOLD; ++k) {
    int best = -1;
    float best_gap = margin;
    for (int i = 0; i < 8; ++i) {
      if (((used >> uint(i)) & 1u) == 0u && gap[i] < best_gap) {
        best = i;
        best_gap = gap[i];
      }
    }
    if (best < 0) break;
    used |= 1u << uint(best);
  }
  for (int i = 0; i < 8; ++i) {
    if (((used >> uint(i)) & 1u) != 0u) {
      collide_push(m, corner[i] - (0.5f * gap[i]) * n, gap[i], uint(i), margin);
    }
  }
  return m;
}

KERNELS_END
#endif
