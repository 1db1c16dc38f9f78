// Rigid-body narrowphase: one contact manifold per pair of colliders (kernels/collider.h).
//
// Where it comes from. Seed 000 section 4 (digest A2.14) prescribes a separating axis test (SAT)
// to detect a collision between convex polyhedra, then a manifold made by clipping the incident
// face against the volume below the reference face. That is the box-box test here. The other
// pairs are closest-point tests between the "core" shapes (a point for a sphere, a segment for a
// capsule), with the radius added afterwards. The general shape of the box-box test (face axes
// before edge axes with a tolerance, Sutherland-Hodgman clipping, reduction to four points, ids
// from the features that made a point) follows Dirk Gregorius's GDC 2013/2015 talks on SAT and
// contact creation, and is also what Box2D v3 and Jolt do in their own ways; the code here is
// written from that description, not copied.
//
// Conventions (all pairs).
//   * collide(a, b) needs a.type <= b.type; the order is plane 0 < sphere 1 < capsule 2 < box 3.
//     Plane-plane, anything with VKPHYS_SHAPE_NONE, or a.type > b.type give count 0.
//   * normal: unit, from a towards b; all points of a manifold share it.
//   * point[i].xyz: world point midway between the two surfaces along the normal;
//     point[i].w: gap along the normal, negative when penetrating. If s_a is the point on a's
//     surface, the point on b's surface is s_a + gap n and the contact point s_a + gap/2 n.
//   * Only points with gap < margin are reported (speculative contacts); at most 4.
//   * A plane is the half-space below the plane through pos with outward normal local +y.
//     A capsule is the segment pos +- dims.y * (local y) with radius dims.w (dims.y may be 0).
//
// The pair tests.
//   plane-sphere     the sphere centre's height over the plane. id 0.
//   plane-capsule    both segment ends against the plane. ids 0 (-y end) and 1 (+y end); a
//                    zero-length capsule gives only the point 0.
//   plane-box        the 8 corners against the plane. If more than 4 are within the margin, the 4
//                    deepest are kept (ties: lower corner index). A box lying on a face therefore
//                    keeps that face's corners; a box sinking on an edge keeps the edge's two
//                    corners and the next two deepest. id = corner index, bit 0/1/2 = +x/+y/+z.
//   sphere-sphere    centre distance; coincident centres give the normal +y. id 0.
//   sphere-capsule   sphere against the closest point of the capsule's segment. id 0.
//   sphere-box       closest point of the box (in box space: clamp the centre to the extents).
//                    A centre inside the box is pushed out through the nearest face (ties: lower
//                    axis, + side). id 0.
//   capsule-capsule  closest points of the two segments (Ericson's clamped solution, with the
//                    zero-length and parallel cases handled). If the segments are within ~3 deg of
//                    parallel and their projections overlap, two points at the ends of the
//                    overlap (ids 0 and 1) sharing the closest-point normal, so a capsule lying on
//                    another one does not rock; otherwise one point (id 2). Touching core segments
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
//   box-box          SAT over the 15 axes: a's 3 face normals, b's 3, and the 9 cross products of
//                    an edge of a and an edge of b (skipped when |cross|^2 < 1e-6, i.e. parallel
//                    edges, which the face axes cover). Any axis separating by more than the
//                    margin ends the test. Bias, so the choice does not flicker: b's face wins
//                    over a's only if its separation is larger by 1e-3 + 5% of |a's|, and the
//                    best edge wins over the best face only if larger by 1e-3 + 10%.
//                    Face case: the reference face is the chosen box's face along the axis
//                    facing the other box; the incident face is the face of the other box most
//                    anti-parallel to it. The incident quad is clipped (Sutherland-Hodgman)
//                    against the reference face's 4 side planes (up to 8 vertices); vertices with
//                    gap (height over the reference face) < margin are candidates; the contact
//                    point is midway between the vertex and its projection on the reference face.
//                    More than 4 candidates are reduced to 4: (i) the deepest one, where points
//                    within 2% of the reference face's larger half extent of the deepest count as
//                    equally deep and the one farthest from the candidates' center is taken
//                    (so a flat contact does not switch its first point on round-off); (ii) the
//                    one farthest from the first; (iii) the one making the largest triangle with
//                    the two on one side and (iv) on the other side, i.e. a large quad.
//                    Edge case: one point midway between the closest points of the two support
//                    edges, the gap being the SAT separation. (When the closest points are at
//                    an edge's end, e.g. some separated speculative pairs, the two surface points
//                    are off by up to ~1e-4 for unit boxes: the gap is the SAT value, a lower
//                    bound of the distance.)
//
// Feature ids (uint), unique within a pair and unchanged while the same features touch:
//   plane-sphere, sphere-sphere, sphere-capsule, sphere-box: 0.
//   plane-capsule: 0 / 1 for the -y / +y end.   plane-box: corner index 0..7.
//   capsule-capsule: 0 / 1 for the overlap ends (of a's parameter, low / high), 2 single point.
//   capsule-box: 0 single point; 16 + 2 * face + end (face 0..5 of the box, end 0 / 1 = low /
//                high parameter of a's segment after clipping).
//   box-box face contacts:
//     bits 0-5   clipped-vertex code v: 0..3 = incident face vertex; 4 + 4 e + s = where the
//                polygon edge labelled e (0..3 incident face edge i from vertex i to i+1,
//                4..7 piece lying on reference side plane e-4) crosses reference side plane s
//                (0..3). A vertex at a reference face corner is thus "side plane s' x side
//                plane s", independent of which incident vertex lies outside.
//     bits 6-8   incident face index, bits 9-11 reference face index, bit 12 set when the
//                reference face belongs to b. Face index = 2 axis + (1 for the - side).
//                Incident vertices of face (axis k, sign s) run +u+v, -u+v, -u-v, +u-v with
//                u = axis (k+1)%3, v = axis (k+2)%3; side planes s = 0..3 are +p, -p, +q, -q
//                of the reference box, p = (axis+1)%3, q = (axis+2)%3.
//   box-box edge contact: bit 15 set, bits 4-7 edge of a, bits 0-3 edge of b; edge index =
//     4 axis + (1 if on the + side of axis (axis+1)%3) + (2 if on the + side of (axis+2)%3).
#ifndef VKPHYS_KERNELS_COLLIDE_H
#define VKPHYS_KERNELS_COLLIDE_H
#include "kernels/collider.h"
#include "kernels/quat.h"

KERNELS_BEGIN

#define VKPHYS_COLLIDE_BIG 3.0e38f

// ---------------------------------------------------------------------------------------------
// Small helpers.

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

// ---------------------------------------------------------------------------------------------
// Plane pairs. a is the plane, the normal is its outward normal.

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

// ---------------------------------------------------------------------------------------------
// Sphere pairs. a is the sphere.

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

// ---------------------------------------------------------------------------------------------
// Capsule pairs. a is the capsule.

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
  // Nearly parallel (sin angle < 0.05) with overlapping projections: the two overlap ends.
  if (la > 1.0e-12f && lb > 1.0e-12f) {
    vec3 cr = cross(d1, dd2);
    if (dot(cr, cr) < 0.0025f * la * lb) {
      float sp = dot(p2 - p1, d1) / la;
      float sq = dot(q2 - p1, d1) / la;
      float lo = max(0.0f, min(sp, sq));
      float hi = min(1.0f, max(sp, sq));
      if ((hi - lo) * sqrt(la) > 1.0e-4f) {
        for (int i = 0; i < 2; ++i) {
          float si = i == 0 ? lo : hi;
          vec3 x1 = p1 + si * d1;
          vec3 x2 = p2 + collide_segment_param(p2, q2, x1) * dd2;
          float g = dot(x2 - x1, n) - ra - rb;
          collide_push(m, x1 + (ra + 0.5f * g) * n, g, uint(i), margin);
        }
        return m;
      }
    }
  }
  float g1 = dist - ra - rb;
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

  vec3 nl;      // normal in box space, from the capsule to the box
  float sep;    // distance of the core segment from the box (negative: penetration depth)
  vec3 xs;      // the segment point that carries the single-point contact
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

// ---------------------------------------------------------------------------------------------
// Box-box.

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

// One Sutherland-Hodgman step: keeps the part of the polygon with dot(x, pn) <= off.
KFN CollidePoly collide_clip(CollidePoly poly, vec3 pn, float off, uint plane) {
  CollidePoly o = collide_poly_empty();
  for (int k = 0; k < 8; ++k) {
    if (k >= poly.n) break;
    int k1 = k + 1 == poly.n ? 0 : k + 1;
    vec3 va = poly.p[k];
    vec3 vb = poly.p[k1];
    float da = dot(va, pn) - off;
    float db = dot(vb, pn) - off;
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

// Extent of a box (axes x0, x1, x2, half extents e) along the unit axis l.
KFN float collide_box_radius(vec3 x0, vec3 x1, vec3 x2, vec3 e, vec3 l) {
  return e.x * abs(dot(x0, l)) + e.y * abs(dot(x1, l)) + e.z * abs(dot(x2, l));
}

KFN Manifold collide_box_box(Collider a, Collider b, float margin) {
  Manifold m = collide_empty();
  vec3 ax[3];
  vec3 bx[3];
  ax[0] = quat_axis_x(a.rot);
  ax[1] = quat_axis_y(a.rot);
  ax[2] = quat_axis_z(a.rot);
  bx[0] = quat_axis_x(b.rot);
  bx[1] = quat_axis_y(b.rot);
  bx[2] = quat_axis_z(b.rot);
  vec3 ea = vec3(a.dims);
  vec3 eb = vec3(b.dims);
  vec3 d = b.pos - a.pos;

  // SAT: a's faces, b's faces, edge pairs. Any separation > margin: no contact.
  float sep_a = -VKPHYS_COLLIDE_BIG;
  int ia = 0;
  for (int i = 0; i < 3; ++i) {
    float s = abs(dot(d, ax[i])) - ea[i] - collide_box_radius(bx[0], bx[1], bx[2], eb, ax[i]);
    if (s >= margin) return m;
    if (s > sep_a) {
      sep_a = s;
      ia = i;
    }
  }
  float sep_b = -VKPHYS_COLLIDE_BIG;
  int ib = 0;
  for (int i = 0; i < 3; ++i) {
    float s = abs(dot(d, bx[i])) - eb[i] - collide_box_radius(ax[0], ax[1], ax[2], ea, bx[i]);
    if (s >= margin) return m;
    if (s > sep_b) {
      sep_b = s;
      ib = i;
    }
  }
  float sep_e = -VKPHYS_COLLIDE_BIG;
  int ie = -1;
  int je = -1;
  vec3 le = vec3(0.0f, 1.0f, 0.0f);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      vec3 l = cross(ax[i], bx[j]);
      float ll = dot(l, l);
      if (ll < 1.0e-6f) continue;
      l = l / sqrt(ll);
      if (dot(d, l) < 0.0f) l = -l;
      float s = dot(d, l) - collide_box_radius(ax[0], ax[1], ax[2], ea, l) -
                collide_box_radius(bx[0], bx[1], bx[2], eb, l);
      if (s >= margin) return m;
      if (s > sep_e) {
        sep_e = s;
        ie = i;
        je = j;
        le = l;
      }
    }
  }
  bool ref_b = sep_b > sep_a + 1.0e-3f + 0.05f * abs(sep_a);
  float sep_f = ref_b ? sep_b : sep_a;

  if (ie >= 0 && sep_e > sep_f + 1.0e-3f + 0.1f * abs(sep_f)) {
    // Edge-edge: the support edges of a along le and of b along -le.
    vec3 ca = a.pos;
    vec3 cb = b.pos;
    uint code_a = uint(4 * ie);
    uint code_b = uint(4 * je);
    for (int k = 1; k < 3; ++k) {
      int ka = (ie + k) % 3;
      int kb = (je + k) % 3;
      float sa = dot(ax[ka], le) >= 0.0f ? 1.0f : -1.0f;
      float sb = dot(bx[kb], le) <= 0.0f ? 1.0f : -1.0f;
      ca += sa * ea[ka] * ax[ka];
      cb += sb * eb[kb] * bx[kb];
      if (sa > 0.0f) code_a += uint(k);
      if (sb > 0.0f) code_b += uint(k);
    }
    vec3 ha = ea[ie] * ax[ie];
    vec3 hb = eb[je] * bx[je];
    float s;
    float t;
    collide_segments(ca - ha, ca + ha, cb - hb, cb + hb, s, t);
    vec3 xa = ca - ha + s * (2.0f * ha);
    vec3 xb = cb - hb + t * (2.0f * hb);
    m.normal = le;
    collide_push(m, 0.5f * (xa + xb), sep_e, 0x8000u | (code_a << 4u) | code_b, margin);
    return m;
  }

  // Face case. r*: reference box, i*: incident box; nr: reference face normal, pointing at
  // the incident box.
  vec3 rx[3];
  vec3 ix[3];
  vec3 er = ref_b ? eb : ea;
  vec3 ei = ref_b ? ea : eb;
  vec3 cr = ref_b ? b.pos : a.pos;
  vec3 ci = ref_b ? a.pos : b.pos;
  for (int i = 0; i < 3; ++i) {
    rx[i] = ref_b ? bx[i] : ax[i];
    ix[i] = ref_b ? ax[i] : bx[i];
  }
  int ri = ref_b ? ib : ia;
  float sr = dot(ci - cr, rx[ri]) >= 0.0f ? 1.0f : -1.0f;
  vec3 nr = sr * rx[ri];
  uint ref_face = uint(2 * ri) + (sr < 0.0f ? 1u : 0u);
  vec3 ref_c = cr + er[ri] * nr;

  int ki = 0;
  float kd = dot(ix[0], nr);
  for (int i = 1; i < 3; ++i) {
    float di = dot(ix[i], nr);
    if (abs(di) > abs(kd)) {
      kd = di;
      ki = i;
    }
  }
  float si = kd > 0.0f ? -1.0f : 1.0f;  // incident face normal si ix[ki], anti-parallel to nr
  uint inc_face = uint(2 * ki) + (si < 0.0f ? 1u : 0u);
  vec3 inc_c = ci + si * ei[ki] * ix[ki];
  vec3 hu = ei[(ki + 1) % 3] * ix[(ki + 1) % 3];
  vec3 hv = ei[(ki + 2) % 3] * ix[(ki + 2) % 3];

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
    int j = (ri + 1 + s / 2) % 3;
    vec3 pn = ((s & 1) == 0 ? 1.0f : -1.0f) * rx[j];
    poly = collide_clip(poly, pn, dot(cr, pn) + er[j], uint(s));
  }

  // Candidates within the margin: midway points and gaps.
  vec3 cp[8];
  float cg[8];
  uint cid[8];
  int nc = 0;
  uint base = (ref_b ? 0x1000u : 0u) | (ref_face << 9u) | (inc_face << 6u);
  for (int i = 0; i < 8; ++i) {
    if (i >= poly.n) break;
    float g = dot(poly.p[i] - ref_c, nr);
    if (g < margin) {
      cp[nc] = poly.p[i] - (0.5f * g) * nr;
      cg[nc] = g;
      cid[nc] = base | poly.id[i];
      nc += 1;
    }
  }
  m.normal = ref_b ? -nr : nr;
  if (nc <= VKPHYS_MAX_MANIFOLD) {
    for (int i = 0; i < 4; ++i) {
      if (i < nc) collide_push(m, cp[i], cg[i], cid[i], margin);
    }
    return m;
  }

  // Reduction to 4 points (see the header): deepest (flat ties: farthest from the center),
  // farthest from it, then the largest triangles on either side.
  vec3 center = vec3(0.0f);
  float gmin = VKPHYS_COLLIDE_BIG;
  for (int i = 0; i < 8; ++i) {
    if (i < nc) {
      center += cp[i];
      gmin = min(gmin, cg[i]);
    }
  }
  center = center / float(nc);
  float tol = 0.02f * max(er[(ri + 1) % 3], er[(ri + 2) % 3]);
  int i1 = 0;
  float best = -1.0f;
  for (int i = 0; i < 8; ++i) {
    if (i < nc && cg[i] <= gmin + tol) {
      vec3 w = cp[i] - center;
      w -= dot(w, nr) * nr;
      float r2 = dot(w, w);
      if (r2 > best) {
        best = r2;
        i1 = i;
      }
    }
  }
  int i2 = -1;
  best = -1.0f;
  for (int i = 0; i < 8; ++i) {
    if (i < nc && i != i1) {
      vec3 w = cp[i] - cp[i1];
      w -= dot(w, nr) * nr;
      float r2 = dot(w, w);
      if (r2 > best) {
        best = r2;
        i2 = i;
      }
    }
  }
  int i3 = -1;
  int i4 = -1;
  float amax = 0.0f;
  float amin = 0.0f;
  for (int i = 0; i < 8; ++i) {
    if (i < nc && i != i1 && i != i2) {
      float area = dot(cross(cp[i2] - cp[i1], cp[i] - cp[i1]), nr);
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
  collide_push(m, cp[i1], cg[i1], cid[i1], margin);
  if (i2 >= 0) collide_push(m, cp[i2], cg[i2], cid[i2], margin);
  if (i3 >= 0) collide_push(m, cp[i3], cg[i3], cid[i3], margin);
  if (i4 >= 0) collide_push(m, cp[i4], cg[i4], cid[i4], margin);
  return m;
}

// ---------------------------------------------------------------------------------------------
// Dispatch. Requires a.type <= b.type (the caller orders the pair).

KFN Manifold collide(Collider a, Collider b, float margin) {
  if (a.type == VKPHYS_SHAPE_PLANE) {
    if (b.type == VKPHYS_SHAPE_SPHERE) return collide_plane_sphere(a, b, margin);
    if (b.type == VKPHYS_SHAPE_CAPSULE) return collide_plane_capsule(a, b, margin);
    if (b.type == VKPHYS_SHAPE_BOX) return collide_plane_box(a, b, margin);
  } else if (a.type == VKPHYS_SHAPE_SPHERE) {
    if (b.type == VKPHYS_SHAPE_SPHERE) return collide_sphere_sphere(a, b, margin);
    if (b.type == VKPHYS_SHAPE_CAPSULE) return collide_sphere_capsule(a, b, margin);
    if (b.type == VKPHYS_SHAPE_BOX) return collide_sphere_box(a, b, margin);
  } else if (a.type == VKPHYS_SHAPE_CAPSULE) {
    if (b.type == VKPHYS_SHAPE_CAPSULE) return collide_capsule_capsule(a, b, margin);
    if (b.type == VKPHYS_SHAPE_BOX) return collide_capsule_box(a, b, margin);
  } else if (a.type == VKPHYS_SHAPE_BOX) {
    if (b.type == VKPHYS_SHAPE_BOX) return collide_box_box(a, b, margin);
  }
  return collide_empty();
}

KERNELS_END
#endif
