/// \file
/// How far two states of one scene are apart (World::compare, BackendComparison, `vkphys
/// compare`), and how far they may be.
#pragma once

#include <cstdint>

namespace vkphys {

/// A body (rigid, world index) or a particle (particle index).
struct BodyRef {
  std::uint32_t index = 0;
  bool particle = false;
};

struct StepError {
  double max_pos = 0, mean_pos = 0;      ///< |x_a - x_b| [m]
  double max_rot = 0, mean_rot = 0;      ///< orientation_error(q_a, q_b) [rad]
  double max_vel = 0, mean_vel = 0;      ///< |v_a - v_b| [m/s]
  double max_omega = 0, mean_omega = 0;  ///< |w_a - w_b| [rad/s]
  /// Where each maximum is (the first such body; a NaN counts as the largest).
  BodyRef worst_pos, worst_rot, worst_vel, worst_omega;
  std::uint32_t points_a = 0, points_b = 0;  ///< contact points reported by each backend
                                             ///< (manifold points + particle contacts)
};

/// Limits on how far two runs of a scene may be apart (BackendComparison, `vkphys compare`).
struct Tolerance {
  double position = 1e-3;          ///< [m]
  double rotation = 1e-3;          ///< orientation difference angle [rad]
  double velocity = 1e-2;          ///< [m/s]
  double angular_velocity = 1e-2;  ///< [rad/s]
};

}  // namespace vkphys
