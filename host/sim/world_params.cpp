// make_world_params (host/sim/world_setup.h): the step constants every kernel reads
// (kern::WorldParams, kernels/world_layout.h), made once per capacity change and checked on the
// way: every solver and force setting a kernel relies on is refused here with its name, value
// and limit, so a scene that loads runs on both backends.
#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>

#include "host/sim/finite.h"
#include "host/sim/world_setup.h"
#include "kernels/ode.h"
#include "vkphys/limits.h"

namespace vkphys {
namespace {

// The speculative contact margin. Positive: as given. Otherwise automatic: 2 cm when the scene
// has rigid bodies (their default since the rigid-body step began), else 5% of the largest
// particle radius; an explicit 0 in a scene of particles only is no margin at all.
float contact_margin(const Settings& s, const WorldArrays& w) {
  if (s.contact_margin > 0.0f) return s.contact_margin;
  if (w.sweepers > 0) return 0.02f;
  return s.contact_margin == 0.0f ? 0.0f : 0.05f * w.max_particle_radius;
}

// The largest distance at which two particles' (or a particle and a body's) boxes meet: the
// particle grid's smallest cell and the sweep's backward reach.
float particle_reach(float margin, const WorldArrays& w) {
  return 2.0f * w.max_pair_radius + margin;
}

// The contact stiffness cap's frequency (kernels/contact_manifold.inl, contact_stiffness):
// solver.contact_hertz, but at most half the substep rate, so a capped contact never oscillates
// faster than the substep can resolve (omega h <= pi; Box2D v3 clamps its contact hertz to a
// quarter of the substep rate the same way). The rate is rounded to whole hertz, so that a 60 Hz
// step's cap is exactly 30 Hz (1 / float(1/60) is not exactly 60). Measured (ARCHITECTURE.md,
// "Contact stiffness"): 30 Hz made a column of 24 cubes at 8 substeps nearly neutrally stable
// (its lean mode about 98 s), 35 Hz holds it, and a 60 Hz step with one substep keeps its 30 Hz,
// where a plain 35 Hz set the 20-row pyramid rocking at 1 x 25.
// A rate below half a hertz (a step of seconds, which only a scene built in code can have) is
// not rounded: rounded to 0 it would read as "no cap".
float contact_cap_hertz(const SolverSettings& sv, float time_step) {
  const float rate = static_cast<float>(sv.substeps) / time_step;
  const float whole = std::round(rate);
  return std::min(sv.contact_hertz, 0.5f * (whole >= 1.0f ? whole : rate));
}

// The step's own settings: a scene built in code (the API, the built-in scenes) never passed
// the file reader (host/io/scene_read_settings.cpp), and a time step of 0, a NaN gravity or 0
// iterations would otherwise run and make nonsense or NaN (0 iterations: every contact and joint
// silently ignored). The file's limits, but for the upper ones of the time step (0.1 s) and the
// iterations (1000): code may step longer, as the integrator tests do past the explicit methods'
// stable steps, and iterate longer, as the tests that need a converged reference do.
void check_step(const Settings& s) {
  if (!(s.time_step > 0.0f) || !std::isfinite(s.time_step)) {
    throw std::invalid_argument("time_step = " + std::to_string(s.time_step) +
                                ": must be a finite number of seconds > 0");
  }
  for (int k = 0; k < 3; ++k) {
    if (!(std::abs(s.gravity[k]) <= kMaxAcceleration)) {
      throw std::invalid_argument("gravity[" + std::to_string(k) +
                                  "] = " + std::to_string(s.gravity[k]) + ": must be within +-" +
                                  std::to_string(kMaxAcceleration) + " m/s^2");
    }
  }
  const SolverSettings& sv = s.solver;
  if (sv.iterations < 1) {
    throw std::invalid_argument("solver.iterations = 0: must be at least 1");
  }
  if (!(sv.relaxation > 0.0f && sv.relaxation <= 1.0f)) {
    throw std::invalid_argument("solver.relaxation = " + std::to_string(sv.relaxation) +
                                ": must be in (0, 1]");
  }
  if (!(sv.jacobi_contact_relaxation > 0.0f && sv.jacobi_contact_relaxation <= 1.0f)) {
    throw std::invalid_argument(
        "solver.jacobi_contact_relaxation = " + std::to_string(sv.jacobi_contact_relaxation) +
        ": must be in (0, 1]");
  }
  if (!(sv.warm_start >= 0.0f && sv.warm_start <= 1.0f)) {
    throw std::invalid_argument("solver.warm_start = " + std::to_string(sv.warm_start) +
                                ": must be in [0, 1]");
  }
}

// solver.integrator and solver.adaptive (vkphys/scene.h).
void check_integrator(const SolverSettings& sv) {
  if (static_cast<std::uint32_t>(sv.integrator) > VKPHYS_INTEGRATOR_IMPLICIT) {
    throw std::invalid_argument(
        "solver.integrator = " + std::to_string(static_cast<std::uint32_t>(sv.integrator)) +
        ": must be symplectic, euler, midpoint, rk4 or implicit");
  }
  if (!(sv.cg_tolerance > 0.0f && sv.cg_tolerance < 1.0f)) {
    throw std::invalid_argument("solver.cg_tolerance = " + std::to_string(sv.cg_tolerance) +
                                ": must be in (0, 1) (the residual relative to the right-hand "
                                "side)");
  }
  if (sv.cg_max_iterations < 1 || sv.cg_max_iterations > 1000) {
    throw std::invalid_argument("solver.cg_max_iterations = " +
                                std::to_string(sv.cg_max_iterations) + ": must be in [1, 1000]");
  }
  const StrainLimit& sl = sv.strain_limit;
  if (!(sl.stretch >= 0.0f && sl.stretch <= 10.0f)) {
    throw std::invalid_argument("solver.strain_limit.stretch = " + std::to_string(sl.stretch) +
                                ": must be in [0, 10] (0: off)");
  }
  if (sl.passes < 1 || sl.passes > 64) {
    throw std::invalid_argument("solver.strain_limit.passes = " + std::to_string(sl.passes) +
                                ": must be in [1, 64]");
  }
  const AdaptiveStep& a = sv.adaptive;
  if (!(a.tolerance >= 0.0f) || !std::isfinite(a.tolerance)) {
    throw std::invalid_argument("solver.adaptive.tolerance = " + std::to_string(a.tolerance) +
                                ": must be a finite number >= 0 (0: a fixed step)");
  }
  if (a.max_steps < 1 || a.max_steps > 4096) {
    throw std::invalid_argument("solver.adaptive.max_steps = " + std::to_string(a.max_steps) +
                                ": must be in [1, 4096]");
  }
  if (a.tolerance > 0.0f &&
      (sv.integrator == Integrator::symplectic || sv.integrator == Integrator::implicit)) {
    throw std::invalid_argument(
        "solver.adaptive needs an explicit solver.integrator (euler, midpoint or rk4); the "
        "symplectic step is refined with solver.substeps, the implicit one needs no error "
        "control");
  }
}

}  // namespace

// The sweep's slab width W along z (kernels/world_broadphase.inl), or 0 for one slab. W must be
// at least every bounding box's extent along z and x: a sphere's 2 r, a capsule's 2 (h + r), a
// box's at most 2 |half extents| (its extent along an axis is 2 sum_k |u_k . axis| e_k, and the
// |u_k . axis| of an orthonormal frame are a unit vector), a particle's 2 r, each with the
// margin; a quarter more covers the rounding of min z / W (kernels/world_broadphase.inl,
// sweep_slab). Slabs are cut when the world starts with at least kSlabMinSweepers rigid bodies
// that sweep and its bodies' centres span at least kSlabMinSpan slab widths in z: below that a
// walk along x alone is short, and the slab sort and its pass (on the GPU, a dispatch and a
// 10-bit sort) would not pay. The choice is made once, from the scene as loaded (build_world), so
// a world keeps it.
float sweep_slab_width(const Settings& settings, const WorldArrays& w) {
  constexpr std::uint32_t kSlabMinSweepers = 256;
  constexpr float kSlabMinSpan = 4.0f;
  if (w.sweepers < kSlabMinSweepers) return 0.0f;
  const float margin = contact_margin(settings, w);
  float extent = w.particles() > 0 ? particle_reach(margin, w) : 0.0f;
  float lo = INFINITY;
  float hi = -INFINITY;
  for (std::uint32_t i = 0; i < w.bodies(); ++i) {
    const bool particle = i >= w.rigid;
    const auto shape = static_cast<Shape>(w.info[i].x);
    if (!particle) {
      const glm::vec4 d = w.dims[i];
      if (shape == Shape::sphere) {
        extent = std::max(extent, 2.0f * d.w + margin);
      } else if (shape == Shape::capsule) {
        extent = std::max(extent, 2.0f * (d.y + d.w) + margin);
      } else if (shape == Shape::box) {
        extent = std::max(extent, 2.0f * glm::length(glm::vec3(d)) + margin);
      } else {
        continue;  // planes and shapeless bodies are not in the sweep
      }
    }
    lo = std::min(lo, w.pos[i].z);
    hi = std::max(hi, w.pos[i].z);
  }
  const float width = 1.25f * extent;
  return width > 0.0f && hi - lo >= kSlabMinSpan * width ? width : 0.0f;
}

kern::WorldParams make_world_params(const Scene& scene, const WorldArrays& world,
                                    const Capacities& cap) {
  const Settings& s = scene.settings;
  const SolverSettings& sv = s.solver;
  kern::WorldParams p{};
  check_step(s);
  if (sv.substeps < 1 || sv.substeps > 64) {
    throw std::invalid_argument("solver.substeps = " + std::to_string(sv.substeps) +
                                ": must be in [1, 64]");
  }
  if (sv.relax_iterations > 1000) {
    throw std::invalid_argument("solver.relax_iterations = " + std::to_string(sv.relax_iterations) +
                                ": must be <= 1000");
  }
  if (world.particles() > 0 && sv.split_impulse) {
    throw std::invalid_argument(
        "solver.split_impulse is not supported in scenes with particles (a particle keeps no "
        "second velocity to integrate with); use solver.substeps with relax_iterations instead");
  }
  check_integrator(sv);
  if (sv.split_impulse && sv.substeps > 1) {
    throw std::invalid_argument(
        "solver.split_impulse and solver.substeps > 1 both remove the position correction's "
        "velocity; choose one (the substeps' relax sweeps do it with substeps)");
  }
  // Every kernel steps by the substep: forces, targets, SPOOK coefficients, integration.
  p.gravity_dt = glm::vec4(s.gravity, s.time_step / static_cast<float>(sv.substeps));
  p.solver =
      glm::vec4(sv.relaxation, sv.restitution_threshold, sv.friction ? 1.0f : 0.0f, sv.warm_start);
  const bool jacobi = sv.scheme == SolverScheme::jacobi;
  p.manifold = glm::vec4(jacobi ? sv.jacobi_contact_relaxation : 1.0f, 0.0f, 0.0f, 0.0f);
  const float margin = contact_margin(s, world);
  if (!(sv.contact_hertz >= 0.0f) || !std::isfinite(sv.contact_hertz)) {
    throw std::invalid_argument("solver.contact_hertz = " + std::to_string(sv.contact_hertz) +
                                ": must be a finite number >= 0");
  }
  if (!(s.drag >= 0.0f) || !std::isfinite(s.drag)) {
    throw std::invalid_argument("drag = " + std::to_string(s.drag) +
                                ": must be a finite number >= 0");
  }
  // A row's SPOOK relaxation d is counted in steps; a substep's rows count it in substeps.
  p.contact = glm::vec4(margin, glm::length(s.gravity), contact_cap_hertz(sv, s.time_step),
                        static_cast<float>(sv.substeps));
  const QuadraticDrag& qd = s.quadratic_drag;
  if (!(qd.density >= 0.0f) || !std::isfinite(qd.density) || !(qd.coefficient >= 0.0f) ||
      !std::isfinite(qd.coefficient)) {
    throw std::invalid_argument("forces.quadratic_drag: density " + std::to_string(qd.density) +
                                " and coefficient " + std::to_string(qd.coefficient) +
                                " must be finite numbers >= 0");
  }
  p.drag = glm::vec4(s.drag, 0.5f * qd.density * qd.coefficient, 0.0f, 0.0f);
  const CentralField& cf = s.central;
  if (!(cf.strength >= 0.0f) || !std::isfinite(cf.strength) || !finite(cf.center) ||
      (cf.law != CentralLaw::inverse_square && cf.law != CentralLaw::linear)) {
    throw std::invalid_argument("forces.central: strength " + std::to_string(cf.strength) +
                                " must be finite and >= 0, the centre finite, the law known");
  }
  p.central = glm::vec4(cf.center, cf.strength);
  if (s.wind) {
    const Wind& wind = *s.wind;
    if (!finite(wind.velocity)) {
      throw std::invalid_argument("forces.wind.velocity = (" + std::to_string(wind.velocity.x) +
                                  ", " + std::to_string(wind.velocity.y) + ", " +
                                  std::to_string(wind.velocity.z) + "): must be finite");
    }
    const std::pair<const char*, float> coefficients[] = {{"density", wind.density},
                                                          {"drag", wind.drag},
                                                          {"lift", wind.lift},
                                                          {"skin_friction", wind.skin_friction}};
    for (const auto& [name, value] : coefficients) {
      if (!(value >= 0.0f) || !std::isfinite(value)) {
        throw std::invalid_argument(std::string("forces.wind.") + name + " = " +
                                    std::to_string(value) + ": must be a finite number >= 0");
      }
    }
    p.drag.z = 0.5f * wind.density * wind.drag;
    p.drag.w = 0.5f * wind.density * wind.lift;
    // A sheet's two wetted faces: 2 x 1/2 rho C_f (a closed surface's one takes half,
    // kernels/aero.h).
    p.wind = glm::vec4(wind.velocity, wind.density * wind.skin_friction);
  }
  p.aero = glm::uvec4(world.wind_triangles(), 0u, 0u, 0u);
  p.joint_use = glm::uvec4(world.multi_row_joints, world.framed_joints, 0u, 0u);
  p.trees = glm::uvec4(world.trees(), static_cast<std::uint32_t>(world.tree_nodes.size()), 0u, 0u);
  p.lines = glm::uvec4(static_cast<std::uint32_t>(sv.cg_preconditioner), world.cg_line_counts.x,
                       world.cg_line_counts.y, 0u);
  if (sv.strain_limit.stretch > 0.0f && world.force_springs() == 0) {
    throw std::invalid_argument(
        "solver.strain_limit: the scene has no force springs to limit (compliant springs and "
        "tethers are rows, held by their own solve)");
  }
  p.strain = glm::vec4(sv.strain_limit.stretch, 0.0f, 0.0f, 0.0f);
  const float reach = particle_reach(margin, world);
  const float cell = s.cell_size > 0.0f ? s.cell_size : (reach > 0.0f ? reach : 1.0f);
  if (world.particles() > 0 && cell < reach) {
    throw std::invalid_argument("cell_size " + std::to_string(cell) +
                                " is smaller than the largest contact reach 2 max(r, t/2) + "
                                "margin = " +
                                std::to_string(reach));
  }
  p.grid = glm::vec4(cell, 1.0f / cell, reach, 0.0f);
  const float slab = world.sweep_slab;
  p.sweep = glm::vec4(slab, slab > 0.0f ? 1.0f / slab : 0.0f, 0.0f, 0.0f);
  const std::uint64_t units = std::uint64_t{world.joints()} + cap.pairs + cap.contacts;
  if (units >= (1u << 24)) {
    throw std::invalid_argument(
        std::to_string(world.joints()) + " joints + " + std::to_string(cap.pairs) + " pairs + " +
        std::to_string(cap.contacts) +
        " particle contacts: the solver takes at most 2^24 - 1 units (use fewer bodies or "
        "particles, or a smaller contact_margin)");
  }
  p.counts = glm::uvec4(world.bodies(), world.joints(), cap.pairs, pair_hash_size(cap.pairs));
  p.kinds =
      glm::uvec4(world.rigid, world.particles(), cap.contacts, grid_table_size(world.particles()));
  const std::uint32_t flags =
      (sv.split_impulse ? VKPHYS_FLAG_SPLIT : 0u) | (sv.gyroscopic ? VKPHYS_FLAG_GYROSCOPIC : 0u) |
      (world.particle_pairs ? VKPHYS_FLAG_PARTICLE_PAIRS : 0u) |
      (sv.contact_cache ? VKPHYS_FLAG_CONTACT_CACHE : 0u) |
      (sv.speculative_reach ? VKPHYS_FLAG_SPECULATIVE_REACH : 0u);
  p.modes =
      glm::uvec4(static_cast<std::uint32_t>(sv.scheme), static_cast<std::uint32_t>(sv.restitution),
                 static_cast<std::uint32_t>(sv.friction_model), flags);
  if (sv.max_colors < 1 || sv.max_colors > 30) {
    throw std::invalid_argument("solver.max_colors = " + std::to_string(sv.max_colors) +
                                ": must be in [1, 30]");
  }
  p.coloring = glm::uvec4(sv.max_colors, 2u, static_cast<std::uint32_t>(world.plane_bodies.size()),
                          static_cast<std::uint32_t>(units));
  p.drive = glm::uvec4(static_cast<std::uint32_t>(cf.law), world.drive.paths(), 0u, 0u);
  const float tolerance =
      sv.integrator == Integrator::implicit ? sv.cg_tolerance : sv.adaptive.tolerance;
  p.ode = glm::uvec4(static_cast<std::uint32_t>(sv.integrator), world.force_springs(),
                     sv.cg_max_iterations, std::bit_cast<std::uint32_t>(tolerance));
  for (std::size_t k = 0; k < world.plane_bodies.size(); ++k) {
    p.plane_bodies[k / 4][static_cast<int>(k % 4)] = world.plane_bodies[k];
  }
  if (scene.materials.empty() || scene.materials.size() > VKPHYS_MAX_MATERIALS) {
    throw std::invalid_argument(std::to_string(scene.materials.size()) + " materials; 1 to " +
                                std::to_string(VKPHYS_MAX_MATERIALS) + " are allowed");
  }
  for (std::size_t m = 0; m < scene.materials.size(); ++m) {
    const Material& mat = scene.materials[m];
    p.materials[m] = glm::vec4(mat.restitution, mat.friction, mat.spook_k, mat.spook_d);
  }
  return p;
}

}  // namespace vkphys
