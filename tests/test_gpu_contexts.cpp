// GPU Worlds with and without the validation layer in one process: each World's Vulkan context
// is its own instance and device (the layer sits in one chain and not the other), and every
// Vulkan call must reach its own object's chain. volk's device-level table used to hold the last
// opened device's functions, so a World's calls went through another World's driver chain: on
// lavapipe a process that mixed them crashed at exit, after its test passed. The Worlds run in a
// child process (a death test) so that a crash anywhere, its exit included, fails the test.
#include <gtest/gtest.h>

#include <cstdlib>

#include "tests/api_helpers.h"
#include "tests/gpu_env.h"
#include "vkphys/vkphys.h"

namespace vkphys {
namespace {

// Steps two GPU Worlds of one scene, one with the layer and one without, opened and closed in
// interleaved orders; exits 0 when both keep stepping to the same bits, 3 when they differ.
[[noreturn]] void mix_contexts() {
  const std::string scene = test::scene_path("stack_5.json");
  WorldOptions with;
  with.backend = "gpu";
  with.validation = true;
  WorldOptions without = with;
  without.validation = false;
  {
    World a = World::from_file(scene, with);
    World b = World::from_file(scene, without);
    a.step(10);
    b.step(10);
    {
      World c = World::from_file(scene, with);  // a third device, closed before the others
      c.step(10);
      if (!test::same_bits(c, a)) {
        std::exit(3);
      }
    }
    a.step(10);
    b.step(10);
    if (!test::same_bits(a, b)) {
      std::exit(3);
    }
    if (a.validation_errors() != 0) std::exit(4);
  }
  World d = World::from_file(scene, without);  // opened after the others are gone
  d.step(5);
  std::exit(0);
}

TEST(GpuContexts, WorldsWithAndWithoutValidationShareAProcess) {
  std::string why;
  if (!test::gpu_context_or_null(&why)) {
    if (test::gpu_required()) FAIL() << why;
    GTEST_SKIP() << why;
  }
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the child re-runs this test alone
  EXPECT_EXIT(mix_contexts(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace vkphys
