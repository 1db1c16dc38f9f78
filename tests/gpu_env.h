// Shared Vulkan context for the tests, created once with the validation layer on
// (VKPHYS_SYNC_VALIDATION=1 adds synchronization validation to it: every GPU test then also
// fails on a missing barrier, slower).
//
// Every test that touches the GPU takes the context through gpu_context(), which skips the test
// with one line when no Vulkan device exists, unless VKPHYS_REQUIRE_GPU=1 (CI sets it, since CI
// installs lavapipe), in which case the test fails. ValidationGuard fails the test if the
// validation layer reported an error while it was alive; the error itself is printed to stderr
// the moment it happens.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "host/vk/context.h"

namespace vkphys::test {

// The shared context (created on first use) or null with the reason in *why.
vk::Context* gpu_context_or_null(std::string* why);
// A second shared context, always with synchronization validation (created on first use: a test
// program that never asks for it never pays for it).
vk::Context* sync_context_or_null(std::string* why);

// Destroys the shared contexts, as the end of the test program's run does. A process that leaves
// through std::exit (a death test's child) must call it first: the contexts' statics would
// otherwise be destroyed after the NVIDIA driver's own exit-time clean-up (gpu_env.cpp).
void release_gpu_contexts();

// Whether the shared context runs on lavapipe (llvmpipe), where the world kernels round as the
// CPU backend does for particles (bit-identical runs) and every run repeats exactly.
inline bool on_lavapipe() {
  const vk::Context* ctx = gpu_context_or_null(nullptr);
  return ctx && ctx->info().name.find("llvmpipe") != std::string::npos;
}

inline bool gpu_required() {
  const char* req = std::getenv("VKPHYS_REQUIRE_GPU");
  return req && std::string(req) == "1";
}

class ValidationGuard {
 public:
  explicit ValidationGuard(const vk::Context& ctx) : ctx_(ctx), start_(ctx.validation_errors()) {}
  ~ValidationGuard() {
    EXPECT_EQ(ctx_.validation_errors(), start_) << "Vulkan validation errors (printed above)";
  }

 private:
  const vk::Context& ctx_;
  std::uint32_t start_;
};

// A fixture base (over ::testing::Test or TestWithParam<T>) holding a shared context (by
// default gpu_context_or_null's) as ctx_ and a validation guard for each test; skips or fails as
// the context's function says.
template <class Base = ::testing::Test, vk::Context* (*Context)(std::string*) = gpu_context_or_null>
class WithGpu : public Base {
 protected:
  void SetUp() override {
    std::string why;
    ctx_ = Context(&why);
    if (!ctx_) {
      if (gpu_required()) FAIL() << why;
      GTEST_SKIP() << why;
    }
    guard_.emplace(*ctx_);
  }
  void TearDown() override { guard_.reset(); }

  vk::Context* ctx_ = nullptr;
  std::optional<ValidationGuard> guard_;
};

}  // namespace vkphys::test

// Use at the top of a test body (or SetUp) that needs a GPU but not its context (a CLI run, a
// World of its own): fails where one is required (VKPHYS_REQUIRE_GPU), else skips, saying why.
#define VKPHYS_SKIP_WITHOUT_GPU()                              \
  do {                                                         \
    std::string vkphys_why_;                                   \
    if (!vkphys::test::gpu_context_or_null(&vkphys_why_)) {    \
      if (vkphys::test::gpu_required()) FAIL() << vkphys_why_; \
      GTEST_SKIP() << vkphys_why_;                             \
    }                                                          \
  } while (false)

// Use at the top of a GPU test body: binds `ctx` (vk::Context&) and a validation guard.
#define VKPHYS_GPU_TEST_CONTEXT(ctx)                                                  \
  std::string vkphys_why_;                                                            \
  vkphys::vk::Context* vkphys_ctx_ = vkphys::test::gpu_context_or_null(&vkphys_why_); \
  if (!vkphys_ctx_) {                                                                 \
    if (vkphys::test::gpu_required()) FAIL() << vkphys_why_;                          \
    GTEST_SKIP() << vkphys_why_;                                                      \
  }                                                                                   \
  vkphys::vk::Context& ctx = *vkphys_ctx_;                                            \
  vkphys::test::ValidationGuard vkphys_guard_(ctx)
