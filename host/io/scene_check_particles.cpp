// Checks on the generated particles of a scene file: the cell size against the largest radius,
// every particle against every plane, and particles of different generators against each other.
// They run after generation because only then are the jittered positions known.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <limits>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "host/io/scene_json.h"
#include "host/io/scene_reader.h"
#include "host/sim/splitmix.h"

namespace vkphys::io::scene_reader {

using namespace scene_json;

// The broadphase visits only the 27 cells around a particle. Computed in float exactly as
// the world setup (host/sim/world_params.cpp, make_world_params) does, so a scene that loads
// also runs: the automatic margin is 2 cm once a body with a shape is in the scene (version 2).
void SceneParser::check_cell_size() const {
  const Settings& s = scene_.settings;
  if (!cell_size_field_) return;
  const bool shaped = std::any_of(scene_.bodies.begin(), scene_.bodies.end(),
                                  [](const Body& b) { return b.shape != Shape::none; });
  float margin = s.contact_margin > 0.0f    ? s.contact_margin
                 : shaped                   ? 0.02f
                 : s.contact_margin == 0.0f ? 0.0f
                                            : 0.05f * max_radius_;
  float needed = 2.0f * max_pair_radius_ + margin;
  // A thickness wider than the radius counts as the particle's reach.
  const std::string_view largest =
      max_pair_radius_ > max_radius_ ? "largest max(radius, thickness / 2)" : "largest radius";
  cell_size_field_->check(s.cell_size >= needed,
                          fmt::format("must be >= 2 * {} + contact margin = {:.6g} m (the "
                                      "broadphase searches adjacent cells only)",
                                      largest, needed));
  cell_size_field_->check(
      static_cast<double>(s.cell_size) <= kMaxCellFactor * static_cast<double>(needed),
      fmt::format("must be <= {:g} * (2 * {} + contact margin) = {:.6g} m (a wider cell makes "
                  "far particles candidates of each other)",
                  kMaxCellFactor, largest, kMaxCellFactor * static_cast<double>(needed)));
}

const Generator& SceneParser::generator_of(std::size_t index) const {
  auto it = std::upper_bound(generators_.begin(), generators_.end(), index,
                             [](std::size_t i, const Generator& g) { return i < g.first; });
  return *std::prev(it);
}

std::string SceneParser::describe_particle(std::size_t index, bool with_path) const {
  const Generator& g = generator_of(index);
  const glm::vec4& x = scene_.particles.pos_radius[index];
  return fmt::format("{} at {} with radius {:.6g}", g.label(index - g.first, with_path),
                     format_vec(glm::dvec3(x)), x.w);
}

// The first particle in [begin, end) found on the wrong side of a plane (planes in order, then
// particles), with the depth, beyond what rounding explains.
std::optional<SceneParser::PlaneHit> SceneParser::first_below_plane(std::size_t begin,
                                                                    std::size_t end) const {
  const auto& pr = scene_.particles.pos_radius;
  for (std::size_t p = 0; p < scene_.planes.size(); ++p) {
    glm::dvec3 n(scene_.planes[p].normal);
    double offset = double(scene_.planes[p].offset);
    for (std::size_t i = begin; i < end; ++i) {
      glm::dvec3 x(pr[i]);
      double r = double(pr[i].w);
      double gap = glm::dot(n, x) - offset - r;
      double scale = std::abs(offset) + std::max({std::abs(x.x), std::abs(x.y), std::abs(x.z)});
      if (gap >= -(1e-3 * r + 1e-6 * scale)) continue;
      return PlaneHit{i, p, -gap};
    }
  }
  return std::nullopt;
}

// Every particle must start on the free side of every plane.
void SceneParser::check_planes() const {
  const auto hit = first_below_plane(0, scene_.particles.size());
  if (!hit) return;
  fail_at(
      source_, generator_of(hit->particle).path,
      fmt::format("{} penetrates {} by {:.6g} m; particles must start on the free side "
                  "of every plane",
                  describe_particle(hit->particle, false), plane_labels_[hit->plane], hit->depth));
}

// True when particles i and j overlap by more than rounding can explain.
bool SceneParser::overlap(std::size_t i, std::size_t j, double* depth) const {
  const glm::vec4& a = scene_.particles.pos_radius[i];
  const glm::vec4& b = scene_.particles.pos_radius[j];
  glm::dvec3 xa(a), xb(b);
  double ra = double(a.w), rb = double(b.w);
  *depth = ra + rb - glm::length(xb - xa);
  double scale = std::max({std::abs(xa.x), std::abs(xa.y), std::abs(xa.z), std::abs(xb.x),
                           std::abs(xb.y), std::abs(xb.z)});
  return *depth > 1e-3 * std::min(ra, rb) + 1e-6 * scale;
}

// Particles of different generators must not overlap (those of one lattice cannot: its
// spacing rule guarantees that). Particles are visited in index order and each looks for
// partners with a higher index, so the pair reported is the first in index order:
//   - in a lattice of more than kGriddedLattice particles: its sites near the particle follow
//     from the lattice's origin and spacing, so it is searched without any extra data;
//   - among the single particles and the small lattices: a hashed grid of cell 2 * their
//     largest radius (or a plain scan when that is shorter). Many small generators (100,000
//     one-site lattices) thus cost a grid lookup per particle, not a pass over the generators.
// A bounding-box test skips the large lattices far from the particle, so the usual scene
// (separate generators) costs one box test per particle and large lattice.
void SceneParser::check_overlaps() const {
  if (generators_.size() < 2) return;
  constexpr std::uint64_t kGriddedLattice = 64;
  const auto& pr = scene_.particles.pos_radius;
  auto touches = [](glm::dvec3 alo, glm::dvec3 ahi, glm::dvec3 blo, glm::dvec3 bhi) {
    return alo.x <= bhi.x && ahi.x >= blo.x && alo.y <= bhi.y && ahi.y >= blo.y && alo.z <= bhi.z &&
           ahi.z >= blo.z;
  };

  std::vector<std::size_t> lattices;   // generator indices of the large lattices
  std::vector<std::uint32_t> gridded;  // particle indices of the other generators, ascending
  std::size_t gridded_generators = 0;
  glm::dvec3 gridded_lo(std::numeric_limits<double>::max()), gridded_hi(-gridded_lo);
  double gridded_radius = 0.0;
  for (std::size_t gi = 0; gi < generators_.size(); ++gi) {
    const Generator& g = generators_[gi];
    if (g.lattice && g.particles > kGriddedLattice) {
      lattices.push_back(gi);
      continue;
    }
    ++gridded_generators;
    for (std::uint64_t k = 0; k < g.particles; ++k) {
      gridded.push_back(static_cast<std::uint32_t>(g.first + k));
    }
    gridded_lo = glm::min(gridded_lo, g.lo());
    gridded_hi = glm::max(gridded_hi, g.hi());
    gridded_radius = std::max(gridded_radius, static_cast<double>(g.radius));
  }

  struct CellHash {
    std::size_t operator()(const std::array<std::int64_t, 3>& c) const {
      std::uint64_t h = SplitMix64(static_cast<std::uint64_t>(c[0])).next();
      h = SplitMix64(h ^ static_cast<std::uint64_t>(c[1])).next();
      return static_cast<std::size_t>(SplitMix64(h ^ static_cast<std::uint64_t>(c[2])).next());
    }
  };
  const double cell = 2.0 * gridded_radius;
  auto cell_of = [cell](double v) {
    return static_cast<std::int64_t>(std::clamp(std::floor(v / cell), -1e15, 1e15));
  };
  std::unordered_map<std::array<std::int64_t, 3>, std::vector<std::uint32_t>, CellHash> grid;
  if (gridded_generators >= 2 || !lattices.empty()) {
    for (std::uint32_t j : gridded) {
      glm::dvec3 x(pr[j]);
      grid[{cell_of(x.x), cell_of(x.y), cell_of(x.z)}].push_back(j);
    }
  }

  for (std::size_t gi = 0; gi < generators_.size(); ++gi) {
    const Generator& g = generators_[gi];
    const bool in_grid = !g.lattice || g.particles <= kGriddedLattice;
    for (std::size_t i = g.first; i < g.first + g.particles; ++i) {
      glm::dvec3 xi(pr[i]);
      double ri = double(pr[i].w);
      glm::dvec3 lo = xi - glm::dvec3(ri), hi = xi + glm::dvec3(ri);
      std::optional<std::size_t> best;
      double best_depth = 0.0;
      auto consider = [&](std::size_t j) {
        double depth = 0.0;
        if (j <= i || j < g.first + g.particles || (best && j >= *best) || !overlap(i, j, &depth)) {
          return false;
        }
        best = j;
        best_depth = depth;
        return true;
      };

      for (std::size_t bi : lattices) {
        const Generator& b = generators_[bi];
        if (bi == gi || b.first + b.particles <= i + 1 || (best && b.first >= *best)) continue;
        if (!touches(lo, hi, b.lo(), b.hi())) continue;
        // Sites whose grid point lies within r_i + r_b + jitter amplitude on every axis.
        double reach = ri + static_cast<double>(b.radius) + b.jitter * b.spacing;
        std::array<std::uint64_t, 3> first{}, last{};
        bool empty = false;
        for (int a = 0; a < 3; ++a) {
          double top = static_cast<double>(b.count[static_cast<std::size_t>(a)] - 1u);
          double f = std::ceil((xi[a] - b.origin[a] - reach) / b.spacing);
          double l = std::floor((xi[a] - b.origin[a] + reach) / b.spacing);
          f = std::max(f, 0.0);
          l = std::min(l, top);
          empty = empty || f > l;
          first[static_cast<std::size_t>(a)] = empty ? 0 : static_cast<std::uint64_t>(f);
          last[static_cast<std::size_t>(a)] = empty ? 0 : static_cast<std::uint64_t>(l);
        }
        if (empty) continue;
        const std::uint64_t nx = b.count[0], ny = b.count[1];
        bool found = false;
        for (std::uint64_t z = first[2]; z <= last[2] && !found; ++z) {
          for (std::uint64_t y = first[1]; y <= last[1] && !found; ++y) {
            for (std::uint64_t x = first[0]; x <= last[0] && !found; ++x) {
              found = consider(b.first + (z * ny + y) * nx + x);
            }
          }
        }
      }

      bool near_grid =
          gridded_generators > (in_grid ? 1u : 0u) && touches(lo, hi, gridded_lo, gridded_hi);
      if (near_grid) {
        double reach = ri + gridded_radius;
        std::int64_t x0 = cell_of(xi.x - reach), x1 = cell_of(xi.x + reach);
        std::int64_t y0 = cell_of(xi.y - reach), y1 = cell_of(xi.y + reach);
        std::int64_t z0 = cell_of(xi.z - reach), z1 = cell_of(xi.z + reach);
        double cells = static_cast<double>(x1 - x0 + 1) * static_cast<double>(y1 - y0 + 1) *
                       static_cast<double>(z1 - z0 + 1);
        if (cells > static_cast<double>(gridded.size())) {
          for (std::uint32_t j : gridded) consider(j);
        } else {
          for (std::int64_t z = z0; z <= z1; ++z) {
            for (std::int64_t y = y0; y <= y1; ++y) {
              for (std::int64_t x = x0; x <= x1; ++x) {
                auto it = grid.find({x, y, z});
                if (it == grid.end()) continue;
                for (std::uint32_t j : it->second) consider(j);
              }
            }
          }
        }
      }

      if (best) {
        fail_at(
            source_, g.path,
            fmt::format("{} overlaps {} by {:.6g} m; particles must not start overlapping",
                        describe_particle(i, false), describe_particle(*best, true), best_depth));
      }
    }
  }
}

}  // namespace vkphys::io::scene_reader
