// GPU against CPU over 100 steps of the 64 x 64 drape (scenes/cloth_drape_64.json: 4,096
// vertices, 24,066 springs, onto a fixed ball and the ground), once for each way issue 9 solves a
// spring. The compliant rows are the scene's own, and tests/test_compare_verdict.cpp compares the
// scene as shipped for 100 steps, with its injected faults; here its springs become force springs
// integrated explicitly (symplectic Euler at 120 Hz with the substeps the network's stability
// bound asks for, include/vkphys/stability.h) and implicitly (backward Euler, its CG at the scene's
// tolerance).
//
// Each run is held as `vkphys compare` holds it: within the fixed tolerances or twice the
// rounding envelope of three CPU runs nudged by one ulp, since the landing on the ball amplifies
// rounding (the compliant drape's envelope reaches 0.21 m by step 100), and every stage within
// its limits at six one-step checks. On lavapipe, whose rounding is the CPU's, the two backends
// also agree to the bit at every step.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "host/io/scene_file.h"
#include "host/sim/compare.h"
#include "tests/gpu_env.h"
#include "vkphys/stability.h"

namespace vkphys::test {
namespace {

Scene drape_64() {
  return io::load_scene(
      (std::filesystem::path(VKPHYS_SOURCE_DIR) / "scenes" / "cloth_drape_64.json").string());
}

Scene with_force_springs(Scene s, Integrator integrator) {
  for (Spring& spring : s.springs) spring.model = SpringModel::force;
  s.settings.solver.integrator = integrator;
  return s;
}

void expect_gpu_matches_cpu(vk::Context& ctx, const Scene& s, const char* method) {
  std::unique_ptr<Backend> gpu = make_gpu_backend(ctx);
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  gpu->load(s);
  cpu->load(s);
  const CompareResult r = compare_backends(*gpu, *cpu, s, 100, CompareOptions{});
  ASSERT_EQ(r.steps.size(), 100u);
  EXPECT_TRUE(r.passed()) << r.verdict;
  if (on_lavapipe()) {
    for (std::size_t k = 0; k < r.steps.size(); ++k) {
      ASSERT_EQ(r.steps[k].max_pos, 0.0) << "step " << k + 1;
      ASSERT_EQ(r.steps[k].max_vel, 0.0) << "step " << k + 1;
    }
  }
  std::printf("64x64 drape, %s: step 100 max |dx| %.3g m, |dv| %.3g m/s; envelope %.3g m; %s\n",
              method, r.steps.back().max_pos, r.steps.back().max_vel, r.envelope_max.max_pos,
              r.verdict.c_str());
}

TEST(DrapeGpuVsCpu, ExplicitForceSpringsOver100Steps) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  // At 60 Hz the network's bound (1.57e-4 s) needs 106 substeps, past solver.substeps' cap of
  // 64, so this run steps at 120 Hz with the 53 substeps that bound asks for there; the cloth
  // meets the ball from about step 25.
  Scene s = with_force_springs(drape_64(), Integrator::symplectic);
  s.settings.time_step = 1.0f / 120.0f;
  const SpringStability bound = spring_stability(s);
  ASSERT_GT(bound.network_substeps_needed, 4u);
  s.settings.solver.substeps = static_cast<std::uint32_t>(bound.network_substeps_needed);
  ASSERT_TRUE(spring_stability(s).assured());
  std::printf("explicit: %u substeps (network bound %.3g s)\n", s.settings.solver.substeps,
              bound.network_bound);
  expect_gpu_matches_cpu(ctx, s, "explicit");
}

TEST(DrapeGpuVsCpu, ImplicitForceSpringsOver100Steps) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  expect_gpu_matches_cpu(ctx, with_force_springs(drape_64(), Integrator::implicit), "implicit");
}

}  // namespace
}  // namespace vkphys::test
