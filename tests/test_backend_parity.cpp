// GPU versus CPU, stage by stage and over whole runs; determinism; broadphase against a
// brute-force oracle; capacity overflow.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <random>
#include <set>
#include <utility>

#include "host/sim/compare.h"
#include "host/sim/scene_builders.h"
#include "host/sim/step_params.h"
#include "tests/backends.h"

namespace vkphys {
namespace {

using test::BackendTest;

// A scene mid-pile: 2,000 particles after 45 CPU steps (falling, colliding, some at rest).
Scene pile_in_motion(std::uint32_t n = 2000) {
  Scene s = particle_box_scene(n, 5);
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  cpu->load(s);
  for (int k = 0; k < 45; ++k) cpu->step();
  cpu->read(s.particles);
  return s;
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

PairSet brute_force_pairs(const Scene& s) {
  StepParams p = make_step_params(s, 1);
  const float margin = p.grid.z;
  PairSet pairs;
  const auto& x = s.particles.pos_radius;
  for (std::uint32_t i = 0; i < x.size(); ++i) {
    for (std::uint32_t j = i + 1; j < x.size(); ++j) {
      float reach = x[i].w + x[j].w + margin;
      glm::vec3 d = glm::vec3(x[j]) - glm::vec3(x[i]);
      if (glm::dot(d, d) < reach * reach) pairs.insert({i, j});
    }
  }
  return pairs;
}

class Broadphase : public BackendTest {};

// The grid broadphase + narrowphase finds exactly the brute-force pair set (the scene has no
// velocity and 0 gravity is irrelevant: contacts are found from the step-start positions).
TEST_P(Broadphase, MatchesBruteForceOracle) {
  for (std::uint32_t seed : {1u, 2u, 3u}) {
    Scene s = random_cloud(seed == 1 ? 1237u : 3001u, seed);
    backend().load(s);
    StepTrace t;
    backend().step(&t);
    PairSet found;
    std::uint32_t directed = 0;
    for (const glm::uvec2& b : t.contact_bodies) {
      if (b.y & VKPHYS_PLANE_BIT) continue;
      ++directed;
      if (b.x < b.y) found.insert({b.x, b.y});
    }
    PairSet oracle = brute_force_pairs(s);
    EXPECT_GT(oracle.size(), 100u);
    EXPECT_EQ(found, oracle) << "seed " << seed;
    EXPECT_EQ(directed, 2 * oracle.size()) << "each pair stored once per body";
  }
}

VKPHYS_ON_BOTH_BACKENDS(Broadphase);

class Determinism : public BackendTest {};

TEST_P(Determinism, TwoRunsAreBitIdentical) {
  Scene s = particle_box_scene(1500, 9);
  Particles a, b;
  backend().load(s);
  for (int k = 0; k < 40; ++k) backend().step();
  backend().read(a);
  backend().load(s);
  for (int k = 0; k < 40; ++k) backend().step();
  backend().read(b);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(0, std::memcmp(a.pos_radius.data(), b.pos_radius.data(), a.size() * sizeof(glm::vec4)));
  EXPECT_EQ(0,
            std::memcmp(a.vel_invmass.data(), b.vel_invmass.data(), a.size() * sizeof(glm::vec4)));
}

// A contact capacity far too small: the step grows the buffers and redoes itself, and the
// result is identical to a run that never overflowed. No contact is lost.
TEST_P(Determinism, ContactOverflowGrowsAndLosesNothing) {
  Scene s = pile_in_motion(1237);
  backend().load(s);
  StepTrace roomy;
  backend().step(&roomy);
  EXPECT_EQ(backend().stats().regrows, 0u);
  backend().load(s, 16);
  StepTrace tight;
  backend().step(&tight);
  EXPECT_GE(backend().stats().regrows, 1u);
  EXPECT_GE(backend().stats().contact_capacity, roomy.contact_bodies.size());
  ASSERT_EQ(tight.contact_bodies.size(), roomy.contact_bodies.size());
  EXPECT_GT(roomy.contact_bodies.size(), 1000u);
  EXPECT_EQ(0, std::memcmp(tight.contact_bodies.data(), roomy.contact_bodies.data(),
                           roomy.contact_bodies.size() * sizeof(glm::uvec2)));
  EXPECT_EQ(0,
            std::memcmp(tight.pos.data(), roomy.pos.data(), roomy.pos.size() * sizeof(glm::vec4)));
}

VKPHYS_ON_BOTH_BACKENDS(Determinism);

class GpuVsCpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    ctx_ = test::gpu_context_or_null(&why);
    if (!ctx_) {
      if (test::gpu_required()) FAIL() << why;
      GTEST_SKIP() << why;
    }
    guard_.emplace(*ctx_);
  }
  vk::Context* ctx_ = nullptr;
  std::optional<test::ValidationGuard> guard_;
};

float max_abs_diff(const std::vector<glm::vec4>& a, const std::vector<glm::vec4>& b) {
  float m = 0.0f;
  for (std::size_t i = 0; i < a.size(); ++i) {
    glm::vec4 d = glm::abs(a[i] - b[i]);
    m = std::max({m, d.x, d.y, d.z, d.w});
  }
  return m;
}

// Every stage of one step from the same mid-pile state. Integer stages (sort, cell ranges,
// offsets, contact lists) must agree exactly; float stages within the stated tolerances.
TEST_F(GpuVsCpu, EveryStageFromIdenticalInputs) {
  Scene s = pile_in_motion();
  std::unique_ptr<Backend> gpu = make_gpu_backend(*ctx_);
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  gpu->load(s);
  cpu->load(s);
  StepTrace g, c;
  gpu->step(&g);
  cpu->step(&c);
  // predict, hash, >= 1 sort pass, cell ranges, count, >= 1 scan, finalize, write, prepare,
  // warm start, the Jacobi sweeps, integrate, commit: all recorded once.
  EXPECT_GE(gpu->stats().dispatches, 13u + s.settings.solver.iterations);
  EXPECT_LE(max_abs_diff(g.predicted_vel, c.predicted_vel), 1e-6f) << "predict";
  EXPECT_EQ(g.sorted_keys, c.sorted_keys) << "hash + sort";
  EXPECT_EQ(g.sorted_values, c.sorted_values) << "sort";
  EXPECT_TRUE(std::is_sorted(c.sorted_keys.begin(), c.sorted_keys.end()));
  EXPECT_EQ(g.cell_start, c.cell_start) << "cell ranges";
  for (std::size_t h = 0; h < c.cell_start.size(); ++h) {
    if (c.cell_start[h] != VKPHYS_EMPTY_CELL) {
      ASSERT_EQ(g.cell_end[h], c.cell_end[h]) << h;
    }
  }
  EXPECT_EQ(g.contact_offset, c.contact_offset) << "count + scan";
  ASSERT_EQ(g.contact_bodies.size(), c.contact_bodies.size());
  EXPECT_GT(c.contact_bodies.size(), 2000u);
  EXPECT_EQ(0, std::memcmp(g.contact_bodies.data(), c.contact_bodies.data(),
                           c.contact_bodies.size() * sizeof(glm::uvec2)))
      << "write contacts";
  EXPECT_LE(max_abs_diff(g.contact_geom, c.contact_geom), 1e-6f) << "narrowphase";
  EXPECT_LE(max_abs_diff(g.contact_target, c.contact_target), 1e-4f) << "prepare";
  EXPECT_LE(max_abs_diff(g.contact_lambda, c.contact_lambda), 1e-4f) << "solve impulses";
  EXPECT_LE(max_abs_diff(g.vel, c.vel), 1e-4f) << "solve velocities";
  EXPECT_LE(max_abs_diff(g.pos, c.pos), 1e-6f) << "integrate";
}

// The 2,000-particle pile over 100 steps: positions within 1 mm (2% of the radius) and
// velocities within 1 cm/s at every step.
TEST_F(GpuVsCpu, PileOf2000Over100Steps) {
  Scene s = particle_box_scene(2000, 5);
  std::unique_ptr<Backend> gpu = make_gpu_backend(*ctx_);
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  gpu->load(s);
  cpu->load(s);
  CompareResult r = compare_backends(*gpu, *cpu, 100, CompareTolerance{1e-3, 1e-2});
  const StepError& last = r.steps.back();
  EXPECT_FALSE(r.first_bad.has_value())
      << "first step past tolerance: " << *r.first_bad << " (max |dx| "
      << r.steps[*r.first_bad - 1].max_pos << ", max |dv| " << r.steps[*r.first_bad - 1].max_vel
      << ")";
  RecordProperty("max_pos_err_step100", std::to_string(last.max_pos));
  RecordProperty("max_vel_err_step100", std::to_string(last.max_vel));
  std::printf("pile 2000, step 100: max |dx| %.3g m, mean %.3g m, max |dv| %.3g m/s\n",
              last.max_pos, last.mean_pos, last.max_vel);
}

}  // namespace
}  // namespace vkphys
