// Mass properties of the rigid-body shapes: volume (for density-specified bodies) and the
// body-frame inertia tensor about the centre of mass.
//
// Every shape here is symmetric about its centre, so the centre of mass is the shape's centre
// and the shape's own axes are principal axes: the inertia tensor is diagonal and stored as its
// three diagonal entries. World-frame inverse inertia is R I^-1 R^T, applied on the fly as
// q (I^-1 (q* v q)) q* (kernels/rigid_body.h).
#pragma once

#include <glm/glm.hpp>

#include "vkphys/scene.h"

namespace vkphys {

// Volume [m^3] of the body's shape (0 for planes and shapeless bodies).
double shape_volume(const Body& body);

// Principal moments of inertia [kg m^2] for the body's shape and mass. Shapeless bodies get
// the moments of a unit sphere of their mass so a dynamic one still rotates sensibly.
glm::dvec3 principal_inertia(const Body& body);

// (1/Ix, 1/Iy, 1/Iz), all zero for a static body (mass 0).
glm::vec3 inverse_inertia(const Body& body);

}  // namespace vkphys
