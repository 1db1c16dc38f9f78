// Which worlds can have particle contacts at all (WorldArrays::particle_pairs and
// particle_contacts, host/sim/world_setup.cpp), and what leaving the grid out where none can
// form does: the step records fewer dispatches and ends in the same bits.
#include <gtest/gtest.h>

#include <memory>
#include <optional>

#include "host/sim/mixed_scenes.h"
#include "host/sim/world_setup.h"
#include "tests/backends.h"
#include "tests/gpu_env.h"
#include "tests/rigid_scene_helpers.h"
#include "tests/same_state.h"
#include "vkphys/cloth.h"

namespace vkphys::test {
namespace {

// A 6 x 5 cloth of one group (no self-collision), pinned at one corner, over a static ball.
Scene lone_cloth() {
  Scene s = empty_rigid_scene(-9.81f);
  s.bodies.push_back(make_sphere({0.0f, 0.0f, 0.0f}, 0.3f, 0.0f));
  ClothSpec c;
  c.origin = {-0.5f, 0.5f, -0.5f};
  c.nu = 6;
  c.nv = 5;
  c.pins = {{0, 0}};
  add_cloth(s, c);
  return s;
}

TEST(ParticleContactsPossible, ALoneClothOverABallHasNone) {
  const WorldArrays w = build_world(lone_cloth());
  EXPECT_FALSE(w.particle_pairs);
  EXPECT_FALSE(w.particle_contacts);
}

TEST(ParticleContactsPossible, APlaneGivesContactsButNoPairs) {
  Scene s = lone_cloth();
  s.planes.push_back(Plane{});
  const WorldArrays w = build_world(s);
  EXPECT_FALSE(w.particle_pairs);
  EXPECT_TRUE(w.particle_contacts);
}

TEST(ParticleContactsPossible, ASecondClothALooseParticleOrAThicknessGivePairs) {
  Scene two = lone_cloth();
  ClothSpec c;
  c.origin = {-0.5f, 0.8f, -0.5f};
  c.nu = c.nv = 3;
  add_cloth(two, c);
  EXPECT_TRUE(build_world(two).particle_pairs);
  EXPECT_TRUE(build_world(two).particle_contacts);

  Scene loose = lone_cloth();
  loose.particles.add({0.0f, 2.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, 0.05f, 1.0f, 0);
  EXPECT_TRUE(build_world(loose).particle_contacts);

  Scene thick;
  ClothSpec t;
  t.nu = t.nv = 4;
  t.thickness = 0.2f;  // above the vertex diameter (2 x 0.25 x 1/3 m), below sqrt(5) spacings
  add_cloth(thick, t);
  EXPECT_TRUE(build_world(thick).particle_pairs);
  EXPECT_TRUE(build_world(thick).particle_contacts);
}

// Static particles never touch each other or a plane: a pair of static bodies is refused.
TEST(ParticleContactsPossible, StaticParticlesOverAPlaneHaveNone) {
  Scene s;
  s.planes.push_back(Plane{});
  s.particles.add({0.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, 0.05f, 0.0f, 0);
  s.particles.add({0.05f, 1.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, 0.05f, 0.0f, 0);
  const WorldArrays w = build_world(s);
  EXPECT_TRUE(w.particle_pairs);
  EXPECT_FALSE(w.particle_contacts);
}

// The trampoline (a lone cloth, a dynamic ball, no plane) with and without a static particle
// 1 km away, which nothing reaches but which the cloth's vertices may meet (group 0), so the
// grid and the particle contacts' lists are recorded only with it. It is appended after the
// cloth, so every other body keeps its index (a plane would not do: planes come before the
// particles and shift them), and both runs end with the same bits for the bodies they share, on
// each backend.
class ParticleGridLeftOut : public WithGpu<> {};

WorldState first_bodies(WorldState st, std::size_t particles) {
  st.particles.pos_radius.resize(particles);
  st.particles.vel_invmass.resize(particles);
  return st;
}

TEST_F(ParticleGridLeftOut, FewerDispatchesAndTheSameBits) {
  const Scene without = trampoline_scene();
  ASSERT_FALSE(build_world(without).particle_contacts);
  Scene with = without;
  with.particles.add({1000.0f, 1.0f, 0.0f}, {0.0f, 0.0f, 0.0f}, 0.05f, 0.0f, 0);
  ASSERT_TRUE(build_world(with).particle_contacts);
  const std::size_t shared = without.particles.size();
  constexpr int kSteps = 18;  // the ball meets the cloth at about step 15
  auto run = [&](std::unique_ptr<Backend> b, const Scene& s, std::uint32_t* dispatches) {
    b->load(s);
    for (int k = 0; k < kSteps; ++k) b->step();
    if (dispatches) *dispatches = b->stats().dispatches;
    WorldState st;
    b->read(st);
    return first_bodies(std::move(st), shared);
  };
  std::uint32_t d_without = 0, d_with = 0;
  const WorldState gpu_without =
      run(make_gpu_backend(*ctx_, std::nullopt, FusedPolicy::never), without, &d_without);
  const WorldState gpu_with =
      run(make_gpu_backend(*ctx_, std::nullopt, FusedPolicy::never), with, &d_with);
  const WorldState cpu_without = run(make_cpu_backend(), without, nullptr);
  const WorldState cpu_with = run(make_cpu_backend(), with, nullptr);
  std::printf("trampoline step %d: %u dispatches without the far particle, %u with it\n", kSteps,
              d_without, d_with);
  EXPECT_LT(d_without, d_with);
  EXPECT_TRUE(same_state(cpu_without, cpu_with));
  EXPECT_TRUE(same_state(gpu_without, gpu_with));
}

}  // namespace
}  // namespace vkphys::test
