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
///
/// A mesh cloth (MeshClothSpec, add_mesh_cloth) is the same over a triangle mesh, such as an OBJ
/// file read by read_obj_mesh: a particle per vertex, a structural spring per mesh edge, a bend
/// spring across each interior edge, the mesh's triangles as its surface and each vertex
/// weighing a third of its triangles' areas.
#ifndef VKPHYS_CLOTH_H
#define VKPHYS_CLOTH_H

#include <cstdint>
#include <filesystem>
#include <glm/glm.hpp>
#include <string>
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

/// Long-range attachments (tethers; Kim, Tang & Cohen 2012, as Jolt's and PhysX's cloth): each
/// free vertex gets a one-sided spring (SpringPull::tether) to the pinned vertex (static or
/// kinematic, 1/m = 0) nearest it in the rest shape, with that distance as its rest length. It
/// pulls only when the vertex is farther from its pin than that, so a hanging cloth's load goes
/// straight to the pins instead of down a column of springs a few sweeps cannot carry.
enum class ClothTethers : std::uint32_t {
  none,       ///< no tethers (the default: a cloth as before)
  euclidean,  ///< the pin nearest in straight-line rest distance (Jolt's default)
  geodesic    ///< the pin nearest along the cloth's springs (Dijkstra over their rest lengths)
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
  /// Tethers to the pins (at least one pin needed), compliant rows with k_structural and d.
  ClothTethers tethers = ClothTethers::none;
};

/// Appends the cloth's particles, springs and triangles to the scene; returns the index of its
/// first particle (vertex (i, j) is first + j nu + i). Throws std::invalid_argument naming the
/// field.
VKPHYS_API std::uint32_t add_cloth(Scene& scene, const ClothSpec& spec);

/// The number of springs add_cloth makes for the spec (its resolution, diagonals and bend; with
/// tethers, one more per vertex that is not pinned).
VKPHYS_API std::uint64_t cloth_spring_count(const ClothSpec& spec);

/// Appends tethers (ClothTethers) among scene particles [first, first + count): its pins are
/// those of them with 1/m = 0, and geodesic distances run along the scene's springs between two
/// of them (tethers and particle-body springs left out). Each particle that is not a pin and
/// that some pin reaches gets one compliant SpringPull::tether spring to its nearest pin (ties:
/// the pin listed first), rest length its distance, stiffness k and SPOOK relaxation d. Run it
/// after the pins are set and before anything moves. Returns the number of tethers added.
/// Throws std::invalid_argument naming the value: the range outside the particles, no pin in
/// it (for euclidean or geodesic), k or d out of range.
VKPHYS_API std::uint32_t add_tethers(Scene& scene, std::uint32_t first, std::uint32_t count,
                                     ClothTethers mode, float k, float d);

/// A triangle mesh as read from a file or built in code: vertex positions and triangles over
/// them, wound counter-clockwise about their front normal. Where it came from (a file, each
/// element's line) only names the element in error messages.
struct TriangleMesh {
  std::vector<glm::vec3> vertices;
  std::vector<Triangle> triangles;            ///< indices into vertices
  std::string source;                         ///< the file, or empty for a mesh built in code
  std::vector<std::uint32_t> vertex_lines;    ///< each vertex's line in source, or empty
  std::vector<std::uint32_t> triangle_lines;  ///< each triangle's face line in source, or empty
};

/// Reads a Wavefront OBJ file's vertices ("v") and faces ("f") with tinyobjloader. A polygon
/// of n corners becomes the fan (0, k, k+1), k = 1 .. n-2 (so keep polygons convex and planar);
/// indices may be absolute (1-based) or relative (negative); normals, texture coordinates,
/// groups and materials are ignored; nothing is merged: each "v" line is one vertex. Throws
/// std::invalid_argument naming the file and line for what it cannot take: a parse error,
/// tinyobjloader's warnings, a face index out of range, a face of fewer than 3 corners, lines
/// or points ("l", "p"). The geometry (empty, degenerate, non-manifold) is checked by
/// add_mesh_cloth.
VKPHYS_API TriangleMesh read_obj_mesh(const std::filesystem::path& path);

/// A cloth over a triangle mesh: every vertex a particle, every unique mesh edge a structural
/// spring (k_structural) and, across each interior edge (two triangles share it), a bend spring
/// (k_bend) joining the two triangles' opposite vertices (left out where a spring already joins
/// them), each at its rest length as placed. Vertex i sits at
/// origin + scale rotate(orientation, mesh.vertices[i]) with mass density (the sum of the
/// areas of its triangles) / 3, so the cloth weighs density times its area. As for ClothSpec,
/// the vertices share one collision group, a thickness turns on self-collision, and the mesh's
/// triangles (their winding kept) join Scene::triangles.
struct MeshClothSpec {
  TriangleMesh mesh;                              ///< read_obj_mesh's or one built in code
  glm::vec3 origin{0.0f};                         ///< [m]
  float scale = 1.0f;                             ///< > 0
  glm::vec4 orientation{0.0f, 0.0f, 0.0f, 1.0f};  ///< unit quaternion (x, y, z, w)
  float density = 0.1f;                           ///< areal density [kg/m^2]
  float radius = 0.0f;  ///< vertex radius [m]; 0: 0.25 of the mean edge length
  /// Self-collision's contact distance [m]; 0: off. Else at least 2 radius and below the rest
  /// distance of the nearest two vertices no spring joins.
  float thickness = 0.0f;
  float k_structural = 1.0e3f;  ///< every mesh edge [N/m], > 0
  float k_bend = 1.0e1f;        ///< across every interior edge [N/m]; 0: no bend springs
  float d = 4.0f;               ///< compliant: SPOOK relaxation of every spring [steps]
  SpringModel model = SpringModel::compliant;  ///< every spring's model (vkphys/scene.h)
  float c = 0.0f;                              ///< force: every spring's damping [kg/s]
  std::uint32_t material = 0;
  std::vector<std::uint32_t> pins;  ///< vertex indices into mesh.vertices, made static
  /// Tethers to the pins (at least one pin needed), compliant rows with k_structural and d.
  ClothTethers tethers = ClothTethers::none;
};

/// The springs add_mesh_cloth makes: one per unique edge, and one per interior edge whose
/// opposite vertices no other spring joins.
struct MeshClothSprings {
  std::uint64_t structural = 0;
  std::uint64_t bend = 0;  ///< counted whether or not k_bend is 0
};

/// Checks the mesh (add_mesh_cloth's rules) and counts its springs.
VKPHYS_API MeshClothSprings mesh_cloth_springs(const TriangleMesh& mesh);

/// Appends the mesh cloth's particles, springs and triangles to the scene; returns the index of
/// its first particle (vertex i is first + i). Throws std::invalid_argument naming the field,
/// or the vertex or triangle (with the file and line for a mesh read from a file) and the rule:
/// no triangles, more than 2^24 vertices, an index out of range, a vertex no triangle uses, a
/// non-finite coordinate, a triangle of zero area, an edge shared by more than two triangles.
VKPHYS_API std::uint32_t add_mesh_cloth(Scene& scene, const MeshClothSpec& spec);

}  // namespace vkphys

#endif
