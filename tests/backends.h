// Backend parameterisation for the physics tests: every physics test runs on the CPU reference
// and on the Vulkan backend (with validation on). Vulkan-less machines skip the GPU instances
// unless VKPHYS_REQUIRE_GPU=1.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "host/sim/backend.h"
#include "tests/gpu_env.h"

namespace vkphys::test {

// Returns the backend, or nullopt after GTEST_SKIP / FAIL when the GPU is unavailable.
inline std::unique_ptr<Backend> open_backend(const std::string& which) {
  if (which == "cpu") return make_cpu_backend();
  std::string why;
  vk::Context* ctx = gpu_context_or_null(&why);
  if (!ctx) return nullptr;
  return make_gpu_backend(*ctx);
}

class BackendTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    backend_ = open_backend(GetParam());
    if (!backend_) {
      std::string why;
      gpu_context_or_null(&why);
      if (gpu_required()) FAIL() << why;
      GTEST_SKIP() << why;
    }
    if (GetParam() == "gpu") guard_.emplace(*gpu_context_or_null(nullptr));
  }
  void TearDown() override { guard_.reset(); }
  Backend& backend() { return *backend_; }
  std::unique_ptr<Backend> backend_;
  std::optional<ValidationGuard> guard_;
};

inline std::string backend_name(const ::testing::TestParamInfo<std::string>& info) {
  return info.param;
}

}  // namespace vkphys::test

#define VKPHYS_ON_BOTH_BACKENDS(Suite)                                                \
  INSTANTIATE_TEST_SUITE_P(Backends, Suite,                                           \
                           ::testing::Values(std::string("cpu"), std::string("gpu")), \
                           vkphys::test::backend_name)
