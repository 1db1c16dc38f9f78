/// \file
/// vkphys::Grab: a body or particle picked by a ray (World::pick), for the mouse spring that
/// pulls it (World::pull), as `vkphys view` grabs objects with the mouse.
#pragma once

#include <cstdint>
#include <glm/glm.hpp>

namespace vkphys {

/// What World::pick hit: scene body `index` (the World's body index too), or particle `index`
/// when `particle`; `local` the hit point in the body's own frame (relative to its centre of
/// mass; for a particle, relative to its centre in world axes), and `depth` the distance from
/// the ray's origin to it along the unit ray [m].
struct Grab {
  bool particle = false;
  std::uint32_t index = 0;
  glm::dvec3 local{0.0};
  double depth = 0.0;
};

}  // namespace vkphys
