// Rigid-body narrowphase: one contact manifold per pair of colliders (kernels/collider.h).
//
// This file is the dispatcher collide(a, b, margin); the pair tests live in one header per shape
// family, each with its own notes and feature ids:
//   collide_common.h      shared helpers: empty manifold, push under the margin, closest points
//                         of segments, the single-point manifold of two spheres
//   collide_plane.h       plane-sphere, plane-capsule, plane-box
//   collide_sphere.h      sphere-sphere, sphere-capsule, sphere-box
//   collide_capsule.h     capsule-capsule, capsule-box
//   collide_box_box.h     box-box, the driver of three stages: collide_box_sat.h (separating
//                         axes), collide_box_clip.h (clipping the incident face),
//                         collide_box_reduce.h (reduction to four points)
//
// Where it comes from. Box-box is the separating axis test and incident-face clipping that
// seed 000 section 4 (digest A2.14) prescribes for convex polyhedra. The other pairs are
// closest-point tests between the "core" shapes (a point for a sphere, a segment for a capsule),
// with the radius added afterwards.
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
// Feature ids (uint), unique within a pair and unchanged while the same features touch; each
// family header lists its own.
#ifndef VKPHYS_KERNELS_COLLIDE_H
#define VKPHYS_KERNELS_COLLIDE_H
#include "kernels/collide_box_box.h"
#include "kernels/collide_capsule.h"
#include "kernels/collide_plane.h"
#include "kernels/collide_sphere.h"

KERNELS_BEGIN

// Requires a.type <= b.type (the caller orders the pair).
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
