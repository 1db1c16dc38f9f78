// StepStats::stage_ms over a steps() call (host/sim/backend.h, StageTimeMean): the mean of the
// call's steps' own stage times, each taken as its step ends. The GPU backend's steps run two at
// a time through one query pool, so each step's end copies its timestamps into its in-flight
// slot (host/gpu/step_recording.cpp); before, a batch reported its last step's times.
// after_each sees the running mean after every step, from which each step's own times follow:
// t_k = k m_k - (k - 1) m_(k-1). They must all be times (not negative), every step must have been
// timed, and the device time of the call cannot exceed the call's wall time (a step's times
// counted twice, or another step's, would).
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include "host/sim/backend.h"
#include "host/sim/rigid_scenes.h"
#include "tests/gpu_env.h"

namespace vkphys {
namespace {

using Times = std::array<double, kStageCount>;

void expect_call_means_each_steps_times(Backend& b, std::uint32_t n, bool timed) {
  std::vector<Times> means;
  const std::function<void()> each = [&] { means.push_back(b.stats().stage_ms); };
  const auto t0 = std::chrono::steady_clock::now();
  b.steps(n, nullptr, &each);
  const double wall =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_EQ(means.size(), n);
  double total = 0.0;
  for (std::uint32_t k = 0; k < n; ++k) {
    double step = 0.0;
    for (std::size_t s = 0; s < kStageCount; ++s) {
      const double before = k > 0 ? double(k) * means[k - 1][s] : 0.0;
      const double own = double(k + 1) * means[k][s] - before;
      EXPECT_GE(own, -1e-9 * (1.0 + before)) << b.name() << " step " << k << " stage " << s;
      step += own;
    }
    if (timed) {
      EXPECT_GT(step, 0.0) << b.name() << " step " << k << " was not timed";
    }
    total += step;
  }
  EXPECT_LE(total, wall) << b.name() << ": the steps' stage times pass the call's wall time";
  for (std::size_t s = 0; s < kStageCount; ++s) EXPECT_EQ(b.stats().stage_ms[s], means.back()[s]);
}

Scene small_pyramid() {
  Scene s = pyramid_scene(8);
  s.settings.solver.scheme = SolverScheme::colored;
  return s;
}

TEST(StageTimes, CpuCallReportsTheMeanOfItsSteps) {
  auto cpu = make_cpu_backend();
  cpu->load(small_pyramid());
  expect_call_means_each_steps_times(*cpu, 7, true);
  expect_call_means_each_steps_times(*cpu, 3, true);  // a new call, a new mean
}

TEST(StageTimes, GpuCallReportsTheMeanOfItsSteps) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  auto gpu = make_gpu_backend(ctx);
  gpu->load(small_pyramid());
  const bool timed = ctx.info().timestamps;
  expect_call_means_each_steps_times(*gpu, 7, timed);
  expect_call_means_each_steps_times(*gpu, 3, timed);
}

}  // namespace
}  // namespace vkphys
