// What `vkphys bench` needs of the public API (include/vkphys/world.h, devices.h): a World that
// reads its state back only on demand ends bit-identical to one that reads it every step, Worlds
// sharing one SharedDevice step as Worlds with their own devices do, the fused solve gives the
// same bits as the unfused one, the springs' strain is the constraint errors' one, and misuse
// of the new options names the problem.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "host/api/world_internal.h"
#include "tests/api_helpers.h"
#include "tests/gpu_env.h"
#include "tests/rigid_scene_helpers.h"
#include "vkphys/vkphys.h"

namespace vkphys {
namespace {

using test::error_of;
using test::overforced;
using test::same_bits;
using test::scene_path;

// Skips the test (or fails it under VKPHYS_REQUIRE_GPU=1) without a Vulkan device.
#define SKIP_WITHOUT_GPU()      \
  VKPHYS_GPU_TEST_CONTEXT(ctx); \
  (void)ctx  // the Worlds open their own devices; this one only decides whether to run

// Steps `a` (every step read back) and `b` (on demand) one step per call, `n` calls, and
// checks that `b`'s spans show nothing new until a call reads the state, then `a`'s bits.
void expect_on_demand_matches(World& a, World& b, int n) {
  const std::span<const glm::vec4> x = b.state(Field::body_position);
  const glm::vec4 start = x[0];
  for (int k = 0; k < n; ++k) {
    a.step();
    b.step();
  }
  EXPECT_EQ(b.steps(), a.steps());
  EXPECT_EQ(x[0], start) << "on demand: step() reads nothing back";
  EXPECT_TRUE(same_bits(a, b));  // state() reads the last step
  EXPECT_NE(x[0], start) << "the read refreshed the span taken before the steps";
  EXPECT_EQ(a.metrics().energy(), b.metrics().energy());
  EXPECT_EQ(a.contacts().points, b.contacts().points);
}

TEST(ApiReadBack, OnDemandEndsWithTheSameBitsOnTheCpu) {
  const std::string path = scene_path("stack_5.json");
  World a = World::from_file(path);
  World b = World::from_file(path, {.read_back = ReadBack::on_demand});
  expect_on_demand_matches(a, b, 40);
}

TEST(ApiReadBack, OnDemandEndsWithTheSameBitsOnTheGpu) {
  SKIP_WITHOUT_GPU();
  const std::string path = scene_path("stack_5.json");
  World a = World::from_file(path, {.backend = "gpu"});
  World b = World::from_file(path, {.backend = "gpu", .read_back = ReadBack::on_demand});
  expect_on_demand_matches(a, b, 40);
}

// A GPU World that reads every step (the default) copies its state out inside the step's own
// submission (Backend::read_after_next_step): a step and its read are one submit and one wait,
// where a read on demand submits and waits a second time. Both read the same bits, step by
// step, on the rope with a box (every state array, rigid and particle).
TEST(ApiReadBack, EveryStepReadRidesInTheStepsSubmission) {
  SKIP_WITHOUT_GPU();
  const std::string path = scene_path("rope_box.json");
  World every = World::from_file(path, {.backend = "gpu"});
  World lazy = World::from_file(path, {.backend = "gpu", .read_back = ReadBack::on_demand});
  const vk::Context& every_ctx = *WorldInternals::gpu_context(every);
  const vk::Context& lazy_ctx = *WorldInternals::gpu_context(lazy);
  int counted = 0;
  for (int k = 0; k < 30; ++k) {
    const std::uint64_t e0 = every_ctx.submits(), l0 = lazy_ctx.submits();
    every.step();
    lazy.step();
    (void)lazy.state(Field::body_position);
    // A step redone (lists grown, colours or solver iterations added) submits again.
    auto redone = [](const StepStatistics& s) {
      return s.regrows + s.color_redos + s.ode_redos + s.cg_redos > 0;
    };
    if (redone(every.statistics()) || redone(lazy.statistics())) continue;
    ++counted;
    EXPECT_EQ(every_ctx.submits() - e0, 1u) << "step " << k + 1;
    EXPECT_EQ(lazy_ctx.submits() - l0, 2u) << "step " << k + 1;
    ASSERT_TRUE(same_bits(every, lazy)) << "step " << k + 1;
  }
  EXPECT_GE(counted, 20) << "too many steps were redone to count their submits";
  EXPECT_GT(every.particle_count(), 0u);
  EXPECT_GT(every.body_count(), 0u);
}

// Every step: step() throws, naming the stage. On demand: the step's own check throws, naming
// the same stage and body (kernels/world_bodies.inl, flag_nonfinite), and the reads show the
// last finite state (the start).
TEST(ApiReadBack, OnDemandStepsStillStopAtANaN) {
  World every(overforced());
  EXPECT_EQ(error_of([&] { every.step(); }),
            "step 1: the predict stage made body 1 (sphere) NaN or infinite");
  World lazy(overforced(), {.read_back = ReadBack::on_demand});
  try {
    lazy.step();
    ADD_FAILURE() << "no NonFiniteError";
  } catch (const NonFiniteError& e) {
    EXPECT_EQ(e.step, 1u);
    EXPECT_EQ(e.where, "the predict stage made body 1 (sphere) NaN or infinite");
  }
  EXPECT_EQ(lazy.steps(), 0u);
  EXPECT_EQ(lazy.state(Field::body_velocity)[1], glm::vec4(0.0f));  // the start, held
}

// A 1 kg sphere under 2.9e38 N gains a h = 4.83e36 m/s a step at 60 Hz: its speed passes the
// largest float, 3.4028e38 m/s, in step ceil(3.4028e38 / 4.83e36) = 71. Steps taken together
// (World::step(n): pipelined on the GPU, with no state read between them) stop at that step on
// both backends, as steps taken one at a time with every stage checked do; the GPU World then
// holds step 70's state, bit for bit that of a World stepped 70 times.
TEST(ApiReadBack, StepsTakenTogetherStopAtTheStepThatMadeTheNaN) {
  Scene runaway = overforced();
  runaway.bodies[1].mass = 1.0f;
  runaway.bodies[1].force.y = 2.9e38f;
  const double gain = 2.9e38 * static_cast<double>(runaway.settings.time_step);
  const auto expected = static_cast<std::uint64_t>(
      std::ceil(static_cast<double>(std::numeric_limits<float>::max()) / gain));
  ASSERT_EQ(expected, 71u);
  auto stop_of = [&](World& w, std::uint32_t n) -> NonFiniteError {
    try {
      w.step(n);
    } catch (const NonFiniteError& e) {
      return e;
    }
    ADD_FAILURE() << w.backend_name() << ": no NonFiniteError";
    return NonFiniteError(0, "");
  };
  World one_at_a_time(runaway);
  std::uint64_t k = 0;
  for (; k < 100; ++k) {
    try {
      one_at_a_time.step();
    } catch (const NonFiniteError& e) {
      EXPECT_EQ(e.where, "the predict stage made body 1 (sphere) NaN or infinite");
      break;
    }
  }
  EXPECT_EQ(k + 1, expected);
  World cpu(runaway, {.read_back = ReadBack::on_demand});
  const NonFiniteError c = stop_of(cpu, 100);
  EXPECT_EQ(c.step, expected);
  EXPECT_EQ(c.where, "the predict stage made body 1 (sphere) NaN or infinite");
  SKIP_WITHOUT_GPU();
  World gpu(runaway, {.backend = "gpu"});
  const NonFiniteError g = stop_of(gpu, 100);
  EXPECT_EQ(g.step, expected);
  EXPECT_EQ(g.where, "the predict stage made body 1 (sphere) NaN or infinite");
  EXPECT_EQ(gpu.steps(), expected - 1);
  World before(runaway, {.backend = "gpu"});
  before.step(static_cast<std::uint32_t>(expected - 1));
  EXPECT_TRUE(same_bits(gpu, before));
  EXPECT_GT(gpu.state(Field::body_velocity)[1].y, 3.0e38f);
}

// Two Worlds on one SharedDevice, stepped in turns, end with the bits of the same scenes on
// Worlds that open their own devices.
TEST(ApiSharedDevice, WorldsOnOneDeviceStepAsSeparateOnes) {
  SKIP_WITHOUT_GPU();
  const SharedDevice gpu = SharedDevice::open("", true);
  const std::string boxes = scene_path("stack_5.json"), particles = scene_path("particle_bed.json");
  const WorldOptions shared{.backend = "gpu", .shared_device = gpu};
  World a = World::from_file(boxes, shared), b = World::from_file(particles, shared);
  for (int k = 0; k < 15; ++k) {
    a.step();
    b.step(2);
  }
  World own_a = World::from_file(boxes, {.backend = "gpu"});
  World own_b = World::from_file(particles, {.backend = "gpu"});
  own_a.step(15);
  own_b.step(30);
  EXPECT_TRUE(same_bits(a, own_a));
  EXPECT_TRUE(same_bits(b, own_b));
  EXPECT_EQ(a.backend_name(), "gpu (" + gpu.info().name + ")");
  EXPECT_EQ(a.device_type(), gpu.info().type);
  EXPECT_EQ(gpu.validation_errors(), 0u);
  // The device stays open while a World holds it, after every handle is gone.
  World held = [&] {
    const SharedDevice only = SharedDevice::open();
    return World::from_file(boxes, {.backend = "gpu", .shared_device = only});
  }();
  held.step(15);
  EXPECT_TRUE(same_bits(held, own_a));
}

// The fused solve (one dispatch per solve) and the unfused one give the same bits.
TEST(ApiSharedDevice, FusedSolveGivesTheSameBits) {
  SKIP_WITHOUT_GPU();
  const SharedDevice gpu = SharedDevice::open();
  const Scene pyramid = builtin_scene("pyramid", 5);
  World fused(pyramid, {.backend = "gpu", .fused = FusedSolve::always, .shared_device = gpu});
  World split(pyramid, {.backend = "gpu", .fused = FusedSolve::never, .shared_device = gpu});
  fused.step(30);
  split.step(30);
  EXPECT_TRUE(same_bits(fused, split));
  EXPECT_LT(fused.statistics().dispatches, split.statistics().dispatches);
}

TEST(ApiSharedDevice, MisuseNamesTheProblem) {
  EXPECT_EQ(error_of([] { (void)SharedDevice().info(); }),
            "SharedDevice: none is open (make one with SharedDevice::open)");
  const Scene s = builtin_scene("stack", 2);
  EXPECT_EQ(error_of([&] { World(s, {.fused = static_cast<FusedSolve>(7)}); }),
            "WorldOptions::fused = 7: expected automatic, never or always");
  EXPECT_EQ(error_of([&] { World(s, {.read_back = static_cast<ReadBack>(5)}); }),
            "WorldOptions::read_back = 5: expected every_step or on_demand");
  SKIP_WITHOUT_GPU();
  const SharedDevice gpu = SharedDevice::open();
  EXPECT_EQ(error_of([&] { World(s, {.backend = "gpu", .device = "0", .shared_device = gpu}); }),
            "WorldOptions: device \"0\", validation false and sync_validation false with a "
            "shared_device: set them on SharedDevice::open instead");
  EXPECT_EQ(error_of([] { (void)SharedDevice::open("99"); }).find("--device 99: only "), 0u);
}

// World::spring_strain is the constraint errors' spring strain, and a hanging cloth starts at
// its rest lengths.
TEST(ApiResults, SpringStrainIsTheConstraintErrorsOne) {
  const Scene cloth = builtin_scene("cloth-hang", 8);
  World w(cloth);
  const SpringStrain rest = w.spring_strain();
  EXPECT_EQ(rest.springs, cloth.springs.size());
  EXPECT_NEAR(rest.max_ratio, 1.0, 1e-6);
  EXPECT_NEAR(rest.mean, 0.0, 1e-6);
  w.step(20);
  const SpringStrain s = w.spring_strain();
  const ConstraintErrors e = w.constraint_errors();
  EXPECT_GT(s.max_ratio, 1.0);  // the pinned cloth hangs: its springs stretch
  EXPECT_DOUBLE_EQ(s.max_ratio - 1.0, e.max_spring_strain);
  EXPECT_EQ(s.mean, e.mean_spring_strain);
}

// The stage names are StepStatistics::stages' names, in order, before any World.
TEST(ApiResults, StageNamesAreTheStatisticsOnes) {
  World w(builtin_scene("stack", 2));
  w.step();
  const std::vector<const char*> names = step_stage_names();
  const StepStatistics st = w.statistics();
  ASSERT_EQ(names.size(), st.stages.size());
  for (std::size_t k = 0; k < names.size(); ++k) EXPECT_STREQ(names[k], st.stages[k].name);
  EXPECT_STREQ(names.front(), "setup");
  EXPECT_STREQ(names.back(), "integrate");
}

}  // namespace
}  // namespace vkphys
