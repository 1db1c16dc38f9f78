/// \file
/// The explicit stability bound of a scene's force springs (docs/scene-format.md, "Stability of
/// force springs"; the derivations are in host/api/stability.cpp). A force spring
/// (SpringModel::force) integrated by an explicit solver.integrator (symplectic, euler, midpoint,
/// rk4) is stable only while its step h is small against its frequency omega; past that it
/// blows up. spring_stability() finds the spring with the smallest bound and says whether the
/// scene's step is past it, or past the bound of the springs' network; `vkphys run`, `soak`,
/// `compare`, `render` and `view` print stability_warning() to stderr and run the scene as it is (a
/// scene past its bound is not an error: it is how an explicit method's instability is shown).
/// Compliant springs and the implicit integrator are stable at any k and are never reported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "vkphys/export.h"
#include "vkphys/scene.h"

namespace vkphys {

/// The largest stable step [s] of the damped oscillator x'' = -omega^2 x - gamma x' under
/// `integrator` (omega [rad/s] > 0, gamma [1/s] >= 0): every step h below it keeps the
/// oscillation from growing. 0: no step is stable (explicit Euler and midpoint without damping
/// gain energy at every step); infinity for the implicit integrator.
VKPHYS_API double stable_step(Integrator integrator, double omega, double gamma);

/// The limiting force spring of a scene under its solver.integrator and step.
struct SpringStability {
  Integrator integrator = Integrator::symplectic;
  std::size_t force_springs = 0;  ///< the scene's force springs (0: nothing to bound)
  /// Whether the integrator is explicit (symplectic, euler, midpoint, rk4) and there are force
  /// springs; otherwise nothing below is set and past() is false.
  bool checked = false;
  std::uint32_t spring = 0;  ///< the spring with the smallest bound, an index into Scene::springs
  double k = 0.0;            ///< its stiffness [N/m]
  double c = 0.0;            ///< its damping [kg/s]
  double mass_a = 0.0;       ///< [kg]; infinity for a pinned (static) or kinematic particle
  double mass_b = 0.0;       ///< [kg], as mass_a
  double omega = 0.0;        ///< sqrt(k (1/m_a + 1/m_b)) [rad/s]
  double gamma = 0.0;        ///< c (1/m_a + 1/m_b) [1/s]
  double bound = 0.0;        ///< stable_step(integrator, omega, gamma) [s]
  /// The ODE step the bound is held to [s]: time_step / substeps, and with solver.adaptive the
  /// finest step its controller may take, time_step / substeps / (2 max_steps) (step doubling
  /// goes on from its two half steps).
  double step = 0.0;
  /// The fewest substeps with time_step / substeps below the bound (no adaptive refinement);
  /// 0 when none does (bound 0).
  std::uint64_t substeps_needed = 0;
  /// With solver.adaptive: the fewest ODE steps n per substep, a power of two as the controller
  /// takes them, whose half steps time_step / substeps / (2 n) are below the bound; 0 without
  /// adaptive or when none does.
  std::uint64_t ode_steps_needed = 0;
  /// When bound is 0: the factor by which the spring's energy grows over one period 2 pi / omega
  /// at `step` (explicit Euler: (1 + h^2 omega^2) per step; midpoint: 1 + (h omega)^4 / 4).
  double growth_per_period = 1.0;
  /// Gershgorin's bound on the network's fastest mode, sqrt(max over particles i of the sum
  /// over i's force springs of k (1/m_i + 1/sqrt(m_i m_j))) [rad/s] (a lone spring's omega when
  /// its masses are equal or one end is pinned), and on its damping, the same sum of c [1/s].
  double network_omega = 0.0;
  double network_gamma = 0.0;
  /// stable_step(integrator, network_omega, network_gamma) [s]: undamped, every step below it is
  /// stable for the linearised network at rest, whatever its shape.
  double network_bound = 0.0;
  std::uint64_t network_substeps_needed = 0;   ///< as substeps_needed, for network_bound
  std::uint64_t network_ode_steps_needed = 0;  ///< as ode_steps_needed, for network_bound
  /// Past the limiting spring's own bound: the scene certainly blows up.
  bool past() const { return checked && !(step < bound); }
  /// Within the network bound: the (undamped, linearised) network is stable. Between the two the
  /// network's true fastest mode decides (a 8 x 8 force cloth blows up at 0.6 times its stiffest
  /// spring's bound and holds at 0.5: its fastest mode is at 1.95 times that spring's omega).
  bool assured() const { return !checked || step < network_bound; }
};

/// The force spring of `scene` whose bound is smallest (the stiffest, without damping), its
/// bound and the step it is held to. Each spring is bounded as a lone two-body oscillator; a
/// network's fastest mode can be faster, so a scene past this bound certainly blows up, and one
/// within it is assured only below the network (Gershgorin) bound. Throws Error for a force
/// spring whose particle index is out of range.
VKPHYS_API SpringStability spring_stability(const Scene& scene);

/// One line for a scene past its bound, or past the network bound (it may blow up), naming the
/// spring, its k, masses and omega, the step, both bounds and what would satisfy them; empty when
/// s.assured().
VKPHYS_API std::string stability_warning(const SpringStability& s);

}  // namespace vkphys
