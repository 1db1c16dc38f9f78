// The explicit stability bound of force springs (vkphys/stability.h; docs/scene-format.md,
// "Stability of force springs").
//
// One spring. A force spring between particles a and b, f_a = -[k (|l| - r) + c l'.n] n, moves
// their separation l = x_a - x_b along n as one damped oscillator: l'' = -(1/m_a + 1/m_b) f, so
//   e'' = -omega^2 e - gamma e',   omega^2 = k (1/m_a + 1/m_b),   gamma = c (1/m_a + 1/m_b)
// for the stretch e = |l| - r (a pinned or kinematic end has 1/m = 0; the pair's centre of mass
// moves freely and is neutral under every method). Across n a stretched spring is softer,
// k (1 - r/|l|) < k, so the stretch mode is the fastest. The ODE's eigenvalues are
// lambda = omega (-zeta +- i sqrt(1 - zeta^2)), zeta = gamma / (2 omega), real below -omega when
// zeta > 1. A method is stable at step h when its step matrix's eigenvalues stay within the unit
// circle; with y = h omega:
//
// Symplectic Euler (v' = v + h a(x, v), x' = x + h v'; the spring force at the step's start) has
// the step matrix [[1 - y^2, h (1 - h gamma)], [-h omega^2, 1 - h gamma]]: trace
// T = 2 - y^2 - h gamma, determinant D = 1 - h gamma. Both eigenvalues are inside the unit circle
// iff |D| < 1 and |T| < 1 + D (Jury): 0 < h gamma < 2 and y^2 + 2 h gamma < 4, so
//   h < 4 / (gamma + sqrt(gamma^2 + 4 omega^2)),   undamped: h omega < 2.
// Damping tightens it (the damping force is explicit too).
//
// The Runge-Kutta methods multiply each eigenmode by R(h lambda), R the method's stability
// polynomial: explicit Euler 1 + z, midpoint 1 + z + z^2/2, RK4 1 + z + z^2/2 + z^3/6 + z^4/24
// (every method of order p with p stages has the truncated exponential). Stable: |R| <= 1.
// * Explicit Euler: |1 + h lambda|^2 = 1 - h gamma + h^2 omega^2 for the underdamped pair, so
//   h < gamma / omega^2 = c / k (a force spring's own constants, whatever the masses); for
//   zeta >= 1 the larger real |lambda| = (gamma + sqrt(gamma^2 - 4 omega^2)) / 2 needs
//   h |lambda| < 2. Undamped there is no stable step: the energy grows by 1 + y^2 every step.
// * Midpoint: on the imaginary axis |R(i y)|^2 = 1 + y^4 / 4 > 1, so undamped no step is stable
//   either (the energy grows by 1 + y^4/4 a step, far slower than Euler's).
// * RK4: |R(i y)|^2 = 1 - y^6/72 + y^8/576 <= 1 iff y^2 <= 8: h omega <= 2 sqrt(2).
// With damping the midpoint and RK4 bounds are where the ray h lambda leaves the region
// |R| <= 1, which has no short closed form: bisected in double below (the region meets each ray
// from the origin in one segment; tests/test_spring_stability.cpp checks the bisection against a
// dense scan and the closed forms above).
//
// The step that matters. Each step of time_step runs `substeps` substeps of H = time_step /
// substeps, and the explicit methods take n ODE steps of H/n in each: n = 1 without
// solver.adaptive. With it, every ODE step of H/n is also taken as two of H/(2n), and the two
// half steps are what the state goes on from (the full step only measures the error;
// kernels/world_ode.inl): the step that propagates is H/(2n). The controller doubles n (up to
// max_steps) while the error passes the tolerance; an unstable full step has a large error, so
// it refines, and the finest step it can reach is H / (2 max_steps). So with adaptive the scene
// is reported past only when H / (2 max_steps) is; at H/2 within the bound it is stable even at
// n = 1. Measured (tests/test_spring_stability.cpp): RK4 at H omega = 4 blows up at a fixed step
// and holds under adaptive with max_steps 1 (it propagates at H omega / 2 = 2).
//
// A network. The bound above is each spring's own, as a lone oscillator. A network's fastest
// mode is at least as fast as its fastest spring's (the Rayleigh quotient of that spring's
// stretch mode), so a scene past this bound certainly blows up; but a particle's springs add up
// and the network can be faster. With K's blocks k n n^T, v^T K v <= sum k |v_a - v_b|^2, so
// omega_max^2 is at most the largest eigenvalue of the scalar weighted Laplacian scaled by
// M^-1/2, and by Gershgorin at most
//   max over particles i of sum over i's springs of k (1/m_i + 1/sqrt(m_i m_j))
// (an immovable j adds k / m_i alone). That is a lone spring's omega^2 when its masses are equal
// or one end is pinned, 4 k / m in the middle of a chain of equal masses (the true 4 k / m
// as the chain grows, against one spring's 2 k / m), and 1.45 times too fast on an 8 x 8 cloth
// (Gershgorin 320 rad/s, the true fastest mode 220, its stiffest spring 113:
// tests/test_spring_stability.cpp measures it blow up at 0.6 times the spring's bound and hold
// at 0.5). Below the network bound, stable_step of Gershgorin's omega and of the same sum of c,
// the undamped linearised network is stable; between the two bounds it may blow up, and the
// warning says so. (The damped network bound is an estimate: K and C need not share modes.)
// Under euler, midpoint and rk4 a particle that a contact or a compliant spring holds takes the
// symplectic step instead (ARCHITECTURE.md, "Force springs and explicit integrators"); the bound
// is the scene's integrator's.
#include "vkphys/stability.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "host/api/guarded.h"

namespace vkphys {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// |R(z)| <= 1 for the truncated exponential of `order`, as 2 Re w + |w|^2 <= 0 with R = 1 + w
// (no cancellation against the 1).
bool rk_stable(std::uint32_t order, std::complex<double> z) {
  std::complex<double> w = 0.0, term = 1.0;
  for (std::uint32_t j = 1; j <= order; ++j) {
    term *= z / static_cast<double>(j);
    w += term;
  }
  return 2.0 * w.real() + std::norm(w) <= 0.0;
}

// How far along the unit direction u (Re u < 0) the region |R| <= 1 reaches. Every method's
// region lies within |z| < 4, and meets the ray in one segment [0, r].
double ray_reach(std::uint32_t order, std::complex<double> u) {
  double lo = 0.0, hi = 4.0;
  for (int i = 0; i < 64; ++i) {
    const double mid = 0.5 * (lo + hi);
    (rk_stable(order, mid * u) ? lo : hi) = mid;
  }
  return lo;
}

// The Runge-Kutta bound in y = h omega for damping ratio zeta > 0 (the closed forms above cover
// zeta = 0; the bisection would only resolve 0 to its rounding there).
double rk_bound_y(std::uint32_t order, double zeta) {
  if (zeta < 1.0) {
    return ray_reach(order, {-zeta, std::sqrt(1.0 - zeta * zeta)});  // |lambda| = omega
  }
  return ray_reach(order, -1.0) / (zeta + std::sqrt(zeta * zeta - 1.0));  // the faster real one
}

double mass_of(float inv_mass) {
  return inv_mass > 0.0f ? 1.0 / static_cast<double>(inv_mass) : kInf;
}

// A power of two n >= 1 with step / n below bound (bound > 0).
std::uint64_t ode_steps_below(double step, double bound) {
  std::uint64_t n = 1;
  while (!(step / static_cast<double>(n) < bound)) n *= 2;
  return n;
}

std::string mass_text(double m) {
  return std::isinf(m) ? "pinned" : fmt::format("{:.4g} kg", m);
}

}  // namespace

double stable_step(Integrator integrator, double omega, double gamma) {
  const double zeta = gamma / (2.0 * omega);
  switch (integrator) {
    case Integrator::symplectic:
      return 4.0 / (gamma + std::sqrt(gamma * gamma + 4.0 * omega * omega));
    case Integrator::euler:
      if (zeta < 1.0) return gamma / (omega * omega);
      return 4.0 / (gamma + std::sqrt(gamma * gamma - 4.0 * omega * omega));
    case Integrator::midpoint:
      return gamma > 0.0 ? rk_bound_y(2, zeta) / omega : 0.0;
    case Integrator::rk4:
      return (gamma > 0.0 ? rk_bound_y(4, zeta) : 2.0 * std::numbers::sqrt2) / omega;
    case Integrator::implicit:
      break;
  }
  return kInf;
}

SpringStability spring_stability(const Scene& scene) {
  return guarded([&] {
    const SolverSettings& sv = scene.settings.solver;
    SpringStability s;
    s.integrator = sv.integrator;
    const std::size_t particles = scene.particles.size();
    std::vector<bool> driven(particles, false);
    for (const KinematicPath& path : scene.kinematic) {
      if (path.target.particle && path.target.index < particles) driven[path.target.index] = true;
    }
    auto mass = [&](std::uint32_t i) {
      return driven[i] ? kInf : mass_of(scene.particles.vel_invmass[i].w);
    };
    // The damped Runge-Kutta bound in h omega by damping ratio: a cloth's springs share a few
    // (2.9 million springs of a 700 x 700 cloth: 2.9 s bisecting each, 0.09 s with this; a mesh
    // cloth of uneven masses has more ratios, each about 1 us).
    std::unordered_map<double, double> rk_y;
    // Gershgorin's rows of M^-1/2 K M^-1/2 and M^-1/2 C M^-1/2 (the essay's "A network").
    std::vector<double> row_k(particles, 0.0), row_c(particles, 0.0);
    for (std::size_t i = 0; i < scene.springs.size(); ++i) {
      const Spring& sp = scene.springs[i];
      if (sp.model != SpringModel::force) continue;
      if (sp.a >= particles || sp.b >= particles) {
        throw std::invalid_argument(
            fmt::format("spring {}: particle index {} out of range ({} particles)", i,
                        sp.a >= particles ? sp.a : sp.b, particles));
      }
      ++s.force_springs;
      if (sv.integrator == Integrator::implicit) continue;
      const double ma = mass(sp.a), mb = mass(sp.b), inv = 1.0 / ma + 1.0 / mb;
      if (!(inv > 0.0)) continue;                     // both ends immovable: nothing oscillates
      const double cross = 1.0 / std::sqrt(ma * mb);  // 0 with an immovable end
      row_k[sp.a] += static_cast<double>(sp.k) * (1.0 / ma + cross);
      row_k[sp.b] += static_cast<double>(sp.k) * (1.0 / mb + cross);
      row_c[sp.a] += static_cast<double>(sp.c) * (1.0 / ma + cross);
      row_c[sp.b] += static_cast<double>(sp.c) * (1.0 / mb + cross);
      const double omega = std::sqrt(static_cast<double>(sp.k) * inv);
      const double gamma = static_cast<double>(sp.c) * inv;
      double bound;
      const double zeta = gamma / (2.0 * omega);
      if ((sv.integrator == Integrator::midpoint || sv.integrator == Integrator::rk4) &&
          gamma > 0.0) {
        auto [at, added] = rk_y.try_emplace(zeta, 0.0);
        if (added) at->second = stable_step(sv.integrator, 1.0, 2.0 * zeta);
        bound = at->second / omega;
      } else {
        bound = stable_step(sv.integrator, omega, gamma);
      }
      // The smallest bound limits; among bounds of 0 the fastest spring grows fastest.
      if (!s.checked || bound < s.bound || (bound == s.bound && omega > s.omega)) {
        s.checked = true;
        s.spring = static_cast<std::uint32_t>(i);
        s.k = double(sp.k);
        s.c = double(sp.c);
        s.mass_a = ma;
        s.mass_b = mb;
        s.omega = omega;
        s.gamma = gamma;
        s.bound = bound;
      }
    }
    if (!s.checked) return s;
    s.network_omega = std::sqrt(*std::max_element(row_k.begin(), row_k.end()));
    s.network_gamma = *std::max_element(row_c.begin(), row_c.end());
    // At most the lone spring's: Gershgorin's damping can loosen explicit Euler's c / k.
    s.network_bound =
        std::min(s.bound, stable_step(sv.integrator, s.network_omega, s.network_gamma));
    const double time_step = static_cast<double>(scene.settings.time_step);
    const double substep = time_step / static_cast<double>(sv.substeps);
    const bool adaptive = sv.adaptive.tolerance > 0.0f && sv.integrator != Integrator::symplectic;
    s.step = adaptive ? substep / (2.0 * static_cast<double>(sv.adaptive.max_steps)) : substep;
    auto substeps_below = [&](double bound) {
      return static_cast<std::uint64_t>(std::floor(time_step / bound)) + 1u;
    };
    if (s.network_bound > 0.0) {
      s.network_substeps_needed = substeps_below(s.network_bound);
      if (adaptive) s.network_ode_steps_needed = ode_steps_below(0.5 * substep, s.network_bound);
    }
    if (s.bound > 0.0) {
      s.substeps_needed = substeps_below(s.bound);
      if (adaptive) s.ode_steps_needed = ode_steps_below(0.5 * substep, s.bound);
    } else {
      const double y = s.step * s.omega;
      const double per_step =
          s.integrator == Integrator::euler ? 1.0 + y * y : 1.0 + y * y * y * y / 4.0;
      s.growth_per_period = std::pow(per_step, 2.0 * std::numbers::pi / y);
    }
    return s;
  });
}

std::string stability_warning(const SpringStability& s) {
  if (!s.past() && s.assured()) return {};
  const std::string spring = fmt::format(
      "force spring {} (k {:.4g} N/m, c {:.4g} kg/s, masses {} and {}: omega {:.4g} "
      "rad/s)",
      s.spring, s.k, s.c, mass_text(s.mass_a), mass_text(s.mass_b), s.omega);
  const std::string method = integrator_name(s.integrator);
  if (s.bound == 0.0) {
    return fmt::format(
        "{} is unstable at every step under solver.integrator \"{}\" without damping: its energy "
        "grows x{:.4g} per period at step {:.4g} s; give it damping{}, or use \"symplectic\" "
        "(stable below h = {:.4g} s), \"rk4\" ({:.4g} s) or \"implicit\" (any step)",
        spring, method, s.growth_per_period, s.step,
        s.integrator == Integrator::euler
            ? fmt::format(" c > k h = {:.4g} kg/s (underdamped, euler is stable below h = c / k)",
                          s.k * s.step)
            : std::string(),
        2.0 / s.omega, 2.0 * std::numbers::sqrt2 / s.omega);
  }
  auto fix = [](std::uint64_t ode_steps, std::uint64_t substeps) {
    return ode_steps ? fmt::format("solver.adaptive.max_steps {}", ode_steps)
                     : fmt::format("solver.substeps {}{}", substeps,
                                   substeps > 64 ? " (more than the 64 allowed)" : "");
  };
  const std::string network = fmt::format(
      "its network's fastest mode can reach omega {:.4g} rad/s (Gershgorin), stable below {:.4g} "
      "s",
      s.network_omega, s.network_bound);
  const std::string exempt =
      "or use solver.integrator \"implicit\" or compliant springs (stable at any step)";
  if (s.past()) {
    // A lone spring, or a network no faster than its stiffest spring can be: one bound.
    const std::string also =
        s.network_bound < s.bound
            ? fmt::format(" ({}; {} would assure it)", network,
                          fix(s.network_ode_steps_needed, s.network_substeps_needed))
            : std::string();
    return fmt::format(
        "{} is past its explicit stability bound under solver.integrator \"{}\": step {:.4g} s "
        "(h omega {:.4g}), stable below {:.4g} s (h omega {:.4g}); it will blow up. {} would "
        "hold it{}, {}",
        spring, method, s.step, s.step * s.omega, s.bound, s.bound * s.omega,
        fix(s.ode_steps_needed, s.substeps_needed), also, exempt);
  }
  return fmt::format(
      "the force springs may blow up under solver.integrator \"{}\": step {:.4g} s is within the "
      "stiffest spring's own bound, {:.4g} s ({}), but {}. {} would assure it, {}",
      method, s.step, s.bound, spring, network,
      fix(s.network_ode_steps_needed, s.network_substeps_needed), exempt);
}

}  // namespace vkphys
