// A scene: everything a run needs, independent of backend and of the file it came from.
//
// Scenes come from versioned JSON files (host/io/scene_file.h, documented in
// docs/scene-format.md) or are built in code by tests. Particles are stored structure-of-arrays
// in exactly the layout the GPU uses (kernels/layout.h), so uploading is a copy.
#pragma once

#include <cstdint>
#include <glm/glm.hpp>
#include <string>
#include <vector>

namespace vkphys {

struct Material {
  std::string name = "default";
  float restitution = 0.0f;  // Newton's coefficient e in [0, 1]
  float friction = 0.0f;     // Coulomb coefficient mu >= 0
  float spook_k = 1.0e8f;    // SPOOK spring constant k [N/m] > 0 (large: rigid)
  float spook_d = 4.0f;      // SPOOK relaxation d [steps] >= 0
};

struct Plane {
  glm::vec3 normal{0.0f, 1.0f, 0.0f};  // unit normal, pointing into the free half-space
  float offset = 0.0f;                 // points x with dot(normal, x) = offset
  std::uint32_t material = 0;
};

struct SolverSettings {
  std::uint32_t iterations = 8;        // Jacobi iterations per step
  float relaxation = 1.0f;             // scales each impulse increment, (0, 1]
  float restitution_threshold = 0.5f;  // approach speed [m/s] above which restitution applies
  bool friction = true;                // Coulomb friction rows on or off
  float warm_start = 1.0f;             // share of last step's impulses to start from, [0, 1]
};

struct Settings {
  glm::vec3 gravity{0.0f, -9.81f, 0.0f};
  float time_step = 1.0f / 60.0f;  // h [s]
  float drag = 0.0f;               // linear drag coefficient c [kg/s], f = -c v
  float contact_margin = 0.0f;     // speculative distance [m]; < 0 means 5% of the max radius
  float cell_size = 0.0f;          // grid cell [m]; 0 means 2 max radius + margin
  SolverSettings solver;
};

struct Particles {
  std::vector<glm::vec4> pos_radius;   // (x, y, z, radius)
  std::vector<glm::vec4> vel_invmass;  // (vx, vy, vz, 1/m), 1/m = 0 for static
  std::vector<std::uint32_t> material;

  std::size_t size() const { return pos_radius.size(); }
  void add(glm::vec3 x, glm::vec3 v, float radius, float mass, std::uint32_t mat) {
    pos_radius.emplace_back(x, radius);
    vel_invmass.emplace_back(v, mass > 0.0f ? 1.0f / mass : 0.0f);
    material.push_back(mat);
  }
};

struct Scene {
  std::string name = "unnamed";
  Settings settings;
  std::vector<Material> materials{Material{}};
  std::vector<Plane> planes;
  Particles particles;
};

}  // namespace vkphys
