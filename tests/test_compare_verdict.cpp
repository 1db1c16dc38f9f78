// The compare verdict on the shipped scenes (scenes/): the GPU backend passes against the CPU
// reference with compare's default options (fixed tolerances, or twice the 1-ulp rounding
// envelope of three seeds where a scene amplifies rounding past them), and a deliberately wrong
// GPU kernel (make_gpu_backend's fault: one stage computes something else) is caught on the same
// scene, with that stage named by the one-step stage comparison.
//
// Each scene runs for the steps its contacts need to appear (the bounce's particle lands after
// 108 steps); a fault is injected only into stages the scene exercises (particle contacts for
// the broadphase fault, manifold points for the narrowphase fault). A fault's run stops a few
// steps past the first step that exercises its stage (fault_steps; for the solve's fault, the
// first step whose impulses move, see impulses_move): the clean run covers the scene's whole steps,
// and a wrong kernel shows within steps of its first use (at the first one-step check after it, or
// in the trajectory), so the rest of a long run only costs time (most of this file's, on lavapipe).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
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
      {"cloth_drape_64", 100},
      {"flag", 60},
      {"funnel_20", 60},
      {"jelly_cube", 60},
      {"jelly_pyramid", 60},
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
// none) with manifold points, particle contacts and constraint rows, and the first whose solve
// moves the impulses (CPU).
struct Exercised {
  std::uint32_t points = 0, particle_contacts = 0, rows = 0, impulses_move = 0;
};

// The step's impulses summed by kind (joints, contact points, particle contacts; absolute
// values).
glm::dvec3 impulse_sums(const StepTrace& t) {
  auto sum = [](const std::vector<glm::vec4>& v) {
    double s = 0.0;
    for (const glm::vec4& x : v)
      s += double(std::abs(x.x) + std::abs(x.y) + std::abs(x.z) + std::abs(x.w));
    return s;
  };
  return {sum(t.joint_lambda), sum(t.lambdas), sum(t.pcontact_lambda)};
}

// The solve's fault (make_gpu_backend: every even-numbered unit skipped, its warm start kept)
// shows only in a step whose impulses differ from the last step's, which the warm start carries:
// a hanging pendulum grid's from its first step, a falling cloth's springs (carrying nothing)
// only once it lands. Such a step is one whose impulse sum of some kind moves by more than a
// thousandth of itself (rounding moves it by far less; the compare's one-step check allows 1e-4
// of the scale). Not every such step shows it (the units that moved may be odd-numbered, or held
// by their warm start all the same), so where the short run passes the test runs the whole one.
bool impulses_move(const glm::dvec3& before, const glm::dvec3& after) {
  for (int k = 0; k < 3; ++k) {
    if (std::abs(after[k] - before[k]) > 1e-3 * std::max({1.0, before[k], after[k]})) return true;
  }
  return false;
}

Exercised exercised(const Scene& s, std::uint32_t steps) {
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  cpu->load(s);
  Exercised first;
  auto note = [](std::uint32_t& first_step, bool seen, std::uint32_t step) {
    if (first_step == 0 && seen) first_step = step;
  };
  glm::dvec3 last_sums(0.0);
  for (std::uint32_t k = 1; k <= steps; ++k) {
    StepTrace trace;
    cpu->step(&trace);
    const glm::dvec3 sums = impulse_sums(trace);
    note(first.points, cpu->stats().points > 0, k);
    note(first.particle_contacts, cpu->stats().particle_contacts > 0, k);
    note(first.rows, cpu->stats().rows > 0, k);
    note(first.impulses_move, impulses_move(last_sums, sums), k);
    last_sums = sums;
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
  // has no solve for a fault to break; the solve's fault shows from the first step whose
  // impulses move (impulses_move).
  if (first.rows > 0) {
    ASSERT_GT(first.impulses_move, 0u) << "rows whose impulses never move: the solve's fault "
                                          "cannot show in this scene's steps";
    faults.emplace_back(Stage::solve, fault_steps(first.impulses_move, steps));
  }
  for (auto [fault, fault_run] : faults) {
    SCOPED_TRACE(std::string("fault in ") + stage_name(fault));
    CompareResult r = compare(s, fault_run, fault);
    if (fault == Stage::solve && r.passed() && fault_run < steps) {
      // Impulses that moved but whose warm start held them all the same (the ramp's particles
      // settling, the pushed pendulum grid hanging until its push): the scene's whole run.
      fault_run = steps;
      r = compare(s, fault_run, fault);
    }
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
