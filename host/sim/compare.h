// GPU-versus-CPU comparison: both backends run the same scene from the same state and the
// per-step max and mean position and velocity differences are recorded. Bitwise equality is not
// expected (the GPU may round differently); the tolerances say what is close enough.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "host/sim/backend.h"

namespace vkphys {

struct CompareTolerance {
  double position = 1e-3;  // [m]
  double velocity = 1e-2;  // [m/s]
};

struct StepError {
  double max_pos = 0, mean_pos = 0, max_vel = 0, mean_vel = 0;
  std::uint32_t contacts_a = 0, contacts_b = 0;
};

struct CompareResult {
  std::vector<StepError> steps;            // index k: after step k + 1
  std::optional<std::uint32_t> first_bad;  // first step (1-based) past tolerance
};

StepError state_error(const Particles& a, const Particles& b);

// Runs `steps` steps on both backends (already loaded with the same scene).
CompareResult compare_backends(Backend& a, Backend& b, std::uint32_t steps,
                               const CompareTolerance& tol);

}  // namespace vkphys
