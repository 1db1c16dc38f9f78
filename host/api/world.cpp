// vkphys::World (vkphys/world.h): a scene on a backend behind the public API. Every internal
// exception leaves as vkphys::Error with its message unchanged, which is the line the CLI prints.
#include "vkphys/world.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <utility>

#include "host/api/guarded.h"
#include "host/api/snapshot_data.h"
#include "host/api/world_internal.h"
#include "host/gpu/renderer.h"
#include "host/io/scene_file.h"
#include "host/io/surface_mesh.h"
#include "host/sim/compare.h"
#include "host/sim/finite.h"
#include "host/sim/metrics.h"
#include "host/sim/mouse_spring.h"
#include "host/sim/spring_strain.h"
#include "host/vk/context.h"
#include "vkphys/error.h"

namespace vkphys {

namespace {

// What step(n, after_each)'s callback threw, carried out to step() and rethrown there.
struct CallerThrew {
  std::exception_ptr error;
};

}  // namespace

struct World::Impl {
  Scene scene;
  std::string kind;  // "cpu" or "gpu"
  // GPU only; outlives the backend (declared first). Its own, or a SharedDevice's.
  std::shared_ptr<vk::Context> ctx;
  std::unique_ptr<Backend> backend;
  MassTable masses;
  WorldState state;  // the host copy state() views: sizes, and so addresses, never change
  // What refresh() reads into before checking it; kept, so that a read allocates nothing.
  WorldState fresh;
  std::uint64_t steps = 0;
  // Set when the GPU failed under a step (device lost, out of device memory): the backend's
  // buffers are then no longer trusted, so only state() (the last good step) stays usable.
  std::string failed;
  std::uint64_t held = 0;  // the step whose state the host copy holds
  // ReadBack::on_demand: the last step whose state a read tried to bring in (a read that found
  // NaN leaves `held` behind and is not tried again for that step).
  std::uint64_t read_tried = 0;
  WorldOptions options;
  // The contact lists of the step that led to the held state (WorldOptions::record_contacts),
  // when `traced`; a World that has taken no step holds an empty one (nothing touched yet).
  StepTrace trace;
  bool traced = false;
  bool stepped = false;  // this World has taken a step (constraint_errors is zero before)
  // Inside step(n, after_each)'s callback: the backend may already be running the next step.
  bool in_after_each = false;
  // render(): a CPU World's own Vulkan context (or a SharedDevice's), and the renderer of the last
  // picture's size (declared last: it goes before the contexts it draws with).
  mutable std::shared_ptr<vk::Context> draw_ctx;
  mutable std::unique_ptr<gpu::Renderer> renderer;

  Impl(Scene s, const WorldOptions& opts, const std::string& default_kind)
      : scene(std::move(s)),
        kind(opts.backend.empty() ? default_kind : opts.backend),
        options(opts),
        traced(opts.record_contacts) {
    if (kind != "cpu" && kind != "gpu") {
      throw Error(fmt::format("backend \"{}\": expected cpu or gpu", kind));
    }
    constexpr FusedPolicy kPolicy[] = {FusedPolicy::automatic, FusedPolicy::never,
                                       FusedPolicy::always};
    const auto fused = static_cast<std::size_t>(opts.fused);
    if (fused >= std::size(kPolicy)) {
      throw Error(
          fmt::format("WorldOptions::fused = {}: expected automatic, never or always", fused));
    }
    if (opts.read_back != ReadBack::every_step && opts.read_back != ReadBack::on_demand) {
      throw Error(fmt::format("WorldOptions::read_back = {}: expected every_step or on_demand",
                              static_cast<std::uint32_t>(opts.read_back)));
    }
    if (opts.shared_device.is_open()) {
      // The shared device was picked and its layers set when it was opened.
      if (!opts.device.empty() || opts.validation || opts.sync_validation) {
        throw Error(
            fmt::format("WorldOptions: device \"{}\", validation {} and sync_validation {} with a "
                        "shared_device: set them on SharedDevice::open instead",
                        opts.device, opts.validation, opts.sync_validation));
      }
      (kind == "gpu" ? ctx : draw_ctx) = SharedDeviceInternals::context_ptr(opts.shared_device);
    }
    if (kind == "cpu") {
      backend = make_cpu_backend();
    } else {
      if (!ctx) ctx = vk::Context::create(context_options());
      backend = make_gpu_backend(*ctx, std::nullopt, kPolicy[fused]);
    }
    masses = mass_table(scene);
    // The CPU backend names the stage that made a NaN; on demand the check waits for the read,
    // so that step() runs the steps alone.
    backend->check_stages(opts.read_back == ReadBack::every_step);
  }

  vk::ContextOptions context_options() const {
    return {.device = options.device,
            .validation = options.validation,
            .sync_validation = options.sync_validation};
  }

  // After a load or a restore: the first state, which must be finite.
  void start() {
    held = read_tried = steps;
    backend->read(state);
    if (std::string bad = nonfinite(state); !bad.empty()) {
      throw Error(fmt::format("step {}: {} starts with a NaN or infinite value", steps, bad));
    }
  }

  // The body or particle with a NaN or infinite value in `s`, or empty.
  std::string nonfinite(const WorldState& s) const {
    const std::optional<BodyRef> bad = first_nonfinite(s);
    return bad ? describe(scene, *bad) : std::string();
  }

  // World index i (the scene's bodies, the plane bodies, then the particles).
  std::string describe_world_index(std::uint32_t i) const {
    const auto rigid = static_cast<std::uint32_t>(state.pos.size());
    return describe(scene, i < rigid ? BodyRef{i, false} : BodyRef{i - rigid, true});
  }

  // n steps; with `record`, the last one's contact lists go to `trace`. The backend takes them
  // together (the GPU's pipelined: Backend::steps); after a throw, the steps it took stand.
  // With `after_each`, every step's state is read (and checked) and then `after_each` called.
  void step_many(std::uint32_t n, bool record, const std::function<void()>* after_each = nullptr) {
    traced = false;  // until the steps complete, `trace` is of no held state
    const std::uint64_t before = backend->steps_taken(), base = steps;
    auto taken = [&] { steps = base + (backend->steps_taken() - before); };
    const std::function<void()> each = [&] {
      taken();
      read_tried = steps;
      refresh();
      traced = record;
      stepped = true;
      in_after_each = true;
      struct Leave {
        bool& flag;
        ~Leave() { flag = false; }
      } leave{in_after_each};
      try {
        (*after_each)();
      } catch (...) {
        // Through the backend and guarded() as it is, not turned into an Error.
        throw CallerThrew{std::current_exception()};
      }
    };
    try {
      backend->steps(n, record ? &trace : nullptr, after_each ? &each : nullptr);
    } catch (const NonFiniteState& e) {
      taken();
      // The GPU finds it with the step's own check (kernels/world_bodies.inl,
      // flag_nonfinite), and keeps the step's start: the World then holds that state.
      if (e.start_kept) refresh();
      throw NonFiniteError(steps + 1,
                           fmt::format("the {} stage made {} NaN or infinite", stage_name(e.stage),
                                       describe_world_index(e.body)));
    } catch (const vk::Error& e) {
      taken();
      fail(steps + 1, e);
    }
    taken();
    traced = record;
    stepped = true;
  }

  // A GPU failure at step `at`: the World keeps the host copy's state and step (`held`) and
  // takes no more steps.
  [[noreturn]] void fail(std::uint64_t at, const vk::Error& e) {
    steps = held;
    failed = fmt::format("step {}: {}", at, e.what());
    throw Error(failed);
  }

  // Throws Error for `call` after a GPU failure (see `failed`), or from inside after_each.
  void usable(const char* call) const {
    if (in_after_each) {
      throw Error(fmt::format(
          "{}: called from inside step(n, after_each), with the next step already running; call "
          "it after step() returns",
          call));
    }
    if (failed.empty()) return;
    throw Error(fmt::format(
        "{}: this World's GPU backend failed ({}); state() still holds the last good step: "
        "start a new World from a checkpoint or from it",
        call, failed));
  }

  // Reads the backend's state into the host copy, unless it is not finite: then the copy keeps
  // the last finite state and NonFiniteError names the body.
  void refresh() {
    try {
      backend->read(fresh);
    } catch (const vk::Error& e) {
      fail(steps, e);  // the step ran, but its result cannot be read back
    }
    if (std::string bad = nonfinite(fresh); !bad.empty()) {
      traced = false;  // the held state is an earlier step's
      throw NonFiniteError(steps, bad + " has a NaN or infinite position, orientation or velocity");
    }
    auto into = [](std::vector<glm::vec4>& to, const std::vector<glm::vec4>& from) {
      std::copy(from.begin(), from.end(), to.begin());
    };
    into(state.pos, fresh.pos);
    into(state.rot, fresh.rot);
    into(state.vel, fresh.vel);
    into(state.omega, fresh.omega);
    into(state.particles.pos_radius, fresh.particles.pos_radius);
    into(state.particles.vel_invmass, fresh.particles.vel_invmass);
    held = steps;
  }

  // The host copy's array of `f`, in Field's order.
  // Brings the held state up to the last step (ReadBack::on_demand), once per step.
  void sync() {
    if (held == steps || read_tried == steps || !failed.empty()) return;
    read_tried = steps;
    guarded([&] { refresh(); });
  }

  std::vector<glm::vec4>& array(Field f) {
    std::vector<glm::vec4>* const arrays[] = {&state.pos,
                                              &state.rot,
                                              &state.vel,
                                              &state.omega,
                                              &state.particles.pos_radius,
                                              &state.particles.vel_invmass};
    const auto k = static_cast<std::size_t>(f);
    if (k >= std::size(arrays)) throw Error(fmt::format("field {}: no such state array", k));
    return *arrays[k];
  }

  // Throws Error when `value` may not be written at entry `index` of `f`.
  void check_write(Field f, std::size_t index, glm::vec4 value) {
    const std::size_t size = array(f).size();
    const bool body = f != Field::particle_position && f != Field::particle_velocity;
    const char* what = body ? "bodies" : "particles";
    if (index >= size) {
      throw Error(fmt::format("write({}, {}): index out of range ({} {})", field_name(f), index,
                              size, what));
    }
    if (body && index >= scene.bodies.size()) {
      throw Error(fmt::format("write({}, {}): {} is a plane's static body, which does not move",
                              field_name(f), index,
                              describe(scene, BodyRef{static_cast<std::uint32_t>(index), false})));
    }
    const bool quaternion = f == Field::body_orientation;
    const int components = quaternion ? 4 : 3;
    for (int k = 0; k < components; ++k) {
      if (!std::isfinite(value[k])) {
        throw Error(fmt::format("write({}, {}): ({}, {}, {}, {}) is not finite", field_name(f),
                                index, value.x, value.y, value.z, value.w));
      }
    }
    if (quaternion && std::abs(glm::length(value) - 1.0f) > 1e-3f) {
      throw Error(fmt::format("write({}, {}): |q| = {} is not 1 (within 1e-3)", field_name(f),
                              index, glm::length(value)));
    }
  }

  void put(Field f, std::size_t index, glm::vec4 value) {
    glm::vec4& to = array(f)[index];
    to = f == Field::body_orientation ? value : glm::vec4(glm::vec3(value), to.w);
  }

  void commit_writes() {
    backend->write(state);
    refresh();
  }
};

const char* field_name(Field f) {
  static constexpr const char* kNames[] = {"body_position",     "body_orientation",
                                           "body_velocity",     "body_angular_velocity",
                                           "particle_position", "particle_velocity"};
  const auto k = static_cast<std::size_t>(f);
  return k < std::size(kNames) ? kNames[k] : "?";
}

World::World() = default;
World::~World() = default;
World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;

World::World(Scene scene, const WorldOptions& options) {
  guarded([&] {
    auto impl = std::make_unique<Impl>(std::move(scene), options, "cpu");
    impl->backend->load(impl->scene);
    impl->start();
    impl_ = std::move(impl);
  });
}

World World::from_file(const std::filesystem::path& path, const WorldOptions& options) {
  return World(guarded([&] { return io::load_scene(path); }), options);
}

World World::from_json(std::string_view json, const WorldOptions& options,
                       std::string_view source_name) {
  return World(guarded([&] { return io::parse_scene(json, source_name); }), options);
}

World World::load(const Snapshot& snapshot, const WorldOptions& options) {
  World w;
  guarded([&] {
    const Snapshot::Data& d = *snapshot.data_;
    auto impl = std::make_unique<Impl>(d.scene, options, d.backend);
    impl->backend->restore(impl->scene, d.state);
    impl->steps = d.state.step;
    impl->start();
    w.impl_ = std::move(impl);
  });
  return w;
}

namespace {

// The World's Impl, or Error naming the call when it has no scene.
template <class Ptr>
auto& need(const Ptr& impl, const char* call) {
  if (!impl) {
    throw Error(fmt::format(
        "{}: this World has no scene (make it from a scene file, scene JSON or a Scene)", call));
  }
  return *impl;
}

}  // namespace

bool World::has_scene() const {
  return impl_ != nullptr;
}

const Scene& World::scene() const {
  return need(impl_, "scene").scene;
}

std::string World::backend_name() const {
  return need(impl_, "backend_name").backend->name();
}

std::string World::device_type() const {
  const Impl& w = need(impl_, "device_type");
  return w.ctx ? w.ctx->info().type : std::string();
}

void World::step(std::uint32_t n) {
  Impl& w = need(impl_, "step");
  w.usable("step");
  guarded([&] {
    const bool read = w.options.read_back == ReadBack::every_step;
    if (n > 0) {
      if (read) w.backend->read_after_next_step();  // the last of the n
      w.step_many(n, w.options.record_contacts);
    }
    if (read) {
      w.read_tried = w.steps;
      w.refresh();
    }
  });
}

void World::step(std::uint32_t n, const std::function<void()>& after_each) {
  if (!after_each) {
    step(n);
    return;
  }
  Impl& w = need(impl_, "step");
  w.usable("step");
  try {
    guarded([&] { w.step_many(n, w.options.record_contacts, &after_each); });
  } catch (const CallerThrew& e) {
    std::rethrow_exception(e.error);
  }
}

std::uint64_t World::steps() const {
  return need(impl_, "steps").steps;
}

double World::time() const {
  const Impl& w = need(impl_, "time");
  return static_cast<double>(w.steps) * static_cast<double>(w.scene.settings.time_step);
}

std::size_t World::body_count() const {
  return need(impl_, "body_count").state.pos.size();
}

std::size_t World::particle_count() const {
  return need(impl_, "particle_count").state.particles.size();
}

std::span<const glm::vec4> World::state(Field field) const {
  World::Impl& w = need(impl_, "state");
  w.sync();
  return w.array(field);
}

void World::write(Field field, std::size_t index, glm::vec4 value) {
  Impl& w = need(impl_, "write");
  w.usable("write");
  w.sync();
  guarded([&] {
    w.check_write(field, index, value);
    w.put(field, index, value);
    w.commit_writes();
  });
}

void World::write(Field field, std::span<const glm::vec4> values) {
  Impl& w = need(impl_, "write");
  w.usable("write");
  w.sync();
  guarded([&] {
    const std::size_t size = w.array(field).size();
    if (values.size() != size) {
      throw Error(fmt::format("write({}): {} values for {} entries", field_name(field),
                              values.size(), size));
    }
    const bool body = field != Field::particle_position && field != Field::particle_velocity;
    // A plane's static body may be written its own value (a whole array read, changed, written).
    const std::size_t movable = body ? w.scene.bodies.size() : size;
    for (std::size_t i = movable; i < size; ++i) {
      if (values[i] != w.array(field)[i]) w.check_write(field, i, values[i]);
    }
    for (std::size_t i = 0; i < movable; ++i) w.check_write(field, i, values[i]);
    for (std::size_t i = 0; i < movable; ++i) w.put(field, i, values[i]);
    w.commit_writes();
  });
}

std::optional<Grab> World::pick(glm::dvec3 origin, glm::dvec3 direction) const {
  Impl& w = need(impl_, "pick");
  const double length = glm::length(direction);
  if (!finite(origin) || !finite(direction) || !(length > 0.0)) {
    throw Error(fmt::format(
        "pick: a ray from ({}, {}, {}) along ({}, {}, {}) needs finite values and a direction of "
        "length > 0",
        origin.x, origin.y, origin.z, direction.x, direction.y, direction.z));
  }
  w.sync();
  return vkphys::pick(w.scene, w.state, origin, direction / length);
}

glm::dvec3 World::pull(const Grab& grab, glm::dvec3 target) {
  Impl& w = need(impl_, "pull");
  w.usable("pull");
  w.sync();
  const std::size_t count = grab.particle ? w.state.particles.size() : w.scene.bodies.size();
  const char* what = grab.particle ? "particle" : "body";
  if (grab.index >= count) {
    throw Error(fmt::format("pull: {} {} is out of range ({} {}{})", what, grab.index, count,
                            grab.particle ? "particles" : "scene bodies",
                            grab.particle ? "" : "; a plane's static body cannot be grabbed"));
  }
  const float inv_mass =
      grab.particle ? w.state.particles.vel_invmass[grab.index].w : w.state.pos[grab.index].w;
  if (!(inv_mass > 0.0f)) {
    throw Error(fmt::format("pull: {} is static (mass 0): it cannot be pulled",
                            describe(w.scene, BodyRef{grab.index, grab.particle})));
  }
  if (!finite(target) || !finite(grab.local)) {
    throw Error(fmt::format("pull: target ({}, {}, {}) and local point ({}, {}, {}) must be finite",
                            target.x, target.y, target.z, grab.local.x, grab.local.y,
                            grab.local.z));
  }
  return guarded([&] {
    const glm::dvec3 f =
        apply_mouse_spring(w.scene, w.state, grab, target, double(w.scene.settings.time_step));
    w.commit_writes();
    return f;
  });
}

Contacts World::contacts() const {
  const StepStats& s = need(impl_, "contacts").backend->stats();
  return {s.pairs, s.manifolds, s.reused_manifolds, s.points, s.particle_contacts, s.rows};
}

StepStatistics World::statistics() const {
  const StepStats& s = need(impl_, "statistics").backend->stats();
  StepStatistics out{.colors = s.colors,
                     .overflow_units = s.overflow_units,
                     .colored_afresh = s.colored_afresh,
                     .pair_capacity = s.pair_capacity,
                     .contact_capacity = s.contact_capacity,
                     .regrows = s.regrows,
                     .dispatches = s.dispatches,
                     .barriers = s.barriers,
                     .ode_steps = s.ode_steps,
                     .ode_redos = s.ode_redos,
                     .ode_error = s.ode_error,
                     .cg_iterations = s.cg_iterations,
                     .cg_residual = s.cg_residual,
                     .cg_unmet = s.cg_unmet,
                     .cg_redos = s.cg_redos,
                     .color_redos = s.color_redos,
                     .solver_residual = s.solver_residual,
                     .solver_residual_angular = s.solver_residual_angular,
                     .device_bytes = s.device_bytes,
                     .stages = {}};
  const std::vector<const char*> names = step_stage_names();
  for (std::size_t k = 0; k < kStageCount; ++k)
    out.stages.push_back({names[k], s.stage_ms[k], s.stage_bytes[k]});
  return out;
}

std::vector<const char*> step_stage_names() {
  std::vector<const char*> names;
  for (std::size_t k = 0; k < kStageCount; ++k) names.push_back(stage_name(static_cast<Stage>(k)));
  return names;
}

ConstraintErrors World::constraint_errors() const {
  Impl& w = need(impl_, "constraint_errors");
  if (!w.scene.bodies.empty() && !w.options.record_contacts) {
    throw Error(
        "constraint_errors: the scene has rigid bodies, whose penetration is measured on the "
        "step's contact points: make the World with WorldOptions::record_contacts");
  }
  if (!w.stepped) return {};
  w.sync();
  // A World that records contacts but whose held state no step of it made (a failed step):
  // its joints and springs are measured, its contacts are none.
  static const StepTrace kNone;
  return guarded(
      [&] { return vkphys::constraint_errors(w.scene, w.traced ? w.trace : kNone, w.state); });
}

Metrics World::metrics() const {
  Impl& w = need(impl_, "metrics");
  w.sync();
  return measure(w.masses, w.scene, w.state);
}

SpringStrain World::spring_strain() const {
  Impl& w = need(impl_, "spring_strain");
  w.sync();
  return guarded([&] { return vkphys::spring_strain(w.scene, w.state); });
}

StepError World::compare(const World& other) const {
  Impl& a = need(impl_, "compare");
  Impl& b = need(other.impl_, "compare (the other World)");
  a.sync();
  b.sync();
  return guarded([&] {
    StepError e = state_error(a.state, b.state);
    e.points_a = a.backend->stats().points + a.backend->stats().particle_contacts;
    e.points_b = b.backend->stats().points + b.backend->stats().particle_contacts;
    return e;
  });
}

Snapshot World::save() const {
  const Impl& w = need(impl_, "save");
  w.usable("save");
  return guarded([&] {
    try {
      return Snapshot(std::make_shared<const Snapshot::Data>(
          Snapshot::Data{w.kind, w.scene, w.backend->save()}));
    } catch (const vk::Error& e) {
      throw Error(fmt::format("saving step {}: {}", w.steps, e.what()));
    }
  });
}

SceneCamera World::camera() const {
  Impl& w = need(impl_, "camera");
  if (w.scene.camera) return *w.scene.camera;
  w.sync();
  const gpu::Camera c = gpu::framing_camera(w.scene, w.state);
  return {c.eye, c.target, c.up, glm::degrees(c.fov_y)};
}

namespace {

// Throws Error naming what makes `c` unable to form a picture (the scene file's camera rules,
// host/io/scene_read_camera.cpp, without their margins: only what the projection cannot do).
void check_camera(const SceneCamera& c) {
  const glm::vec3 view = c.target - c.position;
  const bool all_finite =
      finite(c.position) && finite(c.target) && finite(c.up) && std::isfinite(c.fov_y_deg);
  if (!all_finite || glm::length(view) == 0.0f || glm::length(glm::cross(c.up, view)) == 0.0f ||
      !(c.fov_y_deg > 0.0f && c.fov_y_deg < 180.0f)) {
    throw Error(fmt::format(
        "render: camera at ({}, {}, {}) looking at ({}, {}, {}), up ({}, {}, {}), fov_y_deg {}: "
        "needs finite values, a target away from the position, an up off the view direction "
        "and fov_y_deg in (0, 180)",
        c.position.x, c.position.y, c.position.z, c.target.x, c.target.y, c.target.z, c.up.x,
        c.up.y, c.up.z, c.fov_y_deg));
  }
}

}  // namespace

Picture World::render(std::uint32_t width, std::uint32_t height,
                      const std::optional<SceneCamera>& camera) const {
  Impl& w = need(impl_, "render");
  constexpr std::uint32_t kMaxSide = 16384;
  if (width == 0 || height == 0 || width > kMaxSide || height > kMaxSide) {
    throw Error(
        fmt::format("render: {}x{} pixels: each side must be in 1..{}", width, height, kMaxSide));
  }
  const SceneCamera c = camera ? *camera : this->camera();
  check_camera(c);
  w.sync();
  return guarded([&] {
    if (!w.ctx && !w.draw_ctx) w.draw_ctx = vk::Context::create(w.context_options());
    const vk::Context& ctx = w.ctx ? *w.ctx : *w.draw_ctx;
    if (!w.renderer || w.renderer->width() != width || w.renderer->height() != height) {
      w.renderer.reset();
      w.renderer = std::make_unique<gpu::Renderer>(ctx, width, height);
    }
    gpu::Image img = w.renderer->draw(io::surface_mesh(w.scene, w.state, true),
                                      {c.position, c.target, c.up, glm::radians(c.fov_y_deg)});
    return Picture{img.width, img.height, std::move(img.rgba), ctx.info().name};
  });
}

std::uint32_t World::validation_errors() const {
  const Impl& w = need(impl_, "validation_errors");
  return w.ctx ? w.ctx->validation_errors() : 0u;
}

const WorldState& WorldInternals::state(const World& world) {
  World::Impl& w = need(world.impl_, "state");
  w.sync();
  return w.state;
}

const StepStats& WorldInternals::stats(const World& world) {
  return need(world.impl_, "stats").backend->stats();
}

const StepTrace* WorldInternals::trace(const World& world) {
  const World::Impl& w = need(world.impl_, "trace");
  return w.traced ? &w.trace : nullptr;
}

std::uint64_t WorldInternals::held_step(const World& world) {
  World::Impl& w = need(world.impl_, "held_step");
  w.sync();
  return w.held;
}

bool WorldInternals::records_contacts(const World& world) {
  return need(world.impl_, "records_contacts").options.record_contacts;
}

const vk::Context* WorldInternals::gpu_context(const World& world) {
  return need(world.impl_, "gpu_context").ctx.get();
}

}  // namespace vkphys
