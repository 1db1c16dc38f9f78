// A cloth over a triangle mesh (issue 9: cloth from a mesh file), the grid cloth's sibling
// (cloth.cpp): the same particles (one collision group, a thickness for self-collision), the
// same springs (host/sim/generated_particles.h) and the mesh's own triangles as its surface.
//
// Topology. Every unique edge {a, b} of the triangles is a structural spring. An edge shared by
// two triangles is interior: across it a bend spring joins the two vertices opposite the edge,
// the classic mesh bend spring (it resists folding about the edge, as a grid cloth's springs two
// vertices apart do). An edge of a third triangle would make the surface non-manifold (no
// "across"), so it is refused, as is a vertex that no triangle uses (it would weigh nothing) and a
// triangle of zero area (no normal, no mass). A bend pair that a spring already joins (in a
// small closed mesh two interior edges can share their opposite vertices) gets no second spring.
//
// Mass. Each triangle's area is split equally among its corners (the lumped mass matrix of
// linear elements), so the cloth weighs density times its area whatever the triangles' shapes;
// on a grid triangulated like the grid cloth an interior vertex gets the grid cloth's mass.
//
// The springs and the triangles come out in the mesh's order (structural springs as each edge
// is first met, then bend springs in the order of the triangles' second sides), so one mesh
// always gives the same scene.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <glm/gtc/quaternion.hpp>
#include <limits>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "host/sim/generated_particles.h"
#include "vkphys/cloth.h"

namespace vkphys {

namespace {

constexpr std::uint64_t kMaxMeshVertices = std::uint64_t{1} << 24;  // as add_cloth's 4096^2

[[noreturn]] void fail(const std::string& what) {
  throw std::invalid_argument("mesh cloth: " + what);
}

void require(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

std::string line_of(const TriangleMesh& m, const std::vector<std::uint32_t>& lines, std::size_t i) {
  if (i >= lines.size()) return "";
  return " (" + m.source + " line " + std::to_string(lines[i]) + ")";
}

// "vertex 7 (a.obj line 12)" or "vertex 7"; "triangle 3 (a.obj line 40)" or "triangle 3".
std::string vertex_name(const TriangleMesh& m, std::size_t v) {
  return "vertex " + std::to_string(v) + line_of(m, m.vertex_lines, v);
}
std::string triangle_name(const TriangleMesh& m, std::size_t t) {
  return "triangle " + std::to_string(t) + line_of(m, m.triangle_lines, t);
}

std::uint64_t edge_key(std::uint32_t a, std::uint32_t b) {
  return (std::uint64_t{std::min(a, b)} << 32) | std::max(a, b);
}

// An edge's triangles (at most two) and, in each, the corner opposite the edge.
struct EdgeUse {
  std::array<std::uint32_t, 2> triangle{};
  std::array<std::uint32_t, 2> opposite{};
  std::uint32_t count = 0;
};

// The mesh's springs as vertex pairs: the unique edges in the order first met, then the bend
// pairs across interior edges. Throws for every rule in add_mesh_cloth's list.
struct Topology {
  std::vector<std::array<std::uint32_t, 2>> edges, bends;
  std::unordered_set<std::uint64_t> joined;  // edge_key of every pair a spring joins
};

Topology topology(const TriangleMesh& m) {
  const std::size_t nv = m.vertices.size();
  require(!m.triangles.empty(), "the mesh" + (m.source.empty() ? "" : " " + m.source) +
                                    " has no triangles (a cloth needs at least one)");
  require(nv <= kMaxMeshVertices,
          "the mesh has " + std::to_string(nv) + " vertices; at most 2^24 are allowed");
  for (std::size_t v = 0; v < nv; ++v) {
    const glm::vec3 x = m.vertices[v];
    require(std::isfinite(x.x) && std::isfinite(x.y) && std::isfinite(x.z),
            vertex_name(m, v) + " has a non-finite coordinate");
  }
  std::vector<bool> used(nv, false);
  Topology topo;
  std::unordered_map<std::uint64_t, EdgeUse> uses;
  uses.reserve(3 * m.triangles.size() / 2 + 1);
  for (std::size_t t = 0; t < m.triangles.size(); ++t) {
    const Triangle& tri = m.triangles[t];
    const std::array<std::uint32_t, 3> c{tri.a, tri.b, tri.c};
    for (std::size_t k = 0; k < 3; ++k) {
      require(c[k] < nv, triangle_name(m, t) + " corner " + std::to_string(k) + " = vertex " +
                             std::to_string(c[k]) + ": index out of range (the mesh has " +
                             std::to_string(nv) + " vertices)");
      used[c[k]] = true;
    }
    const glm::dvec3 xa(m.vertices[c[0]]);
    const double area = 0.5 * glm::length(glm::cross(glm::dvec3(m.vertices[c[1]]) - xa,
                                                     glm::dvec3(m.vertices[c[2]]) - xa));
    require(area > 0.0, triangle_name(m, t) + " [" + std::to_string(c[0]) + ", " +
                            std::to_string(c[1]) + ", " + std::to_string(c[2]) +
                            "] is degenerate (area " + std::to_string(area) +
                            " m^2; it must be > 0)");
    for (std::size_t k = 0; k < 3; ++k) {
      const std::uint32_t a = c[k], b = c[(k + 1) % 3];
      EdgeUse& e = uses[edge_key(a, b)];
      if (e.count == 2) {
        fail("the edge between vertices " + std::to_string(std::min(a, b)) + " and " +
             std::to_string(std::max(a, b)) + " is shared by " + triangle_name(m, e.triangle[0]) +
             ", " + triangle_name(m, e.triangle[1]) + " and " + triangle_name(m, t) +
             "; a cloth's edge belongs to at most two triangles (non-manifold)");
      }
      e.triangle[e.count] = static_cast<std::uint32_t>(t);
      e.opposite[e.count] = c[(k + 2) % 3];
      if (e.count++ == 0) {
        topo.edges.push_back({a, b});
        topo.joined.insert(edge_key(a, b));
      }
    }
  }
  for (std::size_t v = 0; v < nv; ++v) {
    require(used[v], vertex_name(m, v) + " belongs to no triangle (it would have no mass)");
  }
  for (std::size_t t = 0; t < m.triangles.size(); ++t) {
    const Triangle& tri = m.triangles[t];
    const std::array<std::uint32_t, 3> c{tri.a, tri.b, tri.c};
    for (std::size_t k = 0; k < 3; ++k) {
      const EdgeUse& e = uses.at(edge_key(c[k], c[(k + 1) % 3]));
      if (e.count < 2 || e.triangle[1] != t) continue;  // each interior edge once
      const std::uint32_t p = e.opposite[0], q = e.opposite[1];
      require(p != q, triangle_name(m, e.triangle[0]) + " and " + triangle_name(m, t) +
                          " have the same three corners");
      if (topo.joined.insert(edge_key(p, q)).second) topo.bends.push_back({p, q});
    }
  }
  return topo;
}

// Two vertices nearer than `thickness` that no spring joins, with their distance, or none
// (distance infinity): vertices sorted into cells of the thickness's size, each compared with
// the 27 cells around it. It stops at the first such pair, so each vertex is compared with its
// joined neighbours and one more at most.
struct Unjoined {
  std::uint32_t a = 0, b = 0;
  float distance = std::numeric_limits<float>::infinity();
};
Unjoined unjoined_within(const std::vector<glm::vec3>& x, float thickness,
                         const std::unordered_set<std::uint64_t>& joined) {
  using Cell = std::array<std::int64_t, 3>;
  std::vector<std::pair<Cell, std::uint32_t>> sorted(x.size());
  for (std::uint32_t i = 0; i < x.size(); ++i) {
    const glm::dvec3 s = glm::floor(glm::dvec3(x[i]) / static_cast<double>(thickness));
    sorted[i] = {Cell{static_cast<std::int64_t>(s.x), static_cast<std::int64_t>(s.y),
                      static_cast<std::int64_t>(s.z)},
                 i};
  }
  std::sort(sorted.begin(), sorted.end());
  for (const auto& [cell, i] : sorted) {
    for (std::int64_t dz = -1; dz <= 1; ++dz) {
      for (std::int64_t dy = -1; dy <= 1; ++dy) {
        for (std::int64_t dx = -1; dx <= 1; ++dx) {
          const Cell n{cell[0] + dx, cell[1] + dy, cell[2] + dz};
          auto it = std::lower_bound(sorted.begin(), sorted.end(), std::make_pair(n, 0u));
          for (; it != sorted.end() && it->first == n; ++it) {
            const std::uint32_t j = it->second;
            if (j == i || joined.count(edge_key(i, j))) continue;
            const float d = glm::length(x[j] - x[i]);
            if (d < thickness) return Unjoined{std::min(i, j), std::max(i, j), d};
          }
        }
      }
    }
  }
  return Unjoined{};
}

}  // namespace

MeshClothSprings mesh_cloth_springs(const TriangleMesh& mesh) {
  const Topology topo = topology(mesh);
  return MeshClothSprings{topo.edges.size(), topo.bends.size()};
}

std::uint32_t add_mesh_cloth(Scene& scene, const MeshClothSpec& c) {
  const TriangleMesh& m = c.mesh;
  require(std::isfinite(c.scale) && c.scale > 0.0f,
          "scale " + std::to_string(c.scale) + " must be > 0");
  const float qn = glm::length(c.orientation);
  require(std::isfinite(qn) && std::abs(qn - 1.0f) <= 1.0e-4f,
          "orientation must be a unit quaternion (its length is " + std::to_string(qn) + ")");
  require(std::isfinite(c.density) && c.density > 0.0f,
          "density " + std::to_string(c.density) + " kg/m^2 must be > 0");
  require(std::isfinite(c.k_structural) && c.k_structural > 0.0f,
          "k_structural " + std::to_string(c.k_structural) + " must be > 0");
  require(std::isfinite(c.k_bend) && c.k_bend >= 0.0f,
          "k_bend " + std::to_string(c.k_bend) + " must be >= 0");
  require(std::isfinite(c.d) && c.d >= 0.0f, "d " + std::to_string(c.d) + " must be >= 0");
  require(std::isfinite(c.c) && c.c >= 0.0f, "c " + std::to_string(c.c) + " must be >= 0");
  check_tethers(c.tethers, !c.pins.empty(), "mesh cloth");
  const Topology topo = topology(m);
  const auto nv = static_cast<std::uint32_t>(m.vertices.size());
  for (std::uint32_t pin : c.pins) {
    require(pin < nv, "pin " + std::to_string(pin) + ": vertex index out of range (the mesh has " +
                          std::to_string(nv) + " vertices)");
  }
  // Placed vertices in double, so the areas (and masses) are those of the cloth as placed.
  const glm::dvec4 o(c.orientation);
  const glm::dquat q(o.w, o.x, o.y, o.z);
  std::vector<glm::dvec3> x(nv);
  for (std::uint32_t v = 0; v < nv; ++v) {
    x[v] = glm::dvec3(c.origin) + static_cast<double>(c.scale) * (q * glm::dvec3(m.vertices[v]));
  }
  std::vector<double> mass(nv, 0.0);
  for (const Triangle& t : m.triangles) {
    const double third = glm::length(glm::cross(x[t.b] - x[t.a], x[t.c] - x[t.a])) / 6.0;
    for (std::uint32_t v : {t.a, t.b, t.c}) mass[v] += static_cast<double>(c.density) * third;
  }
  double edge_sum = 0.0;
  for (const auto& [a, b] : topo.edges) edge_sum += glm::length(x[b] - x[a]);
  const auto mean_edge = static_cast<float>(edge_sum / static_cast<double>(topo.edges.size()));
  const float radius = generated_radius(c.radius, mean_edge, "mesh cloth", "mean edge");
  std::vector<glm::vec3> placed(x.begin(), x.end());
  if (c.thickness > 0.0f && std::isfinite(c.thickness)) {
    // Only a pair nearer than the thickness can break the rule, so the search is that wide.
    const Unjoined u = unjoined_within(placed, c.thickness, topo.joined);
    check_thickness(c.thickness, radius, u.distance, "mesh cloth",
                    "vertices " + std::to_string(u.a) + " and " + std::to_string(u.b) +
                        ", which no spring joins");
  } else {
    check_thickness(c.thickness, radius, std::numeric_limits<float>::infinity(), "mesh cloth");
  }
  Particles& p = scene.particles;
  const auto first = static_cast<std::uint32_t>(p.size());
  const std::uint32_t group = next_particle_group(p);
  for (std::uint32_t v = 0; v < nv; ++v) {
    add_grouped_particle(p, placed[v], radius, static_cast<float>(mass[v]), c.material, group,
                         c.thickness);
  }
  for (std::uint32_t pin : c.pins) p.vel_invmass[first + pin].w = 0.0f;
  for (const auto& [a, b] : topo.edges) {
    add_rest_spring(scene, first + a, first + b, c.k_structural, c.d, c.model, c.c);
  }
  if (c.k_bend > 0.0f) {
    for (const auto& [a, b] : topo.bends) {
      add_rest_spring(scene, first + a, first + b, c.k_bend, c.d, c.model, c.c);
    }
  }
  for (const Triangle& t : m.triangles) {
    scene.triangles.push_back({first + t.a, first + t.b, first + t.c});
  }
  add_tethers(scene, first, nv, c.tethers, c.k_structural, c.d);
  return first;
}

}  // namespace vkphys
