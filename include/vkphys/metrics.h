/// \file
/// Whole-world diagnostics of one state (World::metrics, `vkphys run`'s metrics.csv): energies,
/// momenta, top speeds and the deepest particle overlap, summed on the host in double precision
/// (host/sim/metrics.h computes them), and the constraint errors a step left
/// (World::constraint_errors).
#pragma once

#include <cstddef>
#include <cstdint>
#include <glm/glm.hpp>
#include <optional>

namespace vkphys {

struct Metrics {
  double kinetic_linear = 0.0;       ///< sum 1/2 m |v|^2 [J]
  double kinetic_rotational = 0.0;   ///< sum 1/2 w_b . (I w_b) [J]
  double potential = 0.0;            ///< sum -m g . x [J] (m g h for g pointing down)
  glm::dvec3 momentum{0.0};          ///< sum m v [kg m/s]
  glm::dvec3 angular_momentum{0.0};  ///< about the origin [kg m^2/s]
  double max_speed = 0.0;            ///< largest |v| [m/s]
  double max_angular_speed = 0.0;    ///< largest |w| [rad/s]
  double max_penetration = 0.0;      ///< deepest particle-particle or particle-plane overlap [m]
  /// Index of the first body (state order) with a NaN or infinite position, orientation, velocity
  /// or angular velocity, or else of the first such particle; both empty if the state is finite.
  /// The sums above are meaningless when either is set.
  std::optional<std::uint32_t> nonfinite_body;
  std::optional<std::uint32_t> nonfinite_particle;

  double kinetic() const { return kinetic_linear + kinetic_rotational; }
  double energy() const { return kinetic() + potential; }
};

/// How far the last step left the constraints from holding (World::constraint_errors,
/// metrics.csv's max_rigid_penetration .. mean_spring_strain).
struct ConstraintErrors {
  /// Over the manifold points the step's narrowphase found (at the step's start) with a
  /// negative gap: the deepest and the mean overlap [m] (0 if none).
  double max_rigid_penetration = 0.0, mean_rigid_penetration = 0.0;
  /// Per joint after the step: |anchor_a - anchor_b| for ball and hinge joints,
  /// ||anchor_a - anchor_b| - length| for distance joints; the largest and the mean [m] (a
  /// hinge's axis alignment is not counted).
  double max_joint_error = 0.0, mean_joint_error = 0.0;
  /// length / rest - 1 over the scene's springs after the step, the largest and the mean.
  double max_spring_strain = 0.0, mean_spring_strain = 0.0;
};

/// The springs' stretch in one state (World::spring_strain): `vkphys bench`'s springs table,
/// the two numbers Bullet's soft-body bench reports for its links. Tethers are left out: they
/// hold the springs' stretch down and are not themselves cloth.
struct SpringStrain {
  double max_ratio = 0.0;  ///< largest length / rest length
  double mean = 0.0;       ///< mean of length / rest length - 1
  std::size_t springs = 0;
};

}  // namespace vkphys
