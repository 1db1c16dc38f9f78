// The public API's World (include/vkphys/world.h): built from files, JSON and code, stepped,
// read and written through spans, compared, and refusing misuse with one-line errors.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "host/io/scene_file.h"
#include "host/sim/backend.h"
#include "tests/api_helpers.h"
#include "tests/gpu_env.h"
#include "vkphys/vkphys.h"

namespace vkphys {
namespace {

using test::error_of;
using test::same_bits;
using test::scene_path;

// A 1 m box (1 kg) released at rest with its centre y0 above the plane y = 0.
Scene falling_box(float y0) {
  Scene s;
  s.name = "falling_box";
  add_plane(s, glm::vec3(0.0f, 1.0f, 0.0f), 0.0f);
  add_box(s, glm::vec3(0.0f, y0, 0.0f), glm::vec3(0.5f), 1.0f);
  return s;
}

TEST(ApiWorld, FallingBoxFallsFreelyThenRestsOnThePlane) {
  const double y0 = 3.0, g = 9.81, h = static_cast<double>(1.0f / 60.0f);
  World w(falling_box(3.0f));
  std::span<const glm::vec4> x = w.state(Field::body_position);
  const glm::vec4* before = x.data();
  // Semi-implicit Euler, exactly: v_k = -g h k, y_k = y0 - g h^2 k (k + 1) / 2, while the box is
  // clear of the plane (here up to step 35, 0.9 m above it).
  for (int k = 1; k <= 35; ++k) {
    w.step();
    const double closed = y0 - g * h * h * k * (k + 1) / 2.0;
    ASSERT_NEAR(x[0].y, closed, 2e-5) << "step " << k;
    ASSERT_NEAR(w.state(Field::body_velocity)[0].y, -g * h * k, 2e-5) << "step " << k;
  }
  EXPECT_EQ(w.state(Field::body_position).data(), before);  // the view saw every step
  w.step(145);                                              // 3 s in all
  EXPECT_NEAR(x[0].y, 0.5, 1e-3);  // resting on its face (contact compliance: < 0.1 mm)
  EXPECT_NEAR(w.state(Field::body_velocity)[0].y, 0.0, 1e-3);
  EXPECT_EQ(w.steps(), 180u);
  EXPECT_DOUBLE_EQ(w.time(), 180.0 * static_cast<double>(1.0f / 60.0f));
  const Contacts c = w.contacts();
  EXPECT_EQ(c.points, 4u);  // a face on the plane: a four-point manifold
  EXPECT_NEAR(w.metrics().potential, 9.81 * 0.5, 1e-2);
}

TEST(ApiWorld, SceneFileStepsExactlyAsTheBackend) {
  const std::string path = scene_path("stack_5.json");
  World w = World::from_file(path);
  w.step(40);
  std::unique_ptr<Backend> b = make_cpu_backend();
  b->load(io::load_scene(path));
  for (int k = 0; k < 40; ++k) b->step();
  WorldState s;
  b->read(s);
  ASSERT_EQ(w.state(Field::body_position).size(), s.pos.size());
  for (std::size_t i = 0; i < s.pos.size(); ++i) {
    EXPECT_EQ(w.state(Field::body_position)[i], s.pos[i]);
    EXPECT_EQ(w.state(Field::body_orientation)[i], s.rot[i]);
    EXPECT_EQ(w.state(Field::body_velocity)[i], s.vel[i]);
  }
}

TEST(ApiWorld, JsonTextIsTheSceneFile) {
  const std::string path = scene_path("particle_bed.json");
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  World a = World::from_file(path), b = World::from_json(text.str());
  a.step(20);
  b.step(20);
  EXPECT_TRUE(same_bits(a, b));
  EXPECT_GT(a.particle_count(), 0u);
}

TEST(ApiWorld, SceneBuiltInCodeHoldsEveryKind) {
  Scene s;
  // The cloth tests' budget and light drag (tests/test_cloth.cpp).
  s.settings.drag = 0.001f;
  s.settings.solver.substeps = 4;
  s.settings.solver.iterations = 2;
  add_plane(s, glm::vec3(0.0f, 1.0f, 0.0f), 0.0f);
  const std::uint32_t ball = add_sphere(s, glm::vec3(-3.0f, 0.8f, 0.0f), 0.3f, 2.0f);
  add_capsule(s, glm::vec3(3.0f, 1.0f, 0.0f), 0.2f, 0.4f, 1.0f);
  // A pendulum: a sphere 1 m from the world point (0, 4, 5) on a distance joint.
  const std::uint32_t world = add_world_body(s);
  const std::uint32_t bob = add_sphere(s, glm::vec3(1.0f, 4.0f, 5.0f), 0.1f, 1.0f);
  s.joints.push_back(test::rod(world, bob, glm::vec3(0.0f, 4.0f, 5.0f), 1.0f));
  // A 0.1 kg particle hanging from a static one on a 100 N/m spring of rest length 0.5 m,
  // released where it is at rest: stretched by m g / k.
  const float stretch = 0.1f * 9.81f / 100.0f;
  const std::uint32_t top = add_particle(s, glm::vec3(6.0f, 3.0f, 0.0f), 0.05f, 0.0f);
  const std::uint32_t hung = add_particle(s, glm::vec3(6.0f, 2.5f - stretch, 0.0f), 0.05f, 0.1f);
  s.springs.push_back(Spring{top, hung, 0.5f, 100.0f, 4.0f});
  ClothSpec cloth;
  cloth.origin = glm::vec3(-6.0f, 2.0f, -1.0f);
  cloth.u = glm::vec3(1.0f, 0.0f, 0.0f);
  cloth.v = glm::vec3(0.0f, 0.0f, 1.0f);
  cloth.nu = cloth.nv = 6;
  cloth.pins = {{0, 0}, {5, 0}};
  const std::uint32_t first = add_cloth(s, cloth);
  World w(s);
  ASSERT_EQ(w.body_count(), s.bodies.size() + 1);  // + the plane's static body
  ASSERT_EQ(w.particle_count(), 2u + 36u);
  w.step(300);
  std::span<const glm::vec4> x = w.state(Field::body_position);
  EXPECT_NEAR(x[ball].y, 0.3, 1e-3);  // resting on the plane
  const double arm = double(glm::length(glm::vec3(x[bob]) - glm::vec3(0.0f, 4.0f, 5.0f)));
  EXPECT_NEAR(arm, 1.0, 1e-3);  // the rod holds its length
  std::span<const glm::vec4> p = w.state(Field::particle_position);
  EXPECT_NEAR(p[top].y - p[hung].y, 0.5 + static_cast<double>(stretch), 1e-4);  // still at rest
  EXPECT_EQ(p[first], glm::vec4(cloth.origin, p[first].w));  // pinned vertices stay
  EXPECT_EQ(p[first + 5], glm::vec4(cloth.origin + cloth.u, p[first + 5].w));
  EXPECT_LT(p[first + 35].y, cloth.origin.y - 0.5f);  // the free edge hangs down
}

TEST(ApiWorld, WrittenVelocitiesAndPositionsAreWhatTheStepStartsFrom) {
  Scene s;
  s.settings.gravity = glm::vec3(0.0f);
  add_box(s, glm::vec3(0.0f), glm::vec3(0.5f), 2.0f);
  add_particle(s, glm::vec3(0.0f, 5.0f, 0.0f), 0.1f, 1.0f);
  World w(s);
  w.write(Field::particle_velocity, 0, glm::vec4(2.0f, 0.0f, 0.0f, 123.0f));
  w.write(Field::body_position, 0, glm::vec4(0.0f, 0.0f, -3.0f, 0.0f));
  w.write(Field::body_velocity, std::vector<glm::vec4>{glm::vec4(0.0f, 0.0f, 1.0f, 0.0f)});
  EXPECT_EQ(w.state(Field::particle_velocity)[0], glm::vec4(2.0f, 0.0f, 0.0f, 1.0f));  // 1/m kept
  EXPECT_EQ(w.state(Field::body_position)[0].w, 0.5f);                                 // 1/m kept
  w.step(30);
  const double t = 30.0 * static_cast<double>(1.0f / 60.0f);
  EXPECT_NEAR(w.state(Field::particle_position)[0].x, 2.0 * t, 1e-5);
  EXPECT_NEAR(w.state(Field::body_position)[0].z, -3.0 + t, 1e-5);
}

TEST(ApiWorld, CompareMeasuresTheDifference) {
  World a = World::from_file(scene_path("stack_5.json"));
  World b = World::from_file(scene_path("stack_5.json"));
  a.step(10);
  b.step(10);
  StepError e = a.compare(b);
  EXPECT_EQ(e.max_pos, 0.0);
  EXPECT_EQ(e.max_vel, 0.0);
  EXPECT_EQ(e.points_a, a.contacts().points);
  EXPECT_EQ(e.points_a, e.points_b);
  glm::vec4 moved = b.state(Field::body_position)[2];
  moved.x += 0.25f;
  b.write(Field::body_position, 2, moved);
  e = a.compare(b);
  EXPECT_NEAR(e.max_pos, 0.25, 1e-6);
  EXPECT_EQ(e.worst_pos.index, 2u);
  EXPECT_FALSE(e.worst_pos.particle);
}

TEST(ApiWorld, MisuseIsAOneLineError) {
  World none;
  EXPECT_EQ(error_of([&] { none.step(); }),
            "step: this World has no scene (make it from a scene file, scene JSON or a Scene)");
  EXPECT_EQ(error_of([&] { (void)none.state(Field::body_position); }),
            "state: this World has no scene (make it from a scene file, scene JSON or a Scene)");
  World w(falling_box(2.0f));
  EXPECT_EQ(error_of([&] { w.write(Field::body_position, 7, glm::vec4(0.0f)); }),
            "write(body_position, 7): index out of range (2 bodies)");
  EXPECT_EQ(error_of([&] { w.write(Field::particle_velocity, 0, glm::vec4(0.0f)); }),
            "write(particle_velocity, 0): index out of range (0 particles)");
  EXPECT_EQ(error_of([&] { w.write(Field::body_position, 0, glm::vec4(0.0f, NAN, 0.0f, 0.0f)); }),
            "write(body_position, 0): (0, nan, 0, 0) is not finite");
  EXPECT_EQ(error_of([&] { w.write(Field::body_orientation, 0, glm::vec4(0, 0, 0, 2)); }),
            "write(body_orientation, 0): |q| = 2 is not 1 (within 1e-3)");
  EXPECT_EQ(error_of([&] { w.write(Field::body_position, 1, glm::vec4(0.0f)); }),
            "write(body_position, 1): plane body 1 (scene plane 0) is a plane's static body, "
            "which does not move");
  EXPECT_EQ(error_of([&] { w.write(Field::body_velocity, std::vector<glm::vec4>(3)); }),
            "write(body_velocity): 3 values for 2 entries");
  EXPECT_EQ(w.state(Field::body_position)[0].y, 2.0f);  // refused writes change nothing
  EXPECT_EQ(error_of([&] { World bad(falling_box(1.0f), {.backend = "tpu"}); }),
            "backend \"tpu\": expected cpu or gpu");
  const std::string missing = scene_path("no_such_scene.json");
  std::string expected;
  try {
    io::load_scene(missing);
  } catch (const io::SceneError& e) {
    expected = e.what();
  }
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(error_of([&] { World::from_file(missing); }), expected);  // the CLI's line
  EXPECT_EQ(error_of([&] { World::from_json("{\"version\": 2,}", {}, "<test>"); }).find('\n'),
            std::string::npos);
}

// A Scene built in code never passes the file reader: the step's own settings are refused when
// the World is made (with the reader's limits, but for the time step's 0.1 s), naming the field
// and its value, and a time step of 0 or a NaN gravity never runs.
TEST(ApiWorld, StepSettingsOfASceneBuiltInCodeAreChecked) {
  auto refused = [](auto change) {
    Scene s = falling_box(2.0f);
    change(s.settings);
    return error_of([&] { World w(s); });
  };
  EXPECT_EQ(refused([](Settings& t) { t.time_step = 0.0f; }),
            "time_step = 0.000000: must be a finite number of seconds > 0");
  EXPECT_EQ(refused([](Settings& t) { t.time_step = -0.01f; }),
            "time_step = -0.010000: must be a finite number of seconds > 0");
  EXPECT_EQ(refused([](Settings& t) { t.time_step = NAN; }),
            "time_step = nan: must be a finite number of seconds > 0");
  EXPECT_EQ(refused([](Settings& t) { t.time_step = INFINITY; }),
            "time_step = inf: must be a finite number of seconds > 0");
  EXPECT_EQ(refused([](Settings& t) { t.gravity.y = NAN; }),
            "gravity[1] = nan: must be within +-10000.000000 m/s^2");
  EXPECT_EQ(refused([](Settings& t) { t.gravity.z = -3e38f; }).substr(0, 14), "gravity[2] = -");
  EXPECT_EQ(refused([](Settings& t) { t.solver.iterations = 0; }),
            "solver.iterations = 0: must be at least 1");
  EXPECT_EQ(refused([](Settings& t) { t.solver.relaxation = 0.0f; }),
            "solver.relaxation = 0.000000: must be in (0, 1]");
  EXPECT_EQ(refused([](Settings& t) { t.solver.jacobi_contact_relaxation = 1.5f; }),
            "solver.jacobi_contact_relaxation = 1.500000: must be in (0, 1]");
  EXPECT_EQ(refused([](Settings& t) { t.solver.warm_start = 1.5f; }),
            "solver.warm_start = 1.500000: must be in [0, 1]");
  // The limits themselves are allowed, and a step and iterations beyond a file's (0.1 s, 1000).
  Scene s = falling_box(2.0f);
  s.settings.time_step = 0.25f;
  s.settings.solver.iterations = 3000;
  World w(s);
  w.step();
  EXPECT_LT(w.state(Field::body_position)[0].y, 2.0f);
}

TEST(ApiWorld, GpuWorldFollowsTheCpuWorld) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  (void)ctx;  // the World opens its own context; this one only decides whether to run
  World gpu =
      World::from_file(scene_path("particles_box.json"), {.backend = "gpu", .validation = true});
  World cpu = World::from_file(scene_path("particles_box.json"));
  gpu.step(30);
  cpu.step(30);
  EXPECT_EQ(gpu.backend_name().rfind("gpu (", 0), 0u);
  const StepError e = gpu.compare(cpu);
  EXPECT_LT(e.max_pos, 1e-4);
  EXPECT_LT(e.max_vel, 1e-3);
  EXPECT_EQ(gpu.contacts().particle_contacts, cpu.contacts().particle_contacts);
  EXPECT_EQ(gpu.validation_errors(), 0u);
}

}  // namespace
}  // namespace vkphys
