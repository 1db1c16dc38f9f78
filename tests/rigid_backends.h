// Parameterisation of the rigid-body tests over backend and solver scheme: the CPU reference
// with all three schemes, the Vulkan backend with the two it runs (with validation on).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "host/sim/rigid_backend.h"
#include "tests/gpu_env.h"

namespace vkphys::test {

struct RigidCase {
  std::string backend;  // "cpu" or "gpu"
  SolverScheme scheme;
};

inline void PrintTo(const RigidCase& c, std::ostream* os) {
  *os << c.backend << "/" << scheme_name(c.scheme);
}

inline std::string rigid_case_name(const ::testing::TestParamInfo<RigidCase>& info) {
  return info.param.backend + "_" + scheme_name(info.param.scheme);
}

class RigidTest : public ::testing::TestWithParam<RigidCase> {
 protected:
  void SetUp() override {
    if (GetParam().backend == "cpu") {
      backend_ = make_cpu_rigid_backend();
      return;
    }
    std::string why;
    vk::Context* ctx = gpu_context_or_null(&why);
    if (!ctx) {
      if (gpu_required()) FAIL() << why;
      GTEST_SKIP() << why;
    }
    guard_.emplace(*ctx);
    backend_ = make_gpu_rigid_backend(*ctx);
  }
  void TearDown() override { guard_.reset(); }
  // Loads the scene with this case's scheme.
  RigidBackend& load(Scene scene, std::uint32_t pair_capacity = 0) {
    scene.settings.solver.scheme = GetParam().scheme;
    backend_->load(scene, pair_capacity);
    return *backend_;
  }
  RigidState run(std::uint32_t steps) {
    for (std::uint32_t s = 0; s < steps; ++s) backend_->step();
    RigidState st;
    backend_->read(st);
    return st;
  }
  std::unique_ptr<RigidBackend> backend_;
  std::optional<ValidationGuard> guard_;
};

inline auto all_rigid_cases() {
  return ::testing::Values(
      RigidCase{"cpu", SolverScheme::sequential}, RigidCase{"cpu", SolverScheme::colored},
      RigidCase{"cpu", SolverScheme::jacobi}, RigidCase{"gpu", SolverScheme::colored},
      RigidCase{"gpu", SolverScheme::jacobi});
}

}  // namespace vkphys::test

#define VKPHYS_ON_RIGID_CASES(Suite)                                      \
  INSTANTIATE_TEST_SUITE_P(Rigid, Suite, vkphys::test::all_rigid_cases(), \
                           vkphys::test::rigid_case_name)
