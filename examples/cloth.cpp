// A cloth dropped on a ball: a 1.6 m square of 24 x 24 particles (compliant springs, 0.1 kg/m^2)
// falls from 0.5 m above a fixed ball of radius 0.5 m and drapes over it. Prints the cloth's
// centre-of-mass height every 3 steps while it falls clear of the ball, then, after 4 s, the
// cloth's highest vertex against the ball's top, the deepest any vertex went into the ball and
// the kinetic energy left of what the drop released.
//   cloth [cpu|gpu]
#include <vkphys/vkphys.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <span>

namespace {

// The mean height of the particles (every vertex has the same mass).
float centre_height(std::span<const glm::vec4> x) {
  double sum = 0.0;
  for (const glm::vec4& p : x) sum += static_cast<double>(p.y);
  return static_cast<float>(sum / static_cast<double>(x.size()));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const glm::vec3 ball(0.0f, 1.0f, 0.0f);
    const float ball_radius = 0.5f;
    const float drop = 2.0f;  // the cloth's starting height: 0.5 m above the ball's top

    vkphys::Scene scene;
    scene.materials[0].friction = 0.5f;
    // The step's budget spent as 8 substeps of 1 iteration (a cloth gains more from substeps
    // than from iterations: docs/benchmarks.md), and no contact stiffness cap: the cap assumes a
    // contact carries its own body's weight, and a vertex on the ball carries the cloth's tension
    // (with the cap the draped vertices sink 6.5 mm; at 1 substep of 8 iterations the skirt's edge
    // keeps fluttering at 0.2 m/s).
    scene.settings.solver.substeps = 8;
    scene.settings.solver.iterations = 1;
    scene.settings.solver.contact_hertz = 0.0f;
    vkphys::add_plane(scene, glm::vec3(0.0f, 1.0f, 0.0f), 0.0f);
    vkphys::add_sphere(scene, ball, ball_radius, 0.0f);  // mass 0: fixed
    vkphys::ClothSpec cloth;
    cloth.origin = glm::vec3(-0.8f, drop, -0.8f);
    cloth.u = glm::vec3(1.6f, 0.0f, 0.0f);
    cloth.v = glm::vec3(0.0f, 0.0f, 1.6f);
    cloth.nu = cloth.nv = 24;
    cloth.density = 0.1f;
    vkphys::add_cloth(scene, cloth);

    vkphys::World world(scene, {.backend = argc > 1 ? argv[1] : "cpu"});
    const double start_energy = world.metrics().potential;
    const std::span<const glm::vec4> x0 = world.state(vkphys::Field::particle_position);
    const float vertex_radius = x0[0].w;
    std::printf("%zu cloth vertices (radius %.4f m) on %s, time step %g s, %u substeps\n",
                x0.size(), static_cast<double>(vertex_radius), world.backend_name().c_str(),
                static_cast<double>(scene.settings.time_step), scene.settings.solver.substeps);

    // Free fall until the lowest vertex comes within a contact margin of the ball.
    while (true) {
      world.step(3);
      const std::span<const glm::vec4> x = world.state(vkphys::Field::particle_position);
      const float lowest =
          std::min_element(x.begin(), x.end(), [](auto& a, auto& b) { return a.y < b.y; })->y;
      if (lowest - vertex_radius < ball.y + ball_radius + 0.1f) break;
      std::printf("step %llu centre height %.6f\n", static_cast<unsigned long long>(world.steps()),
                  static_cast<double>(centre_height(x)));
    }

    world.step(240 - world.steps());
    const std::span<const glm::vec4> x = world.state(vkphys::Field::particle_position);
    float highest = x[0].y;
    float deepest = 0.0f;  // how far a vertex's sphere went into the ball
    for (const glm::vec4& p : x) {
      highest = std::max(highest, p.y);
      deepest = std::max(deepest, ball_radius + p.w - glm::length(glm::vec3(p) - ball));
    }
    // The grid has no vertex over the ball's centre: the nearest four are 4.9 cm off it, so the
    // cloth's highest vertex rests 2.3 mm below the ball's top.
    std::printf("after %llu steps: highest vertex %.6f m, ball top + vertex radius %.6f m\n",
                static_cast<unsigned long long>(world.steps()), static_cast<double>(highest),
                static_cast<double>(ball.y + ball_radius + vertex_radius));
    std::printf("deepest into the ball %.6f m, kinetic energy %.3e J of %.3f J released\n",
                static_cast<double>(deepest), world.metrics().kinetic(),
                start_energy - world.metrics().potential);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cloth: %s\n", e.what());
    return 1;
  }
  return 0;
}
