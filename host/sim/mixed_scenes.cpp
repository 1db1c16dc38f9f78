#include "host/sim/mixed_scenes.h"

#include <cmath>
#include <numbers>
#include <string>

#include "host/sim/scene_builders.h"
#include "host/sim/splitmix.h"
#include "vkphys/cloth.h"
#include "vkphys/soft_body.h"

namespace vkphys {

namespace {

constexpr float kRadius = 0.05f;

Scene base(std::string name) {
  Scene s;
  s.name = std::move(name);
  s.settings.gravity = {0.0f, -9.81f, 0.0f};
  s.settings.time_step = 1.0f / 60.0f;
  s.settings.contact_margin = 0.01f;
  s.settings.solver.iterations = 10;
  s.materials = {Material{"grain", 0.0f, 0.3f, 1.0e6f, 4.0f}};
  return s;
}

// `count` particles of radius kRadius on a jittered lattice of `nx` x ... x `nz` columns from
// `origin`, spacing 2.2 r, 1 kg each.
void add_lattice(Scene& s, std::uint32_t count, glm::vec3 origin, std::uint32_t nx,
                 std::uint32_t nz, std::uint64_t seed) {
  SplitMix64 rng(seed);
  const float spacing = 2.2f * kRadius;
  for (std::uint32_t i = 0; i < count; ++i) {
    const glm::vec3 cell(static_cast<float>(i % nx), static_cast<float>(i / (nx * nz)),
                         static_cast<float>((i / nx) % nz));
    // Drawn z, y, x: the order gcc evaluated glm::vec3's arguments in when the shipped scenes
    // were made (it is unspecified; clang's x, y, z gave other lattices than the scene files).
    const auto jz = static_cast<float>(rng.unit()), jy = static_cast<float>(rng.unit()),
               jx = static_cast<float>(rng.unit());
    const glm::vec3 jitter(jx, jy, jz);
    s.particles.add(origin + cell * spacing + 0.1f * kRadius * jitter, glm::vec3(0.0f), kRadius,
                    1.0f, 0);
  }
}

Body static_box(glm::vec3 position, glm::vec3 half, glm::vec4 orientation = {0, 0, 0, 1}) {
  Body b;
  b.shape = Shape::box;
  b.half_extents = half;
  b.position = position;
  b.orientation = orientation;
  b.mass = 0.0f;
  return b;
}

}  // namespace

Scene ramp_scene(std::uint32_t count, float degrees, float friction) {
  Scene s = base("ramp");
  s.materials[0].friction = friction;
  const float angle = degrees * std::numbers::pi_v<float> / 180.0f;
  // The ramp: 3 m long, 1 m wide, 0.1 m thick, its top surface through (0, 1.5, 0), falling
  // towards +x.
  const glm::vec4 tilt(0.0f, 0.0f, -std::sin(0.5f * angle), std::cos(0.5f * angle));
  const glm::vec3 normal(std::sin(angle), std::cos(angle), 0.0f);
  s.bodies.push_back(
      static_box(glm::vec3(0.0f, 1.5f, 0.0f) - 0.05f * normal, {1.5f, 0.05f, 0.5f}, tilt));
  // The catch box below the lower end: floor plane and four static walls.
  s.planes.push_back({{0.0f, 1.0f, 0.0f}, 0.0f, 0});
  const float cx = 1.5f * std::cos(angle) + 1.0f;
  s.bodies.push_back(static_box({cx - 1.05f, 0.4f, 0.0f}, {0.05f, 0.4f, 1.0f}));
  s.bodies.push_back(static_box({cx + 1.05f, 0.4f, 0.0f}, {0.05f, 0.4f, 1.0f}));
  s.bodies.push_back(static_box({cx, 0.4f, -1.05f}, {1.1f, 0.4f, 0.05f}));
  s.bodies.push_back(static_box({cx, 0.4f, 1.05f}, {1.1f, 0.4f, 0.05f}));
  // Particles above the upper end, 8 columns across the ramp.
  const glm::vec3 top(-1.5f * std::cos(angle), 1.5f + 1.5f * std::sin(angle), 0.0f);
  add_lattice(s, count, top + glm::vec3(0.05f, 0.3f, -0.4f), 8, 8, 11);
  return s;
}

Scene particle_bed_scene(std::uint32_t layers, float box_mass) {
  Scene s = base("particle_bed");
  s.settings.solver.contact_hertz = 0.0f;  // spheres and a resting box: the material's own k
  const std::uint32_t side = kParticleBedSide;
  const float spacing = 2.2f * kRadius;
  const float width = static_cast<float>(side) * spacing;
  add_box_planes(s, glm::vec3(0.0f), glm::vec3(width, 4.0f, width), 0, false);
  add_lattice(s, side * side * layers, glm::vec3(kRadius + 0.003f), side, side, 5);
  Body box;
  box.shape = Shape::box;
  box.half_extents = glm::vec3(0.2f);
  box.position = {0.5f * width, static_cast<float>(layers) * spacing + 0.6f, 0.5f * width};
  box.mass = box_mass;
  s.bodies.push_back(box);
  return s;
}

Scene paddle_scene(std::uint32_t count) {
  Scene s = base("paddle");
  const std::uint32_t side = 20;
  const float spacing = 2.2f * kRadius;
  const float width = static_cast<float>(side) * spacing;
  add_box_planes(s, glm::vec3(0.0f), glm::vec3(width, 3.0f, width), 0, false);
  add_lattice(s, count, glm::vec3(kRadius + 0.003f), side, side, 9);
  Body paddle = static_box({0.5f * width, 0.35f, 0.5f * width}, {0.04f, 0.3f, 0.6f});
  paddle.mass = 5.0f;  // ignored while driven
  s.bodies.push_back(paddle);
  KinematicPath path;
  path.target = {false, 0};
  path.amplitude = {0.6f, 0.0f, 0.0f};
  path.frequency = 0.25f;
  path.angular_velocity = {0.0f, 0.5f, 0.0f};
  s.kinematic.push_back(path);
  return s;
}

namespace {

// cloth_drape's and the tablecloth's stage: a fixed ball of radius 0.5 m at the origin over the
// ground at y = -0.6, g = 10, drag 0.001 kg/s, 2 iterations a substep, no contact-stiffness cap.
Scene drape_stage(std::string name, std::uint32_t substeps) {
  Scene s;
  s.name = std::move(name);
  s.settings.gravity = {0.0f, -10.0f, 0.0f};
  s.settings.drag = 0.001f;
  s.settings.contact_margin = -1.0f;  // automatic, as a scene file leaves it
  s.settings.solver.substeps = substeps;
  s.settings.solver.iterations = 2;
  s.settings.solver.contact_hertz = 0.0f;
  s.materials[0].name = "cloth";
  s.materials[0].friction = 0.4f;
  s.planes.push_back({{0.0f, 1.0f, 0.0f}, -0.6f, 0});
  Body ball;
  ball.shape = Shape::sphere;
  ball.radius = 0.5f;
  ball.mass = 0.0f;
  s.bodies.push_back(ball);
  return s;
}

}  // namespace

Scene cloth_drape_scene(std::uint32_t n, bool self_collision) {
  // The shipped files are named by their size (scenes/cloth_drape.json is the 32 x 32 one,
  // scenes/cloth_drape_64.json, scenes/large/cloth_drape_128.json and _256.json the others).
  Scene s = drape_stage(n == 32 ? "cloth_drape" : "cloth_drape_" + std::to_string(n), 4);
  ClothSpec c;
  c.origin = {-0.75f, 0.7f, -0.75f};
  c.u = {1.5f, 0.0f, 0.0f};
  c.v = {0.0f, 0.0f, 1.5f};
  c.nu = c.nv = n;
  c.k_structural = 1000.0f;
  c.k_shear = 100.0f;
  c.k_bend = 10.0f;
  if (self_collision) c.thickness = 0.75f * 1.5f / static_cast<float>(n - 1);
  add_cloth(s, c);
  // The linear drag acts on each vertex alike (f = -c v), and a vertex's mass goes as 1 / n^2,
  // so a fixed c slows a finer cloth more: at c = 0.001 kg/s the 128^2 cloth fell at 0.14 m/s
  // and had not reached the ball when the bench timed it. c scales with the vertex mass instead,
  // so every resolution falls as the default 32^2 does (c / m the same).
  const float coarse = 32.0f / static_cast<float>(n);
  s.settings.drag *= coarse * coarse;
  return s;
}

Scene tablecloth_scene(const TriangleMesh& disc) {
  Scene s = drape_stage("tablecloth", 8);
  MeshClothSpec c;
  c.mesh = disc;
  c.origin = {0.0f, 0.7f, 0.0f};
  c.density = 0.1f;
  c.k_structural = 1000.0f;
  c.k_bend = 10.0f;
  add_mesh_cloth(s, c);
  return s;
}

Scene cloth_hang_scene(std::uint32_t n, float k) {
  Scene s;
  s.name = "cloth_hang";
  s.settings.gravity = {0.0f, -9.81f, 0.0f};
  // Mean strain sampled every 10 steps over steps 70-300 (docs/benchmarks.md): 4 x 2 2.1%,
  // Bullet's 10 position iterations 2.3%; 8 x 1 4.7% (it read 2.0% at step 300 alone).
  s.settings.solver.substeps = 4;
  s.settings.solver.iterations = 2;
  s.materials[0].name = "cloth";
  ClothSpec c;
  c.origin = {-5.0f, 20.0f, -5.0f};
  c.u = {10.0f, 0.0f, 0.0f};
  c.v = {0.0f, 0.0f, 10.0f};
  c.nu = c.nv = n;
  c.density = 0.01f;  // 1 kg over 100 m^2
  c.k_structural = k;
  c.k_shear = k;
  c.k_bend = 0.0f;
  c.diagonals = ClothDiagonals::alternating;  // Bullet's patch: one diagonal per cell
  c.pins = {{0, 0}, {n - 1, 0}};
  add_cloth(s, c);
  return s;
}

Scene flag_scene(std::uint32_t n) {
  Scene s;
  s.name = "flag";
  s.settings.gravity = {0.0f, -9.81f, 0.0f};
  s.settings.drag = 0.001f;
  s.settings.contact_margin = -1.0f;  // automatic, as a scene file leaves it
  s.settings.wind.emplace().velocity = {2.0f, 0.0f, 0.0f};
  s.settings.solver.substeps = 4;
  s.settings.solver.iterations = 2;
  s.settings.solver.contact_hertz = 0.0f;
  s.materials[0].name = "cloth";
  s.materials[0].friction = 0.4f;
  ClothSpec c;
  c.origin = {0.0f, 3.0f, 0.0f};
  c.u = {0.0f, 0.0f, 1.5f};
  c.v = {0.0f, -1.0f, 0.0f};
  c.nu = n;
  c.nv = (2 * n + 2) / 3;
  c.density = 0.15f;
  c.pins = {{0, 0}, {n - 1, 0}};
  add_cloth(s, c);
  return s;
}

Scene jelly_cube_scene() {
  Scene s;
  s.name = "jelly_cube";
  s.settings.contact_margin = 0.05f;  // the landing's 2.4 m/s x 1/60 s is 4 cm
  s.settings.solver.substeps = 4;
  s.settings.solver.iterations = 4;
  s.materials[0].name = "jelly";
  s.materials[0].friction = 0.5f;
  s.planes.push_back({{0.0f, 1.0f, 0.0f}, 0.0f, 0});
  SoftBoxSpec b;
  b.origin = {-0.2f, 0.3f, -0.2f};
  b.size = glm::vec3(0.4f);
  b.nx = b.ny = b.nz = 5;
  b.density = 500.0f;
  b.k_edge = 800.0f;
  b.k_face = 400.0f;
  b.k_body = 200.0f;
  add_soft_box(s, b);
  return s;
}

Scene jelly_pyramid_scene() {
  Scene s;
  s.name = "jelly_pyramid";
  s.settings.contact_margin = 0.05f;
  s.settings.solver.substeps = 4;
  s.settings.solver.iterations = 4;
  s.materials[0].name = "jelly";
  s.materials[0].friction = 0.5f;
  s.planes.push_back({{0.0f, 1.0f, 0.0f}, 0.0f, 0});
  constexpr std::uint32_t kBase = 4;
  for (std::uint32_t row = 0; row < kBase; ++row) {
    const std::uint32_t n = kBase - row;
    for (std::uint32_t i = 0; i < n; ++i) {
      Body b;
      b.shape = Shape::box;
      b.half_extents = glm::vec3(0.5f);
      b.position = {static_cast<float>(i) - 0.5f * static_cast<float>(n - 1),
                    0.5f + static_cast<float>(row), 0.0f};
      b.mass = 1.0f;
      s.bodies.push_back(b);
    }
  }
  SoftBoxSpec b;
  b.origin = {-0.3f, static_cast<float>(kBase) + 0.3f, -0.3f};
  b.size = glm::vec3(0.6f);
  b.nx = b.ny = b.nz = 5;
  b.density = 10.0f;
  b.k_edge = 200.0f;
  b.k_face = 100.0f;
  b.k_body = 50.0f;
  add_soft_box(s, b);
  return s;
}

Scene trampoline_scene() {
  Scene s;
  s.name = "trampoline";
  s.settings.contact_margin = 0.01f;
  s.settings.solver.substeps = 4;
  s.settings.solver.iterations = 24;
  s.settings.solver.contact_hertz = 0.0f;
  s.materials[0].name = "trampoline";
  Body ball;
  ball.shape = Shape::sphere;
  ball.radius = kTrampolineBallRadius;
  ball.mass = kTrampolineBallMass;
  ball.position = {0.0f, 1.45f, 0.0f};  // 1 m + the drop + the radius, as the file writes it
  s.bodies.push_back(ball);
  ClothSpec c;
  c.origin = {-0.5f, 1.0f, -0.5f};
  c.u = {1.0f, 0.0f, 0.0f};
  c.v = {0.0f, 0.0f, 1.0f};
  c.nu = c.nv = kTrampolineSide;
  c.k_structural = kTrampolineK;
  c.k_shear = kTrampolineK / 10.0f;
  c.k_bend = kTrampolineK / 100.0f;
  const std::uint32_t last = kTrampolineSide - 1;
  // The four edges in turn, each vertex once, as the file lists them.
  for (std::uint32_t k = 0; k < last; ++k) c.pins.emplace_back(k, 0);
  for (std::uint32_t k = 0; k < last; ++k) c.pins.emplace_back(last, k);
  for (std::uint32_t k = 0; k < last; ++k) c.pins.emplace_back(last - k, last);
  for (std::uint32_t k = 0; k < last; ++k) c.pins.emplace_back(0, last - k);
  add_cloth(s, c);
  return s;
}

Scene rope_box_scene(float degrees, float drag) {
  Scene s;
  s.name = "rope_box";
  s.settings.drag = drag;
  s.settings.solver.substeps = 4;
  s.settings.solver.iterations = 4;
  s.materials[0].name = "rope";
  s.planes.push_back({{0.0f, 1.0f, 0.0f}, 0.0f, 0});
  const float theta = degrees * std::numbers::pi_v<float> / 180.0f;
  const glm::vec3 down(std::sin(theta), -std::cos(theta), 0.0f);  // along the rope
  const glm::vec3 top(0.0f, 3.0f, 0.0f);
  for (std::uint32_t i = 0; i < kRopeParticles; ++i) {
    const float mass = i == 0 ? 0.0f : kRopeParticleMass;  // the top particle is pinned
    s.particles.add(top + (kRopeSegment * static_cast<float>(i)) * down, glm::vec3(0.0f), 0.02f,
                    mass, 0);
    if (i > 0) s.springs.push_back(Spring{i - 1, i, kRopeSegment, kRopeK, 4.0f});
  }
  s.particles.group.assign(kRopeParticles, 1u);  // the rope's own particles never collide
  // The box turned by theta about z, so its up axis points back along the rope and the centre of
  // its top face lies one segment below the last particle.
  Body box;
  box.half_extents = glm::vec3(0.1f);
  box.mass = kRopeBoxMass;
  box.orientation = {0.0f, 0.0f, std::sin(0.5f * theta), std::cos(0.5f * theta)};
  const glm::vec3 anchor = top + (kRopeSegment * static_cast<float>(kRopeParticles)) * down;
  box.position = anchor + 0.1f * down;
  s.bodies.push_back(box);
  Spring hook{kRopeParticles - 1, 0, kRopeSegment, kRopeK, 4.0f};
  hook.end_b = SpringEnd::body;
  hook.anchor = {0.0f, 0.1f, 0.0f};
  s.springs.push_back(hook);
  return s;
}

}  // namespace vkphys
