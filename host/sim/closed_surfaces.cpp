// Closed surfaces among the scene's triangles (host/sim/closed_surfaces.h).
#include "host/sim/closed_surfaces.h"

#include <array>
#include <unordered_map>

#include "kernels/aero.h"

namespace vkphys {
namespace {

std::uint64_t edge_key(std::uint32_t a, std::uint32_t b) {
  return std::uint64_t{a} << 32 | b;
}

// A directed edge's first triangle and how many triangles traverse it that way.
struct EdgeUse {
  std::uint32_t triangle = 0, count = 0;
};

// The union-find's representative of triangle t, halving the path on the way.
std::uint32_t find_root(std::vector<std::uint32_t>& parent, std::uint32_t t) {
  while (parent[t] != t) t = parent[t] = parent[parent[t]];
  return t;
}

}  // namespace

std::vector<std::uint32_t> wind_sides(std::span<const Triangle> triangles,
                                      std::span<const glm::vec4> positions) {
  const auto n = static_cast<std::uint32_t>(triangles.size());
  auto edges_of = [&](std::uint32_t t) {
    const Triangle& x = triangles[t];
    return std::array<std::uint64_t, 3>{edge_key(x.a, x.b), edge_key(x.b, x.c), edge_key(x.c, x.a)};
  };
  auto reverse = [](std::uint64_t e) { return e >> 32 | e << 32; };
  std::unordered_map<std::uint64_t, EdgeUse> uses;
  uses.reserve(3 * std::size_t{n});
  for (std::uint32_t t = 0; t < n; ++t) {
    for (std::uint64_t e : edges_of(t)) {
      EdgeUse& u = uses.try_emplace(e, EdgeUse{t, 0u}).first->second;
      ++u.count;
    }
  }
  // Components: each triangle joins the first triangle on each of its edges, either way round,
  // so all triangles on one edge end up together.
  std::vector<std::uint32_t> parent(n);
  for (std::uint32_t t = 0; t < n; ++t) parent[t] = t;
  for (std::uint32_t t = 0; t < n; ++t) {
    for (std::uint64_t e : edges_of(t)) {
      for (std::uint64_t d : {e, reverse(e)}) {
        const auto it = uses.find(d);
        if (it != uses.end()) parent[find_root(parent, t)] = find_root(parent, it->second.triangle);
      }
    }
  }
  // Per component: whether every edge is used once each way, and the signed volume (about the
  // component's first vertex, for fewer cancelling digits; in triangle order: deterministic).
  std::vector<bool> open(n, false);
  std::vector<double> volume(n, 0.0);
  for (std::uint32_t t = 0; t < n; ++t) {
    const std::uint32_t r = find_root(parent, t);
    for (std::uint64_t e : edges_of(t)) {
      const auto back = uses.find(reverse(e));
      if (uses.at(e).count != 1 || back == uses.end() || back->second.count != 1) open[r] = true;
    }
    const glm::dvec3 o(positions[triangles[r].a]);
    const Triangle& x = triangles[t];
    const glm::dvec3 a = glm::dvec3(positions[x.a]) - o, b = glm::dvec3(positions[x.b]) - o,
                     c = glm::dvec3(positions[x.c]) - o;
    volume[r] += glm::dot(a, glm::cross(b, c)) / 6.0;
  }
  std::vector<std::uint32_t> sides(n);
  for (std::uint32_t t = 0; t < n; ++t) {
    const std::uint32_t r = find_root(parent, t);
    sides[t] = open[r]           ? VKPHYS_WIND_TWO_SIDED
               : volume[r] < 0.0 ? VKPHYS_WIND_INWARD
                                 : VKPHYS_WIND_OUTWARD;
  }
  return sides;
}

}  // namespace vkphys
