#include "host/sim/cg_lines.h"

#include <algorithm>
#include <cmath>

#include "kernels/implicit.h"

namespace vkphys {
namespace {

constexpr float kAxisCos = 0.70710678f;      // a seed's spring within 45 degrees of the axis
constexpr float kStraightCos = 0.90630779f;  // a line's next link within 25 degrees of its last
constexpr float kSecondAxisCos = 0.5f;       // family 1's axis at least 60 degrees off family 0's

struct Graph {
  const WorldArrays& w;
  std::uint32_t particles;

  glm::vec3 at(std::uint32_t p) const { return glm::vec3(w.pos[w.rigid + p]); }
  // The other end of particle p's incident entry (a particle index).
  std::uint32_t other(std::uint32_t entry) const {
    const glm::uvec2 ab = w.fspring_ends[entry >> 1];
    return ((entry & 1u) != 0u ? ab.x : ab.y) - w.rigid;
  }
  float weight(std::uint32_t s) const {
    const glm::uvec2 ab = w.fspring_ends[s];
    const float rest = w.fspring_params[s].x > 0.0f
                           ? w.fspring_params[s].x
                           : glm::length(glm::vec3(w.pos[ab.x]) - glm::vec3(w.pos[ab.y]));
    return rest > 0.0f ? w.fspring_params[s].y / rest : 0.0f;
  }
  // The unit direction from p to q at load, 0 where they coincide.
  glm::vec3 direction(std::uint32_t p, std::uint32_t q) const {
    const glm::vec3 d = at(q) - at(p);
    const float len = glm::length(d);
    return len > 0.0f ? d / len : glm::vec3(0.0f);
  }
};

// The best spring at p by (weight, then `straight`, then the lower index) among those whose
// other end `allowed` and whose `straight` (a cosine) is at least `least`: its other end, or
// VKPHYS_NO_LINK.
template <class Allowed, class Straight>
std::uint32_t best_link(const Graph& g, std::uint32_t p, float least, Allowed&& allowed,
                        Straight&& straight) {
  std::uint32_t best = VKPHYS_NO_LINK, best_spring = 0;
  float best_w = 0.0f, best_s = 0.0f;
  for (std::uint32_t e = g.w.fspring_offsets[p]; e < g.w.fspring_offsets[p + 1]; ++e) {
    const std::uint32_t entry = g.w.fspring_incident[e], q = g.other(entry), s = entry >> 1;
    if (q == p || !allowed(q)) continue;
    const float c = straight(q);
    const float wt = g.weight(s);
    if (!(c >= least) || !(wt > 0.0f)) continue;
    const bool better = best == VKPHYS_NO_LINK || wt > best_w ||
                        (wt == best_w && (c > best_s || (c == best_s && s < best_spring)));
    if (better) {
      best = q;
      best_spring = s;
      best_w = wt;
      best_s = c;
    }
  }
  return best;
}

// The heaviest spring's direction (the lowest index among equals) among those whose direction
// `ok` accepts; false when none.
template <class Ok>
bool heaviest_direction(const Graph& g, Ok&& ok, glm::vec3& axis) {
  float best = 0.0f;
  bool found = false;
  for (std::uint32_t s = 0; s < g.w.force_springs(); ++s) {
    const glm::uvec2 ab = g.w.fspring_ends[s] - glm::uvec2(g.w.rigid);
    const glm::vec3 d = g.direction(ab.x, ab.y);
    const float wt = g.weight(s);
    if (d == glm::vec3(0.0f) || !(wt > best) || !ok(d)) continue;
    best = wt;
    axis = d;
    found = true;
  }
  return found;
}

}  // namespace

CgLines find_cg_lines(const WorldArrays& w) {
  const Graph g{w, w.particles()};
  const std::uint32_t n = g.particles;
  CgLines out;
  out.links.assign(4 * static_cast<std::size_t>(n), VKPHYS_NO_LINK);
  glm::vec3 axes[2]{};
  bool has_axis[2]{};
  has_axis[0] = heaviest_direction(
      g, [](glm::vec3) { return true; }, axes[0]);
  has_axis[1] =
      has_axis[0] &&
      heaviest_direction(
          g, [&](glm::vec3 d) { return std::abs(glm::dot(d, axes[0])) <= kSecondAxisCos; },
          axes[1]);
  std::vector<std::uint32_t> heads[2];
  for (std::uint32_t f = 0; f < 2; ++f) {
    std::vector<char> on_line(n, 0);
    auto link = [&](std::uint32_t p, std::uint32_t side) -> std::uint32_t& {
      return out.links[4 * static_cast<std::size_t>(p) + 2 * f + side];
    };
    // Free: on no line of this family, and (family 1) not already joined to p in family 0.
    auto free_from = [&](std::uint32_t p) {
      return [&, p](std::uint32_t q) {
        if (on_line[q]) return false;
        if (f == 1 &&
            (out.links[4 * std::size_t{p}] == q || out.links[4 * std::size_t{p} + 1] == q))
          return false;
        return true;
      };
    };
    for (std::uint32_t seed = 0; seed < n && has_axis[f]; ++seed) {
      if (on_line[seed]) continue;
      const glm::vec3 axis = axes[f];
      std::uint32_t first = best_link(g, seed, kAxisCos, free_from(seed), [&](std::uint32_t q) {
        return std::abs(glm::dot(g.direction(seed, q), axis));
      });
      if (first == VKPHYS_NO_LINK) continue;
      on_line[seed] = 1;
      // Grow from the seed through `first` (successors), then from the seed the other way
      // (predecessors).
      auto grow = [&](std::uint32_t from, std::uint32_t to, std::uint32_t side) {
        std::uint32_t a = from, b = to;
        while (b != VKPHYS_NO_LINK) {
          on_line[b] = 1;
          link(a, side) = b;
          link(b, 1 - side) = a;
          const glm::vec3 d = g.direction(a, b);
          const std::uint32_t c = best_link(g, b, kStraightCos, free_from(b), [&](std::uint32_t q) {
            return glm::dot(g.direction(b, q), d);
          });
          a = b;
          b = c;
        }
        return a;
      };
      grow(seed, first, 1);
      const glm::vec3 back = -g.direction(seed, first);
      const std::uint32_t before =
          best_link(g, seed, kStraightCos, free_from(seed),
                    [&](std::uint32_t q) { return glm::dot(g.direction(seed, q), back); });
      const std::uint32_t head = before == VKPHYS_NO_LINK ? seed : grow(seed, before, 0);
      heads[f].push_back(head);
    }
    if (f == 0) {
      // Every particle is on a family-0 line: the rest are lines of one.
      for (std::uint32_t p = 0; p < n; ++p) {
        if (!on_line[p]) heads[0].push_back(p);
      }
    }
  }
  out.counts = glm::uvec2(heads[0].size(), heads[1].size());
  out.links.insert(out.links.end(), heads[0].begin(), heads[0].end());
  out.links.insert(out.links.end(), heads[1].begin(), heads[1].end());
  return out;
}

}  // namespace vkphys
