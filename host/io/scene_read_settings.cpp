// Scene file sections "gravity", "time_step", "drag", "contact_margin", "cell_size" (the
// top-level settings), "solver" and "forces" (version 2). The solver's spook_k and spook_d are
// not settings of their own: they are the defaults for the materials and joints that leave
// theirs out.
#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "host/io/scene_json.h"
#include "host/io/scene_names.h"
#include "host/io/scene_reader.h"

namespace vkphys::io::scene_reader {

using namespace scene_json;

void SceneParser::read_settings(const Object& top) {
  Settings& s = scene_.settings;
  if (auto f = top.get("gravity")) s.gravity = bounded_vec3(*f, kAcceleration);
  if (auto f = top.get("time_step")) {
    s.time_step = f->as_float();
    f->check(s.time_step > 0.0f && s.time_step <= 0.1f, "must be in (0, 0.1] seconds");
  }
  s.drag = 0.0f;
  if (auto f = top.get("drag")) s.drag = f->non_negative();
  s.contact_margin = -1.0f;  // automatic
  if (auto f = top.get("contact_margin")) {
    s.contact_margin = f->non_negative();
    f->check(static_cast<double>(s.contact_margin) <= kMaxMargin,
             fmt::format("must be <= {:g} m (a margin of about the largest speed times "
                         "time_step is enough; a wider one makes far pairs contacts)",
                         kMaxMargin));
  }
  s.cell_size = 0.0f;  // automatic
  cell_size_field_ = top.get("cell_size");
  if (cell_size_field_) s.cell_size = cell_size_field_->positive();
}

void SceneParser::read_solver(const Object& top) {
  SolverSettings& s = scene_.settings.solver;
  // Version 1 predates the manifold cache, the joint trees and the speculative reach: its files
  // run without them, as they did (the seed scenes among them reproduce documents that have none).
  if (version_ < 2) {
    s.contact_cache = false;
    s.joint_trees = false;
    s.speculative_reach = false;
    s.jacobi_contact_relaxation = 1.0f;
  }
  auto f = top.get("solver");
  if (!f) return;
  Object o = versioned(
      *f,
      {"iterations", "relaxation", "restitution_threshold", "friction", "warm_start", "spook_k",
       "spook_d", "scheme", "restitution", "friction_model", "split_impulse", "gyroscopic",
       "max_colors", "contact_hertz"},
      {"substeps", "relax_iterations", "impact_passes", "integrator", "adaptive", "cg_tolerance",
       "cg_max_iterations", "cg_preconditioner", "strain_limit", "contact_cache", "joint_trees",
       "speculative_reach", "jacobi_contact_relaxation", "particle_reorder"});
  if (auto g = o.get("iterations")) s.iterations = static_cast<std::uint32_t>(g->as_uint(1, 1000));
  if (auto g = o.get("relaxation")) {
    s.relaxation = g->as_float();
    g->check(s.relaxation > 0.0f && s.relaxation <= 1.0f, "must be in (0, 1]");
  }
  if (auto g = o.get("jacobi_contact_relaxation")) {
    s.jacobi_contact_relaxation = g->as_float();
    g->check(s.jacobi_contact_relaxation > 0.0f && s.jacobi_contact_relaxation <= 1.0f,
             "must be in (0, 1]");
  }
  if (auto g = o.get("restitution_threshold")) s.restitution_threshold = g->non_negative();
  if (auto g = o.get("friction")) s.friction = g->as_bool();
  if (auto g = o.get("contact_cache")) s.contact_cache = g->as_bool();
  if (auto g = o.get("joint_trees")) s.joint_trees = g->as_bool();
  if (auto g = o.get("speculative_reach")) s.speculative_reach = g->as_bool();
  if (auto g = o.get("warm_start")) {
    s.warm_start = g->as_float();
    g->check(s.warm_start >= 0.0f && s.warm_start <= 1.0f, "must be in [0, 1]");
  }
  if (auto g = o.get("spook_k")) default_k_ = g->positive();
  if (auto g = o.get("spook_d")) default_d_ = g->non_negative();
  if (auto g = o.get("scheme")) {
    s.scheme = static_cast<SolverScheme>(choice(*g, kSchemeNames));
    scheme_given_ = true;
  }
  if (auto g = o.get("restitution")) {
    s.restitution = static_cast<RestitutionModel>(choice(*g, kRestitutionNames));
  }
  if (auto g = o.get("friction_model")) {
    s.friction_model = static_cast<FrictionModel>(choice(*g, kFrictionModelNames));
  }
  if (auto g = o.get("split_impulse")) s.split_impulse = g->as_bool();
  if (auto g = o.get("gyroscopic")) s.gyroscopic = g->as_bool();
  if (auto g = o.get("max_colors")) s.max_colors = static_cast<std::uint32_t>(g->as_uint(1, 30));
  if (auto g = o.get("substeps")) s.substeps = static_cast<std::uint32_t>(g->as_uint(1, 64));
  if (auto g = o.get("relax_iterations")) {
    s.relax_iterations = static_cast<std::uint32_t>(g->as_uint(0, 1000));
  }
  if (auto g = o.get("impact_passes")) {
    s.impact_passes = static_cast<std::uint32_t>(g->as_uint(1, 64));
  }
  if (auto g = o.get("particle_reorder")) {
    s.particle_reorder = static_cast<std::uint32_t>(g->as_uint(0, 1000000000));
  }
  if (auto g = o.get("integrator")) {
    s.integrator = static_cast<Integrator>(choice(*g, kIntegratorNames));
  }
  if (auto g = o.get("adaptive")) {
    Object a(*g, {"tolerance", "max_steps"});
    s.adaptive.tolerance = a.require("tolerance").positive();
    if (auto h = a.get("max_steps")) {
      s.adaptive.max_steps = static_cast<std::uint32_t>(h->as_uint(1, 4096));
    }
    g->check(s.integrator != Integrator::symplectic && s.integrator != Integrator::implicit,
             "needs an explicit solver.integrator (euler, midpoint or rk4); the symplectic step "
             "is refined with solver.substeps, the implicit one needs no error control");
  }
  if (auto g = o.get("strain_limit")) {
    Object a(*g, {"stretch", "passes"});
    const Field stretch = a.require("stretch");
    s.strain_limit.stretch = stretch.positive();
    stretch.check(s.strain_limit.stretch <= 10.0f, "must be in (0, 10] (L / rest - 1 at most)");
    if (auto h = a.get("passes")) {
      s.strain_limit.passes = static_cast<std::uint32_t>(h->as_uint(1, 64));
    }
  }
  if (auto g = o.get("cg_tolerance")) {
    s.cg_tolerance = g->positive();
    g->check(s.cg_tolerance < 1.0f,
             "must be in (0, 1) (the residual relative to the right-hand side)");
  }
  if (auto g = o.get("cg_max_iterations")) {
    s.cg_max_iterations = static_cast<std::uint32_t>(g->as_uint(1, 1000));
  }
  if (auto g = o.get("cg_preconditioner")) {
    s.cg_preconditioner = static_cast<CgPreconditioner>(choice(*g, kCgPreconditionerNames));
  }
  if (auto g = o.get("contact_hertz")) {
    contact_hertz_given_ = true;
    s.contact_hertz = g->non_negative();
    g->check(s.contact_hertz <= 1.0e4f, "must be <= 1e4 Hz (0 disables the cap)");
  }
}

// Version 2: fields that act on every body and particle besides gravity and the linear drag.
void SceneParser::read_forces(const Object& top) {
  auto f = top.get("forces");
  if (!f) return;
  Object o(*f, {"quadratic_drag", "central", "wind"});
  if (auto g = o.get("quadratic_drag")) {
    Object q(*g, {"density", "coefficient"});
    QuadraticDrag& d = scene_.settings.quadratic_drag;
    d.density = q.require("density").non_negative();
    if (auto h = q.get("coefficient")) d.coefficient = h->non_negative();
  }
  if (auto g = o.get("central")) {
    Object c(*g, {"center", "strength", "law"});
    CentralField& field = scene_.settings.central;
    field.center = c.require("center").as_vec3();
    field.strength = c.require("strength").non_negative();
    if (auto h = c.get("law")) field.law = static_cast<CentralLaw>(choice(*h, kCentralLawNames));
  }
  if (auto g = o.get("wind")) {
    Object w(*g, {"velocity", "density", "drag", "lift", "skin_friction"});
    Wind& wind = scene_.settings.wind.emplace();
    wind.velocity = w.require("velocity").as_vec3();
    if (auto h = w.get("density")) wind.density = h->non_negative();
    if (auto h = w.get("drag")) wind.drag = h->non_negative();
    if (auto h = w.get("lift")) wind.lift = h->non_negative();
    if (auto h = w.get("skin_friction")) wind.skin_friction = h->non_negative();
  }
}

}  // namespace vkphys::io::scene_reader
