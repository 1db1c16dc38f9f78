// Which faces of the scene's triangles the wind reaches (kernels/aero.h): a cloth sheet is
// struck and wetted on both faces, a closed surface (a soft body's skin, a closed mesh) only on
// its outside. add_wind_triangles (host/sim/particle_links.h) stores the answer in wind_tris.w.
#pragma once

#include <cstdint>
#include <glm/glm.hpp>
#include <span>
#include <vector>

#include "vkphys/scene.h"

namespace vkphys {

// Each triangle's VKPHYS_WIND_* (kernels/aero.h), found per edge-connected component of the
// triangles. A component is closed when each of its directed edges (a, b) occurs in exactly one
// of its triangles and the reverse (b, a) in exactly one other: a consistently wound closed
// 2-manifold, which has an inside. Its signed volume, the sum of det(x_a, x_b, x_c) / 6 over its
// triangles at the positions given, says which way it winds: VKPHYS_WIND_OUTWARD when >= 0,
// VKPHYS_WIND_INWARD when < 0 (a flat closed surface, volume 0, is two coincident layers facing
// opposite ways: either choice shields one of them, which is the one plate it is). An open,
// non-manifold or inconsistently wound component is a sheet: VKPHYS_WIND_TWO_SIDED. The
// triangles' indices must be checked (check_triangles). Expected time linear in the triangles
// (a hash map of directed edges and a union-find over the triangles).
std::vector<std::uint32_t> wind_sides(std::span<const Triangle> triangles,
                                      std::span<const glm::vec4> positions);

}  // namespace vkphys
