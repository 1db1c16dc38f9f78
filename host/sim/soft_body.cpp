#include "vkphys/soft_body.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include "host/sim/generated_particles.h"

namespace vkphys {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("soft box: " + what);
}

}  // namespace

SoftBoxSprings soft_box_springs(std::uint64_t nx, std::uint64_t ny, std::uint64_t nz) {
  SoftBoxSprings s;
  s.edge = (nx - 1) * ny * nz + nx * (ny - 1) * nz + nx * ny * (nz - 1);
  s.face = 2 * (nx * (ny - 1) * (nz - 1) + (nx - 1) * ny * (nz - 1) + (nx - 1) * (ny - 1) * nz);
  s.body = 4 * (nx - 1) * (ny - 1) * (nz - 1);
  return s;
}

std::uint32_t add_soft_box(Scene& scene, const SoftBoxSpec& b) {
  for (std::uint32_t n : {b.nx, b.ny, b.nz}) {
    require(n >= 2 && n <= 256,
            "resolution " + std::to_string(n) + " must be 2 to 256 particles along each axis");
  }
  for (int a = 0; a < 3; ++a) {
    require(std::isfinite(b.size[a]) && b.size[a] > 0.0f,
            "size " + std::to_string(b.size[a]) + " m must be > 0");
  }
  require(std::isfinite(b.density) && b.density > 0.0f,
          "density " + std::to_string(b.density) + " kg/m^3 must be > 0");
  require(std::isfinite(b.k_edge) && b.k_edge > 0.0f,
          "k_edge " + std::to_string(b.k_edge) + " must be > 0");
  for (float k : {b.k_face, b.k_body}) {
    require(std::isfinite(k) && k >= 0.0f, "spring k " + std::to_string(k) + " must be >= 0");
  }
  require(std::isfinite(b.d) && b.d >= 0.0f, "d " + std::to_string(b.d) + " must be >= 0");
  require(std::isfinite(b.c) && b.c >= 0.0f, "c " + std::to_string(b.c) + " must be >= 0");
  const glm::uvec3 n(b.nx, b.ny, b.nz);
  const glm::vec3 step = b.size / glm::vec3(n - 1u);
  const float spacing = std::min({step.x, step.y, step.z});
  const float radius = generated_radius(b.radius, spacing, "soft box", "particle");
  Particles& p = scene.particles;
  const auto first = static_cast<std::uint32_t>(p.size());
  const std::uint32_t group = next_particle_group(p);
  const float mass =
      b.density * b.size.x * b.size.y * b.size.z / static_cast<float>(n.x * n.y * n.z);
  for (std::uint32_t k = 0; k < n.z; ++k) {
    for (std::uint32_t j = 0; j < n.y; ++j) {
      for (std::uint32_t i = 0; i < n.x; ++i) {
        add_grouped_particle(p, b.origin + glm::vec3(i, j, k) * step, radius, mass, b.material,
                             group);
      }
    }
  }
  auto index = [&](glm::uvec3 q) { return first + (q.z * n.y + q.y) * n.x + q.x; };
  auto spring = [&](glm::uvec3 qa, glm::uvec3 qb, float k) {
    if (k <= 0.0f) return;
    add_rest_spring(scene, index(qa), index(qb), k, b.d, b.model, b.c);
  };
  // Every lattice point q links to the points in the +x, +y, +z directions: the 3 edges, the 6
  // face diagonals of the 3 faces at its + sides (2 per face), and the 4 body diagonals of the
  // cell at its + corner, each once.
  const std::array<glm::uvec3, 3> axis{glm::uvec3(1, 0, 0), glm::uvec3(0, 1, 0),
                                       glm::uvec3(0, 0, 1)};
  for (std::uint32_t z = 0; z < n.z; ++z) {
    for (std::uint32_t y = 0; y < n.y; ++y) {
      for (std::uint32_t x = 0; x < n.x; ++x) {
        const glm::uvec3 q(x, y, z);
        auto inside = [&](glm::uvec3 r) { return r.x < n.x && r.y < n.y && r.z < n.z; };
        for (std::size_t a = 0; a < 3; ++a) {
          if (inside(q + axis[a])) spring(q, q + axis[a], b.k_edge);
        }
        for (std::size_t a = 0; a < 3; ++a) {  // the face spanned by the other two axes
          const glm::uvec3 u = axis[(a + 1) % 3], v = axis[(a + 2) % 3];
          if (inside(q + u + v)) {
            spring(q, q + u + v, b.k_face);
            spring(q + u, q + v, b.k_face);
          }
        }
        if (inside(q + 1u)) {
          spring(q, q + 1u, b.k_body);
          spring(q + axis[0], q + axis[1] + axis[2], b.k_body);
          spring(q + axis[1], q + axis[0] + axis[2], b.k_body);
          spring(q + axis[2], q + axis[0] + axis[1], b.k_body);
        }
      }
    }
  }
  // The outer surface: each of the six faces a grid of cells split along one diagonal. On the
  // face normal to axis a the grid runs along u = axis a+1 and v = axis a+2, and u x v = axis a:
  // counter-clockwise about +axis a on the far face, reversed on the near one, so every
  // triangle faces out.
  for (std::size_t a = 0; a < 3; ++a) {
    const glm::uvec3 u = axis[(a + 1) % 3], v = axis[(a + 2) % 3];
    const std::uint32_t nu = n[static_cast<glm::length_t>((a + 1) % 3)];
    const std::uint32_t nv = n[static_cast<glm::length_t>((a + 2) % 3)];
    for (const std::uint32_t side : {0u, n[static_cast<glm::length_t>(a)] - 1u}) {
      const bool far = side > 0;
      for (std::uint32_t j = 0; j + 1 < nv; ++j) {
        for (std::uint32_t i = 0; i + 1 < nu; ++i) {
          const glm::uvec3 q = axis[a] * side + u * i + v * j;
          const std::uint32_t c00 = index(q), c10 = index(q + u), c11 = index(q + u + v),
                              c01 = index(q + v);
          if (far) {
            scene.triangles.push_back({c00, c10, c11});
            scene.triangles.push_back({c00, c11, c01});
          } else {
            scene.triangles.push_back({c00, c11, c10});
            scene.triangles.push_back({c00, c01, c11});
          }
        }
      }
    }
  }
  return first;
}

}  // namespace vkphys
