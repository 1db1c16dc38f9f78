// The GPU backend under the validation layer's synchronization validation (issue 13): a small
// scene set that together records every path of the step (host/gpu/step_recording.cpp), each run
// for a few steps on a context with synchronization validation on (tests/gpu_env.h,
// sync_context_or_null). The layer tracks the memory ranges every command reads and writes and
// reports, as a validation error, any access that no barrier orders after an earlier
// conflicting one (SYNC-HAZARD-READ-AFTER-WRITE, -WRITE-AFTER-READ, -WRITE-AFTER-WRITE); the
// fixture's guard fails the test on any error. A missing or too weak barrier is a bug on a real
// GPU even where lavapipe, which runs one command at a time, computes the right answer.
//
// Each scene is also held to the CPU backend (compare_backends: positions within 1e-3 m and
// velocities within 1e-2 m/s after every step, and one traced step from the start whose every
// stage's output is within compare_traces' limits), so a test passes only if the step it
// validated computed the physics too. The layer checks each command as it is recorded, so a
// step replayed unchanged costs little more, but each load, regrow and re-record does: the
// scenes are small and the runs short (each test takes a few seconds on lavapipe).
//
// Paths covered: particles (grid hash, sort, cell ranges, particle contacts, planes); rigid
// spheres, boxes and capsules (sweep and prune, narrowphase, manifolds) in the coloured and
// Jacobi schemes, recorded per colour and fused into one workgroup; Newton restitution's impact
// passes, the split impulse, substeps with relax sweeps, Jacobi's spring start on a stack; joints
// (distance, ball and hinge with limits); compliant and force springs (cloth, soft body, a rope
// hanging a box); the force springs under every integrator the GPU runs (symplectic, euler,
// midpoint, rk4, rk4 adaptive, whose redone steps restore the step start); self-collision with a
// thickness; kinematic paths and scheduled impulses; lists grown during a step (the overflow path:
// restore, reallocate, copy the previous lists over, re-record); a colouring that needs more
// colours than were recorded (the step redone with all of them); checkpoints saved from and loaded
// onto the GPU; the readback of contacts, traces and metrics through the public API; and a picture
// drawn by the render pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "host/gpu/renderer.h"
#include "host/io/scene_file.h"
#include "host/io/surface_mesh.h"
#include "host/sim/backend.h"
#include "host/sim/compare.h"
#include "tests/gpu_env.h"
#include "vkphys/world.h"

namespace vkphys::test {
namespace {

// A scene of scenes/, with `scheme` in place of its own if given.
Scene shipped_scene(const char* name, std::optional<SolverScheme> scheme = std::nullopt) {
  Scene s = io::load_scene(std::string(VKPHYS_SOURCE_DIR) + "/scenes/" + name);
  if (scheme) s.settings.solver.scheme = *scheme;
  return s;
}

// A scene from JSON text, with `scheme` in place of its own if given.
Scene scene_json(const std::string& text, std::optional<SolverScheme> scheme = std::nullopt) {
  Scene s = io::parse_scene(text, "<sync test scene>");
  if (scheme) s.settings.solver.scheme = *scheme;
  return s;
}

class GpuSyncValidation : public WithGpu<::testing::Test, sync_context_or_null> {
 protected:
  // `steps` steps of `scene` on a GPU backend of the synchronization-validation context, held
  // to the CPU backend as the header says. Capacities other than 0 start the pair and
  // particle-contact lists that small.
  void expect_like_cpu(const Scene& scene, std::uint32_t steps,
                       FusedPolicy fused = FusedPolicy::automatic, std::uint32_t pairs = 0,
                       std::uint32_t contacts = 0) {
    std::unique_ptr<Backend> gpu = make_gpu_backend(*ctx_, std::nullopt, fused);
    std::unique_ptr<Backend> cpu = make_cpu_backend();
    gpu->load(scene, pairs, contacts);
    cpu->load(scene);
    CompareOptions opt;
    opt.seeds = 0;
    opt.checks = 1;
    const CompareResult r = compare_backends(*gpu, *cpu, scene, steps, opt);
    EXPECT_TRUE(r.passed()) << r.verdict;
  }
};

// --- Particles -------------------------------------------------------------------------------

// 2,400 particles falling into an open box: the grid (hash, radix sort, cell ranges, counts and
// scan) and particle-particle and particle-plane contacts, in both schemes.
TEST_F(GpuSyncValidation, ParticlesInABoxColored) {
  expect_like_cpu(shipped_scene("particles_box.json", SolverScheme::colored), 4);
}

TEST_F(GpuSyncValidation, ParticlesInABoxJacobi) {
  expect_like_cpu(shipped_scene("particles_box.json", SolverScheme::jacobi), 4);
}

// --- Rigid bodies ----------------------------------------------------------------------------

// A sphere, a box and a capsule touching the ground and each other from the first step (every
// narrowphase pair type with manifolds at once), a particle on the box (particle-body pairs).
const char* kRigidShapes = R"({
  "format": "vkphys-scene", "version": 2, "name": "sync_rigid_shapes",
  "gravity": [0, -9.81, 0], "contact_margin": 0.02,
  "solver": {"iterations": 6},
  "materials": [{"name": "m", "friction": 0.5, "restitution": 0.3}],
  "planes": [{"normal": [0, 1, 0], "offset": 0}],
  "bodies": [
    {"shape": "box", "half_extents": [0.5, 0.25, 0.5], "position": [0, 0.25, 0], "mass": 2},
    {"shape": "sphere", "radius": 0.25, "position": [0.8, 0.25, 0], "mass": 1},
    {"shape": "capsule", "radius": 0.2, "half_height": 0.3, "position": [-0.75, 0.2, 0],
     "orientation": {"axis": [0, 0, 1], "angle_deg": 90}, "mass": 1},
    {"shape": "box", "half_extents": [0.2, 0.2, 0.2], "position": [0.1, 0.7, 0.05], "mass": 0.5}
  ],
  "particles": [{"type": "particle", "position": [-0.3, 0.56, 0.2], "radius": 0.05, "mass": 0.1}]
})";

Scene rigid_shapes(SolverScheme scheme) {
  return scene_json(kRigidShapes, scheme);
}

TEST_F(GpuSyncValidation, RigidShapesColored) {
  expect_like_cpu(rigid_shapes(SolverScheme::colored), 4, FusedPolicy::never);
}

TEST_F(GpuSyncValidation, RigidShapesJacobi) {
  expect_like_cpu(rigid_shapes(SolverScheme::jacobi), 4, FusedPolicy::never);
}

// The colouring and the sweeps fused into one workgroup (shaders/world_fused.comp).
TEST_F(GpuSyncValidation, RigidShapesColoredFused) {
  expect_like_cpu(rigid_shapes(SolverScheme::colored), 4, FusedPolicy::always);
}

TEST_F(GpuSyncValidation, RigidShapesJacobiFused) {
  expect_like_cpu(rigid_shapes(SolverScheme::jacobi), 4, FusedPolicy::always);
}

// Newton restitution's impact passes and the split impulse's second solve.
TEST_F(GpuSyncValidation, NewtonRestitutionAndSplitImpulse) {
  Scene s = rigid_shapes(SolverScheme::colored);
  s.particles = {};
  s.settings.solver.restitution = RestitutionModel::newton;
  s.settings.solver.impact_passes = 2;
  s.settings.solver.split_impulse = true;
  expect_like_cpu(s, 4);
}

// Substeps (forces and targets again per substep) with relax sweeps.
TEST_F(GpuSyncValidation, SubstepsAndRelax) {
  Scene s = rigid_shapes(SolverScheme::colored);
  s.settings.solver.substeps = 2;
  s.settings.solver.iterations = 2;
  s.settings.solver.relax_iterations = 1;
  expect_like_cpu(s, 4);
}

// Jacobi at 5 x 2 and the default 35 Hz cap on a 4-cube stack: the middle cubes' contact points
// are split rows too slow for their relaxation, so each substep starts them from their contact
// spring (kernels/contact_manifold.inl, jacobi_spring_warm), on both backends alike.
TEST_F(GpuSyncValidation, JacobiSpringStart) {
  expect_like_cpu(scene_json(R"({
  "format": "vkphys-scene", "version": 2, "name": "sync_jacobi_spring_start",
  "gravity": [0, -10, 0],
  "solver": {"scheme": "jacobi", "substeps": 5, "iterations": 2, "contact_hertz": 35},
  "materials": [{"name": "m", "friction": 0.5}],
  "planes": [{"normal": [0, 1, 0], "offset": 0}],
  "bodies": [
    {"shape": "box", "half_extents": [0.5, 0.5, 0.5], "position": [0, 0.5, 0], "mass": 1},
    {"shape": "box", "half_extents": [0.5, 0.5, 0.5], "position": [0, 1.5, 0], "mass": 1},
    {"shape": "box", "half_extents": [0.5, 0.5, 0.5], "position": [0, 2.5, 0], "mass": 1},
    {"shape": "box", "half_extents": [0.5, 0.5, 0.5], "position": [0, 3.5, 0], "mass": 1}
  ]
})",
                             SolverScheme::jacobi),
                  8);
}

// Lists that start too small for the step: the first steps overflow, restore the step start,
// grow the lists (copying the last step's pairs and contacts into the grown buffers), rebuild
// the warm-start table, re-record and redo the step.
TEST_F(GpuSyncValidation, ListsGrownDuringTheStep) {
  Scene s = rigid_shapes(SolverScheme::colored);
  Scene particles = shipped_scene("particles_box.json");
  s.particles = particles.particles;
  s.settings.cell_size = particles.settings.cell_size;
  std::unique_ptr<Backend> gpu = make_gpu_backend(*ctx_);
  gpu->load(s, 1, 1);
  gpu->step();
  EXPECT_GE(gpu->stats().regrows, 1u);
  expect_like_cpu(s, 3, FusedPolicy::automatic, 1, 1);
}

// Four spheres closing on a fifth in free fall: no contact in the first step, so the step after
// records colour sweeps for 2 colours only; four contacts on one sphere need 4, and the step
// that finds them is redone with every colour recorded (the colouring's redo flag).
TEST_F(GpuSyncValidation, ColoursRecordedAgainWhenContactsNeedMore) {
  const Scene s = scene_json(R"({
    "format": "vkphys-scene", "version": 2, "name": "sync_colour_redo",
    "gravity": [0, 0, 0], "contact_margin": 0.01,
    "bodies": [
      {"shape": "sphere", "radius": 0.2, "position": [0, 0, 0], "mass": 1},
      {"shape": "sphere", "radius": 0.2, "position": [0.45, 0, 0], "velocity": [-2, 0, 0], "mass": 1},
      {"shape": "sphere", "radius": 0.2, "position": [-0.45, 0, 0], "velocity": [2, 0, 0], "mass": 1},
      {"shape": "sphere", "radius": 0.2, "position": [0, 0, 0.45], "velocity": [0, 0, -2], "mass": 1},
      {"shape": "sphere", "radius": 0.2, "position": [0, 0, -0.45], "velocity": [0, 0, 2], "mass": 1}
    ]
  })");
  std::unique_ptr<Backend> gpu = make_gpu_backend(*ctx_);
  gpu->load(s);
  gpu->step();
  EXPECT_EQ(gpu->stats().colors, 0u);
  std::uint32_t colors = 0;
  for (int k = 0; k < 3; ++k) {
    gpu->step();
    colors = std::max(colors, gpu->stats().colors);
  }
  EXPECT_GE(colors, 4u);
  expect_like_cpu(s, 4);
}

// --- Joints ----------------------------------------------------------------------------------

// A hinge with an angle limit to the world, a ball joint with per-axis limits and a distance
// joint between bodies: every joint row kind and joints with contacts in one colouring.
const char* kJoints = R"({
  "format": "vkphys-scene", "version": 2, "name": "sync_joints",
  "gravity": [0, -9.81, 0],
  "solver": {"iterations": 6},
  "planes": [{"normal": [0, 1, 0], "offset": 0}],
  "bodies": [
    {"shape": "box", "half_extents": [0.4, 0.05, 0.1], "position": [0.4, 2, 0], "mass": 1,
     "angular_velocity": [0, 0, -2]},
    {"shape": "capsule", "radius": 0.05, "half_height": 0.2, "position": [0.8, 1.75, 0], "mass": 0.5},
    {"shape": "sphere", "radius": 0.1, "position": [0.8, 1.2, 0], "mass": 0.5},
    {"shape": "box", "half_extents": [0.1, 0.1, 0.1], "position": [1.5, 0.1, 0], "mass": 1}
  ],
  "joints": [
    {"type": "hinge", "bodies": ["world", 0], "anchor": [0, 2, 0], "axis": [0, 0, 1],
     "limits": {"lo_deg": -30, "hi_deg": 30}},
    {"type": "ball", "bodies": [0, 1], "anchor": [0.8, 2, 0],
     "limits": {"lo_deg": [-20, -20, -20], "hi_deg": [20, 20, 20]}},
    {"type": "distance", "bodies": [1, 2], "anchor_a": [0, -0.25, 0]}
  ]
})";

Scene joints(SolverScheme scheme) {
  return scene_json(kJoints, scheme);
}

TEST_F(GpuSyncValidation, JointsColored) {
  expect_like_cpu(joints(SolverScheme::colored), 4);
}

TEST_F(GpuSyncValidation, JointsJacobi) {
  expect_like_cpu(joints(SolverScheme::jacobi), 4);
}

// --- Springs, cloth, soft bodies -------------------------------------------------------------

// Compliant structural, shear and bend springs of a cloth on a ball and the ground, 4 substeps.
TEST_F(GpuSyncValidation, ClothOfCompliantSprings) {
  expect_like_cpu(shipped_scene("cloth_drape.json"), 3);
}

TEST_F(GpuSyncValidation, ClothOfCompliantSpringsJacobi) {
  expect_like_cpu(shipped_scene("cloth_drape.json", SolverScheme::jacobi), 3);
}

// A soft body of compliant edge, face and body springs landing on the ground.
TEST_F(GpuSyncValidation, JellyCube) {
  expect_like_cpu(shipped_scene("jelly_cube.json"), 3);
}

// A rope of particles hanging a box by a particle-body spring.
TEST_F(GpuSyncValidation, RopeHangingABox) {
  expect_like_cpu(shipped_scene("rope_box.json"), 3);
}

// A chain of force springs from a pinned particle, one more particle joined by a compliant
// spring, a particle resting on the ground: the integrator marks hold the last two to the
// symplectic step (ODE_MARK) while the rest take INTEGRATOR's ODE passes.
const char* kForceSprings = R"({
  "format": "vkphys-scene", "version": 2, "name": "sync_force_springs",
  "gravity": [0, -9.81, 0], "time_step": 0.01, "contact_margin": 0.02,
  "solver": {"iterations": 4, "integrator": "INTEGRATOR"ADAPTIVE},
  "planes": [{"normal": [0, 1, 0], "offset": 0}],
  "particles": [
    {"type": "particle", "position": [0, 2, 0], "radius": 0.05, "static": true},
    {"type": "particle", "position": [0.3, 1.8, 0], "radius": 0.05, "mass": 1},
    {"type": "particle", "position": [0.6, 1.7, 0], "radius": 0.05, "mass": 1},
    {"type": "particle", "position": [0.9, 1.5, 0], "radius": 0.05, "mass": 1},
    {"type": "particle", "position": [1.2, 1.3, 0], "radius": 0.05, "mass": 1},
    {"type": "particle", "position": [2, 0.05, 0], "radius": 0.05, "mass": 1}
  ],
  "springs": [
    {"particles": [0, 1], "k": 200, "model": "force", "c": 0.5, "rest": 0.3},
    {"particles": [1, 2], "k": 200, "model": "force", "c": 0.5, "rest": 0.3},
    {"particles": [2, 3], "k": 200, "model": "force", "c": 0.5, "rest": 0.3},
    {"particles": [3, 4], "k": 100}
  ]
})";

Scene force_springs(const std::string& integrator, const std::string& adaptive = "") {
  std::string text = kForceSprings;
  text.replace(text.find("INTEGRATOR"), 10, integrator);
  text.replace(text.find("ADAPTIVE"), 8, adaptive);
  return scene_json(text);
}

TEST_F(GpuSyncValidation, ForceSpringsSymplectic) {
  expect_like_cpu(force_springs("symplectic"), 4);
}

TEST_F(GpuSyncValidation, ForceSpringsEuler) {
  expect_like_cpu(force_springs("euler"), 4);
}

TEST_F(GpuSyncValidation, ForceSpringsMidpoint) {
  expect_like_cpu(force_springs("midpoint"), 4);
}

TEST_F(GpuSyncValidation, ForceSpringsRk4) {
  expect_like_cpu(force_springs("rk4"), 4);
}

// Backward Euler's CG passes (8 iterations recorded, each a pass of its own reading what the
// one before wrote, and the done flag), with the contact and the compliant spring's rows after.
TEST_F(GpuSyncValidation, ForceSpringsImplicit) {
  expect_like_cpu(force_springs("implicit", R"(, "cg_max_iterations": 8)"), 4);
}

// A tolerance tight enough that the first steps are redone with more ODE steps (each redo
// restores the step start and re-records), and later ones relax it again.
TEST_F(GpuSyncValidation, ForceSpringsRk4Adaptive) {
  const Scene s = force_springs("rk4", R"(, "adaptive": {"tolerance": 1e-7, "max_steps": 2})");
  std::unique_ptr<Backend> gpu = make_gpu_backend(*ctx_);
  gpu->load(s);
  gpu->step();
  EXPECT_GE(gpu->stats().ode_redos, 1u);
  expect_like_cpu(s, 2);
}

// Self-collision with a thickness: a strip of particles of one group folded over itself (two
// rows 5 cm apart, each row joined along itself by springs, joined across only at the fold), so
// the rows' unjoined facing pairs collide within the thickness from the first step and the
// joined pair at the fold does not; and a cloth with a thickness over a ball and the ground.
TEST_F(GpuSyncValidation, SelfCollision) {
  const Scene s = scene_json(R"({
    "format": "vkphys-scene", "version": 2, "name": "sync_self_collision",
    "gravity": [0, -9.81, 0], "contact_margin": 0.01,
    "solver": {"substeps": 2, "iterations": 4, "contact_hertz": 0},
    "planes": [{"normal": [0, 1, 0], "offset": 0}],
    "bodies": [{"shape": "sphere", "radius": 0.15, "position": [0, 0.2, 0], "static": true}],
    "particles": [
      {"type": "particle", "position": [1.0, 0.3, 0], "radius": 0.02, "mass": 0.01, "group": 7, "thickness": 0.06},
      {"type": "particle", "position": [1.1, 0.3, 0], "radius": 0.02, "mass": 0.01, "group": 7, "thickness": 0.06},
      {"type": "particle", "position": [1.2, 0.3, 0], "radius": 0.02, "mass": 0.01, "group": 7, "thickness": 0.06},
      {"type": "particle", "position": [1.0, 0.35, 0], "radius": 0.02, "mass": 0.01, "group": 7, "thickness": 0.06},
      {"type": "particle", "position": [1.1, 0.35, 0], "radius": 0.02, "mass": 0.01, "group": 7, "thickness": 0.06},
      {"type": "particle", "position": [1.2, 0.35, 0], "radius": 0.02, "mass": 0.01, "group": 7, "thickness": 0.06}
    ],
    "springs": [{"particles": [0, 1], "k": 100}, {"particles": [1, 2], "k": 100},
                {"particles": [3, 4], "k": 100}, {"particles": [4, 5], "k": 100},
                {"particles": [2, 5], "k": 100}],
    "cloths": [{"origin": [-0.3, 0.36, -0.3], "u": [0.6, 0, 0], "v": [0, 0, 0.6],
                "resolution": [7, 7], "density": 0.1, "thickness": 0.06,
                "springs": {"structural": 1000, "shear": 100, "d": 4}}]
  })");
  // The strip's facing pairs (world indices after the sphere and the plane's body) in the GPU's
  // first step: 0-3 and 1-4 collide, 2-5 (joined) does not.
  std::unique_ptr<Backend> gpu = make_gpu_backend(*ctx_);
  gpu->load(s);
  StepTrace trace;
  gpu->step(&trace);
  auto has = [&](std::uint32_t i, std::uint32_t j) {
    const std::uint32_t a = 2 + i, b = 2 + j;
    return std::any_of(
        trace.pcontact_bodies.begin(), trace.pcontact_bodies.end(),
        [&](glm::uvec2 c) { return (c.x == a && c.y == b) || (c.x == b && c.y == a); });
  };
  EXPECT_TRUE(has(0, 3));
  EXPECT_TRUE(has(1, 4));
  EXPECT_FALSE(has(2, 5));
  expect_like_cpu(s, 4);
}

// --- Kinematic paths and impulses ------------------------------------------------------------

TEST_F(GpuSyncValidation, KinematicPathsAndImpulses) {
  Scene s = scene_json(R"({
    "format": "vkphys-scene", "version": 2, "name": "sync_drive",
    "gravity": [0, -9.81, 0], "time_step": 0.02,
    "planes": [{"normal": [0, 1, 0], "offset": 0}],
    "bodies": [
      {"shape": "box", "half_extents": [0.2, 0.2, 0.2], "position": [0, 0.2, 0], "mass": 1},
      {"shape": "sphere", "radius": 0.2, "position": [-0.5, 0.2, 0], "mass": 1,
       "kinematic": {"velocity": [1, 0, 0], "angular_velocity": [0, 1, 0]}}
    ],
    "particles": [
      {"type": "particle", "position": [1, 0.05, 0], "radius": 0.05, "mass": 0.1},
      {"type": "particle", "position": [1, 0.5, 0], "radius": 0.05, "mass": 0.1,
       "kinematic": {"amplitude": [0, 0.1, 0], "frequency": 2}}
    ],
    "impulses": [{"time": 0.02, "body": 0, "impulse": [0, 2, 0], "point": [0.2, 0.2, 0]},
                 {"time": 0.04, "particle": 0, "impulse": [0, 0.5, 0]}]
  })");
  expect_like_cpu(s, 4);
}

// --- Pictures --------------------------------------------------------------------------------

// The render pass (host/gpu/scene_pass.h: attachments cleared, drawn, copied out to the host)
// twice into the same attachments: the same picture, with the box drawn where the camera
// projects it.
TEST_F(GpuSyncValidation, RenderedPicture) {
  const Scene s = rigid_shapes(SolverScheme::colored);
  std::unique_ptr<Backend> gpu = make_gpu_backend(*ctx_);
  gpu->load(s);
  gpu->step();
  WorldState st;
  gpu->read(st);
  const gpu::Renderer r(*ctx_, 160, 120);
  const gpu::Camera cam = gpu::framing_camera(s, st);
  const io::SurfaceMesh mesh = io::surface_mesh(s, st, true);
  const gpu::Image first = r.draw(mesh, cam), second = r.draw(mesh, cam);
  EXPECT_EQ(first.rgba, second.rgba);
  const glm::vec2 box = r.project(cam, glm::vec3(st.pos[0]));
  EXPECT_NE(first.at(std::uint32_t(box.x), std::uint32_t(box.y)), first.at(0, 0));
}

// --- Checkpoints and readback through the public API -----------------------------------------

// A World on the GPU with synchronization validation (its own context) takes 3 steps, saves, and
// takes 3 more; a second World loaded from the checkpoint takes the same 3 and ends bit for bit
// where the first did, with the same contacts and metrics. Every download (state, contacts,
// metrics, a checkpoint's carried lists, the traces compare() reads) and upload (a checkpoint's
// state) is validated.
TEST_F(GpuSyncValidation, CheckpointSaveLoadAndReadback) {
  const WorldOptions gpu{.backend = "gpu", .sync_validation = true};
  World a = World::from_json(kRigidShapes, gpu);
  a.step(3);
  const Snapshot checkpoint = a.save();
  a.step(3);
  World b = World::load(checkpoint, gpu);
  b.step(3);
  for (Field f :
       {Field::body_position, Field::body_orientation, Field::body_velocity,
        Field::body_angular_velocity, Field::particle_position, Field::particle_velocity}) {
    const std::span<const glm::vec4> sa = a.state(f), sb = b.state(f);
    ASSERT_EQ(sa.size(), sb.size()) << field_name(f);
    for (std::size_t i = 0; i < sa.size(); ++i) {
      EXPECT_EQ(sa[i], sb[i]) << field_name(f) << " " << i;
    }
  }
  const Contacts ca = a.contacts(), cb = b.contacts();
  EXPECT_GT(ca.points, 0u);
  EXPECT_EQ(ca.pairs, cb.pairs);
  EXPECT_EQ(ca.manifolds, cb.manifolds);
  EXPECT_EQ(ca.points, cb.points);
  EXPECT_EQ(ca.particle_contacts, cb.particle_contacts);
  EXPECT_EQ(ca.rows, cb.rows);
  EXPECT_EQ(a.metrics().energy(), b.metrics().energy());
  const StepError e = a.compare(b);
  EXPECT_EQ(e.max_pos, 0.0);
  EXPECT_EQ(a.validation_errors(), 0u);
  EXPECT_EQ(b.validation_errors(), 0u);
}

}  // namespace
}  // namespace vkphys::test
