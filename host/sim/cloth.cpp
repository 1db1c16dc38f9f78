#include "vkphys/cloth.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>

#include "host/sim/generated_particles.h"

namespace vkphys {

namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument("cloth: " + what);
}

// Whether cell (i, j) joins its (i, j)-(i+1, j+1) diagonal; with alternating diagonals the
// cells where i + j is even join the other one, (i+1, j)-(i, j+1), instead (both: every cell
// joins both).
bool has_main_diagonal(const ClothSpec& c, std::uint32_t i, std::uint32_t j) {
  return c.diagonals == ClothDiagonals::both || ((i + j) & 1u) != 0;
}

// The rest distance of the nearest two vertices that no spring joins (infinity when springs
// join every pair): the offsets (di, dj) with |di|, |dj| <= 1 are structural and shear
// springs (with alternating diagonals each cell joins only one of its diagonals), (2, 0) and
// (0, 2) bend springs when k_bend > 0. A skewed grid's nearest pair can be a
// long offset, so the search spans the whole grid up to 8 vertices each way.
float nearest_unjoined(const ClothSpec& c, glm::vec3 du, glm::vec3 dv) {
  float nearest = std::numeric_limits<float>::infinity();
  const int ni = static_cast<int>(std::min<std::uint32_t>(c.nu - 1, 8));
  const int nj = static_cast<int>(std::min<std::uint32_t>(c.nv - 1, 8));
  for (int dj = 0; dj <= nj; ++dj) {
    for (int di = -ni; di <= ni; ++di) {
      if (dj == 0 && di <= 0) continue;  // each offset once, up to sign
      const int ai = std::abs(di);
      // Alternating diagonals leave each cell's other diagonal unjoined.
      const bool diagonal = ai == 1 && dj == 1;
      const bool spring =
          (ai <= 1 && dj <= 1 && !(diagonal && c.diagonals == ClothDiagonals::alternating)) ||
          (c.k_bend > 0.0f && ((ai == 2 && dj == 0) || (ai == 0 && dj == 2)));
      if (spring) continue;
      nearest =
          std::min(nearest, glm::length(static_cast<float>(di) * du + static_cast<float>(dj) * dv));
    }
  }
  return nearest;
}

}  // namespace

std::uint32_t add_cloth(Scene& scene, const ClothSpec& c) {
  require(c.nu >= 2 && c.nv >= 2 && c.nu <= 4096 && c.nv <= 4096,
          "resolution " + std::to_string(c.nu) + " x " + std::to_string(c.nv) +
              " must be 2 to 4096 vertices each way");
  const float area = glm::length(glm::cross(c.u, c.v));
  require(std::isfinite(area) && area > 0.0f, "edges u and v must be finite and not parallel");
  require(std::isfinite(c.density) && c.density > 0.0f,
          "density " + std::to_string(c.density) + " kg/m^2 must be > 0");
  for (float k : {c.k_structural, c.k_shear}) {
    require(std::isfinite(k) && k > 0.0f, "spring k " + std::to_string(k) + " must be > 0");
  }
  require(std::isfinite(c.k_bend) && c.k_bend >= 0.0f,
          "k_bend " + std::to_string(c.k_bend) + " must be >= 0");
  require(std::isfinite(c.d) && c.d >= 0.0f, "d " + std::to_string(c.d) + " must be >= 0");
  require(c.diagonals == ClothDiagonals::both || c.diagonals == ClothDiagonals::alternating,
          "diagonals " + std::to_string(static_cast<std::uint32_t>(c.diagonals)) +
              " must be ClothDiagonals::both or ::alternating");
  check_tethers(c.tethers, !c.pins.empty(), "cloth");
  const glm::vec3 du = c.u / static_cast<float>(c.nu - 1);
  const glm::vec3 dv = c.v / static_cast<float>(c.nv - 1);
  const float spacing = std::min(glm::length(du), glm::length(dv));
  const float radius = generated_radius(c.radius, spacing, "cloth", "vertex");
  if (c.thickness != 0.0f)
    check_thickness(c.thickness, radius, nearest_unjoined(c, du, dv), "cloth");
  Particles& p = scene.particles;
  const auto first = static_cast<std::uint32_t>(p.size());
  const std::uint32_t group = next_particle_group(p);
  const float mass = c.density * area / static_cast<float>(c.nu * c.nv);
  for (std::uint32_t j = 0; j < c.nv; ++j) {
    for (std::uint32_t i = 0; i < c.nu; ++i) {
      const glm::vec3 x = c.origin + static_cast<float>(i) * du + static_cast<float>(j) * dv;
      add_grouped_particle(p, x, radius, mass, c.material, group, c.thickness);
    }
  }
  for (const auto& [i, j] : c.pins) {
    require(i < c.nu && j < c.nv, "pin (" + std::to_string(i) + ", " + std::to_string(j) +
                                      ") is outside the " + std::to_string(c.nu) + " x " +
                                      std::to_string(c.nv) + " grid");
    p.vel_invmass[first + j * c.nu + i].w = 0.0f;
  }
  auto vertex = [&](std::uint32_t i, std::uint32_t j) { return first + j * c.nu + i; };
  auto spring = [&](std::uint32_t a, std::uint32_t b, float k) {
    add_rest_spring(scene, a, b, k, c.d, c.model, c.c);
  };
  for (std::uint32_t j = 0; j < c.nv; ++j) {
    for (std::uint32_t i = 0; i < c.nu; ++i) {
      if (i + 1 < c.nu) spring(vertex(i, j), vertex(i + 1, j), c.k_structural);
      if (j + 1 < c.nv) spring(vertex(i, j), vertex(i, j + 1), c.k_structural);
      if (i + 1 < c.nu && j + 1 < c.nv) {
        const bool main = has_main_diagonal(c, i, j);
        const bool both = c.diagonals == ClothDiagonals::both;
        if (main) spring(vertex(i, j), vertex(i + 1, j + 1), c.k_shear);
        if (both || !main) spring(vertex(i + 1, j), vertex(i, j + 1), c.k_shear);
      }
      if (c.k_bend > 0.0f && i + 2 < c.nu) spring(vertex(i, j), vertex(i + 2, j), c.k_bend);
      if (c.k_bend > 0.0f && j + 2 < c.nv) spring(vertex(i, j), vertex(i, j + 2), c.k_bend);
    }
  }
  // Cell (i, j) split along its (i, j)-(i+1, j+1) diagonal, or, with alternating diagonals,
  // along the cell's shear spring; both halves counter-clockwise about du x dv, so the surface
  // has one front side.
  for (std::uint32_t j = 0; j + 1 < c.nv; ++j) {
    for (std::uint32_t i = 0; i + 1 < c.nu; ++i) {
      if (!has_main_diagonal(c, i, j)) {
        scene.triangles.push_back({vertex(i, j), vertex(i + 1, j), vertex(i, j + 1)});
        scene.triangles.push_back({vertex(i + 1, j), vertex(i + 1, j + 1), vertex(i, j + 1)});
        continue;
      }
      scene.triangles.push_back({vertex(i, j), vertex(i + 1, j), vertex(i + 1, j + 1)});
      scene.triangles.push_back({vertex(i, j), vertex(i + 1, j + 1), vertex(i, j + 1)});
    }
  }
  add_tethers(scene, first, c.nu * c.nv, c.tethers, c.k_structural, c.d);
  return first;
}

std::uint64_t cloth_spring_count(const ClothSpec& c) {
  const std::uint64_t nu = c.nu, nv = c.nv;
  const std::uint64_t cells = (nu - 1) * (nv - 1);
  const std::uint64_t shear = c.diagonals == ClothDiagonals::both ? 2 * cells : cells;
  const std::uint64_t bend = c.k_bend > 0.0f ? (nu - 2) * nv + nu * (nv - 2) : 0;
  std::uint64_t tethers = 0;
  if (c.tethers != ClothTethers::none) {
    std::set<std::pair<std::uint32_t, std::uint32_t>> pinned(c.pins.begin(), c.pins.end());
    tethers = nu * nv - std::min<std::uint64_t>(pinned.size(), nu * nv);
  }
  return (nu - 1) * nv + nu * (nv - 1) + shear + bend + tethers;
}

}  // namespace vkphys
