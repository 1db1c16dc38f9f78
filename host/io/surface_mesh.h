// The world as surface meshes in world coordinates, for the VTK frames (host/io/vtk_output.h)
// and the renderer (host/gpu/renderer.h):
//   * particles as points with a vertex each, or as spheres of their radius (8 x 12 facets);
//   * the scene's triangles (a cloth, a soft body's outside) as polygons: over the particles'
//     points, or, with spheres, over a point of kind `cloth` per particle on a surface, whose
//     sphere is left out (the surface hides it, and a vertex's sphere pokes through a taut
//     cloth's facets as bumps);
//   * rigid bodies: boxes as 6 quads; spheres and capsules as latitude-longitude meshes of 8
//     rings x 12 segments, capsules with a cylinder between their hemispheres; static "world"
//     bodies without a shape have none;
//   * scene planes as a 20 m square around the point nearest the origin, wound
//     counter-clockwise seen from the free side (its geometric normal is the plane's);
//   * joints as lines from the world anchor on body a to the one on body b.
// Every point carries its owner's id (particle, scene body, plane or joint index), kind,
// radius (particles), velocity and angular velocity (bodies).
#pragma once

#include <cstdint>
#include <glm/glm.hpp>
#include <vector>

#include "host/sim/backend.h"
#include "vkphys/scene.h"

namespace vkphys::io {

enum PointKind : std::uint8_t { particle = 0, surface = 1, anchor = 2, plane = 3, cloth = 4 };

struct SurfaceMesh {
  std::vector<glm::dvec3> points;
  std::vector<std::uint32_t> id;
  std::vector<std::uint8_t> kind;  // PointKind
  std::vector<float> radius;
  std::vector<glm::vec3> velocity, angular_velocity;
  std::vector<std::uint32_t> verts;                      // one point each (particles)
  std::vector<std::vector<std::uint32_t>> lines, polys;  // polys: triangles and quads
  std::uint32_t add(glm::dvec3 x, std::uint32_t i, PointKind k, float r, glm::vec3 v, glm::vec3 w);
};

// The mesh of `state` (whose first scene.bodies.size() bodies are the scene's).
SurfaceMesh surface_mesh(const Scene& scene, const WorldState& state, bool particle_spheres);

}  // namespace vkphys::io
