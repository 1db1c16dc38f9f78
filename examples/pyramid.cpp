// A pyramid of 1 m boxes (10 in its bottom row) built in code and stepped frame by frame, the
// state read back after every frame: prints the top box's height and the fastest box's speed
// every 20 frames, then how far the top box moved in 4 s.
//   pyramid [cpu|gpu]
#include <vkphys/vkphys.h>

#include <algorithm>
#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  try {
    vkphys::Scene scene;
    scene.materials[0].friction = 0.6f;
    scene.settings.solver.iterations = 16;
    vkphys::add_plane(scene, glm::vec3(0.0f, 1.0f, 0.0f), 0.0f);
    const int base = 10;
    std::uint32_t top = 0;
    for (int row = 0; row < base; ++row) {
      for (int i = 0; i < base - row; ++i) {
        const float x = static_cast<float>(i) - 0.5f * static_cast<float>(base - row - 1);
        top = vkphys::add_box(scene, glm::vec3(x, 0.5f + static_cast<float>(row), 0.0f),
                              glm::vec3(0.5f), 1.0f);
      }
    }
    vkphys::World world(scene, {.backend = argc > 1 ? argv[1] : "cpu"});
    std::printf("%zu boxes on %s\n", scene.bodies.size(), world.backend_name().c_str());
    const float start = world.state(vkphys::Field::body_position)[top].y;
    for (int frame = 1; frame <= 240; ++frame) {
      world.step();
      // The spans view the World's copy of the state, refreshed by every step.
      const auto x = world.state(vkphys::Field::body_position);
      const auto v = world.state(vkphys::Field::body_velocity);
      float fastest = 0.0f;
      for (std::size_t i = 0; i < scene.bodies.size(); ++i) {
        fastest = std::max(fastest, glm::length(glm::vec3(v[i])));
      }
      if (frame % 20 == 0) {
        std::printf("frame %3d top %.4f m, fastest %.2e m/s, %u contact points\n", frame,
                    static_cast<double>(x[top].y), static_cast<double>(fastest),
                    world.contacts().points);
      }
    }
    const float end = world.state(vkphys::Field::body_position)[top].y;
    std::printf("the top box moved %.2e m in 4 s\n", static_cast<double>(end - start));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pyramid: %s\n", e.what());
    return 1;
  }
  return 0;
}
