/// \file
/// vkphys::World: one simulated world (a scene on a backend), stepped and read from code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <glm/glm.hpp>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "vkphys/devices.h"
#include "vkphys/difference.h"
#include "vkphys/export.h"
#include "vkphys/grab.h"
#include "vkphys/metrics.h"
#include "vkphys/picture.h"
#include "vkphys/scene.h"
#include "vkphys/snapshot.h"
#include "vkphys/statistics.h"

namespace vkphys {

/// GPU: whether the colouring passes and the solver sweeps run in one workgroup (one dispatch
/// per solve instead of one per colour list). The results are the same bit for bit either way.
/// automatic fuses what one workgroup covers in about one round on a GPU and nothing on a CPU
/// Vulkan driver; never and always are for measuring (`vkphys bench --fused`).
enum class FusedSolve : std::uint32_t { automatic, never, always };

/// When a World copies its backend's state into the host copy that state() views.
enum class ReadBack : std::uint32_t {
  /// After every step() call and write: state() is current at no further cost.
  every_step,
  /// Only when something reads the state (state(), metrics(), compare(), spring_strain(),
  /// constraint_errors(), camera(), render(), write(), a Recorder): step() then runs the steps
  /// alone, as `vkphys bench` times them. Each step still checks itself for NaN and infinity
  /// where a stage leaves the bodies' state and throws NonFiniteError naming the step, the stage
  /// and the body as the per-stage check of every_step would; a read of a state that is not
  /// finite throws it too, and later reads show the last finite state.
  /// A span taken earlier shows a newer step once any call has read the state.
  on_demand,
};

struct WorldOptions {
  /// "cpu" (the reference backend) or "gpu" (Vulkan compute). Empty: "cpu", or for World::load
  /// the backend that saved the snapshot.
  std::string backend;
  /// GPU: "" picks a discrete GPU first, else any Vulkan device; "N" the device with index N in
  /// `vkphys info`; any other text the first device whose name contains it (case-insensitive).
  std::string device;
  bool validation = false;  ///< GPU: the Vulkan validation layer (its errors go to stderr)
  /// GPU: also the layer's synchronization validation (implies `validation`): a missing or too
  /// weak barrier between two commands that touch the same memory is a validation error
  /// (SYNC-HAZARD-*). Slower than `validation` alone.
  bool sync_validation = false;
  /// Keep the contact lists (points, gaps, normals, impulses) of the last step of every step()
  /// call, for constraint_errors()' rigid penetration and a Recorder's contact files. On the GPU
  /// backend that reads the lists back after the step: slower.
  bool record_contacts = false;
  ReadBack read_back = ReadBack::every_step;
  FusedSolve fused = FusedSolve::automatic;  ///< GPU only; the CPU backend ignores it
  /// GPU: run on this already open device (SharedDevice::open) instead of opening one; `device`,
  /// `validation` and `sync_validation` must then stay at their defaults (the device was picked
  /// and its layers set when it was opened): Error otherwise. A CPU World draws its pictures
  /// (render) on it.
  SharedDevice shared_device;
};

/// The state arrays a World exposes. Bodies: the scene's rigid bodies in scene order, then one
/// static body per scene plane (body_count() counts both); particles in scene order.
enum class Field : std::uint32_t {
  body_position,          ///< (x, y, z, 1/m), centre of mass [m]
  body_orientation,       ///< unit quaternion (x, y, z, w), body to world
  body_velocity,          ///< (vx, vy, vz, 0) [m/s]
  body_angular_velocity,  ///< (wx, wy, wz, 0), world frame [rad/s]
  particle_position,      ///< (x, y, z, radius) [m]
  particle_velocity,      ///< (vx, vy, vz, 1/m) [m/s]
};
/// "body_position", ... as in error messages.
VKPHYS_API const char* field_name(Field f);

/// What the last step found (all zero before the first step).
struct Contacts {
  std::uint32_t pairs = 0;      ///< broadphase pairs with a rigid body
  std::uint32_t manifolds = 0;  ///< pairs with contact points
  /// Of the manifolds, those kept from the step before without running the pair test again
  /// (SolverSettings::contact_cache: the bodies moved less than its tolerance); metrics.csv's
  /// reused_manifolds.
  std::uint32_t reused_manifolds = 0;
  std::uint32_t points = 0;             ///< contact points of the manifolds
  std::uint32_t particle_contacts = 0;  ///< particle-particle and particle-plane contacts
  std::uint32_t rows = 0;               ///< constraint rows (contacts and joints)
};

class VKPHYS_API World {
 public:
  /// A World without a scene: every call but assignment and the destructor throws Error
  /// ("no scene: ..."). A moved-from World is in the same state.
  World();
  /// The scene is checked as the step needs it (Error names the body, joint or setting).
  explicit World(Scene scene, const WorldOptions& options = {});
  /// A scene file (docs/scene-format.md) or scene JSON text; Error names the file (or
  /// `source_name`), the field and the rule, as `vkphys run` does.
  static World from_file(const std::filesystem::path& path, const WorldOptions& options = {});
  static World from_json(std::string_view json, const WorldOptions& options = {},
                         std::string_view source_name = "<json>");
  /// A World continued from a checkpoint (see Snapshot).
  static World load(const Snapshot& snapshot, const WorldOptions& options = {});

  ~World();
  World(World&&) noexcept;
  World& operator=(World&&) noexcept;

  bool has_scene() const;
  const Scene& scene() const;
  std::string backend_name() const;  ///< "cpu" or "gpu (DEVICE NAME)"
  /// GPU: the Vulkan device's type, "discrete", "integrated", "virtual", "cpu" (a CPU driver such
  /// as lavapipe: its step times are not GPU timings) or "other"; empty on the CPU backend.
  std::string device_type() const;

  /// Takes n steps of scene().settings.time_step. Throws NonFiniteError (vkphys/error.h) when the
  /// state becomes NaN or infinite, naming the step and the body or particle: the CPU backend
  /// checks after every stage of every step and names the stage; the GPU backend's step checks
  /// itself where a stage leaves the bodies' state, with no read back, undoes that step and
  /// names it, the stage and the body. state() then shows the last finite state: on the GPU the step before it, on the
  /// CPU the last one read.
  /// A GPU failure under a step (the device lost, out of device memory while a list grows)
  /// throws Error, one line saying what happened and what to do; state() keeps the last state
  /// it held, and from then on step(), write() and save() throw Error (the device's buffers are
  /// no longer trusted): continue from a checkpoint in a new World. The GPU backend pipelines
  /// the n steps, submitting each before it reads the step before (the same bits as n calls of
  /// step(1)); statistics() is then the last step's.
  void step(std::uint32_t n = 1);
  /// n steps, with `after_each` called after every one of them: inside it steps(), state(),
  /// metrics(), statistics(), contacts(), constraint_errors(), camera(), render() and a
  /// Recorder's frame() and metrics() give that step's (the state is read and checked for NaN
  /// after every step, whatever read_back says). The GPU backend reads step k's state from a
  /// ring of host-visible buffers while step k + 1 runs, so a loop that looks at every step
  /// still keeps the device busy (a World that records contacts gets each step's lists from the
  /// ring too). step(), write(), pull() and save() throw Error from
  /// inside it (the device is already on the next step). A throw from `after_each` stops the
  /// steps there: the steps it has seen stand, the state is the last one's.
  void step(std::uint32_t n, const std::function<void()>& after_each);
  std::uint64_t steps() const;  ///< steps since the scene was loaded (a loaded Snapshot's count on)
  double time() const;          ///< steps() x time_step [s]

  std::size_t body_count() const;  ///< the scene's bodies + one static body per plane
  std::size_t particle_count() const;

  /// A view of one state array (Field gives the layout). It points into the World's host copy
  /// of the state, which stays at one address for the World's life and is refreshed after every
  /// step() and write (the CPU backend copies its arrays into it, the GPU backend downloads them:
  /// a copy from the device, never a view of device memory). Valid until the World is destroyed
  /// or moved from.
  std::span<const glm::vec4> state(Field field) const;

  /// Writes x, y, z of one entry (and w of an orientation); the other w components (1/m, radius)
  /// stay. Throws Error for an index out of range, a non-finite value, an orientation that is not
  /// a unit quaternion (|q| off 1 by more than 1e-3) or an entry of a plane's static body.
  void write(Field field, std::size_t index, glm::vec4 value);
  /// Writes every entry, as above; `values` has state(field).size() entries.
  void write(Field field, std::span<const glm::vec4> values);

  /// The nearest dynamic body (a sphere, box or capsule with mass > 0) or dynamic particle that
  /// the ray from `origin` along `direction` (any length: it is normalised) enters at a distance
  /// >= 0 in the current state; nothing when the ray misses them all. Planes and static bodies
  /// are never picked. `vkphys view` picks what is under the cursor with it. Throws Error for a
  /// non-finite origin or direction, or a direction of length 0.
  std::optional<Grab> pick(glm::dvec3 origin, glm::dvec3 direction) const;
  /// The mouse spring: pulls the grabbed point towards `target` with the damped spring
  /// F = k (target - p) - c v, k = m w0^2 and c = 2 m w0 with w0 = 8 rad/s (critically damped:
  /// every object follows on the same quarter-second time scale whatever its mass m), p and v
  /// the grabbed point's position and velocity. Its impulse over one step, F time_step, goes into
  /// the velocity (and a body's angular velocity, through r x F) now, as write() does, so the
  /// next step carries it: call pull before each step it should act on, and stop calling it to
  /// release the grab. Returns F [N]. Throws Error for a grab whose index is out of range or of a
  /// static body or particle, or a non-finite target or local point.
  glm::dvec3 pull(const Grab& grab, glm::dvec3 target);

  Contacts contacts() const;
  /// The last step's statistics: list capacities, colours, integrator counts, and the stage
  /// times averaged over the last step() call's steps (vkphys/statistics.h).
  StepStatistics statistics() const;
  /// How far the last step of this World left its contacts, joints and springs from holding
  /// (vkphys/metrics.h); all zero before this World's first step. Throws Error for a scene with
  /// rigid bodies on a World without WorldOptions::record_contacts (their penetration is
  /// measured on the step's contact points).
  ConstraintErrors constraint_errors() const;
  /// Energies, momenta and speeds of the current state (vkphys/metrics.h).
  Metrics metrics() const;
  /// The scene's springs' stretch in the current state (all zero without springs). Unlike
  /// constraint_errors() it needs no contact lists, so any World has it.
  SpringStrain spring_strain() const;
  /// The differences of this World's state from `other`'s (the same scene, any backend), with
  /// each World's contact points of its last step (manifold points + particle contacts).
  StepError compare(const World& other) const;

  /// A checkpoint of the whole state (vkphys/snapshot.h).
  Snapshot save() const;

  /// The camera pictures of the world use: the scene's (Scene::camera), or else one that frames
  /// the bodies and particles of the current state (aimed at the centre of their bounding box
  /// from above and to the side). Keep it to draw later states from the same place.
  SceneCamera camera() const;
  /// A picture of the current state, `width` x `height` pixels, through `camera` (none:
  /// camera()), drawn with the renderer of `vkphys render`: shaded bodies, particles as spheres,
  /// planes. Draws on the GPU World's device, or for a CPU World on the Vulkan device
  /// WorldOptions::device picks (lavapipe without a GPU; that device then counts as a GPU World's
  /// for the rules in vkphys/vkphys.h). Throws Error for a size of 0 or over
  /// 16384, a camera whose target is its position or whose fov_y_deg is not in (0, 180), or
  /// without a Vulkan device that can draw.
  Picture render(std::uint32_t width, std::uint32_t height,
                 const std::optional<SceneCamera>& camera = std::nullopt) const;

  /// The validation layer's error count (WorldOptions::validation, GPU); 0 otherwise.
  std::uint32_t validation_errors() const;

 private:
  friend struct WorldInternals;  ///< host/api/world_internal.h: the Recorder and the tests
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace vkphys
