// Driven motion: the scene's kinematic paths and scheduled impulses, turned step by step into
// the drive buffers both backends upload before a step (kernels/world_layout.h, drive_paths and
// drive_impulses; the stage functions are in kernels/world_bodies.inl).
//
// Paths are evaluated here in double precision, once per step, and rounded to float once: a
// kinematic body's pose at the end of step k is its path at t = (k + 1) h exactly, whatever the
// step count (no drift), and its velocity over the step is the chord (x(t_k+1) - x(t_k)) / h, so
// what it pushes moves exactly as far as it does. An impulse at time t is due in the step k
// with k h <= t < (k + 1) h (h the float time step, widened to double).
#pragma once

#include <cstdint>
#include <glm/glm.hpp>
#include <vector>

#include "vkphys/scene.h"

namespace vkphys {

class Drive {
 public:
  Drive() = default;
  // Validates the paths and impulses against the scene (throws std::invalid_argument naming
  // kinematic[k] or impulses[m] and what is wrong). `rigid`: the world's rigid body count R
  // (particle p is body R + p).
  Drive(const Scene& scene, std::uint32_t rigid);

  std::uint32_t paths() const { return static_cast<std::uint32_t>(paths_.size()); }
  // The most impulses any one step applies (the drive_impulses capacity).
  std::uint32_t max_impulses_per_step() const { return max_per_step_; }
  // Whether body `i` (world index) follows a path.
  bool kinematic(std::uint32_t i) const;

  // Step k's path data (4 vec4 per path) and due impulses (2 vec4 each).
  void step(std::uint64_t k, std::vector<glm::vec4>& paths, std::vector<glm::vec4>& impulses) const;

 private:
  struct Path {
    std::uint32_t body = 0;
    glm::dvec3 x0{0.0}, velocity{0.0}, amplitude{0.0}, omega{0.0};
    glm::dvec4 q0{0.0, 0.0, 0.0, 1.0};
    double frequency = 0.0, phase = 0.0;
  };
  struct Impulse {
    std::uint64_t step = 0;
    std::uint32_t body = 0;
    glm::vec3 impulse{0.0f}, point{0.0f};
  };
  glm::dvec3 position(const Path& p, double t) const;
  std::vector<Path> paths_;
  std::vector<Impulse> impulses_;  // by step, then in scene order
  std::uint32_t max_per_step_ = 0;
  double h_ = 0.0;
};

}  // namespace vkphys
