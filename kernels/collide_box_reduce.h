// Box-box, stage 3 (face case): the clipped incident face gives up to 8 contact points; a
// manifold holds 4. The reduction keeps the deepest point and three that span a large area with
// it, following Dirk Gregorius's GDC 2015 talk on contact creation (written from that
// description, not copied).
//
// Up to 4 candidates are kept as they are. More are reduced to 4: (i) the deepest one, where
// points within 2% of the reference face's larger half extent of the deepest count as equally
// deep and the one farthest from the candidates' center is taken (so a flat contact does not
// switch its first point on round-off); (ii) the one farthest from the first; (iii) the one
// making the largest triangle with the two on one side and (iv) on the other side, i.e. a
// large quad. Distances and areas are measured in the reference face's plane: the triangle
// (p1, p2, p) has the signed area dot(cross(p2 - p1, p - p1), n) / 2 about the face normal n.
#ifndef VKPHYS_KERNELS_COLLIDE_BOX_REDUCE_H
#define VKPHYS_KERNELS_COLLIDE_BOX_REDUCE_H
#include "kernels/collide_common.h"

KERNELS_BEGIN

// Contact point candidates: midway points, gaps and feature ids of n <= 8 clipped vertices.
struct CollideCandidates {
  vec3 p[8];
  float g[8];
  uint id[8];
  int n;
};

// The candidate other than skip, with gap <= gmax, farthest from x in the plane normal to nr
// (ties: the lower index); -1 if none.
KFN int collide_box_farthest(CollideCandidates c, vec3 x, vec3 nr, int skip, float gmax) {
  int k = -1;
  float best = -1.0f;
  for (int i = 0; i < 8; ++i) {
    if (i < c.n && i != skip && c.g[i] <= gmax) {
      vec3 w = c.p[i] - x;
      w -= dot(w, nr) * nr;
      float r2 = dot(w, w);
      if (r2 > best) {
        best = r2;
        k = i;
      }
    }
  }
  return k;
}

// Pushes the candidates c onto m, reduced to 4 if there are more; nr is the reference face's
// normal and extent its larger half extent.
KFN void collide_box_reduce(KINOUT(Manifold) m, CollideCandidates c, vec3 nr, float extent,
                            float margin) {
  if (c.n <= VKPHYS_MAX_MANIFOLD) {
    for (int i = 0; i < 4; ++i) {
      if (i < c.n) collide_push(m, c.p[i], c.g[i], c.id[i], margin);
    }
    return;
  }
  vec3 center = vec3(0.0f);
  float gmin = VKPHYS_COLLIDE_BIG;
  for (int i = 0; i < 8; ++i) {
    if (i < c.n) {
      center += c.p[i];
      gmin = min(gmin, c.g[i]);
    }
  }
  center = center / float(c.n);
  float tol = 0.02f * extent;
  // For finite points the deepest candidate always qualifies; max keeps non-finite ones in range.
  int i1 = max(collide_box_farthest(c, center, nr, -1, gmin + tol), 0);
  int i2 = collide_box_farthest(c, c.p[i1], nr, i1, VKPHYS_COLLIDE_BIG);
  int i3 = -1;
  int i4 = -1;
  float amax = 0.0f;
  float amin = 0.0f;
  for (int i = 0; i < 8; ++i) {
    if (i < c.n && i != i1 && i != i2) {
      float area = dot(cross(c.p[i2] - c.p[i1], c.p[i] - c.p[i1]), nr);
      if (area > amax) {
        amax = area;
        i3 = i;
      }
      if (area < amin) {
        amin = area;
        i4 = i;
      }
    }
  }
  collide_push(m, c.p[i1], c.g[i1], c.id[i1], margin);
  if (i2 >= 0) collide_push(m, c.p[i2], c.g[i2], c.id[i2], margin);
  if (i3 >= 0) collide_push(m, c.p[i3], c.g[i3], c.id[i3], margin);
  if (i4 >= 0) collide_push(m, c.p[i4], c.g[i4], c.id[i4], margin);
}

KERNELS_END
#endif
