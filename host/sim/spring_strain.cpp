#include "host/sim/spring_strain.h"

#include <algorithm>
#include <glm/glm.hpp>

#include "kernels/quat.h"

namespace vkphys {

SpringStrain spring_strain(const Scene& scene, const WorldState& state,
                           std::optional<float> only_k) {
  SpringStrain out;
  double sum = 0.0;
  for (const Spring& sp : scene.springs) {
    // A tether is slack at rest and at most as long as the chain of springs it spans, so it
    // would only dilute the cloth's strain.
    if (sp.tether() || (only_k && sp.k != *only_k)) continue;
    const glm::vec3 a(state.particles.pos_radius[sp.a]);
    const glm::vec3 b =
        sp.to_body() ? glm::vec3(state.pos[sp.b]) + kern::quat_rotate(state.rot[sp.b], sp.anchor)
                     : glm::vec3(state.particles.pos_radius[sp.b]);
    const double ratio = double(glm::length(b - a)) / double(sp.rest);
    out.max_ratio = std::max(out.max_ratio, ratio);
    sum += ratio - 1.0;
    ++out.springs;
  }
  if (out.springs > 0) out.mean = sum / double(out.springs);
  return out;
}

}  // namespace vkphys
