// Parameterisation of the world tests over backend and solver scheme: the CPU reference with
// all three schemes, the Vulkan backend with the two it runs (with validation on). Vulkan-less
// machines skip the GPU cases unless VKPHYS_REQUIRE_GPU=1. Tests over the integrators are named
// by method_name.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "host/sim/backend.h"
#include "host/sim/compare.h"
#include "tests/gpu_env.h"

namespace vkphys::test {

struct Case {
  std::string backend;  // "cpu" or "gpu"
  SolverScheme scheme;
};

inline void PrintTo(const Case& c, std::ostream* os) {
  *os << c.backend << "/" << scheme_name(c.scheme);
}

inline std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  return info.param.backend + "_" + scheme_name(info.param.scheme);
}

// The name of a test over the integrators: the method's.
inline std::string method_name(const ::testing::TestParamInfo<Integrator>& p) {
  return integrator_name(p.param);
}

class WorldTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    if (GetParam().backend == "cpu") {
      backend_ = make_cpu_backend();
      return;
    }
    std::string why;
    vk::Context* ctx = gpu_context_or_null(&why);
    if (!ctx) {
      if (gpu_required()) FAIL() << why;
      GTEST_SKIP() << why;
    }
    guard_.emplace(*ctx);
    backend_ = make_gpu_backend(*ctx);
  }
  void TearDown() override { guard_.reset(); }
  // Loads the scene with this case's scheme.
  Backend& load(Scene scene, std::uint32_t pair_capacity = 0, std::uint32_t contact_capacity = 0) {
    scene.settings.solver.scheme = GetParam().scheme;
    backend_->load(scene, pair_capacity, contact_capacity);
    return *backend_;
  }
  WorldState run(std::uint32_t steps) {
    for (std::uint32_t s = 0; s < steps; ++s) backend_->step();
    WorldState st;
    backend_->read(st);
    return st;
  }
  std::unique_ptr<Backend> backend_;
  std::optional<ValidationGuard> guard_;
};

// The scene on a fresh GPU backend against a fresh CPU backend over `steps` steps, held to the
// absolute tolerances alone (no rounding envelope: for scenes that are not chaotic).
inline CompareResult gpu_against_cpu(vk::Context& ctx, const Scene& s, std::uint32_t steps,
                                     double position, double velocity) {
  std::unique_ptr<Backend> gpu = make_gpu_backend(ctx);
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  gpu->load(s);
  cpu->load(s);
  CompareOptions opt;
  opt.tol.position = position;
  opt.tol.velocity = velocity;
  opt.seeds = 0;
  return compare_backends(*gpu, *cpu, s, steps, opt);
}

// `s` with its particles where the CPU backend leaves them after `steps` steps (a pile mid-fall
// or settled), so a run from it sees contacts from its first step.
inline Scene particles_after_cpu_steps(Scene s, int steps) {
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  cpu->load(s);
  for (int k = 0; k < steps; ++k) cpu->step();
  WorldState st;
  cpu->read(st);
  s.particles = st.particles;
  return s;
}

inline auto all_cases() {
  return ::testing::Values(Case{"cpu", SolverScheme::sequential},
                           Case{"cpu", SolverScheme::colored}, Case{"cpu", SolverScheme::jacobi},
                           Case{"gpu", SolverScheme::colored}, Case{"gpu", SolverScheme::jacobi});
}

}  // namespace vkphys::test

#define VKPHYS_ON_ALL_CASES(Suite) \
  INSTANTIATE_TEST_SUITE_P(World, Suite, vkphys::test::all_cases(), vkphys::test::case_name)
