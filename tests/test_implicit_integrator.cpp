// Backward Euler for force springs (solver.integrator "implicit", kernels/implicit.h and
// kernels/world_implicit.inl) on the CPU backend: the spring's Jacobian blocks against central
// differences, a stiff oscillator the explicit step cannot hold, the method's numerical damping
// against its formula, the conjugate gradient's residual on a cloth drape, a hanging cloth at
// rest, and the settings' errors. GPU parity: tests/test_implicit_parity.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <stdexcept>
#include <string>

#include "host/io/scene_file.h"
#include "host/sim/backend.h"
#include "host/sim/mixed_scenes.h"
#include "kernels/implicit.h"
#include "kernels/spring_force.h"
#include "tests/cloth_measures.h"
#include "tests/integrator_scenes.h"
#include "tests/rigid_scene_helpers.h"
#include "tests/scene_compare.h"
#include "tests/scene_errors.h"
#include "vkphys/cloth.h"

namespace vkphys::test {
namespace {

// ---- the spring's Jacobian blocks --------------------------------------------------------------

using Force = glm::vec3 (*)(glm::vec3 xa, glm::vec3 xb, glm::vec3 va, glm::vec3 vb);

// Column j of d f_a / d(argument `which`: 0 x_a, 1 x_b, 2 v_a) by central differences of
// kern::damped_spring_force in double-checked float steps of `eps`.
glm::mat3 central_difference(glm::vec3 xa, glm::vec3 xb, glm::vec3 va, glm::vec3 vb,
                             glm::vec4 spring, int which, float eps) {
  glm::mat3 j(0.0f);
  for (int c = 0; c < 3; ++c) {
    glm::vec3 plus[3] = {xa, xb, va}, minus[3] = {xa, xb, va};
    plus[which][c] += eps;
    minus[which][c] -= eps;
    const glm::vec3 fp = kern::damped_spring_force(plus[0], plus[1], plus[2], vb, spring);
    const glm::vec3 fm = kern::damped_spring_force(minus[0], minus[1], minus[2], vb, spring);
    // The step actually taken, after rounding x +- eps to float.
    const float step = plus[which][c] - minus[which][c];
    j[c] = (fp - fm) / step;
  }
  return j;
}

float max_abs(const glm::mat3& m) {
  float worst = 0.0f;
  for (int c = 0; c < 3; ++c) {
    for (int r = 0; r < 3; ++r) worst = std::max(worst, std::abs(m[c][r]));
  }
  return worst;
}

glm::mat3 outer(glm::vec3 a, glm::vec3 b) {
  return glm::mat3(a * b.x, a * b.y, a * b.z);
}

TEST(SpringJacobian, MatchesCentralDifferencesInTension) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int trial = 0; trial < 50; ++trial) {
    const glm::vec3 xa(u(rng), u(rng), u(rng));
    const glm::vec3 dir = glm::normalize(glm::vec3(u(rng), u(rng), u(rng)));
    const float rest = 0.5f + 0.5f * std::abs(u(rng));
    const float len = rest * (1.05f + 0.5f * std::abs(u(rng)));  // stretched
    const glm::vec3 xb = xa - len * dir;
    const glm::vec4 spring(rest, 200.0f, 3.0f, 0.0f);
    const glm::vec3 va(u(rng), u(rng), u(rng)), vb(u(rng), u(rng), u(rng));
    const kern::SpringJacobian j = kern::damped_spring_jacobian(xa, xb, spring);
    // d/dx with the ends moving together (l' = 0): the damping's position term (4) is zero
    // there, so the kept blocks are the exact Jacobian. 1e-3 of k: the float differences'
    // rounding at eps = 1e-3 m.
    const float tol = 1e-3f * spring.y;
    EXPECT_LT(max_abs(central_difference(xa, xb, va, va, spring, 0, 1e-3f) - j.dx), tol) << trial;
    EXPECT_LT(max_abs(central_difference(xa, xb, va, va, spring, 1, 1e-3f) + j.dx), tol) << trial;
    // d/dv is exact whatever the velocities (the force is linear in them).
    EXPECT_LT(max_abs(central_difference(xa, xb, va, vb, spring, 2, 1e-2f) - j.dv),
              1e-4f * spring.y)
        << trial;
    // With the ends moving apart, the difference is the dropped term (4), derived in
    // kernels/implicit.h: -(c / L) [(l'.n)(I - n n^T) + n l'^T (I - n n^T)].
    const glm::vec3 n = (xa - xb) / len;
    const glm::vec3 ld = va - vb;
    const glm::mat3 t = glm::mat3(1.0f) - outer(n, n);
    const glm::mat3 dropped = -(spring.z / len) * (glm::dot(ld, n) * t + outer(n, ld) * t);
    EXPECT_LT(max_abs(central_difference(xa, xb, va, vb, spring, 0, 1e-3f) - j.dx - dropped), tol)
        << trial;
  }
}

TEST(SpringJacobian, CompressionClampsTheTransverseTermOnly) {
  const glm::vec3 xa(0.1f, 0.2f, 0.3f), xb(-0.3f, 0.5f, 0.1f);
  const float len = glm::length(xa - xb);
  const glm::vec4 spring(1.5f * len, 500.0f, 0.0f, 0.0f);  // compressed to 2/3 of its rest
  const kern::SpringJacobian j = kern::damped_spring_jacobian(xa, xb, spring);
  const glm::vec3 n = (xa - xb) / len;
  const glm::mat3 t = glm::mat3(1.0f) - outer(n, n);
  // The exact Jacobian has the transverse term -k (1 - r / L)(I - n n^T), positive here (the
  // buckling term); the kept block is the axial -k n n^T alone.
  const glm::mat3 exact = central_difference(xa, xb, xa, xa, spring, 0, 1e-3f);
  const glm::mat3 transverse = -spring.y * (1.0f - spring.x / len) * t;
  EXPECT_LT(max_abs(exact - transverse - j.dx), 1e-3f * spring.y);
  EXPECT_LT(max_abs(j.dx + spring.y * outer(n, n)), 1e-3f * spring.y);
  // The block the solve uses, -(h dF/dv + h^2 dF/dx), is positive semidefinite.
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const glm::mat3 b = kern::implicit_spring_block(j, 0.01f);
  for (int k = 0; k < 100; ++k) {
    const glm::vec3 p(u(rng), u(rng), u(rng));
    EXPECT_GE(glm::dot(p, b * p), -1e-6f);
  }
}

TEST(SpringJacobian, BlockFactorSolves) {
  const glm::mat3 a(glm::vec3(4.0f, 1.0f, 0.5f), glm::vec3(1.0f, 3.0f, 0.25f),
                    glm::vec3(0.5f, 0.25f, 2.0f));
  const glm::mat3 f = kern::ldlt3(a);
  for (const glm::vec3 b : {glm::vec3(1.0f, 0.0f, 0.0f), glm::vec3(0.3f, -2.0f, 5.0f)}) {
    EXPECT_LT(glm::length(a * kern::ldlt3_solve(f, b) - b), 1e-5f * glm::length(b));
  }
  const glm::mat3 e(glm::vec3(1.0f, -0.5f, 0.0f), glm::vec3(-0.5f, 2.0f, 0.75f),
                    glm::vec3(0.0f, 0.75f, -1.0f));
  const glm::mat3 congruence = kern::ldlt3_congruence(f, e);
  EXPECT_LT(max_abs(congruence - glm::transpose(e) * glm::inverse(a) * e), 1e-5f);
  EXPECT_EQ(congruence, glm::transpose(congruence));
}

// A cloth vertex's diagonal block is stiff in the cloth's plane and soft out of it: D = m I + the
// axial blocks b n n^T of its structural and shear springs (b / m = 20,000, the 512 x 512 drape's
// h^2 k / m), the plane tilted at random. The line factor subtracts E D^-1 E for the link
// E = -b n n^T along one spring, which must come out accurate to float32 in the stiff direction
// (about b^2 / b = b there): a cofactor inverse of D in float32 is accurate only to eps times
// its condition times 1 / m, about 2b in that direction, and made D - E D^-1 E indefinite. Oracle:
// the same product in double.
TEST(SpringJacobian, BlockFactorHoldsAStiffCloth) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  const float m = 1.4e-5f;
  const float b = 20000.0f * m;
  for (int trial = 0; trial < 200; ++trial) {
    const glm::vec3 normal = glm::normalize(glm::vec3(u(rng), u(rng), u(rng)));
    const glm::vec3 s = glm::normalize(glm::cross(normal, glm::vec3(u(rng), u(rng), u(rng))));
    const glm::vec3 t = glm::cross(normal, s);
    glm::mat3 d(m);
    for (const glm::vec3 n : {s, t, glm::normalize(s + t), glm::normalize(s - t)}) {
      d += b * glm::outerProduct(n, n);
    }
    d += b * glm::outerProduct(s, s);  // the other structural spring along s
    const glm::mat3 e = -b * glm::outerProduct(s, s);
    const glm::dmat3 exact =
        glm::transpose(glm::dmat3(e)) * glm::inverse(glm::dmat3(d)) * glm::dmat3(e);
    const glm::mat3 congruence = kern::ldlt3_congruence(kern::ldlt3(d), e);
    EXPECT_LT(max_abs(congruence - glm::mat3(exact)), 1e-5f * b) << "trial " << trial;
    // The Schur complement stays positive definite: its factor's pivots are positive.
    const glm::mat3 schur = kern::ldlt3(d - congruence);
    EXPECT_GT(schur[0][0], 0.0f);
    EXPECT_GT(schur[1][1], 0.0f);
    EXPECT_GT(schur[2][2], 0.0f);
  }
}

// ---- oscillators --------------------------------------------------------------------------------

struct OscillatorRun {
  std::vector<double> d, v;  // displacement from rest and velocity per step
  std::uint32_t max_iterations = 0;
  float max_residual = 0.0f;
};

OscillatorRun run_oscillator(const Scene& s, std::uint32_t steps) {
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  cpu->load(s);
  OscillatorRun r;
  WorldState st;
  for (std::uint32_t k = 0; k < steps; ++k) {
    try {
      cpu->step();
    } catch (const NonFiniteState&) {  // blown up past the largest float: it stays so
      r.d.resize(steps, double(INFINITY));
      r.v.resize(steps, double(INFINITY));
      break;
    }
    cpu->read(st);
    r.d.push_back(double(st.particles.pos_radius[1].x) - 1.0);
    r.v.push_back(double(st.particles.vel_invmass[1].x));
    r.max_iterations = std::max(r.max_iterations, cpu->stats().cg_iterations);
    r.max_residual = std::max(r.max_residual, cpu->stats().cg_residual);
  }
  return r;
}

double peak(const std::vector<double>& d, std::size_t from, std::size_t to) {
  double worst = 0.0;
  for (std::size_t k = from; k < to && k < d.size(); ++k) {
    worst = std::max(worst, std::isfinite(d[k]) ? std::abs(d[k]) : double(INFINITY));
  }
  return worst;
}

// k = 1e8 N/m on 1 kg: omega = 1e4 rad/s, h omega = 167 at h = 1/60. Symplectic Euler is
// stable for h omega < 2, so it needs 84 substeps: with 100 it stays within its bound, with 1 it
// grows by its step matrix's eigenvalue (about (h omega)^2) per step. Backward Euler stays
// bounded at the full step, and each step multiplies the amplitude by 1/sqrt(1 + (h omega)^2).
TEST(ImplicitOscillator, StiffSpringStaysBoundedWhereSymplecticEulerBlowsUp) {
  const float h = 1.0f / 60.0f, k = 1.0e8f, m = 1.0f, d0 = 0.01f;
  Scene implicit = oscillator_scene(Integrator::implicit, h, k, m, d0);
  const OscillatorRun a = run_oscillator(implicit, 600);
  std::printf("implicit, h omega %.0f: peak |d| %.3g m over 10 s (d0 %.3g)\n",
              double(h) * std::sqrt(double(k / m)), peak(a.d, 0, 600), double(d0));
  EXPECT_LE(peak(a.d, 0, 600), double(d0));
  EXPECT_LT(std::abs(a.d.back()), 1e-6);  // damped out (numerically)

  const OscillatorRun blow =
      run_oscillator(oscillator_scene(Integrator::symplectic, h, k, m, d0), 10);
  std::printf("symplectic, 1 substep: |d| after 10 steps %.3g m\n", peak(blow.d, 9, 10));
  EXPECT_GT(peak(blow.d, 9, 10), 1e3);

  // The most substeps a scene takes (64) are not enough: h omega = 2.6 per substep.
  Scene capped = oscillator_scene(Integrator::symplectic, h, k, m, d0);
  capped.settings.solver.substeps = 64;
  const OscillatorRun grows = run_oscillator(capped, 10);
  std::printf("symplectic, 64 substeps: |d| after 10 steps %.3g m\n", peak(grows.d, 9, 10));
  EXPECT_GT(peak(grows.d, 9, 10), 1e3);

  // 100 steps of h / 100 (h omega = 1.67) hold it, within symplectic Euler's bound
  // d0 / sqrt(1 - (h omega / 2)^2) = 1.81 d0.
  const OscillatorRun held =
      run_oscillator(oscillator_scene(Integrator::symplectic, h / 100.0f, k, m, d0), 6000);
  std::printf("symplectic, h / 100: peak |d| %.3g m\n", peak(held.d, 0, 6000));
  EXPECT_LT(peak(held.d, 0, 6000), 1.9 * double(d0));
}

// The method's numerical damping. Along the spring the force is linear, so the solve is exact
// backward Euler: v1 = v0 - h omega^2 (x1 - r), x1 = x0 + h v1. In (omega d, v) the step is
//   1 / (1 + a^2) [[1, a], [-a, 1]],  a = h omega,
// a rotation scaled by 1 / sqrt(1 + a^2): the amplitude shrinks by exactly 1 / sqrt(1 + a^2) per
// step and the energy (k d^2 + m v^2) / 2 by 1 / (1 + a^2) (digest T7).
TEST(ImplicitOscillator, NumericalDampingMatchesItsFormula) {
  const float k = 50.0f, m = 0.5f, d0 = 0.1f;  // omega 10 rad/s
  for (float h : {0.01f, 0.05f, 0.2f}) {
    const OscillatorRun r = run_oscillator(oscillator_scene(Integrator::implicit, h, k, m, d0), 20);
    const double a2 = double(h) * double(h) * double(k / m);
    auto energy = [&](std::size_t i) {
      const double d = i == 0 ? double(d0) : r.d[i - 1];
      const double v = i == 0 ? 0.0 : r.v[i - 1];
      return 0.5 * double(k) * d * d + 0.5 * double(m) * v * v;
    };
    // Over the steps whose amplitude is still above 5% of d0: below it, the float position's
    // rounding (6e-8 m at x = 1 m) is more than 1e-5 of the energy.
    double worst = 0.0;
    for (std::size_t i = 1; i <= r.d.size() && energy(i) > 2.5e-3 * energy(0); ++i) {
      worst = std::max(worst, std::abs(energy(i) / energy(i - 1) * (1.0 + a2) - 1.0));
    }
    std::printf(
        "h %.2f: energy ratio per step %.6f (1 / (1 + h^2 omega^2) %.6f), worst rel. %.2e"
        "; CG at most %u iterations\n",
        double(h), energy(1) / energy(0), 1.0 / (1.0 + a2), worst, r.max_iterations);
    EXPECT_LT(worst, 1e-4) << "h = " << h;
    EXPECT_EQ(r.max_iterations, 1u);  // one unknown block: the preconditioner is A's inverse
  }
}

// ---- cloth
// ---------------------------------------------------------------------------------------

// A 32 x 32 cloth (1,024 vertices of 0.44 g, k 2,000 N/m structural: h omega = 35) drapes over
// a static ball at 60 Hz with one step a frame: every solve meets the tolerance within the cap,
// and no vertex sinks into the ball by more than the stated depth (measured: 145 iterations at
// most, 1.85 cm deep; with 2 substeps 9.9 mm; warm-started, kernels/world_implicit.inl: 154 at
// most, at the landing, 1.85 cm; with the blocks' LDL^T solves, kernels/implicit.h ldlt3: 132 at
// most, 1.85 cm).
TEST(ImplicitCloth, DrapeConvergesWithinTheCap) {
  Scene s = empty_rigid_scene(-9.81f);
  s.settings.solver.integrator = Integrator::implicit;
  s.settings.solver.cg_tolerance = 1e-4f;
  s.settings.solver.cg_max_iterations = 200;
  s.settings.solver.cg_preconditioner = CgPreconditioner::block_jacobi;  // measured with it
  s.settings.solver.contact_hertz = 0.0f;
  s.bodies.push_back(make_sphere({0.0f, 0.0f, 0.0f}, 0.5f, 0.0f));
  const std::uint32_t first = add_cloth(s, stiff_cloth(32));
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  cpu->load(s);
  std::uint32_t most = 0, least = 1000;
  float worst = 0.0f;
  double deepest = 0.0;
  WorldState st;
  for (int k = 0; k < 90; ++k) {
    cpu->step();
    const StepStats& stats = cpu->stats();
    most = std::max(most, stats.cg_iterations);
    least = std::min(least, stats.cg_iterations);
    worst = std::max(worst, stats.cg_residual);
    ASSERT_LE(stats.cg_residual, s.settings.solver.cg_tolerance) << "step " << k;
    ASSERT_EQ(stats.cg_unmet, 0u) << "step " << k;
    ASSERT_LT(stats.cg_iterations, s.settings.solver.cg_max_iterations) << "step " << k;
    cpu->read(st);
    for (std::uint32_t i = first; i < st.particles.size(); ++i) {
      const glm::vec4 x = st.particles.pos_radius[i];
      deepest = std::max(deepest, double(0.5f + x.w - glm::length(glm::vec3(x))));
    }
  }
  std::printf("32x32 drape: CG %u..%u iterations, worst residual %.2e; deepest vertex %.4f m\n",
              least, most, double(worst), deepest);
  EXPECT_GT(most, 1u);
  EXPECT_LT(deepest, 0.025);
}

// A solve that stops at its cap above the tolerance is counted (StepStats::cg_unmet), as on the
// 512 x 512 drape, whose landing needs more than its cap: here the 32 x 32 drape's solves are
// capped at 3 iterations, so each unmet one took exactly 3; a step has unmet solves exactly when
// its worst residual passes the tolerance, and never more than its substeps.
TEST(ImplicitCloth, ASolveStoppedAtItsCapIsCounted) {
  Scene s = empty_rigid_scene(-9.81f);
  s.settings.solver.integrator = Integrator::implicit;
  s.settings.solver.cg_tolerance = 1e-4f;
  s.settings.solver.cg_max_iterations = 3;
  s.settings.solver.substeps = 2;
  s.settings.solver.contact_hertz = 0.0f;
  s.bodies.push_back(make_sphere({0.0f, 0.0f, 0.0f}, 0.5f, 0.0f));
  add_cloth(s, stiff_cloth(32));
  const SolverSettings& sv = s.settings.solver;
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  cpu->load(s);
  std::uint32_t unmet = 0, unmet_steps = 0;
  for (int k = 0; k < 40; ++k) {
    cpu->step();
    const StepStats& stats = cpu->stats();
    ASSERT_EQ(stats.cg_unmet > 0u, stats.cg_residual > sv.cg_tolerance) << "step " << k;
    ASSERT_LE(stats.cg_unmet, sv.substeps) << "step " << k;
    ASSERT_GE(stats.cg_iterations, sv.cg_max_iterations * stats.cg_unmet) << "step " << k;
    unmet += stats.cg_unmet;
    unmet_steps += stats.cg_unmet > 0u ? 1u : 0u;
  }
  std::printf("32x32 drape at a cap of 3: %u unmet solves in %u of 40 steps\n", unmet, unmet_steps);
  EXPECT_GT(unmet_steps, 5u) << "the landing needs more than 3 iterations a solve";
  EXPECT_LT(unmet_steps, 40u) << "the fall needs fewer";
}

// The bench's 64 x 64 drape (`vkphys bench cloth --method implicit`: cloth_drape_scene with its
// springs made force springs, 4 substeps, CG's cap 100 iterations a solve, tolerance 1e-4). From
// dv = 0 every solve, CG met the tolerance while the cloth fell (1 iteration a solve), then took
// 255 to 400 iterations a step from the landing (step 15) on and missed the tolerance at its cap
// in every step from 18 to 30 (the step's worst residual 1.01e-4 to 3.3e-4), 395 a step still
// at step 40.
// Warm-started from the last solve's dv (kernels/world_implicit.inl) it meets the tolerance in
// every step once the cloth has landed (from step 21; 236 iterations a step at step 40). The
// landing itself (steps 19 and 20, where the contacts stop the cloth's middle while its edges
// still fall) still reaches the cap, from a cold start too: the grid's stiff axial chains
// condition the system beyond what block Jacobi reaches (kernels/world_implicit.inl, "Why the
// landing is slow").
TEST(ImplicitCloth, BenchDrapeMeetsTheToleranceWithinTheCapOnceLanded) {
  Scene s = cloth_drape_scene(64);
  for (Spring& spring : s.springs) spring.model = SpringModel::force;
  s.settings.solver.integrator = Integrator::implicit;
  // Block Jacobi's landing (the lines meet the tolerance there too: tests/test_implicit_lines.cpp).
  s.settings.solver.cg_preconditioner = CgPreconditioner::block_jacobi;
  const SolverSettings& sv = s.settings.solver;
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  cpu->load(s);
  std::uint32_t most = 0, total = 0;
  float worst = 0.0f;
  const int steps = 40, landed = 20;
  for (int k = 0; k < steps; ++k) {
    cpu->step();
    const StepStats& stats = cpu->stats();
    if (k < landed) continue;
    most = std::max(most, stats.cg_iterations);
    total += stats.cg_iterations;
    worst = std::max(worst, stats.cg_residual);
    ASSERT_LE(stats.cg_residual, sv.cg_tolerance) << "step " << k;
    ASSERT_EQ(stats.cg_unmet, 0u) << "step " << k;
    ASSERT_LT(stats.cg_iterations, sv.substeps * sv.cg_max_iterations) << "step " << k;
  }
  WorldState st;
  cpu->read(st);
  const double stretch = max_stretch(s, st, 1000.0f);
  std::printf(
      "64x64 drape, steps %d-%d: CG %u iterations a step at most, %.1f on average, worst "
      "residual %.2e; max stretch %.4f\n",
      landed + 1, steps, most, double(total) / (steps - landed), double(worst), stretch);
  EXPECT_GT(most, 2u * sv.substeps);  // the cloth reached the ball: real solves
  EXPECT_LT(stretch, 1.05);
}

// A solve whose b is exactly 0 (a cloth at rest at its rest lengths, no gravity, no drag) has the
// solution dv = 0 whatever its warm start: it stops before its first iteration and leaves the
// cloth exactly at rest, and the next warm start is that 0. Before, the tolerance relative to
// |b| = 0 could not be met from dv0 != 0 (r = -A dv0), and the solve ran to its cap (64 here)
// and moved every vertex by what was left of dv0.
TEST(ImplicitCloth, AnUnloadedSolveStopsAtOnceWhateverItsWarmStart) {
  Scene s;
  s.settings.gravity = {0.0f, 0.0f, 0.0f};
  s.settings.drag = 0.0f;
  s.settings.solver.integrator = Integrator::implicit;
  s.settings.solver.cg_tolerance = 1e-4f;
  s.settings.solver.cg_max_iterations = 64;
  add_cloth(s, stiff_cloth(9));
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  cpu->load(s);
  CarriedState warm = cpu->save();
  ASSERT_EQ(warm.cg_dv.size(), 81u);
  for (std::size_t k = 0; k < warm.cg_dv.size(); ++k) {
    warm.cg_dv[k] = glm::vec4(0.05f, -0.1f, 0.02f * static_cast<float>(k % 7), 0.0f);
  }
  cpu->restore(s, warm);
  WorldState before, after;
  cpu->read(before);
  for (int step = 0; step < 2; ++step) {
    cpu->step();
    EXPECT_EQ(cpu->stats().cg_iterations, 0u) << "step " << step;
    EXPECT_EQ(cpu->stats().cg_residual, 0.0f) << "step " << step;
  }
  cpu->read(after);
  for (std::size_t i = 0; i < after.particles.size(); ++i) {
    ASSERT_EQ(after.particles.pos_radius[i], before.particles.pos_radius[i]) << "particle " << i;
    ASSERT_EQ(glm::vec3(after.particles.vel_invmass[i]), glm::vec3(0.0f)) << "particle " << i;
  }
  for (const glm::vec4& dv : cpu->save().cg_dv) ASSERT_EQ(dv, glm::vec4(0.0f));
}

// A 16 x 16 force-spring cloth pinned at two corners hangs at 60 Hz, one step a frame: the
// kinetic energy decays from its peak and the structural springs end stretched by at most the
// stated bound. The springs' damping c acts on stretching only; the whole cloth's swing about
// its pins is damped by the light linear drag the compliant cloth tests use (0.001 kg/s, 1.3 /s
// on a 0.78 g vertex) and the method's own damping.
TEST(ImplicitCloth, HangingDampedClothComesToRest) {
  const Scene s = hanging_stiff_cloth(Integrator::implicit, 1.0f / 60.0f);
  const ClothRest r = run_to_rest(s, stiff_cloth(16).k_structural, 600, 10);
  std::printf("hanging 16x16: kinetic energy peak %.4f J, after 10 s %.2e J; max stretch %.4f\n",
              r.peak_energy, r.final_energy, r.stretch);
  EXPECT_LT(r.final_energy, 1e-3 * r.peak_energy);
  EXPECT_LT(r.stretch, 1.05);
}

// ---- settings
// -------------------------------------------------------------------------------------

nlohmann::json implicit_scene() {
  return nlohmann::json::parse(R"({
    "format": "vkphys-scene", "version": 2, "name": "implicit",
    "gravity": [0, -9.81, 0],
    "solver": {"integrator": "implicit", "cg_tolerance": 1e-5, "cg_max_iterations": 64},
    "particles": [{"type": "particle", "position": [0, 2, 0], "radius": 0.05, "static": true},
                  {"type": "particle", "position": [0, 1, 0], "radius": 0.05, "mass": 1}],
    "springs": [{"particles": [0, 1], "k": 4000, "model": "force", "c": 0.1}]
  })");
}

TEST(ImplicitSettings, SceneFileReadsAndWritesThem) {
  const Scene s = io::parse_scene(implicit_scene().dump(), "<test>");
  EXPECT_EQ(s.settings.solver.integrator, Integrator::implicit);
  EXPECT_EQ(s.settings.solver.cg_tolerance, 1e-5f);
  EXPECT_EQ(s.settings.solver.cg_max_iterations, 64u);
  const Scene back = io::parse_scene(io::write_scene_json(s), "<written>");
  expect_same_scene(s, back);
}

TEST(ImplicitSettings, BadValuesNameTheirField) {
  auto with = [](auto edit) {
    nlohmann::json j = implicit_scene();
    edit(j);
    return error_of(j);
  };
  expect_error(with([](nlohmann::json& j) { j["solver"]["cg_tolerance"] = 0; }),
               {"solver.cg_tolerance = 0"});
  expect_error(with([](nlohmann::json& j) { j["solver"]["cg_tolerance"] = 1.5; }),
               {"solver.cg_tolerance = 1.5", "must be in (0, 1)"});
  expect_error(with([](nlohmann::json& j) { j["solver"]["cg_max_iterations"] = 0; }),
               {"solver.cg_max_iterations = 0"});
  expect_error(with([](nlohmann::json& j) { j["solver"]["cg_max_iterations"] = 5000; }),
               {"solver.cg_max_iterations = 5000"});
  expect_error(with([](nlohmann::json& j) {
                 j["solver"]["adaptive"] = {{"tolerance", 1e-3}};
               }),
               {"solver.adaptive", "needs an explicit solver.integrator"});

  Scene s = io::parse_scene(implicit_scene().dump(), "<test>");
  s.settings.solver.cg_tolerance = 0.0f;
  EXPECT_EQ(load_error(s),
            "solver.cg_tolerance = 0.000000: must be in (0, 1) (the residual relative to the "
            "right-hand side)");
  s.settings.solver.cg_tolerance = 1e-4f;
  s.settings.solver.cg_max_iterations = 1001;
  EXPECT_EQ(load_error(s), "solver.cg_max_iterations = 1001: must be in [1, 1000]");
  s.settings.solver.cg_max_iterations = 10;
  s.settings.solver.adaptive.tolerance = 1e-3f;
  EXPECT_EQ(load_error(s),
            "solver.adaptive needs an explicit solver.integrator (euler, midpoint or rk4); the "
            "symplectic step is refined with solver.substeps, the implicit one needs no error "
            "control");
}

}  // namespace
}  // namespace vkphys::test
