// Box-box: the driver that runs the three stages and builds the manifold.
//
// Where it comes from. Seed 000 section 4 (digest A2.14) prescribes a separating axis test to
// detect a collision between convex polyhedra, then a manifold made by clipping the incident face
// against the volume below the reference face. The general shape of the test (face axes before
// edge axes with a tolerance, Sutherland-Hodgman clipping, reduction to four points, ids from the
// features that made a point) follows Dirk Gregorius's GDC 2013/2015 talks on SAT and contact
// creation, and is also what Box2D v3 and Jolt do in their own ways; the code here is written
// from that description, not copied.
//
// The stages.
//   1. SAT over 15 axes with a bias towards face axes (kernels/collide_box_sat.h). An axis that
//      separates by the margin or more ends the test; otherwise the winner is a face axis (the
//      face case) or an edge pair (the edge case).
//   Face case: the reference face is the chosen box's face along the axis facing the other box;
//   the incident face is the face of the other box most anti-parallel to it.
//     2. The incident quad is clipped (Sutherland-Hodgman) against the reference face's 4 side
//        planes, up to 8 vertices (kernels/collide_box_clip.h). Vertices with gap (height over
//        the reference face) < margin are candidates; the contact point is midway between the
//        vertex and its projection on the reference face.
//     3. More than 4 candidates are reduced to 4 (kernels/collide_box_reduce.h).
//   Edge case: one point midway between the closest points of the two support edges, the gap
//   being the SAT separation. (When the closest points are at an edge's end, e.g. some separated
//   speculative pairs, the two surface points are off by up to ~1e-4 for unit boxes: the gap is
//   the SAT value, a lower bound of the distance.)
//
// Feature ids.
//   Face contacts: bits 0-5 the clipped-vertex code (kernels/collide_box_clip.h), bits 6-8 the
//     incident face index, bits 9-11 the reference face index, bit 12 set when the reference
//     face belongs to b. Face index = 2 axis + (1 for the - side).
//   Edge contact: bit 15 set, bits 4-7 edge of a, bits 0-3 edge of b; edge index =
//     4 axis + (1 if on the + side of axis (axis+1)%3) + (2 if on the + side of (axis+2)%3).
#ifndef VKPHYS_KERNELS_COLLIDE_BOX_BOX_H
#define VKPHYS_KERNELS_COLLIDE_BOX_BOX_H
#include "kernels/collide_box_clip.h"
#include "kernels/collide_box_reduce.h"
#include "kernels/collide_box_sat.h"

KERNELS_BEGIN

// Edge case: the support edges of a along the SAT axis and of b along minus it.
KFN Manifold collide_box_edge(CollideBox a, CollideBox b, CollideBoxSat sat, float margin) {
  Manifold m = collide_empty();
  vec3 ca = a.c;
  vec3 cb = b.c;
  uint code_a = uint(4 * sat.ea);
  uint code_b = uint(4 * sat.eb);
  for (int k = 1; k < 3; ++k) {
    int ka = (sat.ea + k) % 3;
    int kb = (sat.eb + k) % 3;
    float sa = dot(a.x[ka], sat.axis) >= 0.0f ? 1.0f : -1.0f;
    float sb = dot(b.x[kb], sat.axis) <= 0.0f ? 1.0f : -1.0f;
    ca += sa * a.e[ka] * a.x[ka];
    cb += sb * b.e[kb] * b.x[kb];
    if (sa > 0.0f) code_a += uint(k);
    if (sb > 0.0f) code_b += uint(k);
  }
  vec3 ha = a.e[sat.ea] * a.x[sat.ea];
  vec3 hb = b.e[sat.eb] * b.x[sat.eb];
  float s;
  float t;
  collide_segments(ca - ha, ca + ha, cb - hb, cb + hb, s, t);
  vec3 xa = ca - ha + s * (2.0f * ha);
  vec3 xb = cb - hb + t * (2.0f * hb);
  m.normal = sat.axis;
  collide_push(m, 0.5f * (xa + xb), sat.sep, 0x8000u | (code_a << 4u) | code_b, margin);
  return m;
}

// Face case: reference and incident faces, clipping, candidates, reduction.
KFN Manifold collide_box_face(CollideBox a, CollideBox b, CollideBoxSat sat, float margin) {
  Manifold m = collide_empty();
  // ref: reference box, inc: incident box; nr: reference face normal, pointing at inc.
  CollideBox ref = sat.ref_b ? b : a;
  CollideBox inc = sat.ref_b ? a : b;
  int ri = sat.face;
  float sr = dot(inc.c - ref.c, ref.x[ri]) >= 0.0f ? 1.0f : -1.0f;
  vec3 nr = sr * ref.x[ri];
  uint ref_face = uint(2 * ri) + (sr < 0.0f ? 1u : 0u);
  vec3 ref_c = ref.c + ref.e[ri] * nr;

  int ki = 0;
  float kd = dot(inc.x[0], nr);
  for (int i = 1; i < 3; ++i) {
    float di = dot(inc.x[i], nr);
    if (abs(di) > abs(kd)) {
      kd = di;
      ki = i;
    }
  }
  float si = kd > 0.0f ? -1.0f : 1.0f;  // incident face normal si inc.x[ki], anti-parallel to nr
  uint inc_face = uint(2 * ki) + (si < 0.0f ? 1u : 0u);
  vec3 inc_c = inc.c + si * inc.e[ki] * inc.x[ki];
  vec3 hu = inc.e[(ki + 1) % 3] * inc.x[(ki + 1) % 3];
  vec3 hv = inc.e[(ki + 2) % 3] * inc.x[(ki + 2) % 3];
  int p = (ri + 1) % 3;
  int q = (ri + 2) % 3;
  CollidePoly poly = collide_box_clip(inc_c, hu, hv, ref.c, ref.x[p], ref.e[p], ref.x[q], ref.e[q]);

  // Candidates within the margin: midway points and gaps.
  CollideCandidates c;
  c.n = 0;
  uint base = (sat.ref_b ? 0x1000u : 0u) | (ref_face << 9u) | (inc_face << 6u);
  for (int i = 0; i < 8; ++i) {
    if (i >= poly.n) break;
    float g = dot(poly.p[i] - ref_c, nr);
    if (g < margin) {
      c.p[c.n] = poly.p[i] - (0.5f * g) * nr;
      c.g[c.n] = g;
      c.id[c.n] = base | poly.id[i];
      c.n += 1;
    }
  }
  m.normal = sat.ref_b ? -nr : nr;
  collide_box_reduce(m, c, nr, max(ref.e[p], ref.e[q]), margin);
  return m;
}

KFN Manifold collide_box_box(Collider a, Collider b, float margin) {
  CollideBox ba = collide_box_from(a);
  CollideBox bb = collide_box_from(b);
  CollideBoxSat sat = collide_box_sat(ba, bb, margin);
  if (!sat.hit) return collide_empty();
  if (sat.edge) return collide_box_edge(ba, bb, sat, margin);
  return collide_box_face(ba, bb, sat, margin);
}

KERNELS_END
#endif
