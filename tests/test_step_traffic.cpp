// What `vkphys bench` reports beside the step's time: the dispatches and barriers recorded
// (host/vk/record_counts.h), the traffic model's bytes (host/sim/traffic_model.h) and the
// device's measured speed (host/gpu/device_speed.h) that turns them into floors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "host/gpu/device_speed.h"
#include "host/gpu/primitives.h"
#include "host/gpu/step_recording.h"
#include "host/sim/rigid_scenes.h"
#include "host/sim/scene_builders.h"
#include "host/sim/traffic_model.h"
#include "host/vk/buffer.h"
#include "host/vk/record_counts.h"
#include "tests/backends.h"
#include "tests/rigid_scene_helpers.h"

namespace vkphys {
namespace {

constexpr auto kSolve = static_cast<std::size_t>(Stage::solve);

// The counter sees what the primitives record: their own dispatch arithmetic (Scan::dispatches,
// RadixSort::dispatches, which the backend used to add up by hand) is what lands in the command
// buffer, and a scan records a barrier before, one after, and one between each of its dispatches.
TEST(RecordCounts, CountWhatThePrimitivesRecord) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  constexpr std::uint32_t kCapacity = 3 * 1024 * 1024 + 7;
  gpu::Scan scan(ctx, kCapacity);
  gpu::RadixSort sort(ctx, 40000);
  vk::Buffer data(ctx, std::uint64_t{kCapacity} * 4);
  vk::Buffer keys(ctx, 40000 * 4), values(ctx, 40000 * 4);
  ctx.run_once([&](VkCommandBuffer cb) {
    for (std::uint32_t count : {0u, 1u, 1024u, 1025u, 1024u * 1024u + 1u, kCapacity}) {
      vk::RecordCounts counted;
      scan.record(cb, data, count);
      EXPECT_EQ(counted.dispatches(), scan.dispatches(count)) << count;
      EXPECT_EQ(counted.barriers(), count ? scan.dispatches(count) + 1 : 2u) << count;
    }
    for (std::uint32_t count : {0u, 2u, 2049u, 39999u}) {
      for (std::uint32_t bits : {0u, 1u, 6u, 13u, 32u}) {
        vk::RecordCounts counted;
        sort.record(cb, keys, values, count, bits);
        EXPECT_EQ(counted.dispatches(), sort.dispatches(count, bits)) << count << " " << bits;
        EXPECT_GE(counted.barriers(), counted.dispatches()) << count << " " << bits;
      }
    }
  });
}

// An inner counter counts alone and hands the outer one back.
TEST(RecordCounts, NestedCountersCountApart) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  vk::RecordCounts outer;
  ctx.run_once([&](VkCommandBuffer cb) {
    vk::barrier(cb);
    {
      vk::RecordCounts inner;
      vk::barrier(cb);
      vk::barrier(cb);
      EXPECT_EQ(inner.barriers(), 2u);
    }
    vk::barrier(cb);
  });
  EXPECT_EQ(outer.barriers(), 2u);
  EXPECT_EQ(outer.dispatches(), 0u);
}

// The recorded step: every dispatch is followed by a barrier (ARCHITECTURE.md, "Barriers and how
// they are checked"), so a step records at least as many barriers as dispatches. Unfused, each
// iteration is at least two dispatches (the automatic rule fuses this pyramid's sweeps into one
// workgroup on a GPU: 23 and 20 dispatches on an H200, where this test once failed).
TEST(RecordCounts, TheWorldStepReportsItsDispatchesAndBarriers) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  for (SolverScheme scheme : {SolverScheme::colored, SolverScheme::jacobi}) {
    Scene s = pyramid_scene(4);
    s.settings.solver.scheme = scheme;
    std::unique_ptr<Backend> gpu = make_gpu_backend(ctx, std::nullopt, FusedPolicy::never);
    gpu->load(s);
    gpu->step();
    const StepStats& st = gpu->stats();
    EXPECT_GT(st.dispatches, 2u * s.settings.solver.iterations) << scheme_name(scheme);
    EXPECT_GE(st.barriers, st.dispatches) << scheme_name(scheme);
  }
}

// choose_colors (host/gpu/step_recording.h): from a recording of every colour (at load, after a
// redo) straight to the colours the step used; down only once no step of the last 60 used more.
TEST(ColorRecording, EveryColourToThoseUsedThenTheMostOfTheLastSixtySteps) {
  constexpr std::uint32_t kMax = 24;
  RecordChoices choices{.colors = kMax};
  ColorWindow window;
  EXPECT_TRUE(choose_colors(3, window, choices));
  EXPECT_EQ(choices.colors, 3u);
  // Two colours, but step 30 used three: none dropped while it is one of the last 60.
  for (std::uint32_t k = 1; k < 30 + ColorWindow::kSteps; ++k) {
    EXPECT_FALSE(choose_colors(k == 30 ? 3u : 2u, window, choices)) << k;
    EXPECT_EQ(choices.colors, 3u) << k;
  }
  EXPECT_TRUE(choose_colors(2, window, choices));  // steps 31..90 used two
  EXPECT_EQ(choices.colors, 2u);
  // A step that needs more is redone with every colour; the next records what it used.
  choices.colors = kMax;
  EXPECT_TRUE(choose_colors(5, window, choices));
  EXPECT_EQ(choices.colors, 5u);
  // A scene that uses every colour keeps them all.
  choices.colors = kMax;
  EXPECT_FALSE(choose_colors(kMax, window, choices));
  EXPECT_EQ(choices.colors, kMax);
}

// Issue 11's budget for the rigid step: 2 x (colours x iterations) + 30 dispatches, here at the
// peers' 10 iterations, unfused. 37 boxes apart on the ground (one colour: every manifold
// touches one dynamic body) and 37 stacks of two (two colours): 39 and 54 dispatches. Recording
// two spare colours, as the GPU did before choose_colors, cost 2 x 11 sweep dispatches and 2 x 4
// colouring passes a step and broke it (69 against 50 and 84 against 70).
TEST(RecordCounts, RigidStepWithinTheDispatchBudget) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  for (std::uint32_t levels : {1u, 2u}) {
    Scene s = test::empty_rigid_scene(-10.0f);  // 60 Hz, 10 iterations
    s.settings.solver.scheme = SolverScheme::colored;
    s.planes.push_back(Plane{});
    for (std::uint32_t i = 0; i < 37; ++i) {
      for (std::uint32_t k = 0; k < levels; ++k) {
        const glm::vec3 at(static_cast<float>(i % 7), 0.25f + 0.5f * static_cast<float>(k),
                           static_cast<float>(i / 7));
        s.bodies.push_back(test::make_box(at, glm::vec3(0.25f), 1.0f));
      }
    }
    std::unique_ptr<Backend> gpu = make_gpu_backend(ctx, std::nullopt, FusedPolicy::never);
    gpu->load(s);
    for (int k = 0; k < 3; ++k) gpu->step();
    const StepStats& st = gpu->stats();
    EXPECT_EQ(st.colors, levels);
    EXPECT_EQ(st.manifolds, 37u * levels);
    const std::uint32_t budget = 2 * st.colors * s.settings.solver.iterations + 30;
    std::printf("%u colours: %u dispatches a step (budget %u)\n", st.colors, st.dispatches, budget);
    EXPECT_LE(st.dispatches, budget) << levels;
  }
}

// One box resting on a plane: counts set by hand, so each term of the sweep can be checked
// against the layout (kernels/world_layout.h, kernels/contact_manifold.inl).
struct OneManifold {
  Scene scene;
  WorldArrays world;
  Capacities cap;
  StepStats st;
  OneManifold() {
    Body box;
    box.position = {0.0f, 0.5f, 0.0f};
    scene.bodies.push_back(box);
    scene.planes.push_back(Plane{});
    world = build_world(scene);
    cap = default_capacities(world);
    st.pairs = st.manifolds = 1;
    st.points = 4;
  }
  std::uint64_t solve(std::uint32_t iterations, std::uint32_t substeps = 1) {
    scene.settings.solver.iterations = iterations;
    scene.settings.solver.substeps = substeps;
    return step_traffic(st, scene, world, cap).bytes[kSolve];
  }
};

// One more iteration is one more sweep per substep. A manifold's sweep reads pair_info and
// pair_normal (2 vec4), reads and writes both bodies' (v, 1/m) and (w, 0) (8 vec4), and per point
// reads 13 prepared vec4 and reads and writes its impulses (15 vec4): 1,120 bytes for 4 points.
TEST(TrafficModel, AnIterationCostsOneSweepOfTheLayout) {
  OneManifold m;
  const std::uint64_t sweep = 2 * 16 + 8 * 16 + 4 * 15 * 16;
  EXPECT_EQ(m.solve(11) - m.solve(10), sweep);
  EXPECT_EQ(m.solve(11, 2) - m.solve(10, 2), 2 * sweep);
  // Each particle contact reads its bodies (a uvec2), normal, targets and impulses (3 vec4),
  // writes its impulses and reads and writes both particles' (v, 1/m): 136 bytes a sweep.
  const std::uint64_t before = m.solve(10);
  m.st.particle_contacts = 1;
  EXPECT_EQ(m.solve(10) - before, (1 + 10) * std::uint64_t{136});
}

// Jacobi moves more than the coloured scheme for the same counts (the split copies' velocity
// changes and the per-body averages), and the stages add up to the total.
TEST(TrafficModel, JacobiAddsTheAveragesAndStagesSumToTheTotal) {
  OneManifold m;
  m.scene.settings.solver.scheme = SolverScheme::colored;
  const StepTraffic colored = step_traffic(m.st, m.scene, m.world, m.cap);
  m.scene.settings.solver.scheme = SolverScheme::jacobi;
  const StepTraffic jacobi = step_traffic(m.st, m.scene, m.world, m.cap);
  EXPECT_GT(jacobi.bytes[kSolve], colored.bytes[kSolve]);
  std::uint64_t sum = 0;
  for (std::uint64_t b : jacobi.bytes) sum += b;
  EXPECT_EQ(jacobi.total(), sum);
  for (std::uint64_t b : colored.bytes) EXPECT_GT(b, 0u);
}

// A particle world's Jacobi sweep is the GPU's gather (shaders/world_jacobi_gather.glsl): one
// more iteration costs each body its range and (v, 1/m) in and out (40 bytes), each of a
// contact's two entries the entry, the contact's bodies, normal, targets and impulses and both
// particles' (v, 1/m) and ranges (108 bytes), and the owner's impulses out (16); no unit_dv.
// An odd count of sweeps after the warm start (which runs in place) adds the copy back.
TEST(TrafficModel, JacobiGatherCostsItsWalkPerSweep) {
  Scene scene;
  for (int k = 0; k < 3; ++k)
    scene.particles.add({0.1f * float(k), 0.0f, 0.0f}, {}, 0.05f, 1.0f, 0);
  scene.settings.solver.scheme = SolverScheme::jacobi;
  const WorldArrays world = build_world(scene);
  ASSERT_TRUE(jacobi_gathers(scene.settings.solver, world));
  const Capacities cap = default_capacities(world);
  StepStats st;
  st.particle_contacts = 2;
  auto solve = [&](std::uint32_t iterations) {
    scene.settings.solver.iterations = iterations;
    return step_traffic(st, scene, world, cap).bytes[kSolve];
  };
  const std::uint64_t sweep = 3 * 40 + 2 * 2 * 108 + 2 * 16;
  const std::uint64_t settle = 3 * 40 + 2 * 2 * 12 + 2 * 32;
  EXPECT_EQ(solve(12) - solve(10), 2 * sweep);       // neither copies back
  EXPECT_EQ(solve(11) - solve(10), sweep + settle);  // 11 turns: the copy back
}

// The backends fill the model from the step's own counts: a settled particle pile's solve moves
// at least its contacts' sweeps.
TEST(TrafficModel, BackendsReportTheModelOfTheirStep) {
  const Scene s = particle_box_scene(500, 3);
  std::vector<std::unique_ptr<Backend>> backends;
  backends.push_back(make_cpu_backend());
  if (vk::Context* ctx = test::gpu_context_or_null(nullptr)) {
    backends.push_back(make_gpu_backend(*ctx));
  } else if (test::gpu_required()) {
    FAIL() << "no GPU context";
  }
  for (const std::unique_ptr<Backend>& b : backends) {
    b->load(s);
    for (int k = 0; k < 20; ++k) b->step();
    const StepStats& st = b->stats();
    ASSERT_GT(st.particle_contacts, 0u);
    const std::uint64_t sweeps = 1 + s.settings.solver.iterations;
    EXPECT_GE(st.stage_bytes[kSolve], sweeps * 136 * std::uint64_t{st.particle_contacts});
    EXPECT_LT(st.stage_bytes[kSolve], 4 * sweeps * 136 * std::uint64_t{st.particle_contacts});
  }
}

// The device's floors are finite and positive (on lavapipe they are a CPU's memcpy and a CPU
// driver's dispatch cost, not GPU figures).
TEST(DeviceSpeed, MeasuresAPositiveBandwidthAndDispatchCost) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  if (!ctx.info().timestamps) GTEST_SKIP() << "the device has no timestamps";
  const DeviceSpeed s = gpu::measure_device_speed(ctx);
  EXPECT_TRUE(std::isfinite(s.copy_gb_per_s));
  EXPECT_GT(s.copy_gb_per_s, 0.05);
  EXPECT_TRUE(std::isfinite(s.kernel_gb_per_s));
  EXPECT_GT(s.kernel_gb_per_s, 0.05);
  EXPECT_EQ(s.gb_per_s(), std::max(s.copy_gb_per_s, s.kernel_gb_per_s));
  EXPECT_TRUE(std::isfinite(s.dispatch_us));
  EXPECT_GT(s.dispatch_us, 0.0);
  EXPECT_LT(s.dispatch_us, 10000.0);
}

}  // namespace
}  // namespace vkphys
