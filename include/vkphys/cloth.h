/// \file
/// Cloth as particles and springs in the one world (issue 9's compliant method): a grid of
/// nu x nv particles over the parallelogram origin + s u + t v (s, t in [0, 1]), joined by
/// structural springs (grid neighbours), shear springs (both diagonals of each cell, or one
/// diagonal per cell, alternating: ClothDiagonals) and bend springs (neighbours two apart), each
/// with the kind's k: a SPOOK distance row with the cloth's
/// d, or (model force) a damped force spring with the cloth's c.
/// The vertices share one collision group: they collide with bodies, planes and other particles
/// but not with each other, unless the cloth has a thickness: then two vertices that no spring
/// joins collide at distance `thickness` (self-collision), and every vertex shows other
/// particles (another cloth's vertices too) the radius thickness/2 (vkphys/scene.h,
/// Particles::thickness). Mass per vertex from the areal density: density |u x v| / (nu nv).
/// Pinned vertices are static particles.
/// The cloth is also a surface: two Scene::triangles per grid cell (split along its shear
/// spring with alternating diagonals), wound counter-clockwise about u x v, for the pictures
/// and the VTK frames.
#ifndef VKPHYS_CLOTH_H
#define VKPHYS_CLOTH_H

#include <cstdint>
#include <glm/glm.hpp>
#include <utility>
#include <vector>

#include "vkphys/export.h"
#include "vkphys/scene.h"

namespace vkphys {

/// Which diagonals of each grid cell get a shear spring.
enum class ClothDiagonals : std::uint32_t {
  both,        ///< both diagonals: shear stiffness the same in both diagonal directions
  alternating  ///< one, (i, j)-(i+1, j+1) where i + j is odd, else (i+1, j)-(i, j+1): a
               ///< triangulated grid of alternating diagonals, Bullet's CreatePatch cloth
};

struct ClothSpec {
  glm::vec3 origin{0.0f};
  glm::vec3 u{1.0f, 0.0f, 0.0f};   ///< first edge [m]
  glm::vec3 v{0.0f, 0.0f, 1.0f};   ///< second edge [m]
  std::uint32_t nu = 16, nv = 16;  ///< vertices along u and v, >= 2 each
  float density = 0.1f;            ///< areal density [kg/m^2]
  float radius = 0.0f;             ///< vertex radius [m]; 0: 0.25 of the smaller spacing
  /// Self-collision's contact distance [m]; 0: off (the default). Else at least the vertex
  /// diameter 2 radius and below the rest distance of the nearest two vertices no spring joins
  /// (2 spacings without bend springs; with them sqrt(5) on a square grid; with alternating
  /// diagonals the cell's other diagonal, sqrt(2)), or the flat cloth would push itself apart.
  /// Above s / sqrt(2) (s the spacing) it closes the holes between four vertices that a vertex
  /// of another cloth could slip through.
  float thickness = 0.0f;
  float k_structural = 1.0e3f;  ///< [N/m]
  float k_shear = 1.0e2f;       ///< [N/m]
  float k_bend = 1.0e1f;        ///< [N/m]; 0: no bend springs
  ClothDiagonals diagonals = ClothDiagonals::both;
  float d = 4.0f;  ///< compliant: SPOOK relaxation of every spring [steps]
  SpringModel model = SpringModel::compliant;  ///< every spring's model (vkphys/scene.h)
  float c = 0.0f;                              ///< force: every spring's damping [kg/s]
  std::uint32_t material = 0;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pins;  ///< (i along u, j along v)
};

/// Appends the cloth's particles, springs and triangles to the scene; returns the index of its
/// first particle (vertex (i, j) is first + j nu + i). Throws std::invalid_argument naming the
/// field.
VKPHYS_API std::uint32_t add_cloth(Scene& scene, const ClothSpec& spec);

/// The number of springs add_cloth makes for the spec (its resolution, diagonals and bend).
VKPHYS_API std::uint64_t cloth_spring_count(const ClothSpec& spec);

}  // namespace vkphys

#endif
