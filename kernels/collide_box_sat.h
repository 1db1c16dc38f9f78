// Box-box, stage 1: the separating axis test (SAT), which finds whether two boxes are within the
// margin and, if so, the axis of least penetration that the contact is built on.
//
// Seed 000 section 4 (digest A2.14) prescribes a SAT for convex polyhedra. Two boxes can be
// separated only along one of 15 axes: a's 3 face normals, b's 3, and the 9 cross products of an
// edge of a and an edge of b (skipped when |cross|^2 < 1e-6, i.e. parallel edges, which the face
// axes cover). With d the offset from a's centre to b's, a box with unit axes x_k and half
// extents e_k reaches r(l) = sum_k e_k |x_k . l| along a unit axis l, so the separation along l
// is |d . l| - r_a(l) - r_b(l) (negative: penetration); on a's own face axis x_k, r_a = e_k.
// Any axis separating by the margin or more ends the test: no contact.
//
// Bias, so the choice does not flicker between nearly equal axes (face axes before edge axes
// with a tolerance, as in Dirk Gregorius's GDC 2013 talk on SAT): b's face wins over a's only if
// its separation is larger by 1e-3 + 5% of |a's|, and the best edge wins over the best face only
// if larger by 1e-3 + 10%. The winner is either a face axis (the face case, clipped in
// kernels/collide_box_clip.h) or an edge pair (the edge case, kernels/collide_box_box.h).
#ifndef VKPHYS_KERNELS_COLLIDE_BOX_SAT_H
#define VKPHYS_KERNELS_COLLIDE_BOX_SAT_H
#include "kernels/collide_common.h"

KERNELS_BEGIN

// A box in the world: centre, unit axes (body x, y, z) and half extents.
struct CollideBox {
  vec3 c;
  vec3 x[3];
  vec3 e;
};

KFN CollideBox collide_box_from(Collider b) {
  CollideBox o;
  o.c = b.pos;
  o.x[0] = quat_axis_x(b.rot);
  o.x[1] = quat_axis_y(b.rot);
  o.x[2] = quat_axis_z(b.rot);
  o.e = vec3(b.dims);
  return o;
}

// Extent r(l) of the box along the unit axis l.
KFN float collide_box_radius(CollideBox b, vec3 l) {
  return b.e.x * abs(dot(b.x[0], l)) + b.e.y * abs(dot(b.x[1], l)) + b.e.z * abs(dot(b.x[2], l));
}

// The face axes of box f against box o, d the offset between their centres (either sign), eo
// o's half extents and r[i][k] = |f.x[i] . o.x[k]| (so o's radius along f.x[i] is
// eo . r[i], summed in the order collide_box_radius sums): the largest separation and its axis.
// False when one separates them by the margin or more.
KFN bool collide_box_faces(CollideBox f, vec3 eo, mat3 r, vec3 d, float margin, KOUT(float) sep,
                           KOUT(int) axis) {
  sep = -VKPHYS_COLLIDE_BIG;
  axis = 0;
  for (int i = 0; i < 3; ++i) {
    float s = abs(dot(d, f.x[i])) - f.e[i] - (eo.x * r[i].x + eo.y * r[i].y + eo.z * r[i].z);
    if (s >= margin) return false;
    if (s > sep) {
      sep = s;
      axis = i;
    }
  }
  return true;
}

// What the SAT found.
struct CollideBoxSat {
  bool hit;    // false: some axis separates the boxes by the margin or more
  bool edge;   // true: the edge case, else the face case
  bool ref_b;  // face case: the reference face is b's (else a's)
  int face;    // face case: axis 0..2 of the reference face in its own box
  int ea;      // edge case: axis 0..2 of a's edge (-1: every edge pair was parallel)
  int eb;      // edge case: axis 0..2 of b's edge
  vec3 axis;   // edge case: the unit axis, oriented from a towards b
  float sep;   // edge case: the separation along it
};

KFN CollideBoxSat collide_box_sat(CollideBox a, CollideBox b, float margin) {
  CollideBoxSat o;
  o.hit = false;
  o.edge = false;
  o.ref_b = false;
  o.face = 0;
  o.ea = -1;
  o.eb = -1;
  o.axis = vec3(0.0f, 1.0f, 0.0f);
  o.sep = -VKPHYS_COLLIDE_BIG;
  vec3 d = b.c - a.c;

  // a's faces, b's faces, edge pairs. The face axes need the 9 products |a.x[i] . b.x[k]| (a
  // face axis of either box against the other's 3 axes), taken once: row i for a's face i,
  // column k for b's face k. The same products summed in the same order as along any other
  // axis, so the same bits as 3 dot products per face axis.
  mat3 r;
  for (int i = 0; i < 3; ++i) {
    r[i] = abs(vec3(dot(a.x[i], b.x[0]), dot(a.x[i], b.x[1]), dot(a.x[i], b.x[2])));
  }
  float sep_a;
  int ia;
  if (!collide_box_faces(a, b.e, r, d, margin, sep_a, ia)) return o;
  float sep_b;
  int ib;
  if (!collide_box_faces(b, a.e, transpose(r), d, margin, sep_b, ib)) return o;
  // Edge pairs without a square root per axis. Along l = a.x[i] x b.x[j] unnormalised, the
  // radii and |d . l| are L = |l| times their values along l / L, so the separation is s = u / L
  // with u = |d . l| - r_a(l) - r_b(l). As x |x| increases with x, s compares as
  // s |s| = u |u| / L^2 does: s >= margin when u |u| >= margin |margin| L^2, and s beats the
  // best pair's (k, L^2) = (u |u|, L^2) so far when u |u| L_best^2 > k_best L^2 (no division;
  // the start (-1, 0) is below any pair). Only the winner is normalised, and its separation is
  // then taken along the unit axis, as every axis's was before: the same axis, sep and normal up
  // to a rounding tie between two pairs' separations.
  float mk = margin * abs(margin);
  float best_k = -1.0f;
  float best_ll = 0.0f;
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      vec3 l = cross(a.x[i], b.x[j]);
      float ll = dot(l, l);
      if (ll < 1.0e-6f) continue;
      float u = abs(dot(d, l)) - collide_box_radius(a, l) - collide_box_radius(b, l);
      float k = u * abs(u);
      if (k >= mk * ll) return o;
      if (k * best_ll > best_k * ll) {
        best_k = k;
        best_ll = ll;
        o.ea = i;
        o.eb = j;
      }
    }
  }
  if (o.ea >= 0) {
    vec3 l = cross(a.x[o.ea], b.x[o.eb]);
    l = l / sqrt(dot(l, l));
    if (dot(d, l) < 0.0f) l = -l;
    o.sep = dot(d, l) - collide_box_radius(a, l) - collide_box_radius(b, l);
    o.axis = l;
  }

  // The bias: a's face, else b's face, else an edge pair.
  o.hit = true;
  o.ref_b = sep_b > sep_a + 1.0e-3f + 0.05f * abs(sep_a);
  o.face = o.ref_b ? ib : ia;
  float sep_f = o.ref_b ? sep_b : sep_a;
  o.edge = o.ea >= 0 && o.sep > sep_f + 1.0e-3f + 0.1f * abs(sep_f);
  return o;
}

KERNELS_END
#endif
