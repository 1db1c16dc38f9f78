// The trampoline (issue 9; host/sim/mixed_scenes.h, trampoline_scene; scenes/trampoline.json): a
// ball dropped on a cloth pinned at its edges stretches it, is stopped by it and thrown back up
// with part of its energy, and no cloth vertex passes into the ball.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "host/sim/mixed_scenes.h"
#include "tests/backends.h"

namespace vkphys::test {
namespace {

class Trampoline : public WorldTest {};

// Over 2 s (120 steps), every step: the ball's height, and the deepest any vertex reaches into
// it (radius included). The ball meets the cloth at y = 1 + R, sinks to its lowest point, rises
// to its highest after that, and falls again.
TEST_P(Trampoline, StopsTheBallAndThrowsItBackWithPartOfItsEnergy) {
  if (GetParam().scheme == SolverScheme::jacobi) GTEST_SKIP() << "see test_cloth, at_cloth_budget";
  const Scene s = trampoline_scene();
  load(s);
  const float r_ball = kTrampolineBallRadius;
  const float touch = 1.0f + r_ball;  // the ball's centre when it meets the flat cloth
  float lowest = touch;
  float rebound = -1.0f;  // the highest centre after the lowest point
  bool rising = false;
  double deepest = -1.0;
  for (int k = 0; k < 120; ++k) {
    const WorldState st = run(1);
    const glm::vec3 c(st.pos[0]);
    const float vy = st.vel[0].y;
    if (!rising && c.y < lowest) lowest = c.y;
    if (vy > 0.0f && c.y < touch) rising = true;
    if (rising) rebound = std::max(rebound, c.y);
    for (const glm::vec4& x : st.particles.pos_radius) {
      deepest = std::max(deepest, double(r_ball + x.w - glm::distance(glm::vec3(x), c)));
    }
  }
  const float height = rebound - touch;
  std::printf(
      "%s: lowest centre %.4f m (%.4f m into the cloth), rebound %.4f m above the "
      "cloth (%.1f%% of the %.2f m drop); deepest vertex %.4f m into the ball\n",
      scheme_name(GetParam().scheme), double(lowest), double(touch - lowest), double(height),
      100.0 * double(height / kTrampolineDrop), double(kTrampolineDrop), deepest);
  EXPECT_GT(touch - lowest, 0.05f) << "the cloth stretches";
  EXPECT_TRUE(rising) << "the cloth stops the ball";
  EXPECT_GT(height, 0.1f * kTrampolineDrop) << "the cloth throws the ball back";
  EXPECT_LT(height, 0.9f * kTrampolineDrop) << "with part of its energy";
  EXPECT_LT(deepest, 0.01) << "no vertex passes into the ball";
}

VKPHYS_ON_ALL_CASES(Trampoline);

}  // namespace
}  // namespace vkphys::test
