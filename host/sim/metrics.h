// Whole-scene diagnostics of a world state, computed on the host in double precision: linear
// and rotational kinetic energy, potential energy, linear momentum and angular momentum about
// the origin over rigid bodies and particles, and the deepest particle overlap. Used by
// `vkphys run` (metrics.csv) and by the tests.
//
// The rotational terms use each body's principal moments I (host/sim/mass_properties.h) in its
// own frame: with w_b = q* w q the world angular velocity in body axes,
//     E_rot = 1/2 sum_k I_k w_b,k^2,   L = sum m x cross v + q (I w_b) q*.
#pragma once

#include <cstdint>
#include <glm/glm.hpp>
#include <optional>
#include <vector>

#include "host/sim/backend.h"
#include "vkphys/difference.h"
#include "vkphys/metrics.h"
#include "vkphys/scene.h"

namespace vkphys {

// The bodies' masses and principal moments, computed once per scene. Entry i is scene body i;
// static bodies (mass 0) have mass 0 and are left out of every sum.
struct MassTable {
  std::vector<double> mass;
  std::vector<glm::dvec3> inertia;
};
MassTable mass_table(const Scene& scene);

// The first body (state order) with a NaN or infinite position, orientation, velocity or angular
// velocity, or else the first such particle; empty if the state is finite. Metrics' nonfinite
// fields come from it; it alone is far cheaper than measure (no particle overlap search).
std::optional<BodyRef> first_nonfinite(const WorldState& state);

// Metrics of `state`, whose first scene.bodies.size() entries are the scene's bodies (the static
// plane bodies after them are only checked for finiteness), and its particles. Throws
// std::invalid_argument if the state holds fewer bodies than the scene or its arrays differ in
// length.
Metrics measure(const MassTable& masses, const Scene& scene, const WorldState& state);
Metrics measure(const Scene& scene, const WorldState& state);

// The constraint errors of one step (`vkphys run`'s metrics.csv):
//   rigid penetration: over the manifold points the step's narrowphase found (StepTrace points,
//   at the step's start) with a negative gap, the deepest and the mean overlap [m] (0 if none);
//   joint error: per joint after the step, |anchor_a - anchor_b| in world space for ball and
//   hinge joints, ||anchor_a - anchor_b| - length| for distance joints; the largest and the
//   mean [m] (a hinge's axis alignment is not counted);
//   spring strain: length / rest - 1 over the scene's springs after the step (host/sim/
//   spring_strain.h), the largest and the mean (0 without springs).
// (ConstraintErrors is public: vkphys/metrics.h).
ConstraintErrors constraint_errors(const Scene& scene, const StepTrace& trace,
                                   const WorldState& state);

// Rotational kinetic energy 1/2 w_b . (I w_b) of one body with principal moments `inertia`,
// orientation q (x, y, z, w; normalised here) and world angular velocity w.
double rotational_energy(glm::dvec3 inertia, glm::dvec4 q, glm::dvec3 omega);

// World angular momentum q (I (q* w q)) q* of one body about its centre of mass.
glm::dvec3 spin_angular_momentum(glm::dvec3 inertia, glm::dvec4 q, glm::dvec3 omega);

}  // namespace vkphys
