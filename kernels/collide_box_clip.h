// Box-box, stage 2 (face case): Sutherland-Hodgman clipping of the incident face against the
// side planes of the reference face (seed 000 section 4, digest A2.14: the manifold is the
// incident face clipped to the volume below the reference face).
//
// The incident quad is clipped against the reference face's 4 side planes, one at a time: each
// step keeps the part of the polygon with dot(x, n) <= off, and an edge from va to vb that crosses
// the plane adds the point va + da / (da - db) (vb - va), with da, db the signed distances of its
// ends. A quad clipped by 4 planes has at most 8 vertices. The reference face's own plane cuts
// nothing here: the caller (kernels/collide_box_box.h) keeps the vertices whose height over it
// is below the margin.
//
// Every clipped vertex carries a code, bits 0-5 of the box-box face feature id:
//   0..3         incident face vertex;
//   4 + 4 e + s  where the polygon edge labelled e (0..3 incident face edge i from vertex i to
//                i+1, 4..7 piece lying on reference side plane e-4) crosses reference side plane
//                s (0..3). A vertex at a reference face corner is thus "side plane s' x side
//                plane s", independent of which incident vertex lies outside.
// Incident vertices of face (axis k, sign s) run +u+v, -u+v, -u-v, +u-v with u = axis (k+1)%3,
// v = axis (k+2)%3; side planes s = 0..3 are +p, -p, +q, -q of the reference box,
// p = (axis+1)%3, q = (axis+2)%3.
#ifndef VKPHYS_KERNELS_COLLIDE_BOX_CLIP_H
#define VKPHYS_KERNELS_COLLIDE_BOX_CLIP_H
#include "kernels/common.h"

KERNELS_BEGIN

// A clip polygon: vertices, their feature codes, and the label of the edge from vertex i to
// vertex i+1 (0..3 incident face edge, 4..7 lies on reference side plane label-4).
struct CollidePoly {
  vec3 p[8];
  uint id[8];
  uint edge[8];
  int n;
};

KFN CollidePoly collide_poly_empty() {
  CollidePoly o;
  for (int i = 0; i < 8; ++i) {
    o.p[i] = vec3(0.0f);
    o.id[i] = 0u;
    o.edge[i] = 0u;
  }
  o.n = 0;
  return o;
}

// One Sutherland-Hodgman step: keeps the part of the polygon with dot(x, pn) <= off. Each
// vertex's signed distance is taken once (it is one edge's end and the next edge's start), and
// a plane with every vertex on its inner side returns the polygon as it is (what the loop would
// copy: the same vertices, codes and edge labels), so a plane no incident vertex crosses (all
// four, for a box resting within a larger face) costs only the distances.
KFN CollidePoly collide_clip(CollidePoly poly, vec3 pn, float off, uint plane) {
  float dist[8];
  bool inside = true;
  for (int k = 0; k < 8; ++k) {
    dist[k] = dot(poly.p[k], pn) - off;
    if (k < poly.n && !(dist[k] <= 0.0f)) inside = false;
  }
  if (inside) return poly;
  CollidePoly o = collide_poly_empty();
  for (int k = 0; k < 8; ++k) {
    if (k >= poly.n) break;
    int k1 = k + 1 == poly.n ? 0 : k + 1;
    vec3 va = poly.p[k];
    vec3 vb = poly.p[k1];
    float da = dist[k];
    float db = dist[k1];
    if (da <= 0.0f) {
      if (o.n < 8) {
        o.p[o.n] = va;
        o.id[o.n] = poly.id[k];
        o.edge[o.n] = poly.edge[k];
        o.n += 1;
      }
      if (db > 0.0f && o.n < 8) {  // leaving: the edge after the crossing lies on the plane
        o.p[o.n] = va + (da / (da - db)) * (vb - va);
        o.id[o.n] = 4u + 4u * poly.edge[k] + plane;
        o.edge[o.n] = 4u + plane;
        o.n += 1;
      }
    } else if (db <= 0.0f && o.n < 8) {  // entering: the edge after the crossing is the old one
      o.p[o.n] = va + (da / (da - db)) * (vb - va);
      o.id[o.n] = 4u + 4u * poly.edge[k] + plane;
      o.edge[o.n] = poly.edge[k];
      o.n += 1;
    }
  }
  return o;
}

// The incident face (centre inc_c, half-edge vectors hu along u and hv along v) clipped against
// the side planes of the reference face: the reference box has centre cr, and half extents ep,
// eq along its side axes xp, xq.
KFN CollidePoly collide_box_clip(vec3 inc_c, vec3 hu, vec3 hv, vec3 cr, vec3 xp, float ep, vec3 xq,
                                 float eq) {
  CollidePoly poly = collide_poly_empty();
  poly.p[0] = inc_c + hu + hv;
  poly.p[1] = inc_c - hu + hv;
  poly.p[2] = inc_c - hu - hv;
  poly.p[3] = inc_c + hu - hv;
  for (int i = 0; i < 4; ++i) {
    poly.id[i] = uint(i);
    poly.edge[i] = uint(i);
  }
  poly.n = 4;
  for (int s = 0; s < 4; ++s) {
    vec3 pn = ((s & 1) == 0 ? 1.0f : -1.0f) * (s < 2 ? xp : xq);
    poly = collide_clip(poly, pn, dot(cr, pn) + (s < 2 ? ep : eq), uint(s));
  }
  return poly;
}

KERNELS_END
#endif
