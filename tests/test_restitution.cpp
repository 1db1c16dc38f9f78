// Restitution against Newton's law: a ball dropped 1 m onto a plane rebounds to e^2 of its drop
// height, in both restitution models, at 60 and 240 Hz and with a contact margin larger than
// a step's travel (a speculative contact must not bounce before the ball touches).
//
// Tolerances are the measured errors, not a target met: the impact turns the ball round in the
// step it would cross the plane, at the gap left at the step's start (up to h u_n, 7 cm for a
// 1 m drop at 60 Hz), so the apex overshoots by that gap, and the symplectic step undershoots by
// about g h^2 per step of flight. Measured (apex / e^2 h): 60 Hz 0.948 (e 0.5), 0.993 (e 0.8);
// 240 Hz 1.055, 1.010; 60 Hz with a 0.3 m margin 1.166, 1.034. Before the impact test used the
// gap, a 0.3 m margin bounced the ball in mid-air (1.78, 1.65) and the Newton model lost a
// step of gravity (0.80, 0.90). A Box2D-style restitution pass after the position update would
// remove the gap term; it is not built yet.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "tests/backends.h"
#include "tests/rigid_scene_helpers.h"

namespace vkphys::test {
namespace {

struct BounceCase {
  RestitutionModel model;
  float hz;
  float margin;  // contact margin [m]
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
        const double tolerance = c.margin > 0.1f ? 0.2 : 0.07;
        EXPECT_NEAR(ratio, 1.0, tolerance)
            << (model == RestitutionModel::bias ? "bias" : "newton") << " " << c.hz
            << " Hz, margin " << c.margin << ", e " << e;
      }
    }
  }
}

VKPHYS_ON_ALL_CASES(Restitution);

}  // namespace
}  // namespace vkphys::test
