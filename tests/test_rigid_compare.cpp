// Rigid-body backend comparison (host/sim/compare.h) on synthetic states: the orientation
// angle (q and -q alike), per-step maxima and means, the worst body, NaN handling, and a run of
// two identical CPU backends.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

#include "host/sim/compare.h"
#include "kernels/quat.h"
#include "tests/rigid_scene_helpers.h"

namespace vkphys::test {
namespace {

WorldState resting_state(std::size_t n) {
  WorldState st;
  for (std::size_t i = 0; i < n; ++i) {
    st.pos.emplace_back(float(i), 0.0f, 0.0f, 1.0f);
    st.rot.emplace_back(0.0f, 0.0f, 0.0f, 1.0f);
    st.vel.emplace_back(0.0f);
    st.omega.emplace_back(0.0f);
  }
  return st;
}

TEST(RigidCompare, OrientationErrorIsTheRelativeRotationAngle) {
  const glm::vec4 q = axis_angle({1.0f, 2.0f, 3.0f}, 0.8f);
  EXPECT_NEAR(orientation_error(q, q), 0.0, 1e-6);
  EXPECT_NEAR(orientation_error(q, -q), 0.0, 1e-6);  // the same rotation
  const glm::vec4 r = kern::quat_mul(axis_angle({0.0f, 1.0f, 0.0f}, 0.3f), q);
  EXPECT_NEAR(orientation_error(q, r), 0.3, 1e-6);
  EXPECT_NEAR(orientation_error(r, q), 0.3, 1e-6);
  EXPECT_NEAR(orientation_error(q, -r), 0.3, 1e-6);
  // Angles past pi come back the short way: 4 rad one way is 2 pi - 4 the other.
  const glm::vec4 id(0.0f, 0.0f, 0.0f, 1.0f);
  EXPECT_NEAR(orientation_error(id, axis_angle({1.0f, 0.0f, 0.0f}, 3.0f)), 3.0, 1e-6);
  EXPECT_NEAR(orientation_error(id, axis_angle({1.0f, 0.0f, 0.0f}, 4.0f)),
              2.0 * std::numbers::pi - 4.0, 1e-6);
  // Small angles stay accurate (acos of the dot product would give 0 or 3.5e-4 here).
  const glm::vec4 tiny(0.0f, 0.0f, std::sin(5e-7f), std::cos(5e-7f));
  EXPECT_NEAR(orientation_error(id, tiny), 1e-6, 1e-9);
  // Not normalised: the same answer.
  EXPECT_NEAR(orientation_error(2.0f * q, 0.5f * r), 0.3, 1e-6);
  EXPECT_TRUE(std::isnan(orientation_error(id, glm::vec4(0.0f))));
}

TEST(RigidCompare, StateErrorMaxMeanAndWorstBody) {
  WorldState a = resting_state(4), b = resting_state(4);
  b.pos[1] += glm::vec4(0.0f, 0.3f, 0.4f, 0.0f);  // |dx| = 0.5
  b.pos[2] += glm::vec4(0.1f, 0.0f, 0.0f, 0.0f);  // |dx| = 0.1
  b.rot[3] = axis_angle({0.0f, 0.0f, 1.0f}, 0.2f);
  b.rot[0] = -b.rot[0];  // no difference
  b.vel[2] = glm::vec4(0.0f, -2.0f, 0.0f, 0.0f);
  b.omega[0] = glm::vec4(1.0f, 0.0f, 0.0f, 0.0f);
  b.omega[1] = glm::vec4(0.0f, 3.0f, 0.0f, 0.0f);
  const StepError e = state_error(a, b);
  EXPECT_NEAR(e.max_pos, 0.5, 1e-6);
  EXPECT_NEAR(e.mean_pos, 0.6 / 4.0, 1e-6);
  EXPECT_EQ(e.worst_pos.index, 1u);
  EXPECT_NEAR(e.max_rot, 0.2, 1e-6);
  EXPECT_NEAR(e.mean_rot, 0.05, 1e-6);
  EXPECT_NEAR(e.max_vel, 2.0, 1e-12);
  EXPECT_NEAR(e.mean_vel, 0.5, 1e-12);
  EXPECT_NEAR(e.max_omega, 3.0, 1e-12);
  EXPECT_NEAR(e.mean_omega, 1.0, 1e-12);

  // Only the first two bodies (e.g. the scene's, not the plane bodies after them).
  const StepError first2 = state_error(a, b, 2);
  EXPECT_NEAR(first2.max_pos, 0.5, 1e-6);
  EXPECT_NEAR(first2.mean_pos, 0.25, 1e-6);
  EXPECT_EQ(first2.max_rot, 0.0);
  EXPECT_EQ(first2.max_vel, 0.0);
  EXPECT_NEAR(first2.mean_omega, 2.0, 1e-12);
}

TEST(RigidCompare, ToleranceNamesWhatIsPastIt) {
  StepError e;
  Tolerance tol;  // 1e-3 m, 1e-3 rad, 1e-2 m/s, 1e-2 rad/s
  EXPECT_EQ(past_tolerance(e, tol), "");
  e.max_pos = 1e-3;  // at the tolerance is within it
  EXPECT_EQ(past_tolerance(e, tol), "");
  e.max_rot = 2e-3;
  e.max_omega = 0.5;
  EXPECT_EQ(past_tolerance(e, tol), "rotation, angular velocity");
  e = {};
  e.max_vel = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(past_tolerance(e, tol), "velocity");
}

TEST(RigidCompare, NanMakesTheMaximaNan) {
  WorldState a = resting_state(3), b = resting_state(3);
  b.pos[1].x = std::numeric_limits<float>::quiet_NaN();
  b.vel[2].y = 5.0f;  // a larger error after the NaN must not hide it
  const StepError e = state_error(a, b);
  EXPECT_TRUE(std::isnan(e.max_pos));
  EXPECT_EQ(e.worst_pos.index, 1u);
  EXPECT_NEAR(e.max_vel, 5.0, 1e-12);
  EXPECT_EQ(past_tolerance(e, Tolerance{1.0, 1.0, 10.0, 10.0}), "position");
}

TEST(RigidCompare, RejectsMismatchedStates) {
  WorldState a = resting_state(3), b = resting_state(2);
  EXPECT_THROW(state_error(a, b), std::invalid_argument);
  EXPECT_THROW(state_error(a, a, 4), std::invalid_argument);
  WorldState c = resting_state(3);
  c.omega.pop_back();
  EXPECT_THROW(state_error(a, c), std::invalid_argument);
}

// Two CPU backends are deterministic: no difference at any step. A different scheme on one side
// does differ, and the first step past a tight tolerance is found.
TEST(RigidCompare, CpuAgainstItself) {
  Scene s = empty_rigid_scene(-10.0f);
  s.planes.push_back(Plane{});
  for (int i = 0; i < 3; ++i) {
    Body b = make_box({0.1f * float(i), 0.5f + 1.0f * float(i), 0.0f}, glm::vec3(0.5f), 1.0f);
    b.orientation = axis_angle({0.0f, 1.0f, 0.0f}, 0.2f * float(i));
    s.bodies.push_back(b);
  }
  auto a = make_cpu_backend(), b = make_cpu_backend();
  a->load(s);
  b->load(s);
  std::uint32_t calls = 0;
  CompareOptions fixed;
  fixed.seeds = 0;
  fixed.diagnose = false;
  fixed.checks = 0;
  CompareResult same = compare_backends(*a, *b, s, 30, fixed, [&calls](std::uint32_t) { ++calls; });
  EXPECT_EQ(calls, 30u);
  ASSERT_EQ(same.steps.size(), 30u);
  EXPECT_FALSE(same.divergence.has_value());
  for (const StepError& e : same.steps) {
    EXPECT_EQ(e.max_pos, 0.0);
    EXPECT_EQ(e.max_rot, 0.0);
    EXPECT_EQ(e.max_vel, 0.0);
    EXPECT_EQ(e.max_omega, 0.0);
    EXPECT_EQ(e.points_a, e.points_b);
  }
  EXPECT_GT(same.steps.back().points_a, 0u);

  Scene jacobi = s;
  jacobi.settings.solver.scheme = SolverScheme::jacobi;
  a->load(s);
  b->load(jacobi);
  const Tolerance tight{1e-9, 1e-9, 1e-9, 1e-9};
  fixed.tol = tight;
  CompareResult differ = compare_backends(*a, *b, s, 30, fixed);
  ASSERT_TRUE(differ.divergence.has_value());
  const std::uint32_t first_bad = differ.divergence->step;
  EXPECT_FALSE(differ.divergence->what.empty());
  const StepError& bad = differ.steps[first_bad - 1u];
  EXPECT_EQ(past_tolerance(bad, tight), differ.divergence->what);
  if (first_bad > 1u) {
    EXPECT_TRUE(past_tolerance(differ.steps[first_bad - 2u], tight).empty());
  }
  EXPECT_NE(differ.verdict.find("FAIL at step " + std::to_string(first_bad)), std::string::npos)
      << differ.verdict;
}

// The rounding envelope: a run compared with itself stays at 0 while its 1-ulp copies part from
// it by rounding alone (so the envelope is positive and the verdict passes); a run with an
// injected bug (the warm start lost) parts far beyond twice the envelope and is caught.
TEST(RigidCompare, RoundingEnvelopeCatchesABugButNotRounding) {
  Scene s = empty_rigid_scene(-10.0f);
  s.materials[0].friction = 0.5f;
  s.planes.push_back(Plane{});
  for (int i = 0; i < 4; ++i) {
    s.bodies.push_back(make_box({0.0f, 0.5f + 1.0f * float(i), 0.0f}, glm::vec3(0.5f), 1.0f));
  }
  auto a = make_cpu_backend(), b = make_cpu_backend();
  a->load(s);
  b->load(s);
  CompareOptions opt;
  opt.tol = Tolerance{1e-6, 1e-6, 1e-6, 1e-6};
  opt.diagnose = false;
  CompareResult same = compare_backends(*a, *b, s, 60, opt);
  ASSERT_EQ(same.envelope.size(), 60u);
  EXPECT_FALSE(same.divergence.has_value());
  double widest = 0.0;
  for (const StepError& e : same.envelope) widest = std::max(widest, e.max_pos);
  EXPECT_GT(widest, 0.0) << "a 1-ulp nudge must change something";
  EXPECT_LT(widest, 1e-5) << "a stack at rest does not amplify rounding";

  Scene bug = s;
  bug.settings.solver.warm_start = 0.0f;
  a->load(bug);
  b->load(s);
  CompareResult caught = compare_backends(*a, *b, s, 60, opt);
  ASSERT_TRUE(caught.divergence.has_value());
  EXPECT_LE(caught.allowed.position, 2.0 * widest + 1e-6);
}

}  // namespace
}  // namespace vkphys::test
