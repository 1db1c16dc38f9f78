// The speculative reach (kernels/world_bodies.inl, speculative_reach): a pair's speculative
// distance grows with the distance its bodies can close within the step, so a body that crosses
// more than the contact margin in a step meets the surface in that step instead of being found
// inside it (or past it) a step later. And a speculative contact that does not touch within the
// step acts on nothing: no bounce (tests/test_restitution.cpp), no friction (below).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "host/io/scene_file.h"
#include "host/sim/rigid_scenes.h"
#include "tests/api_helpers.h"
#include "tests/backends.h"
#include "tests/rigid_scene_helpers.h"

namespace vkphys::test {
namespace {

class SpeculativeReach : public WorldTest {};

// A ball (r = 0.1 m) at 10 m/s onto a static plate 2 cm thick, 60 Hz, no gravity: it moves
// 16.7 cm a step, more than the 2 cm margin plus its radius and the plate's half thickness
// (13 cm), so with the plain margin the step that would meet the plate starts 3 cm above it and
// ends with the centre past the plate's midplane: the pair test then pushes it out below, and it
// passes through (before: every scheme, centre at -1.5 m after 20 steps). With the reach the
// contact is a row in that step and stops the ball at the surface (e = 0): measured lowest
// centre 0.1100 m (the surface) on every scheme, both backends.
TEST_P(SpeculativeReach, FastBallStopsOnAThinPlate) {
  Scene s = empty_rigid_scene(0.0f);
  const float h = 1.0f / 60.0f, speed = 10.0f, r = 0.1f, t = 0.01f;
  s.settings.time_step = h;
  s.settings.solver.speculative_reach = true;
  s.bodies.push_back(make_box({0.0f, 0.0f, 0.0f}, {1.0f, t, 1.0f}, 0.0f));
  // Its gap at the start of a step is 3 cm (just past the margin) after three steps.
  Body ball = make_sphere({0.0f, t + r + 0.03f + 3.0f * speed * h, 0.0f}, r, 1.0f);
  ball.velocity = {0.0f, -speed, 0.0f};
  s.bodies.push_back(ball);
  load(s);
  float lowest = 1e9f;
  WorldState st;
  for (int k = 0; k < 20; ++k) {
    st = run(1);
    lowest = std::min(lowest, st.pos[1].y);
  }
  std::printf("%s/%s: lowest centre %.4f m (surface %.4f), final v_y %.3f m/s\n",
              GetParam().backend.c_str(), scheme_name(GetParam().scheme), double(lowest),
              double(t + r), double(st.vel[1].y));
  EXPECT_GT(lowest, t + r - 0.005f);  // at most 5 mm into the plate on the landing step
  // and at rest on it (e = 0), not in mid-air where its speculative contact began
  EXPECT_NEAR(st.pos[1].y, t + r, 0.005f);
  EXPECT_NEAR(st.vel[1].y, 0.0f, 0.05f);
}

// Two balls (r = 0.1 m) meeting head-on at 8 m/s each, 60 Hz, no gravity, e = 0: they close
// 26.7 cm a step, more than their 2 r + margin (22 cm), so with the plain margin the step after
// the one that starts 3 cm apart has them past each other's centres and they pass through. Both
// bodies move: the pair's distance is the sum of the two reaches, and each one's broadphase box
// grows by its own (a static plate above checks one side only). With the reach they meet and stop
// (momentum 0).
TEST_P(SpeculativeReach, TwoFastBallsMeetInsteadOfPassing) {
  Scene s = empty_rigid_scene(0.0f);
  s.settings.solver.speculative_reach = true;
  const float r = 0.1f, speed = 8.0f, closing = 2.0f * speed / 60.0f;
  const float d = 2.0f * r + 0.03f + 2.0f * closing;  // 3 cm apart after two steps
  Body a = make_sphere({-0.5f * d, 0.0f, 0.0f}, r, 1.0f);
  Body b = make_sphere({0.5f * d, 0.0f, 0.0f}, r, 1.0f);
  a.velocity = {speed, 0.0f, 0.0f};
  b.velocity = {-speed, 0.0f, 0.0f};
  s.bodies.push_back(a);
  s.bodies.push_back(b);
  load(s);
  float closest = 1e9f;
  WorldState st;
  for (int k = 0; k < 20; ++k) {
    st = run(1);
    closest = std::min(closest, st.pos[1].x - st.pos[0].x);
  }
  std::printf("%s/%s: closest centres %.4f m (2 r = %.4f), final v %.3f, %.3f m/s\n",
              GetParam().backend.c_str(), scheme_name(GetParam().scheme), double(closest),
              double(2.0f * r), double(st.vel[0].x), double(st.vel[1].x));
  EXPECT_GT(closest, 2.0f * r - 0.005f);
  EXPECT_NEAR(st.vel[0].x, 0.0f, 0.05f);
  EXPECT_NEAR(st.vel[1].x, 0.0f, 0.05f);
}

// A ball dropped 1.04 m onto the floor at 30 Hz (seed 004's rate): 4.5 m/s at the floor, 15 cm
// a step. Without the reach the landing step starts 2.3 cm above the floor, just past the 2 cm
// margin, and ends 12.7 cm inside it (every scheme) before the contact pushes the ball out;
// with the reach the landing step stops it at the surface. The test holds the worst depth after
// every step to 5 mm (the resting sink of the 15 Hz contact cap is 1.1 mm).
TEST_P(SpeculativeReach, DroppedBallLandsWithoutSinkingAt30Hz) {
  Scene s = empty_rigid_scene(-10.0f);
  s.settings.time_step = 1.0f / 30.0f;
  s.settings.solver.iterations = 2;
  s.settings.solver.speculative_reach = true;
  s.planes.push_back(Plane{});
  const float r = 0.1f;
  s.bodies.push_back(make_sphere({0.0f, 1.04f + r, 0.0f}, r, 1.0f));
  load(s);
  float deepest = 0.0f;
  for (int k = 0; k < 60; ++k) {
    const WorldState st = run(1);
    deepest = std::max(deepest, r - st.pos[0].y);
  }
  std::printf("%s/%s: deepest %.4f m\n", GetParam().backend.c_str(), scheme_name(GetParam().scheme),
              double(deepest));
  EXPECT_LT(deepest, 0.005f);
}

// Without the reach too: a ball at 3 m/s (5 cm a step at 60 Hz, no gravity, e = 0) whose step
// starts 1.5 cm above the floor, inside the margin, closes on impact within that step. Its
// rebound is 0, and both restitution models used to apply it at once (the bias row's target
// max(-g/h, 0), the Newton impulse to 0): the ball stopped for good 1.5 cm above the floor.
// Now an open contact whose rebound is 0 only lands this step (impact_rebound, kernels/
// contact_manifold.inl): measured within 4e-6 m of the surface, at rest (CPU, sequential).
TEST_P(SpeculativeReach, ImpactWithNothingToGiveBackLandsOnTheSurface) {
  for (RestitutionModel model : {RestitutionModel::bias, RestitutionModel::newton}) {
    Scene s = empty_rigid_scene(0.0f);
    s.settings.solver.restitution = model;
    s.planes.push_back(Plane{});
    const float r = 0.1f, speed = 3.0f;
    Body ball = make_sphere({0.0f, r + 0.015f + 2.0f * speed / 60.0f, 0.0f}, r, 1.0f);
    ball.velocity = {0.0f, -speed, 0.0f};
    s.bodies.push_back(ball);
    load(s);
    const WorldState st = run(30);
    std::printf("%s/%s %s: rests %.2e m above the floor at %.3f m/s\n", GetParam().backend.c_str(),
                scheme_name(GetParam().scheme), model == RestitutionModel::bias ? "bias" : "newton",
                double(st.pos[0].y - r), double(st.vel[0].y));
    EXPECT_NEAR(st.pos[0].y, r, 1e-3f);
    EXPECT_NEAR(st.vel[0].y, 0.0f, 0.01f);
  }
}

// A box sliding at 2 m/s on the floor past a wall 1 cm away (within the 2 cm margin, so the
// wall is a speculative contact all along, never touched): the wall must not brake it. The
// scaled-box model's bound mu m g h does not follow the normal impulse, so it used to act on the
// untouched wall too (before: the box stopped 0.20 m short with the wall, every scheme); now a
// contact that does not touch within the substep gets no box bound (contact_touches,
// kernels/contact_manifold.inl). The cone model's bound mu lambda_n was already 0 there. The
// Jacobi scheme is left out: its mass splitting counts the wall's unit among the box's, which
// changes how fast the floor's friction converges (a solver difference, not a force).
TEST_P(SpeculativeReach, UntouchedWallGivesNoFriction) {
  if (GetParam().scheme == SolverScheme::jacobi) GTEST_SKIP() << "mass splitting: see above";
  for (FrictionModel model : {FrictionModel::cone, FrictionModel::scaled_box}) {
    float travelled[2] = {0.0f, 0.0f};
    for (int wall = 0; wall < 2; ++wall) {
      Scene s = empty_rigid_scene(-10.0f);
      s.settings.solver.friction_model = model;
      s.materials[0].friction = 0.5f;
      s.planes.push_back(Plane{});
      Body box = make_box({0.0f, 0.5f, 0.0f}, glm::vec3(0.5f), 1.0f);
      box.velocity = {2.0f, 0.0f, 0.0f};
      s.bodies.push_back(box);
      if (wall) s.bodies.push_back(make_box({0.0f, 1.0f, 1.51f}, {5.0f, 1.0f, 1.0f}, 0.0f));
      load(s);
      travelled[wall] = run(60).pos[0].x;
    }
    std::printf("%s/%s %s: slid %.4f m without the wall, %.4f m with it\n",
                GetParam().backend.c_str(), scheme_name(GetParam().scheme),
                model == FrictionModel::cone ? "cone" : "scaled_box", double(travelled[0]),
                double(travelled[1]));
    // mu g = 5 m/s^2: 0.4 m to rest (measured 0.383: the step's friction acts from the start)
    EXPECT_NEAR(travelled[0], 0.4f, 0.03f);
    EXPECT_NEAR(travelled[1], travelled[0], 1e-3f);
  }
}

VKPHYS_ON_ALL_CASES(SpeculativeReach);

// The reach is on by default (scenes built in code, version-2 files) since the rag-doll's locked
// limit axes joined its joint tree (kernels/world_layout.h, joint_tree_row_mask); version-1 files
// predate it and run without it, as the seed documents' solvers did; a scene written back keeps
// it off where it was off.
TEST(SpeculativeReachScene, OnByDefaultOffInVersionOneAndWrittenBack) {
  EXPECT_TRUE(ragdoll_scene().settings.solver.speculative_reach);
  EXPECT_FALSE(io::load_scene(scene_path("ragdoll.json")).settings.solver.speculative_reach);
  Scene s = io::load_scene(scene_path("ramp.json"));  // version 2
  EXPECT_TRUE(s.settings.solver.speculative_reach);
  EXPECT_EQ(io::write_scene_json(s).find("speculative_reach"), std::string::npos);
  s.settings.solver.speculative_reach = false;
  EXPECT_FALSE(
      io::parse_scene(io::write_scene_json(s), "written").settings.solver.speculative_reach);
}

}  // namespace
}  // namespace vkphys::test
