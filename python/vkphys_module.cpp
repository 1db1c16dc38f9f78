// The Python module `vkphys` (pybind11): the public C++ API (include/vkphys/) with the state as
// NumPy arrays. python/vkphys.pyi is its typed outline; python/tests/ its pytest suite.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include <array>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

#include "vkphys/vkphys.h"

namespace py = pybind11;
using vkphys::Field;
using vkphys::World;

namespace {

vkphys::WorldOptions options(const std::string& backend, const std::string& device, bool validation,
                             bool sync_validation, bool record_contacts) {
  return {backend, device, validation, sync_validation, record_contacts};
}

// A read-only (n, 4) float32 view of one of the World's state arrays: no copy. Its base keeps
// the World alive, and the World's host copy never moves, so the view stays valid and shows
// each step's state (the World refreshes that copy after every step and write).
py::array view(const World& w, py::handle owner, Field f) {
  std::span<const glm::vec4> s = w.state(f);
  if (s.empty()) return py::array_t<float>(std::vector<py::ssize_t>{0, 4});
  py::array a(
      py::dtype::of<float>(), {static_cast<py::ssize_t>(s.size()), py::ssize_t{4}},
      {static_cast<py::ssize_t>(sizeof(glm::vec4)), static_cast<py::ssize_t>(sizeof(float))},
      &s[0].x, owner);
  // Read-only: a change must go through World.write or an assignment, which check it and pass
  // it to the backend; writing into the host copy would not reach the step.
  a.attr("setflags")(py::arg("write") = false);
  return a;
}

// Writes a whole state array from anything NumPy turns into (n, 4) float32.
void write_all(World& w, Field f,
               const py::array_t<float, py::array::c_style | py::array::forcecast>& a) {
  if (a.ndim() != 2 || a.shape(1) != 4) {
    throw vkphys::Error(std::string("write(") + vkphys::field_name(f) +
                        "): expected an array of shape (n, 4)");
  }
  const auto* data = reinterpret_cast<const glm::vec4*>(a.data());
  w.write(f, std::span<const glm::vec4>(data, static_cast<std::size_t>(a.shape(0))));
}

// d[name] = obj.*member for each (name, member).
template <class T, class V>
void put(py::dict& d, const T& obj, std::initializer_list<std::pair<const char*, V T::*>> members) {
  for (const auto& [name, member] : members) d[name] = obj.*member;
}

py::dict to_dict(const vkphys::Contacts& c) {
  using C = vkphys::Contacts;
  py::dict d;
  put<C, std::uint32_t>(d, c,
                        {{"pairs", &C::pairs},
                         {"manifolds", &C::manifolds},
                         {"reused_manifolds", &C::reused_manifolds},
                         {"points", &C::points},
                         {"particle_contacts", &C::particle_contacts},
                         {"rows", &C::rows}});
  return d;
}

py::tuple xyz(const glm::dvec3& v) {
  return py::make_tuple(v.x, v.y, v.z);
}

py::dict to_dict(const vkphys::Metrics& m) {
  using M = vkphys::Metrics;
  py::dict d;
  put<M, double>(d, m,
                 {{"kinetic_linear", &M::kinetic_linear},
                  {"kinetic_rotational", &M::kinetic_rotational},
                  {"potential", &M::potential},
                  {"max_speed", &M::max_speed},
                  {"max_angular_speed", &M::max_angular_speed},
                  {"max_penetration", &M::max_penetration}});
  d["kinetic"] = m.kinetic();
  d["energy"] = m.energy();
  d["momentum"] = xyz(m.momentum);
  d["angular_momentum"] = xyz(m.angular_momentum);
  return d;
}

py::dict to_dict(const vkphys::StepError& e) {
  using E = vkphys::StepError;
  py::dict d;
  put<E, double>(d, e,
                 {{"max_pos", &E::max_pos},
                  {"mean_pos", &E::mean_pos},
                  {"max_rot", &E::max_rot},
                  {"mean_rot", &E::mean_rot},
                  {"max_vel", &E::max_vel},
                  {"mean_vel", &E::mean_vel},
                  {"max_omega", &E::max_omega},
                  {"mean_omega", &E::mean_omega}});
  put<E, std::uint32_t>(d, e, {{"points_a", &E::points_a}, {"points_b", &E::points_b}});
  return d;
}

py::dict to_dict(const vkphys::ConstraintErrors& e) {
  using E = vkphys::ConstraintErrors;
  py::dict d;
  put<E, double>(d, e,
                 {{"max_rigid_penetration", &E::max_rigid_penetration},
                  {"mean_rigid_penetration", &E::mean_rigid_penetration},
                  {"max_joint_error", &E::max_joint_error},
                  {"mean_joint_error", &E::mean_joint_error},
                  {"max_spring_strain", &E::max_spring_strain},
                  {"mean_spring_strain", &E::mean_spring_strain}});
  return d;
}

py::dict to_dict(const vkphys::SpringStability& st) {
  using S = vkphys::SpringStability;
  py::dict d;
  d["integrator"] = vkphys::integrator_name(st.integrator);
  d["force_springs"] = st.force_springs;
  d["checked"] = st.checked;
  d["spring"] = st.spring;
  put<S, double>(d, st,
                 {{"k", &S::k},
                  {"c", &S::c},
                  {"mass_a", &S::mass_a},
                  {"mass_b", &S::mass_b},
                  {"omega", &S::omega},
                  {"gamma", &S::gamma},
                  {"bound", &S::bound},
                  {"step", &S::step},
                  {"growth_per_period", &S::growth_per_period},
                  {"network_omega", &S::network_omega},
                  {"network_gamma", &S::network_gamma},
                  {"network_bound", &S::network_bound}});
  put<S, std::uint64_t>(d, st,
                        {{"substeps_needed", &S::substeps_needed},
                         {"ode_steps_needed", &S::ode_steps_needed},
                         {"network_substeps_needed", &S::network_substeps_needed},
                         {"network_ode_steps_needed", &S::network_ode_steps_needed}});
  d["past"] = st.past();
  d["assured"] = st.assured();
  d["warning"] = vkphys::stability_warning(st);
  return d;
}

py::dict to_dict(const vkphys::GpuDevice& g) {
  using G = vkphys::GpuDevice;
  py::dict d;
  put<G, std::string>(d, g, {{"name", &G::name}, {"type", &G::type}, {"driver", &G::driver}});
  put<G, std::uint32_t>(d, g,
                        {{"index", &G::index},
                         {"max_storage_buffer_range", &G::max_storage_buffer_range},
                         {"max_workgroup_invocations", &G::max_workgroup_invocations},
                         {"max_compute_shared_memory", &G::max_compute_shared_memory},
                         {"subgroup_size", &G::subgroup_size}});
  d["api_version"] = py::make_tuple(g.api_major, g.api_minor, g.api_patch);
  d["device_local_bytes"] = g.device_local_bytes;
  d["timestamps"] = g.timestamps;
  return d;
}

py::dict to_dict(const vkphys::StepStatistics& st) {
  using S = vkphys::StepStatistics;
  py::dict d;
  put<S, std::uint32_t>(d, st,
                        {{"colors", &S::colors},
                         {"overflow_units", &S::overflow_units},
                         {"colored_afresh", &S::colored_afresh},
                         {"pair_capacity", &S::pair_capacity},
                         {"contact_capacity", &S::contact_capacity},
                         {"regrows", &S::regrows},
                         {"dispatches", &S::dispatches},
                         {"barriers", &S::barriers},
                         {"ode_steps", &S::ode_steps},
                         {"ode_redos", &S::ode_redos},
                         {"cg_iterations", &S::cg_iterations},
                         {"cg_unmet", &S::cg_unmet},
                         {"cg_redos", &S::cg_redos},
                         {"color_redos", &S::color_redos}});
  put<S, float>(d, st,
                {{"ode_error", &S::ode_error},
                 {"cg_residual", &S::cg_residual},
                 {"solver_residual", &S::solver_residual},
                 {"solver_residual_angular", &S::solver_residual_angular}});
  d["device_bytes"] = st.device_bytes;
  py::dict stages;  // in step order (a dict keeps its insertion order)
  py::dict model_bytes;
  for (const vkphys::StageTime& t : st.stages) {
    stages[t.name] = t.ms;
    model_bytes[t.name] = t.model_bytes;
  }
  d["stages"] = stages;
  d["stage_model_bytes"] = model_bytes;
  return d;
}

py::tuple xyz(const glm::vec3& v) {
  return py::make_tuple(v.x, v.y, v.z);
}

py::dict to_dict(const vkphys::SceneCamera& c) {
  py::dict d;
  d["position"] = xyz(c.position);
  d["target"] = xyz(c.target);
  d["up"] = xyz(c.up);
  d["fov_y_deg"] = c.fov_y_deg;
  return d;
}

// A camera from a dict with the keys World.camera() gives; a key left out keeps SceneCamera's
// default. An unknown key is an error (a misspelt "fov" would otherwise be ignored).
vkphys::SceneCamera camera_of(const py::dict& d) {
  vkphys::SceneCamera c;
  auto vec = [](py::handle h) {
    const auto v = h.cast<std::array<float, 3>>();
    return glm::vec3(v[0], v[1], v[2]);
  };
  for (const auto& [k, v] : d) {
    const std::string key = py::str(k);
    if (key == "position")
      c.position = vec(v);
    else if (key == "target")
      c.target = vec(v);
    else if (key == "up")
      c.up = vec(v);
    else if (key == "fov_y_deg")
      c.fov_y_deg = v.cast<float>();
    else
      throw vkphys::Error("render: camera." + key +
                          ": unknown key (position, target, up, fov_y_deg)");
  }
  return c;
}

// The picture as an (height, width, 4) uint8 RGBA array that owns the picture's pixels (moved,
// not copied).
py::array pixels(vkphys::Picture&& p) {
  auto* rgba = new std::vector<std::uint8_t>(std::move(p.rgba));
  py::capsule owner(rgba, [](void* v) { delete static_cast<std::vector<std::uint8_t>*>(v); });
  return py::array_t<std::uint8_t>(
      {static_cast<py::ssize_t>(p.height), static_cast<py::ssize_t>(p.width), py::ssize_t{4}},
      rgba->data(), owner);
}

// The state arrays as properties: (Python name, field, docstring).
struct StateProperty {
  const char* name;
  Field field;
  const char* doc;
};
constexpr StateProperty kState[] = {
    {"body_positions", Field::body_position,
     "(n, 4) float32 view: centre of mass x, y, z [m] and 1/m of every body (the scene's, then "
     "one static body per plane). Assigning an (n, 4) array writes x, y, z (1/m stays)."},
    {"body_orientations", Field::body_orientation,
     "(n, 4) float32 view: unit quaternions (x, y, z, w), body to world. Assigning writes them "
     "(each must be a unit quaternion within 1e-3)."},
    {"body_velocities", Field::body_velocity,
     "(n, 4) float32 view: velocity vx, vy, vz [m/s] and 0. Assigning writes vx, vy, vz."},
    {"body_angular_velocities", Field::body_angular_velocity,
     "(n, 4) float32 view: world angular velocity [rad/s] and 0. Assigning writes it."},
    {"particle_positions", Field::particle_position,
     "(n, 4) float32 view: particle x, y, z [m] and radius. Assigning writes x, y, z."},
    {"particle_velocities", Field::particle_velocity,
     "(n, 4) float32 view: particle velocity [m/s] and 1/m. Assigning writes the velocity."},
};

}  // namespace

PYBIND11_MODULE(vkphys, m) {
  m.doc() =
      "vkphys: rigid bodies, particles, joints and springs on Vulkan compute with a CPU "
      "reference. World is one simulated scene; its state arrays are NumPy views without copies.";
  m.attr("__version__") = vkphys::version();
  py::register_exception<vkphys::Error>(m, "Error", PyExc_RuntimeError);

  m.def("builtin_scene_names", &vkphys::builtin_scene_names,
        "The scenes builtin_scene builds (those `vkphys export-scene` writes).");
  m.def(
      "builtin_scene",
      [](const std::string& name, std::uint32_t size) {
        const std::string json = vkphys::scene_to_json(vkphys::builtin_scene(name, size));
        return py::module_::import("json").attr("loads")(json);
      },
      py::arg("name"), py::arg("size") = 0,
      "A built-in scene as a dict (the scene file's JSON, for World.from_dict). size: its count "
      "or base (bodies of a stack, base of the pyramid, ...), 0 for its default; raises "
      "vkphys.Error for an unknown name or a size past the scene loader's limits.");

  m.def(
      "gpu_devices",
      [] {
        py::list out;
        for (const vkphys::GpuDevice& d : vkphys::gpu_devices()) out.append(to_dict(d));
        return out;
      },
      "The Vulkan devices with a compute queue, as dicts, in the order device=\"N\" counts them "
      "(`vkphys info`); type is \"discrete\", \"integrated\", \"virtual\", \"cpu\" (a CPU "
      "driver such as lavapipe) or \"other\". Raises vkphys.Error without a Vulkan loader.");
  m.def("validation_errors_reported", &vkphys::validation_errors_reported,
        "The Vulkan validation layer's errors in this process so far, over every World opened "
        "with validation or sync_validation (closed ones included); 0 without the layer.");

  py::enum_<Field>(m, "Field", "The state arrays of a World (see World.state).")
      .value("body_position", Field::body_position)
      .value("body_orientation", Field::body_orientation)
      .value("body_velocity", Field::body_velocity)
      .value("body_angular_velocity", Field::body_angular_velocity)
      .value("particle_position", Field::particle_position)
      .value("particle_velocity", Field::particle_velocity);

  py::class_<vkphys::Snapshot>(m, "Snapshot",
                               "A checkpoint of a World: World.load continues it bit-identically "
                               "on the backend that saved it.")
      .def("write", &vkphys::Snapshot::write, py::arg("path"), "Writes the snapshot to a file.")
      .def_static("read", &vkphys::Snapshot::read, py::arg("path"), "Reads a snapshot file.")
      .def_property_readonly("step", &vkphys::Snapshot::step, "Steps the saved World had taken.")
      .def_property_readonly("backend", &vkphys::Snapshot::backend, "\"cpu\" or \"gpu\".");

  py::class_<World> world(m, "World", R"(One simulated world: a scene on a backend.

World() has no scene: everything but construction raises vkphys.Error. Build one with
World.from_file, World.from_dict or World.from_json. backend is "cpu" or "gpu"; device picks
the Vulkan device ("" the best, "N" an index, or part of its name); record_contacts keeps the last
step's contact lists (constraint_errors needs them for a scene with rigid bodies).)");
  world.def(py::init<>())
      .def_static(
          "from_file",
          [](const std::string& path, const std::string& backend, const std::string& device,
             bool validation, bool sync_validation, bool record_contacts) {
            return World::from_file(
                path, options(backend, device, validation, sync_validation, record_contacts));
          },
          py::arg("path"), py::arg("backend") = "cpu", py::arg("device") = "",
          py::arg("validation") = false, py::arg("sync_validation") = false,
          py::arg("record_contacts") = false, "A World from a scene file (docs/scene-format.md).")
      .def_static(
          "from_json",
          [](const std::string& json, const std::string& backend, const std::string& device,
             bool validation, bool sync_validation, bool record_contacts) {
            return World::from_json(
                json, options(backend, device, validation, sync_validation, record_contacts),
                "<json>");
          },
          py::arg("json"), py::arg("backend") = "cpu", py::arg("device") = "",
          py::arg("validation") = false, py::arg("sync_validation") = false,
          py::arg("record_contacts") = false, "A World from scene JSON text.")
      .def_static(
          "from_dict",
          [](const py::dict& scene, const std::string& backend, const std::string& device,
             bool validation, bool sync_validation, bool record_contacts) {
            const std::string json = py::str(py::module_::import("json").attr("dumps")(scene));
            return World::from_json(
                json, options(backend, device, validation, sync_validation, record_contacts),
                "<dict>");
          },
          py::arg("scene"), py::arg("backend") = "cpu", py::arg("device") = "",
          py::arg("validation") = false, py::arg("sync_validation") = false,
          py::arg("record_contacts") = false,
          "A World from a scene as a dict (the scene file's JSON, as Python objects).")
      .def_static(
          "load",
          [](const vkphys::Snapshot& s, const std::string& backend, const std::string& device,
             bool validation, bool sync_validation, bool record_contacts) {
            return World::load(
                s, options(backend, device, validation, sync_validation, record_contacts));
          },
          py::arg("snapshot"), py::arg("backend") = "", py::arg("device") = "",
          py::arg("validation") = false, py::arg("sync_validation") = false,
          py::arg("record_contacts") = false,
          "A World continued from a snapshot (backend \"\": the one that saved it).")
      .def(
          "step",
          [](World& w, std::uint32_t n, py::object after_each) {
            if (after_each.is_none()) {
              py::gil_scoped_release released;
              w.step(n);
              return;
            }
            const std::function<void()> each = [&] {
              py::gil_scoped_acquire held;
              after_each();
            };
            py::gil_scoped_release released;
            w.step(n, each);
          },
          py::arg("n") = 1, py::arg("after_each") = py::none(),
          "Takes n steps; raises vkphys.Error if the state becomes NaN or infinite. With "
          "after_each, calls it after every step, when the World shows that step (on the GPU "
          "while the next one runs); an exception it raises stops the steps there.")
      .def_property_readonly("steps", &World::steps, "Steps since the scene was loaded.")
      .def_property_readonly("time", &World::time, "steps x time step [s].")
      .def_property_readonly("backend_name", &World::backend_name)
      .def_property_readonly("body_count", &World::body_count,
                             "The scene's bodies + one static body per plane.")
      .def_property_readonly("particle_count", &World::particle_count)
      .def(
          "state",
          [](py::object self, Field f) { return view(self.cast<const World&>(), self, f); },
          py::arg("field"), "A read-only (n, 4) float32 view of one state array (no copy).")
      .def(
          "write",
          [](World& w, Field f, std::size_t index, std::array<float, 4> v) {
            w.write(f, index, glm::vec4(v[0], v[1], v[2], v[3]));
          },
          py::arg("field"), py::arg("index"), py::arg("value"),
          "Writes one entry (x, y, z, w) of a state array; raises vkphys.Error for an index out "
          "of range, a NaN or infinity, or a quaternion that is not unit.")
      .def(
          "pick",
          [](const World& w, std::array<double, 3> origin,
             std::array<double, 3> direction) -> std::optional<py::dict> {
            const std::optional<vkphys::Grab> g = w.pick(
                {origin[0], origin[1], origin[2]}, {direction[0], direction[1], direction[2]});
            if (!g) return std::nullopt;
            py::dict d;
            d["particle"] = g->particle;
            d["index"] = g->index;
            d["local"] = py::make_tuple(g->local.x, g->local.y, g->local.z);
            d["depth"] = g->depth;
            return d;
          },
          py::arg("origin"), py::arg("direction"),
          "The nearest dynamic body or particle the ray enters: a dict of particle (bool), "
          "index, local (the hit point in the body's frame) and depth [m]; None on a miss.")
      .def(
          "pull",
          [](World& w, const py::dict& grab, std::array<double, 3> target) {
            const auto local = grab["local"].cast<std::array<double, 3>>();
            const glm::dvec3 f = w.pull(vkphys::Grab{grab["particle"].cast<bool>(),
                                                     grab["index"].cast<std::uint32_t>(),
                                                     {local[0], local[1], local[2]},
                                                     grab["depth"].cast<double>()},
                                        {target[0], target[1], target[2]});
            return py::make_tuple(f.x, f.y, f.z);
          },
          py::arg("grab"), py::arg("target"),
          "The mouse spring: one step's impulse pulling the grabbed point (a dict as pick "
          "gives) towards target, into the velocities now; call it before each step it should "
          "act on. Returns the force [N].")
      .def(
          "contacts", [](const World& w) { return to_dict(w.contacts()); },
          "What the last step found: pairs, manifolds, reused_manifolds, points, "
          "particle_contacts, rows.")
      .def_property_readonly("validation_errors", &World::validation_errors,
                             "The validation layer's error count (validation or "
                             "sync_validation, GPU); 0 otherwise.")
      .def(
          "metrics", [](const World& w) { return to_dict(w.metrics()); },
          "Energies [J], momenta, top speeds and the deepest particle overlap of the state.")
      .def(
          "compare", [](const World& a, const World& b) { return to_dict(a.compare(b)); },
          py::arg("other"),
          "The largest and mean differences of position [m], orientation [rad], velocity [m/s] "
          "and angular velocity [rad/s] from another World of the same scene.")
      .def(
          "statistics", [](const World& w) { return to_dict(w.statistics()); },
          "The last step's statistics (all zero before the first step): colors, "
          "overflow_units, colored_afresh, pair_capacity, contact_capacity, regrows, dispatches, "
          "barriers, "
          "ode_steps, ode_redos, ode_error, cg_iterations, cg_residual, cg_unmet, cg_redos, "
          "color_redos, solver_residual, solver_residual_angular, device_bytes, stages: each "
          "stage's name to "
          "its time [ms], the mean over the last step() call's steps, in step order, and "
          "stage_model_bytes: each stage's "
          "name to the bytes its kernels read and write by the traffic model.")
      .def(
          "constraint_errors", [](const World& w) { return to_dict(w.constraint_errors()); },
          "How far the last step left contacts, joints and springs from holding: "
          "max/mean_rigid_penetration [m], max/mean_joint_error [m], max/mean_spring_strain. "
          "A scene with rigid bodies needs record_contacts=True.")
      .def(
          "spring_stability",
          [](const World& w) { return to_dict(vkphys::spring_stability(w.scene())); },
          "The explicit stability bound of the scene's force springs (vkphys/stability.h): the "
          "limiting spring, its k [N/m], c [kg/s], masses [kg] (inf: pinned), omega [rad/s], "
          "the bound and the step [s], the network's bound, past (it will blow up), assured "
          "(the linearised network is stable) and the warning `vkphys run` prints (empty when "
          "assured).")
      .def(
          "camera", [](const World& w) { return to_dict(w.camera()); },
          "The camera render uses by default: a dict of position, target, up (3-tuples [m]) "
          "and fov_y_deg.")
      .def(
          "render",
          [](const World& w, std::uint32_t width, std::uint32_t height,
             const std::optional<py::dict>& camera,
             const std::optional<std::filesystem::path>& path) {
            std::optional<vkphys::SceneCamera> cam;
            if (camera) cam = camera_of(*camera);
            vkphys::Picture p;
            {
              py::gil_scoped_release free;
              p = w.render(width, height, cam);
              if (path) p.write_png(*path);
            }
            return pixels(std::move(p));
          },
          py::arg("width"), py::arg("height"), py::arg("camera") = py::none(),
          py::arg("path") = py::none(),
          "A picture of the current state as a (height, width, 4) uint8 RGBA array, rows top "
          "to bottom, drawn by the renderer of `vkphys render` on a Vulkan device (the GPU "
          "World's, or the one `device` picks for a CPU World). camera: a dict as camera() "
          "gives (None: camera()). path: also write it there as a PNG file.")
      .def("save", &World::save, "A checkpoint (Snapshot) of the whole state.");
  for (const StateProperty& p : kState) {
    const Field f = p.field;
    world.def_property(
        p.name, [f](py::object self) { return view(self.cast<const World&>(), self, f); },
        [f](World& w, const py::array_t<float, py::array::c_style | py::array::forcecast>& a) {
          write_all(w, f, a);
        },
        p.doc);
  }
}
