// The implicit integrator and the GPU backend: the shaders compile the same CG passes
// (kernels/world_implicit.inl), but the GPU backend refuses the method until its runs match the
// CPU's (ARCHITECTURE.md, "Implicit integrator": measured 1.4e-4 m apart after 100 steps of an
// 8 x 8 cloth on lavapipe, and lavapipe's memory grew with every recorded CG pass). The refusal
// is one line naming the setting.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "tests/backends.h"
#include "tests/integrator_scenes.h"

namespace vkphys::test {
namespace {

class ImplicitOnGpu : public WithGpu<> {};

TEST_F(ImplicitOnGpu, IsRefusedNamingTheSetting) {
  const Scene s = oscillator_scene(Integrator::implicit, 1.0f / 60.0f, 50.0f, 0.5f, 0.1f);
  std::string message = "no error";
  try {
    make_gpu_backend(*ctx_)->load(s);
  } catch (const std::invalid_argument& e) {
    message = e.what();
  }
  EXPECT_EQ(message.rfind("solver.integrator = \"implicit\" runs on the CPU backend only", 0), 0u)
      << message;
  make_cpu_backend()->load(s);  // the CPU backend takes it
}

}  // namespace
}  // namespace vkphys::test
