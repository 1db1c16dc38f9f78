// What joins particles: springs (to each other or to a rigid body) and triangles. build_world
// (host/sim/world_setup.cpp) calls the add_ and check_ functions below in this order, after the
// bodies and the scene's joints are packed; each throws std::invalid_argument naming the spring
// or triangle, the value and the limit.
#pragma once

#include <glm/glm.hpp>
#include <string>

#include "host/sim/world_setup.h"

namespace vkphys {

// Compliant springs become distance joints between particles (world indices R + a, R + b) with
// anchors at their centres, after the scene's joints; a particle-body spring is the same joint
// with its b end at the anchor on body b (kernels/joints.inl gives it the lever arm). Force
// springs go to their own list, and each particle gets the list of its force springs in spring
// order (kernels/world_ode.inl sums them in that order).
void add_springs(const Scene& scene, WorldArrays& w);

// Each particle's spring partners as world indices, ascending, for self-collision's pair filter
// (kernels/particle_grid.inl, spring_partners); only when some particle has a thickness. Runs
// after add_springs checked the springs' ends.
void add_spring_partners(const Scene& scene, WorldArrays& w);

// Triangles carry no physics, but the pictures and the VTK frames index particles by them.
void check_triangles(const Scene& scene);

// With forces.wind, every scene triangle feels the wind: its world indices and which faces the
// air reaches (wind_sides: one on closed surfaces, two on sheets) and, per particle,
// the triangles it is a vertex of in triangle order (an exclusive scan of the counts, then each
// triangle's three entries), which the wind's gather walks (kernels/world_ode.inl).
void add_wind_triangles(const Scene& scene, WorldArrays& w);

// Whether some particle has a thickness (self-collision is on).
bool any_thickness(const Particles& particles);

// How far the point p (in body b's frame) lies outside b's shape [m]: 0 on or inside it, and
// always 0 for a shapeless body. With shape_extent (the shape and its sizes in words) it checks
// a particle-body spring's anchor in add_springs and in the scene reader.
double outside_shape(const Body& b, glm::dvec3 p);
constexpr double kAnchorTolerance = 1e-6;  // [m] an anchor may lie this far outside (rounding)
std::string shape_extent(const Body& b);

}  // namespace vkphys
