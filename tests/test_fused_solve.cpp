// The GPU backend's one-workgroup path for small scenes (shaders/world_fused.comp: colouring
// passes and every solver sweep in one dispatch each) against its per-colour dispatches: the
// same state, bit for bit, after 40 steps of scenes that hold every unit kind (joints, contact
// manifolds, particle contacts, springs) and every kind of sweep (warm start, solve, the split
// impulse's velocity solve, Newton impact passes, relax sweeps), on both GPU schemes; and the
// fused path records far fewer dispatches.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "host/sim/backend.h"
#include "host/sim/mixed_scenes.h"
#include "host/sim/rigid_scenes.h"
#include "host/sim/world_setup.h"
#include "tests/gpu_env.h"
#include "tests/rigid_scene_helpers.h"
#include "tests/same_state.h"
#include "vkphys/cloth.h"

namespace vkphys::test {
namespace {

struct Named {
  std::string name;
  Scene scene;
};

std::vector<Named> small_scenes() {
  std::vector<Named> out;
  Scene pyramid = pyramid_scene(10);
  pyramid.settings.solver.split_impulse = true;
  out.push_back({"pyramid_10_split_impulse", pyramid});
  // Substeps without joints: the later substeps' warm start carried (coloured), no sweep.
  Scene substepped = pyramid_scene(8);
  substepped.settings.solver.substeps = 4;
  substepped.settings.solver.iterations = 2;
  out.push_back({"pyramid_8_substeps", substepped});
  Scene ragdoll = ragdoll_scene();
  ragdoll.settings.solver.restitution = RestitutionModel::newton;
  ragdoll.settings.solver.impact_passes = 2;
  ragdoll.settings.solver.relax_iterations = 2;
  ragdoll.settings.solver.substeps = 2;
  out.push_back({"ragdoll_newton_relax_substeps", ragdoll});
  out.push_back({"particle_bed", particle_bed_scene(2)});
  Scene drape = empty_rigid_scene(-10.0f);
  drape.bodies.push_back(make_sphere({0.0f, 0.0f, 0.0f}, 0.5f, 0.0f));
  ClothSpec c;
  c.origin = {-0.75f, 0.7f, -0.75f};
  c.u = {1.5f, 0.0f, 0.0f};
  c.v = {0.0f, 0.0f, 1.5f};
  c.nu = 13;
  c.nv = 11;
  add_cloth(drape, c);
  out.push_back({"cloth_on_sphere", drape});
  return out;
}

class FusedSolve : public WithGpu<::testing::TestWithParam<SolverScheme>> {};

TEST_P(FusedSolve, SameBitsAsPerColourDispatchesWithFewerDispatches) {
  for (Named& n : small_scenes()) {
    SCOPED_TRACE(n.name);
    n.scene.settings.solver.scheme = GetParam();
    std::unique_ptr<Backend> fused = make_gpu_backend(*ctx_, std::nullopt, FusedPolicy::always);
    std::unique_ptr<Backend> split = make_gpu_backend(*ctx_, std::nullopt, FusedPolicy::never);
    fused->load(n.scene);
    split->load(n.scene);
    for (int s = 0; s < 40; ++s) {
      fused->step();
      split->step();
    }
    WorldState a, b;
    fused->read(a);
    split->read(b);
    EXPECT_TRUE(same_state(a, b));
    const StepStats& fs = fused->stats();
    const StepStats& ss = split->stats();
    std::printf("%s, %s: %u dispatches per step fused, %u per colour (%u colours)\n",
                n.name.c_str(), scheme_name(GetParam()), fs.dispatches, ss.dispatches, ss.colors);
    // Every sweep was at least one dispatch (Jacobi: three); fused, a solve phase is one. A
    // carried warm start is no sweep (kernels/world_units.inl).
    const SolverSettings& sv = n.scene.settings.solver;
    const std::uint32_t carried =
        carries_warm_start(sv, build_world(n.scene)) ? sv.substeps - 1 : 0u;
    const std::uint32_t sweeps = sv.substeps * (sv.iterations + 1 + sv.relax_iterations) - carried;
    EXPECT_LE(fs.dispatches + sweeps, ss.dispatches);
  }
}

INSTANTIATE_TEST_SUITE_P(Schemes, FusedSolve,
                         ::testing::Values(SolverScheme::colored, SolverScheme::jacobi),
                         [](const ::testing::TestParamInfo<SolverScheme>& i) {
                           return std::string(scheme_name(i.param));
                         });

}  // namespace
}  // namespace vkphys::test
