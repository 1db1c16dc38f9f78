// Backend comparison: two backends run the same scene with the same solver scheme and the
// per-step differences of position, orientation, velocity and angular velocity are recorded
// over rigid bodies and particles (`vkphys compare`). Bitwise equality is not expected; the
// tolerances say what is close enough.
#pragma once

#include <cstdint>
#include <functional>
#include <glm/glm.hpp>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "host/sim/backend.h"

namespace vkphys {

struct Tolerance {
  double position = 1e-3;          // [m]
  double rotation = 1e-3;          // orientation difference angle [rad]
  double velocity = 1e-2;          // [m/s]
  double angular_velocity = 1e-2;  // [rad/s]
};

struct StepError {
  double max_pos = 0, mean_pos = 0;      // |x_a - x_b| [m]
  double max_rot = 0, mean_rot = 0;      // orientation_error(q_a, q_b) [rad]
  double max_vel = 0, mean_vel = 0;      // |v_a - v_b| [m/s]
  double max_omega = 0, mean_omega = 0;  // |w_a - w_b| [rad/s]
  std::uint32_t worst_body = 0;          // body (or particle) of the largest position error
  bool worst_is_particle = false;
  std::uint32_t points_a = 0, points_b = 0;  // contact points reported by each backend
                                             // (manifold points + particle contacts)
};

// The angle [rad] in [0, pi] of the rotation conj(q_a) q_b that takes orientation a to b.
// q and -q are the same rotation: the result is 0 for q_b = -q_a. Quaternions are normalised
// first; NaN in, NaN out.
double orientation_error(glm::vec4 qa, glm::vec4 qb);

// Differences over the first `count` rigid bodies (by default all) and every particle (position
// and velocity; their means are over bodies and particles together, the orientation and
// angular-velocity means over bodies); throws std::invalid_argument if the states differ in size
// or have fewer than `count` bodies. A NaN in either state makes the maxima NaN.
StepError state_error(const WorldState& a, const WorldState& b,
                      std::size_t count = std::numeric_limits<std::size_t>::max());

// The quantities of `e` past tolerance, comma-separated ("position, rotation"); empty if none.
// NaN counts as past tolerance.
std::string past_tolerance(const StepError& e, const Tolerance& tol);

struct CompareResult {
  std::vector<StepError> steps;            // index k: after step k + 1
  std::optional<std::uint32_t> first_bad;  // first step (1-based) past tolerance
  std::string first_bad_what;              // past_tolerance at that step
  // With a rounding envelope: its maxima per step, and the tolerance the run was held to.
  std::vector<StepError> envelope;
  Tolerance allowed;
};

// `scene` with every body and particle moved by one ulp along `axis`, up or down: a run that
// differs from the original by rounding alone.
Scene nudged_scene(Scene scene, int axis, bool up);

// Runs `steps` steps on both backends (already loaded with the same scene) and compares the
// first `bodies` bodies and every particle after each. `on_step` (if set) is called with each
// finished step.
//   With `envelope_scene` (the scene both were loaded with): how far rounding alone carries
// this run. The CPU reference runs it three more times, nudged by one ulp along x, y and z
// (nudged_scene), and each step's difference from b is recorded; a chaotic scene (tumbling
// boxes, a particle pour) amplifies rounding until two correct runs part. The run is then held
// to the fixed tolerance or twice the largest envelope of the whole run, whichever is larger:
// a backend that differs only by rounding passes, one that computes something else (a wrong
// row, a lost warm start) parts from b long before the nudged runs do. (The moment a chaotic
// run parts is itself a matter of rounding, so the whole run's envelope is used, not the one
// so far.)
CompareResult compare_backends(Backend& a, Backend& b, std::uint32_t steps, const Tolerance& tol,
                               std::size_t bodies,
                               const std::function<void(std::uint32_t)>& on_step = {},
                               const Scene* envelope_scene = nullptr);

}  // namespace vkphys
