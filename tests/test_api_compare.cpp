// The public API's backend comparison and device list (include/vkphys/compare.h, devices.h):
// a comparison of a scene the GPU runs correctly passes within its limits, every step recorded;
// a scheme the GPU does not run is refused; the devices are listed in WorldOptions::device's
// order.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>

#include "tests/api_helpers.h"
#include "tests/gpu_env.h"
#include "tests/run_outputs.h"
#include "vkphys/vkphys.h"

namespace vkphys {
namespace {

TEST(ApiCompare, TheGpuFollowsTheCpuWithinItsLimits) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  // The comparison opens its own context, with the validation layer as this one (the process's
  // Vulkan device functions are the last opened device's, vkphys/vkphys.h); this one only
  // decides whether to run.
  (void)ctx;
  const Scene scene = read_scene_file(test::scene_path("stack_5.json"));
  std::uint32_t called = 0;
  const BackendComparison c(scene, 20, {.seeds = 1, .checks = 2, .validation = true},
                            [&](std::uint32_t k) { called = k; });
  EXPECT_EQ(called, 20u);
  ASSERT_EQ(c.steps().size(), 20u);
  ASSERT_EQ(c.envelope().size(), 20u);
  EXPECT_TRUE(c.passed()) << c.verdict();
  EXPECT_FALSE(c.verdict().empty());
  EXPECT_GE(c.allowed().position, Tolerance{}.position);
  for (const StepError& e : c.steps()) {
    EXPECT_LE(e.max_pos, c.allowed().position);
    EXPECT_LE(e.max_vel, c.allowed().velocity);
  }
  EXPECT_EQ(c.gpu_name().rfind("gpu (", 0), 0u);
  EXPECT_EQ(c.cpu_name(), "cpu");
  const std::filesystem::path report =
      std::filesystem::path(testing::TempDir()) / "vkphys_api_compare" / "stack_5.html";
  c.write_report(report, "stack_5.json");
  const std::string html = test::read_file(report);
  EXPECT_NE(html.find("<html"), std::string::npos);
  EXPECT_NE(html.find("stack_5.json"), std::string::npos);
}

TEST(ApiCompare, ASequentialSceneIsRefused) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  (void)ctx;
  Scene scene = read_scene_file(test::scene_path("stack_5.json"));
  scene.settings.solver.scheme = SolverScheme::sequential;
  const std::string what = test::error_of(
      [&] { (void)BackendComparison(scene, 5, {.seeds = 0, .checks = 0, .validation = true}); });
  EXPECT_NE(what.find("sequential"), std::string::npos) << what;
  EXPECT_EQ(what.find('\n'), std::string::npos);
}

TEST(ApiCompare, DevicesAreListedInTheirIndexOrder) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  (void)ctx;
  const std::vector<GpuDevice> devices = gpu_devices();
  ASSERT_FALSE(devices.empty());
  for (std::size_t i = 0; i < devices.size(); ++i) {
    EXPECT_EQ(devices[i].index, i);
    EXPECT_FALSE(devices[i].name.empty());
    EXPECT_GE(devices[i].api_major, 1u);
    const std::string t = devices[i].type;
    EXPECT_TRUE(t == "discrete" || t == "integrated" || t == "virtual" || t == "cpu" ||
                t == "other")
        << t;
  }
  // The device a GPU World picks by index is the listed one.
  Scene one;
  add_particle(one, glm::vec3(0.0f, 1.0f, 0.0f), 0.1f, 1.0f);
  World w(one, {.backend = "gpu", .device = "0", .validation = true});
  EXPECT_EQ(w.backend_name(), "gpu (" + devices[0].name + ")");
}

}  // namespace
}  // namespace vkphys
