// Whether every component of a GLM vector is finite (neither NaN nor infinite): the check that
// scene validation, drive paths, metrics, the CPU backend's per-stage state check and the API's
// argument checks all make.
#pragma once

#include <cmath>
#include <glm/glm.hpp>

namespace vkphys {

template <glm::length_t N, class T, glm::qualifier Q>
bool finite(const glm::vec<N, T, Q>& v) {
  for (glm::length_t k = 0; k < N; ++k) {
    if (!std::isfinite(v[k])) return false;
  }
  return true;
}

}  // namespace vkphys
