// Hello world: a 1 m box falls from 3 m onto a plane; prints its height every 6 steps (0.1 s).
//   hello_world [cpu|gpu]
#include <vkphys/vkphys.h>

#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  try {
    vkphys::Scene scene;
    vkphys::add_plane(scene, glm::vec3(0.0f, 1.0f, 0.0f), 0.0f);
    const std::uint32_t box =
        vkphys::add_box(scene, glm::vec3(0.0f, 3.0f, 0.0f), glm::vec3(0.5f), 1.0f);
    vkphys::World world(scene, {.backend = argc > 1 ? argv[1] : "cpu"});
    std::printf("vkphys %s on %s, time step %g s\n", vkphys::version(),
                world.backend_name().c_str(), static_cast<double>(scene.settings.time_step));
    for (int frame = 1; frame <= 30; ++frame) {
      world.step(6);
      const glm::vec4 x = world.state(vkphys::Field::body_position)[box];
      std::printf("step %llu height %.6f\n", static_cast<unsigned long long>(world.steps()),
                  static_cast<double>(x.y));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hello_world: %s\n", e.what());
    return 1;
  }
  return 0;
}
