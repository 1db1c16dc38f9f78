// The solver residual (StepStats::solver_residual and solver_residual_angular, metrics.csv): the
// largest change of a body's velocity in the step's last sweep (kernels/world_units.inl).
//
// The oracle: from one carried state, a step with n iterations and a step with n - 1 do the same
// sweeps up to the last, so the bodies' velocities after the shorter step are exactly those the
// longer step's last sweep started from, and the longer step's residual is the largest difference
// between the two. Checked on every unit kind (contact manifolds, joints, particle contacts,
// springs) and every backend and scheme. Then what a residual is for: more iterations leave a
// smaller one (projected Gauss-Seidel converging), and a resting pile converges further than a
// falling one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "host/sim/mixed_scenes.h"
#include "host/sim/rigid_scenes.h"
#include "tests/backends.h"

namespace vkphys::test {
namespace {

struct Residual {
  float linear = 0.0f;
  float angular = 0.0f;
};

class SolverResidual : public WorldTest {
 protected:
  // A second backend of this case's kind (the GPU one shares the test's device).
  std::unique_ptr<Backend> another() {
    if (GetParam().backend == "cpu") return make_cpu_backend();
    return make_gpu_backend(*gpu_context_or_null(nullptr));
  }

  // The scene with `iterations` sweeps and no substeps, relax sweeps or split impulse, so that
  // the step's last sweep is its last iteration.
  Scene with_iterations(Scene s, std::uint32_t iterations) const {
    s.settings.solver.scheme = GetParam().scheme;
    s.settings.solver.iterations = iterations;
    s.settings.solver.substeps = 1;
    s.settings.solver.relax_iterations = 0;
    s.settings.solver.split_impulse = false;
    return s;
  }

  // The residuals of one step from `carried` with n iterations, and the largest velocity
  // differences from the same step with n - 1.
  std::pair<Residual, Residual> step_against_shorter(const Scene& scene,
                                                     const CarriedState& carried, std::uint32_t n) {
    auto longer = another();
    auto shorter = another();
    longer->restore(with_iterations(scene, n), carried);
    shorter->restore(with_iterations(scene, n - 1), carried);
    longer->step();
    shorter->step();
    WorldState a, b;
    longer->read(a);
    shorter->read(b);
    Residual differences;
    for (std::size_t i = 0; i < a.vel.size(); ++i) {
      differences.linear =
          std::max(differences.linear, glm::length(glm::vec3(a.vel[i]) - glm::vec3(b.vel[i])));
      differences.angular =
          std::max(differences.angular, glm::length(glm::vec3(a.omega[i]) - glm::vec3(b.omega[i])));
    }
    for (std::size_t i = 0; i < a.particles.size(); ++i) {
      differences.linear =
          std::max(differences.linear, glm::length(glm::vec3(a.particles.vel_invmass[i]) -
                                                   glm::vec3(b.particles.vel_invmass[i])));
    }
    const StepStats& st = longer->stats();
    return {{st.solver_residual, st.solver_residual_angular}, differences};
  }

  // The state after `steps` steps of the scene at `iterations`.
  CarriedState settled(const Scene& scene, std::uint32_t steps, std::uint32_t iterations) {
    load(with_iterations(scene, iterations));
    for (std::uint32_t s = 0; s < steps; ++s) backend_->step();
    return backend_->save();
  }
};

struct ResidualScene {
  std::string name;
  Scene scene;
  bool rigid;  // has rigid bodies that turn
};

Scene chain_without_trees() {
  Scene s = chain_scene(6);
  s.settings.solver.joint_trees = false;  // its joints through the sweep, row by row
  return s;
}

std::vector<ResidualScene> scenes() {
  return {{"pyramid", pyramid_scene(5), true},
          {"chain", chain_without_trees(), true},
          {"particle bed", particle_bed_scene(2), true},
          {"cloth drape", cloth_drape_scene(12), false}};
}

TEST_P(SolverResidual, IsTheLastSweepsVelocityChange) {
  for (const ResidualScene& n : scenes()) {
    SCOPED_TRACE(n.name);
    const CarriedState carried = settled(n.scene, 20, 6);
    const auto [residual, differences] = step_against_shorter(n.scene, carried, 6);
    std::printf("%s: residual %.6g m/s, %.6g rad/s; n - 1 iterations differ by %.6g, %.6g\n",
                n.name.c_str(), double(residual.linear), double(residual.angular),
                double(differences.linear), double(differences.angular));
    EXPECT_GT(residual.linear, 0.0f) << "the sweep moves something";
    // The same floats on the CPU; the GPU's length() may round differently.
    const float tol = GetParam().backend == "cpu" ? 0.0f : 1e-5f;
    EXPECT_NEAR(residual.linear, differences.linear, tol * differences.linear + 1e-9f);
    EXPECT_NEAR(residual.angular, differences.angular, tol * differences.angular + 1e-9f);
    if (n.rigid) {
      EXPECT_GT(residual.angular, 0.0f);
    }
  }
}

// Projected Gauss-Seidel converges: from the pyramid's first step (nothing to warm-start from),
// 24 iterations leave a residual well below 3 iterations'. Measured (CPU): sequential 0.030 ->
// 0.00040 m/s, coloured 0.030 -> 0.00052, Jacobi's averaged update 0.0185 -> 0.0028.
TEST_P(SolverResidual, FallsWithMoreIterations) {
  const Scene scene = pyramid_scene(5);
  const CarriedState carried = settled(scene, 0, 10);
  const float few = step_against_shorter(scene, carried, 3).first.linear;
  const float many = step_against_shorter(scene, carried, 24).first.linear;
  std::printf("pyramid of 15: residual after 3 iterations %.3g m/s, after 24 %.3g m/s\n",
              double(few), double(many));
  EXPECT_LT(many, 0.25f * few);
}

// A chain's joints solved as a tree (solver.joint_trees) are solved exactly in the one sweep: the
// last sweep changes next to nothing, where row by row it still moves the links.
TEST_P(SolverResidual, AJointTreeIsSolvedInOneSweep) {
  const Scene tree = chain_scene(6);
  const CarriedState carried = settled(tree, 20, 6);
  const Residual direct = step_against_shorter(tree, carried, 6).first;
  const Residual swept = step_against_shorter(chain_without_trees(), carried, 6).first;
  std::printf("chain of 6: residual %.3g m/s as a tree, %.3g m/s row by row\n",
              double(direct.linear), double(swept.linear));
  EXPECT_LT(direct.linear, 1e-5f);
  EXPECT_LT(direct.linear, 0.01f * swept.linear);
}

VKPHYS_ON_ALL_CASES(SolverResidual);

}  // namespace
}  // namespace vkphys::test
