// The compare verdict on the shipped scenes (scenes/): the GPU backend passes against the CPU
// reference with compare's default options (fixed tolerances, or twice the 1-ulp rounding
// envelope of three seeds where a scene amplifies rounding past them), and a deliberately wrong
// GPU kernel (make_gpu_backend's fault: one stage computes something else) is caught on the same
// scene, with that stage named by the one-step stage comparison.
//
// Each scene runs for the steps its contacts need to appear (the bounce's particle lands after
// 108 steps); a fault is injected only into stages the scene exercises (particle contacts for
// the broadphase fault, manifold points for the narrowphase fault). A fault's run stops a few
// steps past the first step that exercises its stage (fault_steps; the solve's fault keeps the
// scene's steps, see the test): the clean run covers the scene's whole steps, and a wrong kernel
// shows within steps of its first use (at the first one-step check after it, or in the
// trajectory), so the rest of a long run only costs time (most of this file's, on lavapipe).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
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

// Which stages a run of `steps` steps exercises, and from when: the first step (1-based; 0 if
// none) with manifold points, particle contacts and constraint rows (CPU).
struct Exercised {
  std::uint32_t points = 0, particle_contacts = 0, rows = 0;
};
Exercised exercised(const Scene& s, std::uint32_t steps) {
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  cpu->load(s);
  Exercised first;
  auto note = [](std::uint32_t& first_step, std::uint32_t count, std::uint32_t step) {
    if (first_step == 0 && count > 0) first_step = step;
  };
  for (std::uint32_t k = 1; k <= steps; ++k) {
    cpu->step();
    note(first.points, cpu->stats().points, k);
    note(first.particle_contacts, cpu->stats().particle_contacts, k);
    note(first.rows, cpu->stats().rows, k);
  }
  return first;
}

// The steps of a fault's run whose stage is first exercised at step `first`: twice that plus
// six, at most the scene's. The one-step checks fall at sixths of the run, so at least three
// of them start at or after step `first`, and the trajectory has as many steps again to part.
std::uint32_t fault_steps(std::uint32_t first, std::uint32_t steps) {
  return std::min(steps, 2 * first + 6);
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

  // Each fault with the steps of its run (predict: every step exercises it).
  const Exercised first = exercised(s, steps);
  std::vector<std::pair<Stage, std::uint32_t>> faults;
  if (first.particle_contacts > 0) {
    faults.emplace_back(Stage::broadphase, fault_steps(first.particle_contacts, steps));
  }
  if (first.points > 0) faults.emplace_back(Stage::narrowphase, fault_steps(first.points, steps));
  faults.emplace_back(Stage::predict, fault_steps(1, steps));
  // A scene without a single constraint row (seed 003's circular field: one particle in a field)
  // has no solve for a fault to break. The solve's fault (units skipped, warm starts kept)
  // shows only once the impulses change from step to step, which no count here tells: a pendulum
  // grid hangs still until its push, a falling cloth's springs carry nothing until it lands. Its
  // run keeps the scene's steps.
  if (first.rows > 0) faults.emplace_back(Stage::solve, steps);
  for (const auto& [fault, fault_run] : faults) {
    SCOPED_TRACE(std::string("fault in ") + stage_name(fault));
    const CompareResult r = compare(s, fault_run, fault);
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
    std::printf("  fault in %s, %u steps: %s\n", stage_name(fault), fault_run, r.verdict.c_str());
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
