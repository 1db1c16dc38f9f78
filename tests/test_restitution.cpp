// Restitution against Newton's law: a ball dropped 1 m onto a plane rebounds to e^2 of its drop
// height, in both restitution models, at 60 and 240 Hz and with a contact margin larger than
// a step's travel (a speculative contact must not bounce before the ball touches).
//
// The rebound is Newton's law with the step's own motion counted (rebound_speed,
// kernels/contact_manifold.inl): the bounce leaves the ball the energy height e^2 H whatever gap
// the step starts with and whatever the step's length. Measured (apex / e^2 h, every scheme,
// both models): 0.9996 to 1.0003 at 60 Hz and with a 0.3 m margin, 0.9984 to 1.0000 at 240 Hz;
// the issue asks for 3%, the test holds 1%. With the rebound -e u_n alone it was 0.948 (60 Hz,
// e 0.5), 1.055 (240 Hz) and 1.166 (0.3 m margin): the ball turned round above the plane, at
// the gap the step started with, and the step's gravity was not counted.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "tests/backends.h"
#include "tests/rigid_scene_helpers.h"

namespace vkphys::test {
namespace {

struct BounceCase {
  RestitutionModel model;
  float hz;
  float margin;  // contact margin [m]
  bool split_impulse = false;
};

class Restitution : public WorldTest {
 protected:
  // The ball's first apex after a fall of 1 m, as a fraction of e^2 (of the drop height).
  double apex_over_e2(const BounceCase& c, float e);
};

double Restitution::apex_over_e2(const BounceCase& c, float e) {
  Scene s = empty_rigid_scene(-9.81f);
  s.settings.time_step = 1.0f / c.hz;
  s.settings.contact_margin = c.margin;
  s.settings.solver.restitution = c.model;
  s.settings.solver.split_impulse = c.split_impulse;
  s.settings.solver.friction = false;
  s.settings.solver.restitution_threshold = 0.1f;
  s.materials[0].restitution = e;
  s.planes.push_back(Plane{});
  s.bodies.push_back(make_sphere({0.0f, 1.5f, 0.0f}, 0.5f, 1.0f));
  load(s);
  bool bounced = false;
  double apex = 0.0;
  for (int k = 0; k < static_cast<int>(4.0f * c.hz); ++k) {
    const WorldState st = run(1);
    const double y = double(st.pos[0].y) - 0.5;
    if (st.vel[0].y > 0.0f) bounced = true;
    if (bounced) apex = std::max(apex, y);
    if (bounced && st.vel[0].y < 0.0f) break;
  }
  EXPECT_TRUE(bounced);
  return apex / double(e * e);
}

TEST_P(Restitution, BounceApexIsRestitutionSquaredOfTheDrop) {
  for (RestitutionModel model : {RestitutionModel::bias, RestitutionModel::newton}) {
    for (const BounceCase& c : {BounceCase{model, 60.0f, 0.02f}, BounceCase{model, 240.0f, 0.02f},
                                BounceCase{model, 60.0f, 0.3f}}) {
      for (float e : {0.5f, 0.8f}) {
        const double ratio = apex_over_e2(c, e);
        std::printf("%s %s, %g Hz, margin %g m, e %g: apex / e^2 h = %.4f\n",
                    scheme_name(GetParam().scheme),
                    model == RestitutionModel::bias ? "bias" : "newton", double(c.hz),
                    double(c.margin), double(e), ratio);
        EXPECT_NEAR(ratio, 1.0, 0.01) << (model == RestitutionModel::bias ? "bias" : "newton")
                                      << " " << c.hz << " Hz, margin " << c.margin << ", e " << e;
      }
    }
  }
}

// The split impulse's second solve re-predicts from the step-start velocities: they hold the
// impact pass's impulses, so the Newton bounce is the same with it (it rose 0.0 m before).
TEST_P(Restitution, SplitImpulseKeepsTheNewtonBounce) {
  const double plain = apex_over_e2(BounceCase{RestitutionModel::newton, 60.0f, 0.02f}, 0.5f);
  const double split = apex_over_e2(BounceCase{RestitutionModel::newton, 60.0f, 0.02f, true}, 0.5f);
  EXPECT_NEAR(split, plain, 1e-3);
}

VKPHYS_ON_ALL_CASES(Restitution);

}  // namespace
}  // namespace vkphys::test

namespace vkphys::test {
namespace {

// Newton's cradle without strings: a ball at 2 m/s strikes a row of four touching equal balls,
// e = 1, no friction, no gravity, from the left and from the right (the pairs are found, and so
// swept, in order of x: along the blow's path from the left, against it from the right). By
// Newton's law applied contact by contact, the far ball leaves at 2 m/s and the others stop.
//
// The Newton model's impact pass does exactly that in the sequential and coloured schemes:
// each impact starts from the impacts before it, and 4 passes reach the row's 4 contacts in
// either order (1 pass suffices from the left in the sequential scheme; from the right it keeps
// 0.25 of the energy, every ball at ~0.5 m/s; the coloured scheme propagates a colour per pass,
// 1 pass keeps 0.50 and 0.33). Jacobi does not propagate: its impacts are simultaneous and the
// row leaves together (0.4 m/s each). The bias model puts -e u_n of the step's start in one
// contact's target, which the simultaneous solve shares along the row. Measured energy kept,
// both backends: newton (4 passes) sequential 1.000, coloured 1.000, Jacobi 0.200; bias
// sequential 0.895, coloured 0.895, Jacobi 0.682. Every scheme keeps momentum, none gains energy.
struct CradleResult {
  std::vector<float> v;  // along the blow
  double energy_kept = 0.0;
  double momentum = 0.0;
};

class Cradle : public WorldTest {
 protected:
  CradleResult strike_row(RestitutionModel model, float dir);
};

CradleResult Cradle::strike_row(RestitutionModel model, float dir) {
  Scene s = empty_rigid_scene(0.0f);
  s.settings.solver.restitution = model;
  s.settings.solver.impact_passes = 4;
  s.settings.solver.friction = false;
  s.settings.solver.restitution_threshold = 0.1f;
  s.settings.contact_margin = 0.05f;
  s.materials[0].restitution = 1.0f;
  Body striker = make_sphere({-dir, 0.0f, 0.0f}, 0.25f, 1.0f);
  striker.velocity = {2.0f * dir, 0.0f, 0.0f};
  s.bodies.push_back(striker);
  for (int k = 0; k < 4; ++k) {
    s.bodies.push_back(make_sphere({0.5f * dir * static_cast<float>(k), 0.0f, 0.0f}, 0.25f, 1.0f));
  }
  load(s);
  const WorldState st = run(90);
  CradleResult r;
  for (const glm::vec4& v : st.vel) {
    const double along = double(v.x) * double(dir);
    r.v.push_back(static_cast<float>(along));
    r.energy_kept += 0.5 * along * along / 2.0;
    r.momentum += along;
  }
  std::printf("%s %s from the %s: v = %.4f %.4f %.4f %.4f %.4f, energy kept %.4f\n",
              scheme_name(GetParam().scheme), model == RestitutionModel::bias ? "bias" : "newton",
              dir > 0.0f ? "left" : "right", double(r.v[0]), double(r.v[1]), double(r.v[2]),
              double(r.v[3]), double(r.v[4]), r.energy_kept);
  return r;
}

TEST_P(Cradle, ElasticRowPassesTheBallOn) {
  for (float dir : {1.0f, -1.0f}) {
    for (RestitutionModel model : {RestitutionModel::bias, RestitutionModel::newton}) {
      const CradleResult r = strike_row(model, dir);
      EXPECT_NEAR(r.momentum, 2.0, 1e-4);
      EXPECT_LE(r.energy_kept, 1.0 + 1e-4);
      if (model == RestitutionModel::newton && GetParam().scheme != SolverScheme::jacobi) {
        EXPECT_NEAR(r.energy_kept, 1.0, 1e-3);
        EXPECT_NEAR(r.v[4], 2.0f, 1e-3f);
        for (int k = 0; k < 4; ++k) EXPECT_NEAR(r.v[static_cast<std::size_t>(k)], 0.0f, 1e-3f);
      }
    }
  }
}

VKPHYS_ON_ALL_CASES(Cradle);

}  // namespace
}  // namespace vkphys::test
