// The scene writer's shared pieces, private to host/io/: number formatting that reads back bit
// for bit, and the Writer that knows which bodies are listed and which kinematic path belongs to
// which body or particle. write_scene_json (scene_writer.cpp) writes the header, the settings,
// the forces, the materials, the planes and the impulses; scene_write_bodies.cpp the particles,
// bodies, joints, springs and triangles.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <glm/glm.hpp>
#include <string>

#include "vkphys/scene.h"

namespace vkphys::io::scene_write {

// The shortest decimal that reads back (as a double, then rounded to float) to exactly v.
std::string num(float v);
std::string vec(glm::vec3 v);

// Bit for bit: a field is left out as default only when it is the default exactly (not -0).
template <class V>
bool same(const V& a, const V& b) {
  return std::memcmp(&a, &b, sizeof(V)) == 0;
}

class Writer {
 public:
  // Checks what no file can hold (duplicate material names, kinematic paths out of the reader's
  // order or naming no body or particle); throws std::invalid_argument.
  explicit Writer(const Scene& scene);

  const Scene& scene() const { return scene_; }
  // Bodies written in "bodies"; a last body beyond them is written as "world" references.
  std::size_t listed() const { return listed_; }
  // The material's name as a JSON string.
  std::string material(std::uint32_t m) const;
  // `, "kinematic": {...}` for a body or particle with a path, else nothing.
  std::string kinematic(Target target) const;

 private:
  const Scene& scene_;
  std::size_t listed_ = 0;
};

std::string particles_json(const Writer& w);
std::string springs_json(const Writer& w);
std::string triangles_json(const Writer& w);
std::string bodies_json(const Writer& w);
std::string joints_json(const Writer& w);

}  // namespace vkphys::io::scene_write
