// The particle metrics' deepest overlap (host/sim/metrics.cpp, particle_penetration) against
// every pair and plane by brute force: the same expression over the same pairs, so the same
// double to the bit, whatever order the particles are listed in and wherever they straddle cells.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <glm/glm.hpp>
#include <random>

#include "host/sim/backend.h"
#include "host/sim/metrics.h"

namespace vkphys::test {
namespace {

double brute_penetration(const Scene& scene, const Particles& p) {
  double deepest = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const glm::dvec4 a(p.pos_radius[i]);
    for (const Plane& pl : scene.planes) {
      deepest = std::max(
          deepest, -(glm::dot(glm::dvec3(pl.normal), glm::dvec3(a)) - double(pl.offset) - a.w));
    }
    for (std::size_t j = i + 1; j < p.size(); ++j) {
      const glm::dvec4 b(p.pos_radius[j]);
      deepest = std::max(deepest, a.w + b.w - glm::length(glm::dvec3(b) - glm::dvec3(a)));
    }
  }
  return deepest;
}

TEST(ParticleMetrics, DeepestOverlapIsTheBruteForceOnesToTheBit) {
  std::mt19937 rng(21u);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int trial = 0; trial < 6; ++trial) {
    Scene s;
    s.planes.push_back(Plane{glm::vec3(0.0f, 1.0f, 0.0f), -0.5f, 0});
    const int n = 1 + 997 * (trial % 3);           // 1, 998, 1995: one alone, and crowds
    const float spread = trial < 3 ? 2.0f : 0.6f;  // sparse, then packed
    for (int k = 0; k < n; ++k) {
      const glm::vec3 x = spread * glm::vec3(u(rng), u(rng), u(rng)) - glm::vec3(0.3f);
      s.particles.add(x, {}, 0.01f + 0.04f * u(rng), 1.0f, 0);
    }
    WorldState st;
    st.particles = s.particles;
    const double expected = brute_penetration(s, s.particles);
    EXPECT_EQ(measure(s, st).max_penetration, expected) << n << " particles";
    if (n > 1) {
      EXPECT_GT(expected, 0.0);
    }
  }
  // Two particles that overlap across a cell corner (cells of 2 r_max at negative coordinates),
  // and nothing else: the pair alone decides it.
  Scene s;
  s.particles.add(glm::vec3(-0.001f, -0.001f, -0.001f), {}, 0.05f, 1.0f, 0);
  s.particles.add(glm::vec3(0.05f, 0.05f, 0.05f), {}, 0.05f, 1.0f, 0);
  WorldState st;
  st.particles = s.particles;
  EXPECT_EQ(measure(s, st).max_penetration, brute_penetration(s, s.particles));
  EXPECT_GT(measure(s, st).max_penetration, 0.01);
}

}  // namespace
}  // namespace vkphys::test
