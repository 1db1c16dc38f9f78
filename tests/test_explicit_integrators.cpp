// Seed 003's explicit integrators on the particles (solver.integrator, kernels/world_ode.inl):
// the circular field's radii (digest T2-T4), a force-spring oscillator's period and the growth
// each method's stability analysis predicts, the adaptive step against a fixed one, a contact
// solved after an explicit method's forces, and a force-spring cloth that comes to rest. CPU
// backend (GPU parity: tests/test_force_spring_parity.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <numbers>
#include <vector>

#include "host/io/scene_file.h"
#include "host/sim/backend.h"
#include "tests/cloth_measures.h"
#include "tests/integrator_scenes.h"
#include "tests/source_tree.h"
#include "vkphys/stability.h"

namespace vkphys::test {
namespace {

struct Trace {
  std::vector<glm::vec4> pos, vel;  // per step, particle `watch`
  std::uint64_t ode_steps = 0;      // ODE steps over the run (steps per step x substeps)
  // The adaptive step's work in ODE steps: each step is one of h and two of h/2 (3 x), and a
  // step redone r times first tried n/2^r, ..., n/2 steps.
  double ode_work = 0.0;
  float worst_error = 0.0f;  // the largest accepted step's error (adaptive)
};

Trace run_cpu(const Scene& s, std::uint32_t steps, std::uint32_t watch) {
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  cpu->load(s);
  Trace r;
  WorldState st;
  for (std::uint32_t k = 0; k < steps; ++k) {
    cpu->step();
    cpu->read(st);
    r.pos.push_back(st.particles.pos_radius[watch]);
    r.vel.push_back(st.particles.vel_invmass[watch]);
    const StepStats& st_stats = cpu->stats();
    r.ode_steps += std::uint64_t{st_stats.ode_steps} * s.settings.solver.substeps;
    const double n = st_stats.ode_steps;
    r.ode_work += 3.0 * (n + n * (1.0 - std::pow(0.5, st_stats.ode_redos)));
    r.worst_error = std::max(r.worst_error, cpu->stats().ode_error);
  }
  return r;
}

// ---- seed 003's circular field ------------------------------------------------------------------

// Each method's factor on the field's radius per step of h (digest T2-T4, derived): the methods
// are polynomials R(z) in z = h lambda applied to z' = lambda z, here lambda = -i (the field
// f(p, q) = (q, -p) of each coordinate's position and velocity), so the radius grows by |R(-ih)|.
double radius_factor(Integrator m, double h) {
  const double h2 = h * h;
  switch (m) {
    case Integrator::euler:
      return std::sqrt(1.0 + h2);  // |1 + z|
    case Integrator::midpoint:
      return std::sqrt(1.0 + h2 * h2 / 4.0);  // |1 + z + z^2/2|
    case Integrator::rk4:
      return std::sqrt(1.0 - h2 * h2 * h2 / 72.0 + h2 * h2 * h2 * h2 / 576.0);
    case Integrator::symplectic:
    case Integrator::implicit:
      break;
  }
  return 0.0;
}

TEST(CircularField, ReproducesSeed003Radii) {
  // The shipped scene (rk4), and the same with euler and midpoint: 1000 steps of h = 0.1 from
  // radius 1. The particle's distance from the centre is the radius: x and y are the same
  // circular motion a quarter period apart, so |x| = factor^n exactly.
  struct Case {
    Integrator method;
    double seed;       // the digest's number
    double tolerance;  // float32 rounding over 1000 steps (measured: see the printout)
  };
  const Case cases[] = {{Integrator::euler, 144.77, 0.01},
                        {Integrator::midpoint, 1.012578, 2e-6},
                        {Integrator::rk4, 0.9999931, 2e-6}};
  for (const Case& c : cases) {
    Scene s = io::load_scene(kScenes / "circular_field.json");
    ASSERT_EQ(s.settings.solver.integrator, Integrator::rk4);
    s.settings.solver.integrator = c.method;
    const Trace r = run_cpu(s, 1000, 0);
    const double radius = glm::length(glm::dvec3(r.pos.back()));
    const double exact = std::pow(radius_factor(c.method, 0.1), 1000);
    std::printf("%s: radius %.9g after 1000 steps (exact %.9g, seed 003 digest %.9g)\n",
                integrator_name(c.method), radius, exact, c.seed);
    EXPECT_NEAR(exact, c.seed, 0.5e-2 * std::abs(c.seed - 1.0) + 1e-7) << "the derivation";
    EXPECT_NEAR(radius, exact, c.tolerance) << integrator_name(c.method);
  }
}

// ---- one spring-mass oscillator -----------------------------------------------------------------

// Times between upward crossings of the rest length, averaged.
double measured_period(const Trace& r, double h) {
  std::vector<double> crossings;
  for (std::size_t k = 1; k < r.pos.size(); ++k) {
    const double a = double(r.pos[k - 1].x) - 1.0, b = double(r.pos[k].x) - 1.0;
    if (a < 0.0 && b >= 0.0) crossings.push_back(h * (double(k) + a / (a - b)));
  }
  if (crossings.size() < 2) return 0.0;
  return (crossings.back() - crossings.front()) / double(crossings.size() - 1);
}

TEST(Oscillator, PeriodIsTwoPiSqrtMOverKWithEveryMethodAtASmallStep) {
  const float k = 50.0f, m = 0.5f;  // omega = 10 rad/s, period 0.628 s
  const double period = 2.0 * std::numbers::pi * std::sqrt(double(m) / double(k));
  const float h = 0.001f;  // h omega = 0.01
  for (Integrator method :
       {Integrator::symplectic, Integrator::euler, Integrator::midpoint, Integrator::rk4}) {
    const Trace r = run_cpu(oscillator_scene(method, h, k, m, 0.1f), 3000, 1);
    const double t = measured_period(r, double(h));
    std::printf("%s: period %.6f s, 2 pi sqrt(m/k) %.6f s (%.4f%%)\n", integrator_name(method), t,
                period, 100.0 * (t / period - 1.0));
    EXPECT_NEAR(t, period, 0.01 * period) << integrator_name(method);
  }
}

// Explicit Euler multiplies the oscillator's energy by exactly 1 + h^2 omega^2 per step at every
// step size (digest T7): it is never stable undamped, and the measured growth is that factor.
TEST(Oscillator, ExplicitEulerGainsEnergyByOnePlusH2Omega2PerStep) {
  const float k = 50.0f, m = 0.5f, h = 0.01f;  // h omega = 0.1
  const double w2 = double(k) / double(m), d0 = 0.1;
  const Trace r = run_cpu(oscillator_scene(Integrator::euler, h, k, m, float(d0)), 200, 1);
  auto energy = [&](const glm::vec4& x, const glm::vec4& v) {
    const double d = double(x.x) - 1.0;
    return 0.5 * double(m) * double(v.x) * double(v.x) + 0.5 * double(k) * d * d;
  };
  const double e0 = 0.5 * double(k) * d0 * d0;
  for (std::uint32_t n : {50u, 100u, 200u}) {
    const double growth = energy(r.pos[n - 1], r.vel[n - 1]) / e0;
    const double expected = std::pow(1.0 + double(h) * double(h) * w2, n);
    std::printf("euler, h omega 0.1: energy x %.5f after %u steps, (1 + h^2 w^2)^n = %.5f\n",
                growth, n, expected);
    EXPECT_NEAR(growth, expected, 1e-3 * expected) << n << " steps";
  }
}

// Symplectic Euler keeps x^2 omega^2 + v^2 - h omega^2 x v fixed, so its amplitude stays within
// d0 / sqrt(1 - (h omega / 2)^2) below h omega = 2; past it one eigenvalue of its step exceeds 1 in
// size and the oscillation grows by it every step (measured against the step matrix's powers).
TEST(Oscillator, SymplecticEulerIsBoundedBelowHOmega2AndBlowsUpPastIt) {
  const float k = 50.0f, m = 0.5f;
  const double omega = 10.0, d0 = 1e-3;
  {
    const float h = 0.19f;  // h omega = 1.9
    const Trace r = run_cpu(oscillator_scene(Integrator::symplectic, h, k, m, float(d0)), 1000, 1);
    double peak = 0.0;
    for (const glm::vec4& x : r.pos) peak = std::max(peak, std::abs(double(x.x) - 1.0));
    const double hw = double(h) * omega;
    const double bound = d0 / std::sqrt(1.0 - hw * hw / 4.0);
    std::printf("symplectic, h omega 1.9: peak %.6g m, bound %.6g m\n", peak, bound);
    EXPECT_LE(peak, bound * (1.0 + 1e-3));
    EXPECT_GE(peak, 0.9 * bound);  // it reaches the bound: the invariant is the right one
  }
  {
    const float h = 0.21f;  // h omega = 2.1
    const Trace r = run_cpu(oscillator_scene(Integrator::symplectic, h, k, m, float(d0)), 8, 1);
    // (x, v) -> (x + h v', v') with v' = v - h omega^2 x, in double from the same start.
    const double w2 = double(k) / double(m), hd = double(h);
    double x = d0, v = 0.0;
    for (std::uint32_t n = 1; n <= 8; ++n) {
      v -= hd * w2 * x;
      x += hd * v;
      const double got = double(r.pos[n - 1].x) - 1.0;
      EXPECT_NEAR(got, x, 1e-2 * std::abs(x) + 1e-6) << "step " << n;
    }
    const double growth = std::abs(double(r.pos.back().x) - 1.0) / d0;
    const double tr = 2.0 - hd * hd * w2;
    const double lambda = std::abs(tr - std::sqrt(tr * tr - 4.0)) / 2.0;
    std::printf("symplectic, h omega 2.1: amplitude x %.4g in 8 steps (|lambda| = %.4f)\n", growth,
                lambda);
    EXPECT_GT(growth, 0.5 * std::pow(lambda, 8));
  }
}

// ---- the adaptive step --------------------------------------------------------------------------

// One period of an eccentric Kepler orbit (e = 0.9: the speed near the centre is 19 times that
// far out) in 64 steps with RK4: the adaptive step meets its tolerance on every step and, for the
// same error after the orbit, takes fewer ODE steps than the fixed step that reaches that error,
// even counting step doubling's three steps per step and the redone steps. (The tolerance is
// well above float32's floor: a fixed 4096-step orbit ends 1.8e-5 m off, its rounding.)
TEST(AdaptiveStep, MeetsItsToleranceWithFewerStepsThanAFixedStepOfTheSameError) {
  const double e = 0.9;
  const std::uint32_t frames = 64;
  Scene adaptive = kepler_scene(Integrator::rk4, e, frames);
  adaptive.settings.solver.adaptive.tolerance = 1e-3f;
  const Trace a = run_cpu(adaptive, frames, 0);
  const double a_error = glm::length(glm::dvec3(a.pos.back()) - glm::dvec3(1.0, 0.0, 0.0));
  std::printf(
      "adaptive rk4, tolerance 1e-3: %llu ODE steps (work %.0f), worst step error %.3g, "
      "orbit error %.3g m\n",
      static_cast<unsigned long long>(a.ode_steps), a.ode_work, double(a.worst_error), a_error);
  EXPECT_LE(a.worst_error, adaptive.settings.solver.adaptive.tolerance);
  // Fixed steps: the same orbit in frames x m steps; the smallest m that does as well.
  std::uint64_t fixed_steps = 0;
  for (std::uint32_t m = 1; m <= 64; m *= 2) {
    const Scene fixed = kepler_scene(Integrator::rk4, e, frames * m);
    const Trace f = run_cpu(fixed, frames * m, 0);
    const double f_error = glm::length(glm::dvec3(f.pos.back()) - glm::dvec3(1.0, 0.0, 0.0));
    std::printf("fixed rk4, %u steps: orbit error %.3g m\n", frames * m, f_error);
    if (f_error <= a_error) {
      fixed_steps = f.ode_steps;
      break;
    }
  }
  ASSERT_GT(fixed_steps, 0u) << "no fixed step up to 64 x reached the adaptive step's error";
  EXPECT_LT(a.ode_steps, fixed_steps);
  EXPECT_LT(a.ode_work, double(fixed_steps));
}

// ---- constraints after an explicit method's forces ----------------------------------------------

// A particle dropped on a plane with each method: the contact row stops it and it rests at its
// radius with no velocity left (kernels/world_ode.inl: a particle a row holds takes the
// symplectic step, so the contact cancels gravity exactly; free, it falls by the method).
TEST(ExplicitIntegrators, ContactStopsAParticleOnAPlane) {
  for (Integrator method :
       {Integrator::symplectic, Integrator::euler, Integrator::midpoint, Integrator::rk4}) {
    Scene s;
    s.settings.time_step = 1.0f / 60.0f;
    s.settings.solver.integrator = method;
    s.planes.push_back(Plane{});
    s.particles.add({0.0f, 0.5f, 0.0f}, glm::vec3(0.0f), 0.05f, 1.0f, 0);
    const Trace r = run_cpu(s, 120, 0);
    float lowest = 1.0f;
    for (const glm::vec4& x : r.pos) lowest = std::min(lowest, x.y);
    std::printf("%s: at rest %.6f m above the plane (radius 0.05), speed %.3g m/s; lowest %.6f m\n",
                integrator_name(method), double(r.pos.back().y),
                double(glm::length(glm::vec3(r.vel.back()))), double(lowest));
    EXPECT_NEAR(r.pos.back().y, 0.05f, 1e-3f) << integrator_name(method);
    EXPECT_LT(glm::length(glm::vec3(r.vel.back())), 1e-3f) << integrator_name(method);
  }
}

// A particle hanging from a pinned one on a compliant spring (a SPOOK row) under each method's
// forces: at rest the spring stretches m g / k, as with the symplectic step (tests/test_cloth.cpp),
// to 1 um (measured: 0.060 um short with every method).
TEST(ExplicitIntegrators, CompliantSpringSagsByLoadOverK) {
  for (Integrator method :
       {Integrator::symplectic, Integrator::euler, Integrator::midpoint, Integrator::rk4}) {
    Scene s;
    s.settings.gravity = {0.0f, -10.0f, 0.0f};
    s.settings.solver.integrator = method;
    s.particles.add({0.0f, 2.0f, 0.0f}, glm::vec3(0.0f), 0.05f, 0.0f, 0);  // pinned
    s.particles.add({0.3f, 1.0f, 0.0f}, glm::vec3(0.0f), 0.05f, 0.5f, 0);  // swings in
    s.settings.drag = 0.5f;
    s.springs.push_back(Spring{0, 1, 1.0f, 500.0f, 4.0f});
    const Trace r = run_cpu(s, 900, 1);
    const double stretch = glm::length(glm::dvec3(r.pos.back()) - glm::dvec3(0.0, 2.0, 0.0)) - 1.0;
    const double expected = 0.5 * 10.0 / 500.0;
    std::printf("%s: compliant spring stretch %.9f m, m g / k %.9f m, speed %.3g m/s\n",
                integrator_name(method), stretch, expected,
                double(glm::length(glm::vec3(r.vel.back()))));
    EXPECT_NEAR(stretch, expected, 1e-6) << integrator_name(method);
  }
}

// The hanging cloth of ImplicitCloth.HangingDampedClothComesToRest (hanging_stiff_cloth, tests/
// integrator_scenes.h: 16 x 16 force springs, k 2000 N/m, c 0.5 kg/s, pinned at two
// corners, the compliant tests' light drag) under the explicit methods, for 10 s at 240 Hz with
// the substeps the network bound asks for (include/vkphys/stability.h; at 60 Hz it asks for
// 140, past solver.substeps' cap of 64): it comes to rest and its structural springs end
// stretched by at most the bound that test holds backward Euler to.
// Symplectic Euler and RK4 are the explicit methods a stable step leaves to damp it; explicit
// Euler and midpoint gain energy at any step without damping (Oscillator tests above).
TEST(ExplicitCloth, HangingDampedClothComesToRest) {
  for (Integrator method : {Integrator::symplectic, Integrator::rk4}) {
    Scene s = hanging_stiff_cloth(method, 1.0f / 240.0f);
    const SpringStability bound = spring_stability(s);
    ASSERT_GT(bound.network_substeps_needed, 1u) << integrator_name(method);
    s.settings.solver.substeps = static_cast<std::uint32_t>(bound.network_substeps_needed);
    const ClothRest r = run_to_rest(s, stiff_cloth(16).k_structural, 2400, 40);
    std::printf(
        "%s, %u substeps: kinetic energy peak %.4f J, after 10 s %.2e J; max stretch %.4f\n",
        integrator_name(method), s.settings.solver.substeps, r.peak_energy, r.final_energy,
        r.stretch);
    EXPECT_LT(r.final_energy, 1e-3 * r.peak_energy) << integrator_name(method);
    EXPECT_LT(r.stretch, 1.05) << integrator_name(method);
  }
}

}  // namespace
}  // namespace vkphys::test
