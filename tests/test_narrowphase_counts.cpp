// The narrowphase's counts (points, manifolds, manifolds kept by the cache) are summed per
// subgroup on the GPU and added once per subgroup (shaders/world_narrowphase.comp). Held against
// the step's own lists: points is the sum of the stored pairs' point counts and manifolds the
// pairs with a point, every step of box rain (pair counts that are no multiple of the subgroup
// size, a partial last subgroup in every dispatch) and a settling pyramid (manifolds kept by the
// cache; they count at most the manifolds, and some).
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>

#include "host/sim/backend.h"
#include "host/sim/rigid_scenes.h"
#include "tests/gpu_env.h"

namespace vkphys::test {
namespace {

TEST(NarrowphaseCounts, SubgroupSumsAreTheListsCounts) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  struct Case {
    const char* name;
    Scene scene;
    std::uint32_t steps;
  };
  Case cases[] = {{"box_rain_60", box_rain_scene(60), 60}, {"pyramid_12", pyramid_scene(12), 40}};
  for (Case& c : cases) {
    SCOPED_TRACE(c.name);
    c.scene.settings.solver.scheme = SolverScheme::colored;
    std::unique_ptr<Backend> gpu = make_gpu_backend(ctx);
    gpu->load(c.scene);
    std::uint32_t partial = 0, kept = 0;
    for (std::uint32_t k = 0; k < c.steps; ++k) {
      StepTrace trace;
      gpu->step(&trace);
      std::uint32_t points = 0, manifolds = 0;
      for (const glm::uvec4& p : trace.pairs) {
        points += p.z;
        manifolds += p.z > 0 ? 1u : 0u;
      }
      const StepStats& g = gpu->stats();
      EXPECT_EQ(g.points, points) << "step " << k;
      EXPECT_EQ(g.manifolds, manifolds) << "step " << k;
      EXPECT_LE(g.reused_manifolds, g.manifolds) << "step " << k;
      partial += trace.pairs.size() % ctx.info().subgroup_size != 0 ? 1u : 0u;
      kept += g.reused_manifolds;
    }
    EXPECT_GT(partial, 0u) << "every step's pairs filled whole subgroups";
    if (std::string(c.name) == "pyramid_12") {
      EXPECT_GT(kept, 0u) << "the cache kept nothing";
    }
  }
}

}  // namespace
}  // namespace vkphys::test
