// The implicit method's recorded CG iterations (host/sim/ode_control.h, R; kernels/
// world_implicit.inl, "Recorded iterations"): the GPU records about what the last steps' solves
// needed instead of solver.cg_max_iterations, and redoes a step with the cap when a solve runs
// out. The policy on its own (no device), and on the GPU: the same bits as recording the cap
// through a drape's landing, where the need jumps and a step is redone, with fewer dispatches.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>

#include "host/sim/mixed_scenes.h"
#include "host/sim/ode_control.h"
#include "tests/backends.h"
#include "tests/same_state.h"

namespace vkphys::test {
namespace {

SolverSettings implicit_settings(std::uint32_t cap) {
  SolverSettings sv;
  sv.integrator = Integrator::implicit;
  sv.cg_max_iterations = cap;
  return sv;
}

// T(n) = n + max(8, n / 4) rounded up to a multiple of 8, at most the cap.
TEST(ImplicitCgRecording, TargetHasAMarginAndRoundsToEight) {
  const SolverSettings sv = implicit_settings(100);
  EXPECT_EQ(OdeControl::cg_target(sv, 0), 8u);
  EXPECT_EQ(OdeControl::cg_target(sv, 1), 16u);
  EXPECT_EQ(OdeControl::cg_target(sv, 8), 16u);
  EXPECT_EQ(OdeControl::cg_target(sv, 30), 40u);   // 30 + 8
  EXPECT_EQ(OdeControl::cg_target(sv, 40), 56u);   // 40 + 10
  EXPECT_EQ(OdeControl::cg_target(sv, 64), 80u);   // 64 + 16
  EXPECT_EQ(OdeControl::cg_target(sv, 90), 100u);  // 112, capped
  EXPECT_EQ(OdeControl::cg_target(implicit_settings(5), 1), 5u);
}

// R starts at the cap, takes the first need at once, grows at once when the need nears it,
// shrinks to the window's peak once a window, and goes to the cap for a redo (only when it was
// below the cap: a solve that runs out of the cap itself is the cap's result, kept).
TEST(ImplicitCgRecording, PolicyGrowsAtOnceShrinksOnceAWindowAndRedoesWithTheCap) {
  const SolverSettings sv = implicit_settings(100);
  OdeControl c;
  EXPECT_EQ(c.cg_iterations(sv), 100u);
  EXPECT_FALSE(c.cg_short(sv));
  EXPECT_FALSE(c.cg_redo(sv, true));  // at the cap: no redo
  EXPECT_TRUE(c.cg_relax(sv, 20));    // the first need: 20 + 8 -> 32
  EXPECT_EQ(c.cg_iterations(sv), 32u);
  EXPECT_TRUE(c.cg_short(sv));
  // Needs below 24 keep it; one of 30 (target 40 > 32) grows it at once.
  for (int k = 0; k < 5; ++k) EXPECT_FALSE(c.cg_relax(sv, 20)) << k;
  EXPECT_TRUE(c.cg_relax(sv, 30));
  EXPECT_EQ(c.cg_iterations(sv), 40u);
  // The need falls to 5 (target 16): the window's 16 steps pass before R shrinks to its peak.
  for (std::uint32_t k = 0; k + 1 < OdeControl::kCgWindow; ++k) {
    EXPECT_FALSE(c.cg_relax(sv, k == 3 ? 12u : 5u)) << k;  // one step of 12: target 24
  }
  EXPECT_TRUE(c.cg_relax(sv, 5));
  EXPECT_EQ(c.cg_iterations(sv), 24u);
  // A window whose peak is R keeps it.
  for (std::uint32_t k = 0; k < OdeControl::kCgWindow; ++k) {
    EXPECT_FALSE(c.cg_relax(sv, k == 0 ? 16u : 5u)) << k;
  }
  EXPECT_EQ(c.cg_iterations(sv), 24u);
  // A solve ran out: redo with the cap, then take that step's need at once.
  EXPECT_FALSE(c.cg_redo(sv, false));
  EXPECT_TRUE(c.cg_redo(sv, true));
  EXPECT_EQ(c.cg_iterations(sv), 100u);
  EXPECT_FALSE(c.cg_short(sv));
  EXPECT_TRUE(c.cg_relax(sv, 60));  // 60 + 15 -> 80
  EXPECT_EQ(c.cg_iterations(sv), 80u);
  // Not the implicit method: nothing moves.
  SolverSettings explicit_sv = sv;
  explicit_sv.integrator = Integrator::symplectic;
  OdeControl e;
  EXPECT_FALSE(e.cg_relax(explicit_sv, 3));
  EXPECT_FALSE(e.cg_redo(explicit_sv, true));
}

// The drape (the bench's, at 16 x 16: block Jacobi so the solves take tens of iterations, and
// the need jumps at the landing), recorded to the need against recorded to the cap: the same
// bits and iteration counts every step, at least one step redone at the landing, and fewer
// dispatches once settled. On lavapipe both also match the CPU backend to the bit.
class ImplicitCgRecordingOnGpu : public WithGpu<> {};

TEST_F(ImplicitCgRecordingOnGpu, SameBitsAsTheFullCapThroughALandingWithFewerDispatches) {
  Scene s = cloth_drape_scene(16);
  for (Spring& spring : s.springs) spring.model = SpringModel::force;
  s.settings.solver.integrator = Integrator::implicit;
  s.settings.solver.cg_preconditioner = CgPreconditioner::block_jacobi;
  const bool bits = on_lavapipe();
  std::unique_ptr<Backend> need = make_gpu_backend(*ctx_);
  std::unique_ptr<Backend> full =
      make_gpu_backend(*ctx_, std::nullopt, FusedPolicy::automatic, CgRecording::full);
  std::unique_ptr<Backend> cpu = make_cpu_backend();
  need->load(s);
  full->load(s);
  cpu->load(s);
  WorldState a, b, c;
  std::uint32_t redos = 0, most = 0, least = 1u << 30;
  std::uint32_t need_dispatches = 0, full_dispatches = 0;
  const int steps = 36;
  for (int k = 0; k < steps; ++k) {
    need->step();
    full->step();
    EXPECT_EQ(full->stats().cg_redos, 0u) << "step " << k;
    redos += need->stats().cg_redos;
    ASSERT_EQ(need->stats().cg_iterations, full->stats().cg_iterations) << "step " << k;
    ASSERT_EQ(need->stats().cg_residual, full->stats().cg_residual) << "step " << k;
    ASSERT_EQ(need->stats().cg_unmet, full->stats().cg_unmet) << "step " << k;
    need->read(a);
    full->read(b);
    ASSERT_TRUE(same_state(a, b)) << "step " << k;
    if (bits) {
      cpu->step();
      ASSERT_EQ(need->stats().cg_iterations, cpu->stats().cg_iterations) << "step " << k;
      cpu->read(c);
      ASSERT_TRUE(same_state(a, c)) << "step " << k;
    }
    most = std::max(most, need->stats().cg_iterations);
    least = std::min(least, need->stats().cg_iterations);
    need_dispatches = need->stats().dispatches;
    full_dispatches = full->stats().dispatches;
  }
  // The next step's warm start too (a redo restores it: the step-start backup).
  EXPECT_TRUE(same_bits(need->save().cg_dv, full->save().cg_dv));
  std::printf(
      "16x16 implicit drape on %s, %d steps: %u to %u CG iterations a step, %u redone; "
      "dispatches a step at the end %u recorded to the need, %u to the cap\n",
      ctx_->info().name.c_str(), steps, least, most, redos, need_dispatches, full_dispatches);
  EXPECT_GE(redos, 1u);  // the landing's need passed R: the redo path ran and kept the bits
  EXPECT_LE(redos, 6u);  // and R grew with it instead of redoing every step
  EXPECT_LT(need_dispatches, full_dispatches);
}

}  // namespace
}  // namespace vkphys::test
