// The compare verdict on the shipped scenes (scenes/): the GPU backend passes against the CPU
// reference with compare's default options (fixed tolerances, or twice the 1-ulp rounding
// envelope of three seeds where a scene amplifies rounding past them), and a deliberately wrong
// GPU kernel (make_gpu_backend's fault: one stage computes something else) is caught on the same
// scene, with that stage named by the one-step stage comparison.
//
// Each scene runs for the steps its contacts need to appear (the bounce's particle lands after
// 108 steps); a fault is injected only into stages the scene exercises (particle contacts for
// the broadphase fault, manifold points for the narrowphase fault).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "host/io/scene_file.h"
#include "host/sim/compare.h"
#include "tests/gpu_env.h"

namespace vkphys::test {
namespace {

namespace fs = std::filesystem;

// Steps per shipped scene: enough for its contacts to form and its bodies to interact.
const std::map<std::string, std::uint32_t>& scene_steps() {
  static const std::map<std::string, std::uint32_t> steps{
      {"bounce", 150},
      {"chain_20", 60},
      {"circular_field", 200},
      {"cloth_drape", 60},
      {"flag", 60},
      {"funnel_20", 60},
      {"jelly_cube", 60},
      {"paddle", 40},
      {"particle_bed", 40},
      {"particles_box", 40},
      {"pendulum_grid_5x5", 60},
      {"pendulum_grid_5x5_push", 60},
      {"pendulum_wave_50", 60},
      {"pile_5k", 30},
      {"pyramid_20", 40},
      {"soft_body_listing8", 60},
      {"ragdoll", 60},
      {"ramp", 40},
      {"rope_box", 120},
      {"stack_5", 60},
      {"stack_intersecting", 60},
      {"tablecloth", 60},
      {"trampoline", 60},
      {"wall", 40},
  };
  return steps;
}

fs::path scenes_dir() {
  return fs::path(VKPHYS_SOURCE_DIR) / "scenes";
}

// The scene as `vkphys compare` runs it: the sequential scheme becomes the coloured one.
Scene load_for_compare(const std::string& name) {
  Scene s = io::load_scene((scenes_dir() / (name + ".json")).string());
  if (s.settings.solver.scheme == SolverScheme::sequential) {
    s.settings.solver.scheme = SolverScheme::colored;
  }
  return s;
}

// Which stages a run of `steps` steps exercises: the largest manifold point and particle
// contact counts of any step (CPU).
struct Exercised {
  std::uint32_t points = 0, particle_contacts = 0, rows = 0;
};
Exercised exercised(const Scene& s, std::uint32_t steps) {
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  cpu->load(s);
  Exercised e;
  for (std::uint32_t k = 0; k < steps; ++k) {
    cpu->step();
    e.points = std::max(e.points, cpu->stats().points);
    e.particle_contacts = std::max(e.particle_contacts, cpu->stats().particle_contacts);
    e.rows = std::max(e.rows, cpu->stats().rows);
  }
  return e;
}

TEST(CompareVerdict, EveryShippedSceneHasItsSteps) {
  std::vector<std::string> missing;
  for (const fs::directory_entry& f : fs::directory_iterator(scenes_dir())) {
    if (f.path().extension() != ".json") continue;
    if (!scene_steps().count(f.path().stem().string())) missing.push_back(f.path().stem());
  }
  EXPECT_TRUE(missing.empty()) << "add to scene_steps(): " << ::testing::PrintToString(missing);
}

class ShippedScene : public WithGpu<::testing::TestWithParam<std::string>> {
 protected:
  CompareResult compare(const Scene& s, std::uint32_t steps, std::optional<Stage> fault) {
    std::unique_ptr<Backend> gpu = make_gpu_backend(*ctx_, fault);
    std::unique_ptr<Backend> cpu = make_cpu_backend();
    gpu->load(s);
    cpu->load(s);
    return compare_backends(*gpu, *cpu, s, steps, CompareOptions{});
  }
};

TEST_P(ShippedScene, PassesAndAnInjectedFaultIsCaughtWithItsStage) {
  const std::string name = GetParam();
  const Scene s = load_for_compare(name);
  const std::uint32_t steps = scene_steps().at(name);
  const CompareResult clean = compare(s, steps, std::nullopt);
  EXPECT_TRUE(clean.passed()) << clean.verdict;
  EXPECT_EQ(clean.verdict.rfind("OK: ", 0), 0u) << clean.verdict;
  std::printf("%s, %u steps: %s\n", name.c_str(), steps, clean.verdict.c_str());

  const Exercised used = exercised(s, steps);
  std::vector<Stage> faults;
  if (used.particle_contacts > 0) faults.push_back(Stage::broadphase);
  if (used.points > 0) faults.push_back(Stage::narrowphase);
  faults.push_back(Stage::predict);
  // A scene without a single constraint row (seed 003's circular field: one particle in a field)
  // has no solve for a fault to break.
  if (used.rows > 0) faults.push_back(Stage::solve);
  for (Stage fault : faults) {
    SCOPED_TRACE(std::string("fault in ") + stage_name(fault));
    const CompareResult r = compare(s, steps, fault);
    EXPECT_FALSE(r.passed()) << r.verdict;
    EXPECT_EQ(r.verdict.rfind("FAIL", 0), 0u) << r.verdict;
    // The stage blamed, by the first failing one-step check and by the diagnosis of the
    // trajectory's divergence: at least one of them (a one-step check misses a stage that its
    // step does not exercise, such as the bounce's contact between checks), and each names the
    // fault's stage.
    EXPECT_TRUE(r.failed_checkpoint || (r.divergence && r.divergence->stage)) << r.verdict;
    if (r.failed_checkpoint) {
      EXPECT_EQ(first_past(r.checkpoints[*r.failed_checkpoint].stages)->stage, fault) << r.verdict;
    }
    if (r.divergence) {
      ASSERT_TRUE(r.divergence->stage.has_value()) << r.verdict;
      EXPECT_EQ(r.divergence->stage->stage, fault) << r.verdict;
    }
    EXPECT_NE(r.verdict.find(std::string(": ") + stage_name(fault) + " ("), std::string::npos)
        << r.verdict;
    std::printf("  fault in %s: %s\n", stage_name(fault), r.verdict.c_str());
  }
}

std::vector<std::string> shipped_scenes() {
  std::vector<std::string> names;
  for (const auto& [name, steps] : scene_steps()) names.push_back(name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(Scenes, ShippedScene, ::testing::ValuesIn(shipped_scenes()),
                         [](const ::testing::TestParamInfo<std::string>& p) { return p.param; });

// The fault hook refuses a stage that has no fault, naming it.
TEST(CompareVerdict, FaultInAStageWithoutOneIsRefused) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  try {
    make_gpu_backend(ctx, Stage::coloring);
    ADD_FAILURE() << "make_gpu_backend accepted a fault in coloring";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("\"coloring\" has no fault"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace vkphys::test
