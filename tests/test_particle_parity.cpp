// Particles in the world: GPU versus CPU, stage by stage and over whole runs; determinism; the
// particle grid against a brute-force oracle; contact-capacity overflow.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <random>
#include <set>
#include <utility>

#include "host/sim/compare.h"
#include "host/sim/scene_builders.h"
#include "tests/backends.h"

namespace vkphys {
namespace {

using test::WorldTest;

// A scene mid-pile: 2,000 particles after 45 CPU steps (falling, colliding, some at rest).
Scene pile_in_motion(std::uint32_t n = 2000) {
  return test::particles_after_cpu_steps(particle_box_scene(n, 5), 45);
}

// A random cloud with mixed radii, for the broadphase.
Scene random_cloud(std::uint32_t n, std::uint32_t seed) {
  Scene s;
  s.settings.contact_margin = 0.01f;
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> pos(-1.0f, 1.0f), rad(0.02f, 0.06f);
  for (std::uint32_t i = 0; i < n; ++i) {
    s.particles.add({pos(rng), pos(rng), pos(rng)}, glm::vec3(0.0f), rad(rng), 1.0f, 0);
  }
  s.planes.push_back({{0.0f, 1.0f, 0.0f}, -0.9f, 0});
  return s;
}

using PairSet = std::set<std::pair<std::uint32_t, std::uint32_t>>;

// Every pair of particles closer than the sum of their radii plus the margin, and every
// particle closer than its radius plus the margin to a plane (as (particle, ~plane)), in
// double precision.
PairSet brute_force_pairs(const Scene& s) {
  const auto margin = double(s.settings.contact_margin);
  PairSet pairs;
  const auto& x = s.particles.pos_radius;
  for (std::uint32_t i = 0; i < x.size(); ++i) {
    for (std::uint32_t j = i + 1; j < x.size(); ++j) {
      const double reach = double(x[i].w) + double(x[j].w) + margin;
      const glm::dvec3 d = glm::dvec3(x[j]) - glm::dvec3(x[i]);
      if (glm::dot(d, d) < reach * reach) pairs.insert({i, j});
    }
    for (std::uint32_t k = 0; k < s.planes.size(); ++k) {
      const Plane& p = s.planes[k];
      const double gap =
          glm::dot(glm::dvec3(p.normal), glm::dvec3(x[i])) - double(p.offset) - double(x[i].w);
      if (gap < margin) pairs.insert({i, ~k});
    }
  }
  return pairs;
}

// The trace's particle contacts as particle index pairs (planes as ~plane).
PairSet traced_pairs(const StepTrace& t, std::uint32_t rigid) {
  PairSet found;
  for (const glm::uvec2& b : t.pcontact_bodies) {
    if (b.x < rigid) {
      found.insert({b.y - rigid, ~b.x});
    } else {
      found.insert({b.x - rigid, b.y - rigid});
    }
  }
  return found;
}

class ParticleGrid : public WorldTest {};

// The grid broadphase + narrowphase finds exactly the brute-force pair set, each pair once.
TEST_P(ParticleGrid, MatchesBruteForceOracle) {
  for (std::uint32_t seed : {1u, 2u, 3u}) {
    Scene s = random_cloud(seed == 1 ? 1237u : 3001u, seed);
    load(s);
    StepTrace t;
    backend_->step(&t);
    const PairSet found = traced_pairs(t, 1);
    const PairSet oracle = brute_force_pairs(s);
    EXPECT_GT(oracle.size(), 100u);
    EXPECT_EQ(found, oracle) << "seed " << seed;
    EXPECT_EQ(t.pcontact_bodies.size(), oracle.size()) << "each pair stored once";
    for (const glm::uvec2& b : t.pcontact_bodies) EXPECT_LT(b.x, b.y) << "owner first";
  }
}

VKPHYS_ON_ALL_CASES(ParticleGrid);

class ParticleDeterminism : public WorldTest {};

TEST_P(ParticleDeterminism, TwoRunsAreBitIdentical) {
  Scene s = particle_box_scene(1500, 9);
  load(s);
  const Particles a = run(40).particles;
  load(s);
  const Particles b = run(40).particles;
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(0, std::memcmp(a.pos_radius.data(), b.pos_radius.data(), a.size() * sizeof(glm::vec4)));
  EXPECT_EQ(0,
            std::memcmp(a.vel_invmass.data(), b.vel_invmass.data(), a.size() * sizeof(glm::vec4)));
}

// A contact capacity far too small: the step grows the buffers and redoes itself, and the
// result is identical to a run that never overflowed. No contact is lost.
TEST_P(ParticleDeterminism, ContactOverflowGrowsAndLosesNothing) {
  Scene s = pile_in_motion(1237);
  load(s);
  StepTrace roomy;
  backend_->step(&roomy);
  const Particles roomy_state = run(0).particles;
  EXPECT_EQ(backend_->stats().regrows, 0u);
  load(s, 0, 16);
  StepTrace tight;
  backend_->step(&tight);
  const Particles tight_state = run(0).particles;
  EXPECT_GE(backend_->stats().regrows, 1u);
  EXPECT_GE(backend_->stats().contact_capacity, roomy.pcontact_bodies.size());
  ASSERT_EQ(tight.pcontact_bodies.size(), roomy.pcontact_bodies.size());
  EXPECT_GT(roomy.pcontact_bodies.size(), 1000u);
  EXPECT_EQ(0, std::memcmp(tight.pcontact_bodies.data(), roomy.pcontact_bodies.data(),
                           roomy.pcontact_bodies.size() * sizeof(glm::uvec2)));
  EXPECT_EQ(0, std::memcmp(tight_state.pos_radius.data(), roomy_state.pos_radius.data(),
                           roomy_state.size() * sizeof(glm::vec4)));
}

VKPHYS_ON_ALL_CASES(ParticleDeterminism);

class ParticleGpuVsCpu : public test::WithGpu<::testing::TestWithParam<SolverScheme>> {};

float max_abs_diff(const std::vector<glm::vec4>& a, const std::vector<glm::vec4>& b) {
  float m = 0.0f;
  for (std::size_t i = 0; i < a.size(); ++i) {
    glm::vec4 d = glm::abs(a[i] - b[i]);
    m = std::max({m, d.x, d.y, d.z, d.w});
  }
  return m;
}

// Every stage of one step from the same mid-pile state. Integer results (which contacts, in
// which order, their colours) must agree exactly; float stages within the stated tolerances.
TEST_P(ParticleGpuVsCpu, EveryStageFromIdenticalInputs) {
  Scene s = pile_in_motion();
  s.settings.solver.scheme = GetParam();
  std::unique_ptr<Backend> gpu = make_gpu_backend(*ctx_);
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  gpu->load(s);
  cpu->load(s);
  StepTrace g, c;
  gpu->step(&g);
  cpu->step(&c);
  WorldState gs, cs;
  gpu->read(gs);
  cpu->read(cs);
  EXPECT_LE(max_abs_diff(g.predicted_vel, c.predicted_vel), 1e-6f) << "predict";
  ASSERT_EQ(g.pcontact_bodies.size(), c.pcontact_bodies.size());
  EXPECT_GT(c.pcontact_bodies.size(), 2000u);
  EXPECT_EQ(0, std::memcmp(g.pcontact_bodies.data(), c.pcontact_bodies.data(),
                           c.pcontact_bodies.size() * sizeof(glm::uvec2)))
      << "grid: contact lists";
  EXPECT_LE(max_abs_diff(g.pcontact_geom, c.pcontact_geom), 1e-6f) << "narrowphase";
  if (GetParam() == SolverScheme::colored) {
    EXPECT_EQ(g.colors, c.colors) << "colouring";
  }
  EXPECT_LE(max_abs_diff(g.pcontact_lambda, c.pcontact_lambda), 1e-4f) << "solve impulses";
  EXPECT_LE(max_abs_diff(gs.particles.vel_invmass, cs.particles.vel_invmass), 1e-4f)
      << "solve velocities";
  EXPECT_LE(max_abs_diff(gs.particles.pos_radius, cs.particles.pos_radius), 1e-6f) << "integrate";
}

// The 2,000-particle pile over 100 steps: positions within 1 mm (2% of the radius) and
// velocities within 1 cm/s at every step.
TEST_P(ParticleGpuVsCpu, PileOf2000Over100Steps) {
  Scene s = particle_box_scene(2000, 5);
  s.settings.solver.scheme = GetParam();
  CompareResult r = test::gpu_against_cpu(*ctx_, s, 100, 1e-3, 1e-2);
  const StepError& last = r.steps.back();
  EXPECT_FALSE(r.divergence.has_value()) << r.verdict;
  std::printf("pile 2000 (%s), step 100: max |dx| %.3g m, mean %.3g m, max |dv| %.3g m/s\n",
              scheme_name(GetParam()), last.max_pos, last.mean_pos, last.max_vel);
}

INSTANTIATE_TEST_SUITE_P(Schemes, ParticleGpuVsCpu,
                         ::testing::Values(SolverScheme::colored, SolverScheme::jacobi),
                         [](const ::testing::TestParamInfo<SolverScheme>& p) {
                           return std::string(scheme_name(p.param));
                         });

}  // namespace
}  // namespace vkphys
