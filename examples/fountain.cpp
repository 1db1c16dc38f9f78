// A particle fountain: 120 particles take turns leaving a nozzle at the origin, one per step, at
// 5 m/s upward with a sideways speed of 1 m/s turning round the nozzle; they land on the ground
// in a ring about 1 m out and rest there until the nozzle takes them again (World::write puts a
// particle back at the nozzle with its launch velocity). Prints, once a second, how many are in
// the air and the highest one; at the end the highest point reached, beside the apex of the
// launch under the step's symplectic Euler (v_k = v0 - g h k, y_k = y_(k-1) + h v_k: below the
// continuous 0.1 + v0^2 / (2 g) by about v0 h / 2) and nothing in the scene lifts a particle
// higher.
//   fountain [cpu|gpu]
#include <vkphys/vkphys.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>

int main(int argc, char** argv) {
  try {
    constexpr int kParticles = 120;
    constexpr float kRadius = 0.02f;
    constexpr float kUp = 5.0f, kSide = 1.0f;
    const glm::vec3 nozzle(0.0f, 0.1f, 0.0f);
    vkphys::Scene scene;
    scene.materials[0].friction = 0.5f;
    vkphys::add_plane(scene, glm::vec3(0.0f, 1.0f, 0.0f), 0.0f);
    // Parked on the ground in a line, well away from the landing ring, until their turn.
    for (int i = 0; i < kParticles; ++i) {
      vkphys::add_particle(scene, glm::vec3(3.0f + 0.05f * float(i), kRadius, 0.0f), kRadius,
                           0.01f);
    }
    vkphys::World world(scene, {.backend = argc > 1 ? argv[1] : "cpu"});
    std::printf("vkphys %s on %s: fountain of %d particles\n", vkphys::version(),
                world.backend_name().c_str(), kParticles);
    float highest = 0.0f;
    for (int step = 0; step < 6 * 60; ++step) {
      const int i = step % kParticles;
      const float turn = 0.618034f * 6.2831853f * float(step);  // golden-angle spread
      world.write(vkphys::Field::particle_position, std::size_t(i), glm::vec4(nozzle, kRadius));
      world.write(vkphys::Field::particle_velocity, std::size_t(i),
                  glm::vec4(kSide * std::cos(turn), kUp, kSide * std::sin(turn), 0.0f));
      world.step();
      int flying = 0;
      for (const glm::vec4& p : world.state(vkphys::Field::particle_position)) {
        highest = std::max(highest, p.y);
        flying += p.y > 2.0f * kRadius ? 1 : 0;
      }
      if ((step + 1) % 60 == 0) {
        std::printf("t %.0f s: %d in the air, highest so far %.4f m\n", world.time(), flying,
                    static_cast<double>(highest));
      }
    }
    const double g = -static_cast<double>(scene.settings.gravity.y);
    const double h = static_cast<double>(scene.settings.time_step);
    double v = kUp, y = static_cast<double>(nozzle.y);
    while (v - g * h > 0.0) {
      v -= g * h;
      y += h * v;
    }
    std::printf("highest point %.4f m, symplectic Euler apex %.4f m (continuous %.4f m)\n",
                static_cast<double>(highest), y,
                static_cast<double>(nozzle.y) + double(kUp) * double(kUp) / (2.0 * g));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fountain: %s\n", e.what());
    return 1;
  }
  return 0;
}
