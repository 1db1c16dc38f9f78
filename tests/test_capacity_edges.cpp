// Issue 13: each list capacity driven to its edge. The units (rows) a step may hold stop at
// 2^24 - 1 with a message naming the three lists; the warm-start hash table, at its fullest for a
// pair capacity (exactly as many pairs as slots), loses no warm start; and a step that needs
// more colours than the GPU recorded is redone with all of them, losing no unit. (Pairs and
// particle contacts past their capacities: test_rigid_parity.cpp, test_particle_parity.cpp and
// test_capacity_limits.cpp.)
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "host/sim/rigid_scenes.h"
#include "host/sim/world_setup.h"
#include "tests/backends.h"
#include "tests/same_bits.h"
#include "vkphys/scene.h"

namespace vkphys {
namespace {

using test::Case;
using test::same_bits;

// Growth shares the 2^24 - 1 units with the other lists: a particle scene (64 pairs) whose step
// needs 12,000,000 contacts grows to fill what is left, 16,777,151 (its 1.5x headroom would be
// 18,000,064), and runs. Until 2026-11-27 each list was capped at 2^24 - 1 on its own, so this
// need (which fits) was refused with a message quoting the capped capacity. A need that does not
// fit with the others is refused naming the three needs, a list past 2^24 - 1 naming itself.
TEST(CapacityGrowth, ListsShareTheUnitsTheyLeave) {
  constexpr std::uint32_t kLimit = (1u << 24) - 1u;
  const Capacities grown = grown_capacities({64, 1024}, 0, 12000000, 0);
  EXPECT_EQ(grown.pairs, 64u);
  EXPECT_EQ(grown.contacts, kLimit - 64u);
  const Capacities roomy = grown_capacities({64, 1024}, 100, 2000, 10);
  EXPECT_EQ(roomy.pairs, 100u + 50u + 64u);
  EXPECT_EQ(roomy.contacts, 2000u + 1000u + 64u);
  const Capacities both = grown_capacities({64, 1024}, 6000000, 6000000, 1000);
  EXPECT_EQ(both.pairs, 6000000u + 3000064u);
  EXPECT_EQ(std::uint64_t{1000} + both.pairs + both.contacts, kLimit);
  EXPECT_GE(both.contacts, 6000000u);
  auto message = [](const Capacities& now, std::uint32_t p, std::uint32_t c, std::uint32_t j) {
    try {
      grown_capacities(now, p, c, j);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({64, 1024}, 0, kLimit - 63u, 0),
            "0 joints + 64 pairs + 16777152 particle contacts needed in one step; the solver "
            "takes at most 2^24 - 1 units (use fewer bodies or particles, or a smaller "
            "contact_margin)");
  EXPECT_EQ(message({64, 1024}, 0, kLimit + 1u, 0),
            "16777216 particle contacts needed in one step; at most 2^24 - 1 fit (use fewer "
            "bodies or particles, or a smaller contact_margin)");
  EXPECT_EQ(message({64, 1024}, 0xFFFFFFFFu, 0, 0),
            "2^31 or more pairs needed in one step; at most 2^24 - 1 fit (use fewer bodies or "
            "particles, or a smaller contact_margin)");
}

class CapacityEdges : public test::WorldTest {};

// Units are coloured with 24-bit priorities, so joints + pairs + particle contacts stay below
// 2^24: capacities that reach it are refused at load, naming each list, before any allocation
// (the lists here would take hundreds of GiB).
TEST_P(CapacityEdges, UnitsReachingTwoToThe24AreRefusedNamingTheLists) {
  const Scene s = stack_scene(2, false);
  try {
    load(s, 1u << 23, 1u << 23);
    FAIL() << "loaded 2^24 units";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "0 joints + 8388608 pairs + 8388608 particle contacts: the solver takes at most "
              "2^24 - 1 units (use fewer bodies or particles, or a smaller contact_margin)");
  }
}

// The warm-start table has bit_ceil(2 x capacity) slots, so it is never full; at its fullest
// (as many pairs as the capacity, which the step then never grows) every lookup still finds its
// entry: 40 steps of a pyramid end on the same bits as with roomy lists.
TEST_P(CapacityEdges, PairsExactlyAtCapacityLoseNoWarmStart) {
  const Scene s = pyramid_scene(6);
  constexpr int kSteps = 40;
  Backend& roomy = load(s);
  std::uint32_t most = 0;
  for (int k = 0; k < kSteps; ++k) {
    roomy.step();
    most = std::max(most, roomy.stats().pairs);
  }
  WorldState want;
  roomy.read(want);
  ASSERT_GT(most, 20u);
  Backend& tight = load(s, most);
  for (int k = 0; k < kSteps; ++k) {
    tight.step();
    ASSERT_EQ(tight.stats().regrows, 0u) << "step " << k + 1 << " grew the pair list";
    ASSERT_EQ(tight.stats().pair_capacity, most);
  }
  WorldState got;
  tight.read(got);
  EXPECT_TRUE(same_bits(got.pos, want.pos));
  EXPECT_TRUE(same_bits(got.rot, want.rot));
  EXPECT_TRUE(same_bits(got.vel, want.vel));
  EXPECT_TRUE(same_bits(got.omega, want.omega));
}

VKPHYS_ON_ALL_CASES(CapacityEdges);

// A 6 x 6 x 6 lattice of touching particles without gravity or planes, first taken apart (no
// contacts: the GPU then records no colour) and then put together again (each particle
// touches up to six others: six or more colours). The step must be redone with every colour; the
// GPU's particles, which follow the CPU's bit for bit, show that no unit was dropped.
TEST(CapacityEdgesGpu, MoreColoursThanRecordedRedoTheStep) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  Scene s;
  s.settings.gravity = glm::vec3(0.0f);
  s.settings.contact_margin = 0.01f;  // every lattice neighbour is a contact
  s.settings.solver.scheme = SolverScheme::colored;
  s.materials = {Material{}};
  constexpr float r = 0.05f;
  for (int i = 0; i < 216; ++i) {
    const glm::vec3 x(static_cast<float>(i % 6), static_cast<float>(i / 6 % 6),
                      static_cast<float>(i / 36));
    s.particles.add(2.0f * r * x, glm::vec3(0.0f), r, 1.0f, 0);
  }
  std::unique_ptr<Backend> gpu = make_gpu_backend(ctx);
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  WorldState dense;
  for (Backend* b : {gpu.get(), cpu.get()}) {
    b->load(s);
    b->read(dense);
    WorldState apart = dense;
    for (glm::vec4& p : apart.particles.pos_radius) p = glm::vec4(3.0f * glm::vec3(p), p.w);
    b->write(apart);
    b->step();
    EXPECT_EQ(b->stats().particle_contacts, 0u);
    b->write(dense);
    b->step();
    EXPECT_GE(b->stats().colors, 6u);
    EXPECT_EQ(b->stats().overflow_units, 0u);
  }
  WorldState g, c;
  gpu->read(g);
  cpu->read(c);
  EXPECT_EQ(gpu->stats().particle_contacts, 3u * 5u * 36u);  // the lattice's neighbour pairs
  EXPECT_TRUE(same_bits(g.particles.pos_radius, c.particles.pos_radius));
  EXPECT_TRUE(same_bits(g.particles.vel_invmass, c.particles.vel_invmass));
}

}  // namespace
}  // namespace vkphys
