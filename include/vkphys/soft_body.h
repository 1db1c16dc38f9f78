/// \file
/// A soft body as a lattice of particles and springs in the one world (issue 9's jelly cube): an
/// axis-aligned box of nx x ny x nz particles joined by edge springs (lattice neighbours along x,
/// y and z), face-diagonal springs (both diagonals of every lattice face) and body-diagonal springs
/// (the four diagonals of every cell), each with the kind's k: compliant SPOOK rows with d, or
/// (model force) damped force springs with c. Mass per particle from the volume density:
/// density size.x size.y size.z / (nx ny nz). The particles share one collision group: they
/// collide with bodies, planes and other particles but not with each other.
#ifndef VKPHYS_SOFT_BODY_H
#define VKPHYS_SOFT_BODY_H

#include <cstdint>
#include <glm/glm.hpp>

#include "vkphys/export.h"
#include "vkphys/scene.h"

namespace vkphys {

struct SoftBoxSpec {
  glm::vec3 origin{0.0f};                      ///< the corner with the smallest x, y, z [m]
  glm::vec3 size{1.0f};                        ///< edge lengths along x, y, z [m], each > 0
  std::uint32_t nx = 4, ny = 4, nz = 4;        ///< particles along x, y, z, 2 to 256 each
  float density = 100.0f;                      ///< [kg/m^3]
  float radius = 0.0f;                         ///< [m]; 0: 0.25 of the smallest spacing
  float k_edge = 1.0e3f;                       ///< [N/m], > 0
  float k_face = 5.0e2f;                       ///< [N/m]; 0: no face diagonals
  float k_body = 2.0e2f;                       ///< [N/m]; 0: no body diagonals
  SpringModel model = SpringModel::compliant;  ///< every spring's model (vkphys/scene.h)
  float d = 4.0f;                              ///< compliant: SPOOK relaxation [steps]
  float c = 0.0f;                              ///< force: damping [kg/s]
  std::uint32_t material = 0;
};

/// The springs a soft box of nx x ny x nz particles gets: edges, face diagonals and body
/// diagonals (the latter two counted whether or not their k is 0).
struct SoftBoxSprings {
  std::uint64_t edge = 0;  ///< lattice neighbours along x, y and z
  std::uint64_t face = 0;  ///< both diagonals of every lattice face
  std::uint64_t body = 0;  ///< the four diagonals of every cell
};
VKPHYS_API SoftBoxSprings soft_box_springs(std::uint64_t nx, std::uint64_t ny, std::uint64_t nz);

/// Appends the soft box's particles and springs to the scene, and its outer surface as
/// Scene::triangles (two per lattice face cell on the six sides, facing out); returns the index of
/// its first particle (particle (i, j, k) is first + (k ny + j) nx + i). Throws
/// std::invalid_argument naming the field.
VKPHYS_API std::uint32_t add_soft_box(Scene& scene, const SoftBoxSpec& spec);

}  // namespace vkphys

#endif
