// Tethers (long-range attachments; Kim, Tang & Cohen 2012, "Long Range Attachments"): at load,
// every free particle of a cloth is tied to the pin nearest it in the rest shape by a one-sided
// spring whose rest length is that distance. Gauss-Seidel sweeps carry a load down a column of
// n springs only about one spring per sweep, so a hanging cloth at 4 substeps x 2 iterations
// stretches further the finer it is (docs/benchmarks.md, "Tethers"); a tether hands each vertex's
// weight straight to its pin in one row. It is inactive while the vertex is within its rest
// distance of the pin (the cloth may fold and swing freely), and never pushes, so it bounds the
// stretch without stiffening anything else. The row itself is a spring's row made unilateral
// (kernels/joints.inl, spring_targets), solved in the one solver with everything else; the pin is
// static or kinematic (1/m = 0), so the row touches one dynamic particle and colours like any
// spring to a pin.
//
// "Nearest" is the straight-line rest distance (Jolt's default) or the geodesic one, the
// shortest path along the cloth's springs (multi-source Dijkstra from every pin at once). The
// geodesic distance is never shorter, so its tethers are slacker: a vertex on the far side of a
// fold or a cut is not held closer than the cloth between them allows.
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "host/sim/generated_particles.h"
#include "vkphys/cloth.h"

namespace vkphys {

namespace {

constexpr double kUnreached = std::numeric_limits<double>::infinity();

// Per particle of the range: its nearest pin (a local index) and the distance to it.
struct Nearest {
  std::vector<std::uint32_t> pin;
  std::vector<double> distance;
};

glm::dvec3 rest_position(const Scene& scene, std::uint32_t first, std::uint32_t v) {
  return glm::dvec3(glm::vec3(scene.particles.pos_radius[first + v]));
}

Nearest euclidean_nearest(const Scene& scene, std::uint32_t first, std::uint32_t count,
                          const std::vector<std::uint32_t>& pins) {
  Nearest n{std::vector<std::uint32_t>(count, 0u), std::vector<double>(count, kUnreached)};
  for (std::uint32_t v = 0; v < count; ++v) {
    const glm::dvec3 x = rest_position(scene, first, v);
    for (std::uint32_t pin : pins) {
      const double d = glm::length(rest_position(scene, first, pin) - x);
      if (d < n.distance[v]) {
        n.distance[v] = d;
        n.pin[v] = pin;
      }
    }
  }
  return n;
}

// Dijkstra from every pin at once over the springs joining two particles of the range, each
// edge its rest length. Keys are (distance, pin): a tie goes to the pin listed first, and the
// result does not depend on the heap's order.
Nearest geodesic_nearest(const Scene& scene, std::uint32_t first, std::uint32_t count,
                         const std::vector<std::uint32_t>& pins) {
  std::vector<std::vector<std::pair<std::uint32_t, double>>> edges(count);
  for (const Spring& s : scene.springs) {
    if (s.to_body() || s.tether()) continue;
    if (s.a < first || s.b < first || s.a - first >= count || s.b - first >= count) continue;
    edges[s.a - first].emplace_back(s.b - first, double(s.rest));
    edges[s.b - first].emplace_back(s.a - first, double(s.rest));
  }
  Nearest n{std::vector<std::uint32_t>(count, 0u), std::vector<double>(count, kUnreached)};
  using Key = std::tuple<double, std::uint32_t, std::uint32_t>;  // distance, pin, particle
  std::priority_queue<Key, std::vector<Key>, std::greater<>> frontier;
  auto better = [&n](double d, std::uint32_t pin, std::uint32_t v) {
    return d < n.distance[v] || (d == n.distance[v] && pin < n.pin[v]);
  };
  for (std::uint32_t pin : pins) {
    n.distance[pin] = 0.0;
    n.pin[pin] = pin;
    frontier.emplace(0.0, pin, pin);
  }
  while (!frontier.empty()) {
    const auto [d, pin, v] = frontier.top();
    frontier.pop();
    if (d != n.distance[v] || pin != n.pin[v]) continue;  // a stale entry
    for (const auto& [w, rest] : edges[v]) {
      const double next = d + rest;
      if (!better(next, pin, w)) continue;
      n.distance[w] = next;
      n.pin[w] = pin;
      frontier.emplace(next, pin, w);
    }
  }
  return n;
}

}  // namespace

std::uint32_t add_tethers(Scene& scene, std::uint32_t first, std::uint32_t count, ClothTethers mode,
                          float k, float d) {
  const std::size_t particles = scene.particles.size();
  if (first > particles || count > particles - first) {
    throw std::invalid_argument("tethers: particles " + std::to_string(first) + " to " +
                                std::to_string(std::uint64_t{first} + count) +
                                " lie outside the scene's " + std::to_string(particles));
  }
  // The mode as add_cloth checks it; the pins are checked below, as this range has them.
  check_tethers(mode, true, "add_tethers");
  if (mode == ClothTethers::none) return 0;
  if (!(std::isfinite(k) && k > 0.0f && std::isfinite(d) && d >= 0.0f)) {
    throw std::invalid_argument("tethers: k " + std::to_string(k) + " and d " + std::to_string(d) +
                                " must be finite, k > 0 and d >= 0");
  }
  std::vector<std::uint32_t> pins;
  for (std::uint32_t v = 0; v < count; ++v) {
    if (scene.particles.vel_invmass[first + v].w == 0.0f) pins.push_back(v);
  }
  if (pins.empty()) {
    throw std::invalid_argument(
        "tethers: none of the " + std::to_string(count) +
        " particles is pinned (1/m = 0); a tether needs a pin to hang from");
  }
  const Nearest n = mode == ClothTethers::euclidean ? euclidean_nearest(scene, first, count, pins)
                                                    : geodesic_nearest(scene, first, count, pins);
  std::uint32_t added = 0;
  for (std::uint32_t v = 0; v < count; ++v) {
    if (scene.particles.vel_invmass[first + v].w == 0.0f || n.distance[v] == kUnreached) continue;
    Spring s{first + v, first + n.pin[v], static_cast<float>(n.distance[v]), k, d};
    s.pull = SpringPull::tether;
    scene.springs.push_back(s);
    ++added;
  }
  return added;
}

}  // namespace vkphys
