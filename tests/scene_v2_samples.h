// Small scene files for the version-2 tests (tests/test_scene_file_v2.cpp and
// tests/test_scene_file_v2_errors.cpp), which change them one field at a time.
#pragma once

#include <nlohmann/json.hpp>

namespace vkphys::test {

// Bodies, a joint to the world, particles (8 from a lattice, then a kinematic one: particle 8),
// forces and impulses on bodies and on a particle.
inline nlohmann::json mixed() {
  return nlohmann::json::parse(R"({
    "format": "vkphys-scene", "version": 2, "name": "mixed",
    "drag": 0.1,
    "forces": {"quadratic_drag": {"density": 1.2, "coefficient": 0.5},
               "central": {"center": [1, 2, 3], "strength": 4, "law": "linear"}},
    "materials": [{"name": "wood"}, {"name": "steel"}],
    "planes": [{"normal": [0, 1, 0]}],
    "bodies": [
      {"shape": "box", "half_extents": [0.5, 0.5, 0.5], "position": [0, 1, 0], "mass": 2,
       "force": [1, 0, -2], "torque": [0, 0, 3]},
      {"shape": "sphere", "radius": 0.25, "position": [3, 1, 0], "mass": 1, "material": "steel",
       "kinematic": {"velocity": [1, 0, 0], "amplitude": [0, 0.5, 0], "frequency": 2,
                     "phase": 0.5, "angular_velocity": [0, 1, 0]}}
    ],
    "joints": [{"type": "distance", "bodies": ["world", 0], "anchor_a": [0, 3, 0]}],
    "particles": [
      {"type": "lattice", "origin": [-2, 0.5, -2], "count": [2, 2, 2], "spacing": 0.25,
       "radius": 0.1, "mass": 1},
      {"type": "particle", "position": [5, 2, 5], "radius": 0.1, "mass": 1,
       "kinematic": {"velocity": [0, -1, 0]}}
    ],
    "impulses": [
      {"time": 0.5, "body": 0, "impulse": [0, 1, 0]},
      {"time": 0.25, "particle": 8, "impulse": [1, 0, 0]},
      {"time": 1, "body": 1, "impulse": [0, 0, 2], "point": [3, 1.25, 0]}
    ]
  })");
}

// A version-1 particle scene and a version-1 body scene, for the fields version 1 lacks.
inline nlohmann::json v1_particles() {
  return nlohmann::json::parse(R"({"format": "vkphys-scene", "version": 1,
    "particles": [{"type": "particle", "position": [0, 1, 0], "radius": 0.1, "mass": 1}]})");
}
inline nlohmann::json v1_bodies() {
  return nlohmann::json::parse(R"({"format": "vkphys-scene", "version": 1,
    "bodies": [{"shape": "sphere", "radius": 0.5, "position": [0, 1, 0], "mass": 1}]})");
}

}  // namespace vkphys::test
