// A collision shape placed in the world, and the contact manifold a pair test produces.
// Shared by the narrowphase (kernels/collide.h) and the rigid-body stage functions.
//
// Shape numbering (vkphys/scene.h, enum Shape): a pair (a, b) is always tested with
// a.type <= b.type, so there is one test per unordered pair of shapes.
#ifndef VKPHYS_KERNELS_COLLIDER_H
#define VKPHYS_KERNELS_COLLIDER_H
#include "kernels/common.h"

KERNELS_BEGIN

// Plane: a static half-space; local +y is the outward normal, the body's position is a point on
// the surface.
#define VKPHYS_SHAPE_PLANE 0u
#define VKPHYS_SHAPE_SPHERE 1u   // dims.w = radius
#define VKPHYS_SHAPE_CAPSULE 2u  // segment from -dims.y to +dims.y along local y, radius dims.w
#define VKPHYS_SHAPE_BOX 3u      // half extents dims.xyz
#define VKPHYS_SHAPE_NONE 4u     // no collision (e.g. the static "world" body joints hang from)
#define VKPHYS_MAX_MANIFOLD 4

struct Collider {
  uint type;
  vec3 pos;   // centre (plane: a point on the surface)
  vec4 rot;   // unit quaternion (x, y, z, w), body to world
  vec4 dims;  // see the shape list above
};

// Up to four contact points between bodies a and b, all sharing one normal.
//   normal:     unit normal pointing from a towards b (out of a)
//   point[i]:   xyz = world contact point, midway between the two surfaces;
//               w = gap along the normal, negative when penetrating
//   feature[i]: an id of the features that made the point (e.g. reference face and incident
//               vertex), stable from step to step while the configuration persists, so that
//               warm starting can match points of consecutive steps
// Only points with gap < margin are reported (speculative contacts).
struct Manifold {
  vec3 normal;
  uint count;
  vec4 point[VKPHYS_MAX_MANIFOLD];
  uint feature[VKPHYS_MAX_MANIFOLD];
};

KERNELS_END
#endif
