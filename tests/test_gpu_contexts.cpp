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
// interleaved orders: 0 when both keep stepping to the same bits, 3 when they differ, 4 on a
// validation error. Every World is closed on return.
int mix_contexts_status() {
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
      if (!test::same_bits(c, a)) return 3;
    }
    a.step(10);
    b.step(10);
    if (!test::same_bits(a, b)) return 3;
    if (a.validation_errors() != 0) return 4;
  }
  World d = World::from_file(scene, without);  // opened after the others are gone
  d.step(5);
  return 0;
}

// The child's exit: the library's own exit-time clean-up still runs (std::exit, not _Exit), but
// the test program's shared context is released first. On an H200 (driver 580.159.04) the child
// crashed in exit() while that context was still alive: its static was destroyed after the
// driver's exit-time clean-up (tests/gpu_env.cpp).
[[noreturn]] void mix_contexts() {
  const int status = mix_contexts_status();
  test::release_gpu_contexts();
  std::exit(status);
}

TEST(GpuContexts, WorldsWithAndWithoutValidationShareAProcess) {
  VKPHYS_SKIP_WITHOUT_GPU();
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // the child re-runs this test alone
  EXPECT_EXIT(mix_contexts(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace vkphys
