// The offscreen renderer (host/gpu/renderer.h) on the Vulkan device: a known scene's pixels show
// its objects where the camera projects them (a sphere's and a particle's centres have their
// colours, the corners the background), a scene file's camera puts a sphere where a pinhole
// camera projects it analytically, and the same frame simulated on the GPU and on the CPU looks
// the same. A cloth is a shaded surface (no holes between its vertices), and a joint is a line
// between its anchors.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "host/gpu/renderer.h"
#include "host/io/scene_file.h"
#include "host/io/surface_mesh.h"
#include "tests/gpu_env.h"
#include "tests/rigid_scene_helpers.h"
#include "tests/source_tree.h"

namespace vkphys::test {
namespace {

constexpr std::uint32_t kW = 160, kH = 120;

// The colour of a kind lit head-on, as 8-bit channels (the facet at a sphere's centre faces the
// camera within half a facet, cos 15 deg: at least 97% of it).
::testing::AssertionResult lit_head_on(glm::u8vec4 px, io::PointKind kind) {
  const glm::vec3 c = 255.0f * gpu::kind_color(kind);
  for (int k = 0; k < 3; ++k) {
    if (std::abs(float(px[k]) - c[k]) > 0.06f * 255.0f) {
      return ::testing::AssertionFailure()
             << "pixel (" << int(px.r) << ", " << int(px.g) << ", " << int(px.b) << ") is not ("
             << c.r << ", " << c.g << ", " << c.b << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

bool is_background(glm::u8vec4 px) {
  const glm::vec3 b = 255.0f * gpu::kBackground;
  return std::abs(float(px.r) - b.r) <= 1.0f && std::abs(float(px.g) - b.g) <= 1.0f &&
         std::abs(float(px.b) - b.b) <= 1.0f;
}

// The scene stepped `steps` times on the GPU backend and on the CPU backend, whose simulation
// stays in `cpu` to go on with: the two states (GPU, CPU).
std::pair<WorldState, WorldState> step_on_both(vk::Context& ctx, const Scene& s, int steps,
                                               std::unique_ptr<Backend>& cpu) {
  std::unique_ptr<Backend> gpu = make_gpu_backend(ctx);
  cpu = make_cpu_backend();
  gpu->load(s);
  cpu->load(s);
  for (int k = 0; k < steps; ++k) {
    gpu->step();
    cpu->step();
  }
  std::pair<WorldState, WorldState> states;
  gpu->read(states.first);
  cpu->read(states.second);
  return states;
}

TEST(Render, ObjectsWhereTheCameraProjectsThem) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  Scene s = empty_rigid_scene(0.0f);
  s.bodies.push_back(make_sphere({-1.0f, 0.0f, 0.0f}, 1.0f, 1.0f));
  s.particles.add({2.0f, 0.5f, 0.0f}, glm::vec3(0.0f), 0.5f, 1.0f, 0);
  const WorldState st = loaded_state(s);
  gpu::Renderer r(ctx, kW, kH);
  const gpu::Camera cam = gpu::framing_camera(s, st);
  const gpu::Image img = r.draw(io::surface_mesh(s, st, true), cam);
  ASSERT_EQ(img.rgba.size(), std::size_t{kW} * kH * 4);
  const glm::vec2 sphere = r.project(cam, {-1.0f, 0.0f, 0.0f});
  const glm::vec2 particle = r.project(cam, {2.0f, 0.5f, 0.0f});
  for (glm::vec2 p : {sphere, particle}) {
    ASSERT_TRUE(p.x > 0.0f && p.x < float(kW) && p.y > 0.0f && p.y < float(kH))
        << "framed: " << p.x << ", " << p.y;
  }
  EXPECT_TRUE(lit_head_on(img.at(std::uint32_t(sphere.x), std::uint32_t(sphere.y)),
                          io::PointKind::surface));
  EXPECT_TRUE(lit_head_on(img.at(std::uint32_t(particle.x), std::uint32_t(particle.y)),
                          io::PointKind::particle));
  for (auto [x, y] : {std::pair{0u, 0u}, {kW - 1, 0u}, {0u, kH - 1}, {kW - 1, kH - 1}}) {
    EXPECT_TRUE(is_background(img.at(x, y))) << "corner " << x << ", " << y;
  }
  // The sphere (radius 1, orange) covers more pixels than the particle (radius 0.5, blue) at a
  // like distance.
  std::uint32_t sphere_px = 0, particle_px = 0;
  for (std::uint32_t y = 0; y < kH; ++y) {
    for (std::uint32_t x = 0; x < kW; ++x) {
      const glm::u8vec4 px = img.at(x, y);
      if (is_background(px)) continue;
      (px.b > px.r ? particle_px : sphere_px) += 1;
    }
  }
  EXPECT_GT(sphere_px, 2 * particle_px) << sphere_px << " sphere, " << particle_px << " particle";
  EXPECT_GT(particle_px, 50u);
}

// A pinhole camera at `eye` looking at `target` with `up` and a vertical field of view `fov`
// [rad], worked by hand: the unit vectors of the picture's right, up and forward, and the ray
// through a pixel of a kW x kH picture [pixels, origin top left].
struct Pinhole {
  glm::dvec3 eye, right, up, forward;
  double tan_half;
  Pinhole(glm::dvec3 e, glm::dvec3 target, glm::dvec3 up_hint, double fov)
      : eye(e), tan_half(std::tan(0.5 * fov)) {
    forward = glm::normalize(target - eye);
    right = glm::normalize(glm::cross(forward, up_hint));
    up = glm::cross(right, forward);
  }
  glm::dvec3 ray(glm::dvec2 px) const {
    const double x = (2.0 * px.x / kW - 1.0) * tan_half * double(kW) / kH;
    const double y = (1.0 - 2.0 * px.y / kH) * tan_half;
    return glm::normalize(forward + x * right + y * up);
  }
};

// A scene file's camera (position, target, a tilted up, a 30 degree field of view) through
// scene_camera(), which `vkphys render`, `run --png` and `view` use: a sphere placed 7 m along
// the hand-worked ray through pixel (40.5, 90.5) shows its lit colour there, and the picture's
// centre and corners show the background (the sphere's 0.5 m radius spans about 16 pixels).
// The automatic camera aims at the sphere instead: it is at the centre of that picture.
TEST(Render, TheSceneFilesCameraPlacesTheSphere) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  const glm::dvec3 eye(3.0, 2.0, 6.0), target(0.0, 0.5, 0.0), up(1.0, 1.0, 0.0);
  const Pinhole pin(eye, target, up, glm::radians(30.0));
  const glm::dvec2 pixel(40.5, 90.5);
  const glm::vec3 centre(eye + 7.0 * pin.ray(pixel));
  const std::string text = fmt::format(
      R"({{"format": "vkphys-scene", "version": 2, "gravity": [0, 0, 0],
          "bodies": [{{"shape": "sphere", "radius": 0.5, "position": [{}, {}, {}], "mass": 1}}],
          "camera": {{"position": [3, 2, 6], "target": [0, 0.5, 0], "up": [1, 1, 0],
                      "fov_y_deg": 30}}}})",
      centre.x, centre.y, centre.z);
  const Scene s = io::parse_scene(text, "<camera test>");
  const WorldState st = loaded_state(s);
  gpu::Renderer r(ctx, kW, kH);
  const gpu::Image img = r.draw(io::surface_mesh(s, st, true), gpu::scene_camera(s, st));
  EXPECT_TRUE(lit_head_on(img.at(40, 90), io::PointKind::surface));
  EXPECT_TRUE(is_background(img.at(kW / 2, kH / 2))) << "the camera looks past the sphere";
  for (auto [x, y] : {std::pair{0u, 0u}, {kW - 1, 0u}, {0u, kH - 1}, {kW - 1, kH - 1}}) {
    EXPECT_TRUE(is_background(img.at(x, y))) << "corner " << x << ", " << y;
  }
  // The sphere's pixels: a disc of about 16 pixels' radius (pi 16^2 ~ 800) about the pixel.
  std::uint32_t drawn = 0, far = 0;
  for (std::uint32_t y = 0; y < kH; ++y) {
    for (std::uint32_t x = 0; x < kW; ++x) {
      if (is_background(img.at(x, y))) continue;
      ++drawn;
      far += glm::length(glm::dvec2(x + 0.5, y + 0.5) - pixel) > 20.0;
    }
  }
  EXPECT_GT(drawn, 600u);
  EXPECT_LT(drawn, 1000u);
  EXPECT_EQ(far, 0u) << "sphere pixels more than 20 pixels from where it projects";

  Scene framed = s;
  framed.camera.reset();
  const gpu::Image automatic =
      r.draw(io::surface_mesh(framed, st, true), gpu::scene_camera(framed, st));
  EXPECT_TRUE(lit_head_on(automatic.at(kW / 2, kH / 2), io::PointKind::surface));
  std::uint32_t differ = 0;
  for (std::uint32_t y = 0; y < kH; ++y) {
    for (std::uint32_t x = 0; x < kW; ++x) differ += automatic.at(x, y) != img.at(x, y);
  }
  EXPECT_GT(differ, kW * kH / 10) << "the automatic camera frames the sphere otherwise";
}

// A box dropped on a plane beside a few particles, 40 steps on each backend: the pictures agree
// (the GPU differs from the CPU by ~1e-7 m, less than a pixel).
TEST(Render, GpuAndCpuSimulationsLookTheSame) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  Scene s = empty_rigid_scene(-10.0f);
  s.planes.push_back(Plane{});
  s.bodies.push_back(make_box({0.0f, 1.5f, 0.0f}, glm::vec3(0.5f), 1.0f));
  for (int i = 0; i < 4; ++i)
    s.particles.add({1.5f, 0.3f + 0.5f * float(i), 0.0f}, {}, 0.2f, 1.0f, 0);
  std::unique_ptr<Backend> cpu_sim;
  const auto [g, c] = step_on_both(ctx, s, 40, cpu_sim);
  gpu::Renderer r(ctx, kW, kH);
  const gpu::Camera cam = gpu::framing_camera(s, loaded_state(s));
  const gpu::Image a = r.draw(io::surface_mesh(s, g, true), cam);
  const gpu::Image b = r.draw(io::surface_mesh(s, c, true), cam);
  std::uint32_t differ = 0, drawn = 0;
  for (std::uint32_t y = 0; y < kH; ++y) {
    for (std::uint32_t x = 0; x < kW; ++x) {
      differ += a.at(x, y) != b.at(x, y);
      drawn += !is_background(b.at(x, y));
    }
  }
  EXPECT_GT(drawn, kW * kH / 20) << "the scene is in the picture";
  EXPECT_LE(differ, kW * kH / 200) << differ << " pixels differ";
}

// The pixels inside a convex polygon of projected points, at least `margin` pixels from each of
// its edges (pixel centres at +0.5), in whichever winding the projection gives it.
std::vector<glm::uvec2> pixels_inside(const std::vector<glm::vec2>& poly, float margin) {
  double area2 = 0.0;
  for (std::size_t k = 0; k < poly.size(); ++k) {
    const glm::vec2 a = poly[k], b = poly[(k + 1) % poly.size()];
    area2 += double(a.x) * double(b.y) - double(b.x) * double(a.y);
  }
  const float sign = area2 > 0.0 ? 1.0f : -1.0f;
  std::vector<glm::uvec2> out;
  for (std::uint32_t y = 0; y < kH; ++y) {
    for (std::uint32_t x = 0; x < kW; ++x) {
      const glm::vec2 p(float(x) + 0.5f, float(y) + 0.5f);
      bool inside = true;
      for (std::size_t k = 0; k < poly.size() && inside; ++k) {
        const glm::vec2 a = poly[k], e = poly[(k + 1) % poly.size()] - a;
        inside = sign * (e.x * (p.y - a.y) - e.y * (p.x - a.x)) / glm::length(e) >= margin;
      }
      if (inside) out.emplace_back(x, y);
    }
  }
  return out;
}

// The cloth's colour shaded at |n . l| (the shader: 0.35 + 0.65 |n . l|), within 2/255 and the
// 8-bit rounding.
bool cloth_shade(glm::u8vec4 px, float n_dot_l) {
  const glm::vec3 c = 255.0f * gpu::kind_color(io::PointKind::cloth) * (0.35f + 0.65f * n_dot_l);
  for (int k = 0; k < 3; ++k) {
    if (std::abs(float(px[k]) - c[k]) > 2.5f) return false;
  }
  return true;
}

// scenes/cloth_drape.json as loaded: a flat 32 x 32 cloth (1.5 m square, vertex radius a quarter
// of the spacing) above the ball. Drawn as a surface, every pixel inside its projected square
// (2 pixels in from the edges) has the cloth's colour, shaded uniformly at |n . l| for its flat
// normal +y and the light along the view direction; drawn as loose spheres (the same scene
// without its triangles), the vertices' spheres cover under 70% of those pixels (their discs
// cover pi / 16 ~ 20% of the square seen head-on, more at this slant where they overlap:
// measured 53% on lavapipe), and the rest show the ball, the ground or the background through
// the holes.
TEST(Render, ClothIsASurfaceWithoutHoles) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  const Scene s = io::load_scene(kScenes / "cloth_drape.json");
  ASSERT_EQ(s.triangles.size(), 2u * 31u * 31u);
  const WorldState st = loaded_state(s);
  gpu::Renderer r(ctx, kW, kH);
  const gpu::Camera cam = gpu::scene_camera(s, st);
  const gpu::Image mesh = r.draw(io::surface_mesh(s, st, true), cam);
  Scene loose = s;
  loose.triangles.clear();
  const gpu::Image spheres = r.draw(io::surface_mesh(loose, st, true), cam);
  std::vector<glm::vec2> corners;
  for (glm::vec3 c : {glm::vec3(-0.75f, 0.7f, -0.75f), glm::vec3(0.75f, 0.7f, -0.75f),
                      glm::vec3(0.75f, 0.7f, 0.75f), glm::vec3(-0.75f, 0.7f, 0.75f)}) {
    corners.push_back(r.project(cam, c));
  }
  const std::vector<glm::uvec2> inside = pixels_inside(corners, 2.0f);
  ASSERT_GT(inside.size(), kW * kH / 20) << "the cloth fills a good part of the picture";
  const float n_dot_l = std::abs(glm::normalize(cam.eye - cam.target).y);
  std::uint32_t shaded = 0, blue = 0;
  for (glm::uvec2 p : inside) {
    shaded += cloth_shade(mesh.at(p.x, p.y), n_dot_l);
    const glm::u8vec4 px = spheres.at(p.x, p.y);
    blue += px.b > px.r && px.b > px.g;  // a vertex's sphere (particles are blue)
  }
  EXPECT_EQ(shaded, inside.size()) << "cloth pixels of " << inside.size();
  EXPECT_LT(blue, inside.size() * 7 / 10)
      << "loose spheres cover " << blue << " of " << inside.size();
  EXPECT_GT(blue, inside.size() / 20) << "the loose spheres are drawn";
}

// The drape on each backend: at step 19, the last before the cloth meets the ball, the two
// simulations agree to 1e-7 m (`vkphys compare scenes/cloth_drape.json`) and so must the
// pictures; at step 30 (0.5 s) the cloth, bent over the ball and shaded by its per-vertex
// normals, shows a range of shades. From the landing on, the drape's contacts amplify float
// rounding as in any chaotic scene (the CPU against itself nudged by 1 ulp moves vertices by
// up to 4 m/s by step 40), so the pictures of the two backends are not compared there: at
// step 30 they were 13 pixels apart before the springs' rows changed (cdad7dd) and 1,219
// after, with the backends 4 cm apart, inside the compare's rounding envelope.
TEST(Render, DrapedClothLooksTheSameFromGpuAndCpu) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  const Scene s = io::load_scene(kScenes / "cloth_drape.json");
  std::unique_ptr<Backend> cpu_sim;
  auto [g, c] = step_on_both(ctx, s, 19, cpu_sim);
  gpu::Renderer r(ctx, kW, kH);
  const gpu::Camera cam = gpu::scene_camera(s, loaded_state(s));
  const gpu::Image a = r.draw(io::surface_mesh(s, g, true), cam);
  const gpu::Image b = r.draw(io::surface_mesh(s, c, true), cam);
  std::uint32_t differ = 0;
  for (std::uint32_t y = 0; y < kH; ++y) {
    for (std::uint32_t x = 0; x < kW; ++x) differ += a.at(x, y) != b.at(x, y);
  }
  EXPECT_LE(differ, kW * kH / 200) << differ << " pixels differ";

  for (int k = 19; k < 30; ++k) cpu_sim->step();
  cpu_sim->read(c);
  const gpu::Image draped = r.draw(io::surface_mesh(s, c, true), cam);
  std::uint32_t cloth = 0, lo = 255, hi = 0;
  for (std::uint32_t y = 0; y < kH; ++y) {
    for (std::uint32_t x = 0; x < kW; ++x) {
      const glm::u8vec4 px = draped.at(x, y);
      if (px.g > px.r + 20 && px.g > px.b + 20) {  // green: the cloth
        ++cloth;
        lo = std::min<std::uint32_t>(lo, px.g);
        hi = std::max<std::uint32_t>(hi, px.g);
      }
    }
  }
  EXPECT_GT(cloth, kW * kH / 20) << "the cloth is in the picture";
  EXPECT_GT(hi - lo, 40u) << "the folded cloth is shaded, not flat";
}

// A joint is drawn as a dark line between its anchors: a distance joint from a static box to a
// sphere 3 m away, seen side on. Its pixels, between the bodies, have the joints' colour lit
// head-on (within a pixel of the line: it is about 1.3 pixels wide at this size), and 0.15 m
// (3 pixels) off it the background shows.
TEST(Render, JointIsALineBetweenItsAnchors) {
  VKPHYS_GPU_TEST_CONTEXT(ctx);
  Scene s = empty_rigid_scene(0.0f);
  s.bodies.push_back(make_box({-2.0f, 0.0f, 0.0f}, glm::vec3(0.2f), 0.0f));
  s.bodies.push_back(make_sphere({1.0f, 0.0f, 0.0f}, 0.2f, 1.0f));
  Joint j;
  j.type = JointType::distance;
  j.body_a = 0;
  j.body_b = 1;
  j.length = 3.0f;
  s.joints.push_back(j);
  const WorldState st = loaded_state(s);
  gpu::Renderer r(ctx, kW, kH);
  gpu::Camera cam;
  cam.eye = {0.0f, 0.0f, 8.0f};
  const gpu::Image img = r.draw(io::surface_mesh(s, st, true), cam);
  for (float x : {-1.2f, -0.5f, 0.3f}) {
    const glm::vec2 p = r.project(cam, {x, 0.0f, 0.0f});
    int on_line = 0;
    for (int dy = -1; dy <= 1; ++dy) {
      on_line += lit_head_on(img.at(std::uint32_t(p.x), std::uint32_t(int(p.y) + dy)),
                             io::PointKind::anchor);
    }
    EXPECT_GE(on_line, 1) << "x " << x;
    const glm::vec2 off = r.project(cam, {x, 0.15f, 0.0f});
    EXPECT_TRUE(is_background(img.at(std::uint32_t(off.x), std::uint32_t(off.y)))) << "x " << x;
  }
}

}  // namespace
}  // namespace vkphys::test
