// Narrowphase pairs with a capsule: capsule-capsule, capsule-box. a is the capsule.
//
//   capsule-capsule  closest points of the two segments (Ericson's clamped solution, with the
//                    zero-length and parallel cases handled). If the segments are within ~3 deg of
//                    parallel and their projections overlap, two points at the ends of the
//                    overlap (ids 0 and 1) sharing the closest-point normal, so a capsule lying on
//                    another one does not rock, and between them the closest points (id 2) where
//                    they lie inside the overlap; otherwise the closest points alone (id 2). An
//                    end's gap is measured along the shared normal from a's surface to where that
//                    line enters b (collide_capsule_gap_along), not as the axes' separation along
//                    the normal: crossed axes are also offset sideways, by w, and that put b's
//                    surface point |w|^2 / (2 r_b) outside b (0.7 mm in a random trial, stop
//                    42). The exact end gaps, interpolated, overstate the gap between them by
//                    as much: the closest points bound it. Touching core segments
//                    (distance < 1e-6) take the normal of cross(dir_a, dir_b), or any direction
//                    perpendicular to a, or +y, oriented from a's centre to b's.
//   capsule-box      (1) In box space, the segment parameter that minimises the distance from the
//                    segment to the box (a convex function of t) is found by a fixed 32-step
//                    golden-section search, compared with the two ends and polished by two
//                    alternating projections. If the core segment is outside the box that gives
//                    the normal and the gap. (2) If the segment touches or enters the box, a SAT
//                    over the 3 box face normals and the 3 products dir x box axis (edge axes
//                    only when clearly better, as for box-box) gives the least-penetration axis.
//                    Face axis: the deeper end of the segment piece over that face (clipped to
//                    its side planes) carries the point; edge axis: the closest points of the
//                    segment and the box edge facing the capsule. (3) If that
//                    normal is within ~8 deg of a box face normal and the segment is within
//                    ~14 deg of lying in that face's plane (|dir . n| < 0.25), the segment is
//                    clipped to the face's four side planes and the two ends of the clipped piece
//                    become two points with the exact face normal (ids 16 + 2 face + end), so a
//                    capsule lying on a box does not rock. Otherwise one point (id 0).
//
// Feature ids:
//   capsule-capsule: 0 / 1 for the overlap ends (of a's parameter, low / high), 2 the closest
//                    points.
//   capsule-box: 0 single point; 16 + 2 * face + end (face 0..5 of the box, face index =
//                2 axis + (1 for the - side), end 0 / 1 = low / high parameter of a's segment
//                after clipping).
#ifndef VKPHYS_KERNELS_COLLIDE_CAPSULE_H
#define VKPHYS_KERNELS_COLLIDE_CAPSULE_H
#include "kernels/collide_common.h"

KERNELS_BEGIN

// Where the line x + s n (n unit) enters the capsule of core segment [p, q] and radius r: the
// smallest s on its surface, negative when the entry lies behind x; false when the line misses.
// The capsule lies inside the infinite cylinder about its axis, so where the line enters that
// cylinder within the side's axial range [0, 1] it enters the capsule; otherwise it enters
// through an end sphere, and no end sphere's entry comes before the capsule's: the entry is the
// least of the candidates. (host/sim/mouse_spring.cpp's picking ray is a forward ray, t >= 0, in
// doubles; this is the whole line, in the kernels' floats.)
KFN bool collide_line_capsule(vec3 x, vec3 n, vec3 p, vec3 q, float r, KOUT(float) s) {
  s = VKPHYS_COLLIDE_BIG;
  for (int e = 0; e < 2; ++e) {
    vec3 o = x - (e == 0 ? p : q);
    float b = dot(n, o);
    float disc = b * b - (dot(o, o) - r * r);
    if (disc >= 0.0f) s = min(s, -b - sqrt(disc));
  }
  vec3 d = q - p;
  float dd = dot(d, d);
  if (dd > 1.0e-12f) {
    vec3 o = x - p;
    float od = dot(o, d) / dd;
    float nd = dot(n, d) / dd;
    vec3 op = o - od * d;  // the parts across the axis
    vec3 np = n - nd * d;
    float a = dot(np, np);
    if (a > 1.0e-12f) {
      float b = dot(op, np);
      float disc = b * b - a * (dot(op, op) - r * r);
      if (disc >= 0.0f) {
        float sc = (-b - sqrt(disc)) / a;
        float t = od + sc * nd;
        if (t >= 0.0f && t <= 1.0f) s = min(s, sc);
      }
    }
  }
  return s < VKPHYS_COLLIDE_BIG;
}

// The gap along n at a's axis point p1 + si d1: from a's surface (ra along n) to where the line
// p1 + si d1 + s n enters capsule b. Where that line misses b (the axes' sideways offset exceeds
// r_b there), si moves toward sc, whose line does enter b (it passes through b's closest axis
// point), to the last hit of a 20-step bisection. Lines that all miss (a zero radius) keep the
// axes' separation along n.
KFN float collide_capsule_gap_along(vec3 p1, vec3 d1, KINOUT(float) si, float sc, vec3 n, vec3 p2,
                                    vec3 q2, float ra, float rb) {
  float entry;
  if (collide_line_capsule(p1 + si * d1, n, p2, q2, rb, entry)) return entry - ra;
  float miss = si;
  float hit = sc;
  bool found = collide_line_capsule(p1 + sc * d1, n, p2, q2, rb, entry);
  for (int it = 0; found && it < 20; ++it) {
    float mid = 0.5f * (miss + hit);
    float e;
    if (collide_line_capsule(p1 + mid * d1, n, p2, q2, rb, e)) {
      hit = mid;
      entry = e;
    } else {
      miss = mid;
    }
  }
  if (found) {
    si = hit;
    return entry - ra;
  }
  vec3 x1 = p1 + si * d1;
  vec3 x2 = p2 + collide_segment_param(p2, q2, x1) * (q2 - p2);
  return dot(x2 - x1, n) - ra - rb;
}

KFN Manifold collide_capsule_capsule(Collider a, Collider b, float margin) {
  Manifold m = collide_empty();
  vec3 ua = quat_axis_y(a.rot);
  vec3 ub = quat_axis_y(b.rot);
  vec3 p1 = a.pos - a.dims.y * ua;
  vec3 q1 = a.pos + a.dims.y * ua;
  vec3 p2 = b.pos - b.dims.y * ub;
  vec3 q2 = b.pos + b.dims.y * ub;
  float ra = a.dims.w;
  float rb = b.dims.w;
  float s;
  float t;
  collide_segments(p1, q1, p2, q2, s, t);
  vec3 c1 = p1 + s * (q1 - p1);
  vec3 c2 = p2 + t * (q2 - p2);
  vec3 v = c2 - c1;
  float d2 = dot(v, v);
  float reach = ra + rb + margin;
  if (reach <= 0.0f || d2 >= reach * reach) return m;
  float dist = sqrt(d2);
  vec3 d1 = q1 - p1;
  vec3 dd2 = q2 - p2;
  float la = dot(d1, d1);
  float lb = dot(dd2, dd2);
  vec3 n;
  if (dist > 1.0e-6f) {
    n = v / dist;
  } else {
    // The core segments touch: the normal of the two directions, else any perpendicular of a,
    // else +y; oriented from a's centre to b's.
    vec3 cr = cross(d1, dd2);
    float lc = dot(cr, cr);
    if (lc > 1.0e-12f * la * lb && lc > 0.0f) {
      n = cr / sqrt(lc);
    } else if (la > 1.0e-12f) {
      vec3 off = (b.pos - a.pos) - (dot(b.pos - a.pos, d1) / la) * d1;
      float lo = dot(off, off);
      n = lo > 1.0e-12f ? off / sqrt(lo) : collide_perp(d1 / sqrt(la));
    } else {
      n = vec3(0.0f, 1.0f, 0.0f);
    }
    if (dot(n, b.pos - a.pos) < 0.0f) n = -n;
  }
  m.normal = n;
  float g1 = dist - ra - rb;
  // Nearly parallel (sin angle < 0.05) with overlapping projections: the two overlap ends.
  if (la > 1.0e-12f && lb > 1.0e-12f) {
    vec3 cr = cross(d1, dd2);
    if (dot(cr, cr) < 0.0025f * la * lb) {
      float sp = dot(p2 - p1, d1) / la;
      float sq = dot(q2 - p1, d1) / la;
      float lo = max(0.0f, min(sp, sq));
      float hi = min(1.0f, max(sp, sq));
      float glo = collide_capsule_gap_along(p1, d1, lo, s, n, p2, q2, ra, rb);
      float ghi = collide_capsule_gap_along(p1, d1, hi, s, n, p2, q2, ra, rb);
      float la_len = sqrt(la);
      if ((hi - lo) * la_len > 1.0e-4f) {
        collide_push(m, p1 + lo * d1 + (ra + 0.5f * glo) * n, glo, 0u, margin);
        collide_push(m, p1 + hi * d1 + (ra + 0.5f * ghi) * n, ghi, 1u, margin);
        // Crossed axes: the closest points lie between the ends with the least gap, which the
        // ends' exact gaps, interpolated, would overstate by up to |w|^2 / (2 r_b).
        if ((s - lo) * la_len > 1.0e-4f && (hi - s) * la_len > 1.0e-4f) {
          collide_push(m, c1 + (ra + 0.5f * g1) * n, g1, 2u, margin);
        }
        return m;
      }
    }
  }
  collide_push(m, c1 + (ra + 0.5f * g1) * n, g1, 2u, margin);
  return m;
}

// Squared distance from the point x to the box [-e, e] (box space).
KFN float collide_box_d2(vec3 x, vec3 e) {
  vec3 w = x - clamp(x, -e, e);
  return dot(w, w);
}

// Clips the segment p0 + t d, t in [0, 1], to the side planes |x_j| <= e_j (j != k) of the
// box faces along axis k (box space). Returns false when nothing is left.
KFN bool collide_clip_segment(vec3 p0, vec3 d, vec3 e, int k, KOUT(float) ta, KOUT(float) tb) {
  ta = 0.0f;
  tb = 1.0f;
  for (int j = 0; j < 3; ++j) {
    if (j == k) continue;
    if (abs(d[j]) <= 1.0e-9f) {
      if (abs(p0[j]) > e[j]) tb = -1.0f;
    } else {
      float u0 = (-e[j] - p0[j]) / d[j];
      float u1 = (e[j] - p0[j]) / d[j];
      ta = max(ta, min(u0, u1));
      tb = min(tb, max(u0, u1));
    }
  }
  return tb >= ta;
}

KFN Manifold collide_capsule_box(Collider a, Collider b, float margin) {
  Manifold m = collide_empty();
  float r = a.dims.w;
  vec3 e = vec3(b.dims);
  vec3 ha = a.dims.y * quat_axis_y(a.rot);
  vec3 p0 = quat_rotate_inv(b.rot, a.pos - ha - b.pos);  // segment in box space
  vec3 p1 = quat_rotate_inv(b.rot, a.pos + ha - b.pos);
  vec3 d = p1 - p0;
  float dd = dot(d, d);

  // (1) Closest point of the segment: golden-section search on the convex distance(t).
  float lo = 0.0f;
  float hi = 1.0f;
  float gr = 0.618034f;
  float t1 = hi - gr * (hi - lo);
  float t2 = lo + gr * (hi - lo);
  float f1 = collide_box_d2(p0 + t1 * d, e);
  float f2 = collide_box_d2(p0 + t2 * d, e);
  for (int it = 0; it < 32; ++it) {
    if (f1 < f2) {
      hi = t2;
      t2 = t1;
      f2 = f1;
      t1 = hi - gr * (hi - lo);
      f1 = collide_box_d2(p0 + t1 * d, e);
    } else {
      lo = t1;
      t1 = t2;
      f1 = f2;
      t2 = lo + gr * (hi - lo);
      f2 = collide_box_d2(p0 + t2 * d, e);
    }
  }
  float t = 0.5f * (lo + hi);
  float ft = collide_box_d2(p0 + t * d, e);
  float f0 = collide_box_d2(p0, e);
  float fe = collide_box_d2(p1, e);
  if (f0 <= ft) {
    t = 0.0f;
    ft = f0;
  }
  if (fe < ft) {
    t = 1.0f;
    ft = fe;
  }
  for (int it = 0; it < 2; ++it) {  // alternating projections polish t
    vec3 x = p0 + t * d;
    float tn = collide_segment_param(p0, p1, clamp(x, -e, e));
    float fn = collide_box_d2(p0 + tn * d, e);
    if (fn < ft) {
      t = tn;
      ft = fn;
    }
  }

  vec3 nl;    // normal in box space, from the capsule to the box
  float sep;  // distance of the core segment from the box (negative: penetration depth)
  vec3 xs;    // the segment point that carries the single-point contact
  if (ft > 1.0e-12f) {
    float dist = sqrt(ft);
    if (dist - r >= margin) return m;
    xs = p0 + t * d;
    nl = (clamp(xs, -e, e) - xs) / dist;
    sep = dist;
  } else {
    // (2) The segment touches or enters the box: SAT, face axes first.
    float best = -VKPHYS_COLLIDE_BIG;
    vec3 bl = vec3(0.0f, 1.0f, 0.0f);  // box-to-capsule axis
    int bk = 0;                        // 0..2 face axis, 3..5 edge axis d x axis (bk - 3)
    for (int k = 0; k < 3; ++k) {
      vec3 l = collide_unit(k);
      if (0.5f * (p0[k] + p1[k]) < 0.0f) l = -l;
      float sl = min(dot(p0, l), dot(p1, l)) - e[k];
      if (sl > best) {
        best = sl;
        bl = l;
        bk = k;
      }
    }
    float face_best = best;
    for (int k = 0; k < 3; ++k) {
      vec3 l = cross(d, collide_unit(k));
      float ll = dot(l, l);
      if (ll <= 1.0e-6f * dd || ll <= 0.0f) continue;
      l = l / sqrt(ll);
      if (dot(p0 + p1, l) < 0.0f) l = -l;
      float sl = min(dot(p0, l), dot(p1, l)) - dot(e, abs(l));
      if (sl > face_best + 1.0e-3f + 0.1f * abs(face_best) && sl > best) {
        best = sl;
        bl = l;
        bk = 3 + k;
      }
    }
    nl = -bl;
    if (bk < 3) {
      // Face: the deeper end of the part of the segment over the face (non-empty, since part
      // of the segment is inside the box), so the box-side point lies on the face.
      float ta;
      float tb;
      if (!collide_clip_segment(p0, d, e, bk, ta, tb)) {
        ta = 0.0f;
        tb = 1.0f;
      }
      vec3 x0 = p0 + ta * d;
      vec3 x1 = p0 + tb * d;
      float s0 = dot(x0, nl);
      float s1 = dot(x1, nl);
      xs = abs(s0 - s1) <= 1.0e-6f ? 0.5f * (x0 + x1) : (s0 > s1 ? x0 : x1);
      sep = -dot(xs, nl) - e[bk];
    } else {
      // Edge: closest points of the segment and the box edge along axis bk - 3 that faces the
      // capsule.
      int ke = bk - 3;
      vec3 c = vec3(0.0f);
      for (int j = 0; j < 3; ++j) {
        if (j != ke) c[j] = bl[j] >= 0.0f ? e[j] : -e[j];
      }
      vec3 h = e[ke] * collide_unit(ke);
      float s;
      float te;
      collide_segments(p0, p1, c - h, c + h, s, te);
      xs = p0 + s * d;
      sep = dot(c - h + te * (2.0f * h) - xs, nl);
    }
  }
  float g = sep - r;

  // (3) Lying on a face: clip the segment to the face's side planes, two points.
  int k = 0;
  for (int i = 1; i < 3; ++i) {
    if (abs(nl[i]) > abs(nl[k])) k = i;
  }
  if (abs(nl[k]) > 0.99f && dd > 1.0e-12f) {
    vec3 nf = collide_unit(k) * (nl[k] > 0.0f ? -1.0f : 1.0f);  // box face normal, to capsule
    if (abs(dot(d, nf)) < 0.25f * sqrt(dd)) {
      float ta;
      float tb;
      collide_clip_segment(p0, d, e, k, ta, tb);
      if (tb - ta > 1.0e-6f) {
        uint face = uint(2 * k) + (nf[k] < 0.0f ? 1u : 0u);
        m.normal = quat_rotate(b.rot, -nf);
        for (int i = 0; i < 2; ++i) {
          vec3 x = p0 + (i == 0 ? ta : tb) * d;
          float gi = dot(x, nf) - e[k] - r;
          vec3 pl = x - (r + 0.5f * gi) * nf;
          collide_push(m, b.pos + quat_rotate(b.rot, pl), gi, 16u + 2u * face + uint(i), margin);
        }
        return m;
      }
    }
  }
  m.normal = quat_rotate(b.rot, nl);
  collide_push(m, b.pos + quat_rotate(b.rot, xs + (r + 0.5f * g) * nl), g, 0u, margin);
  return m;
}

KERNELS_END
#endif
