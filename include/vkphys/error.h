/// \file
/// The one exception type the library throws.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "vkphys/export.h"

namespace vkphys {

/// Every failure the public API reports: a scene file that cannot be read or is invalid, a scene
/// the step cannot run, no Vulkan device for the GPU backend, a step that made the state NaN,
/// misuse (an index out of range, a NaN written into the state, a call on a World without a
/// scene). what() is one line, the same line `vkphys` prints after "vkphys: " for the same
/// failure. The library never calls exit() and never prints errors itself.
struct VKPHYS_API Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Thrown by World::step when a step made the state NaN or infinite: what() is
/// "step STEP: WHERE", e.g. "step 12: the solve stage made body 3 (box) NaN or infinite".
struct VKPHYS_API NonFiniteError : Error {
  NonFiniteError(std::uint64_t at, const std::string& what_happened)
      : Error("step " + std::to_string(at) + ": " + what_happened),
        step(at),
        where(what_happened) {}
  std::uint64_t step;  ///< the step (counted from the scene's load) that made it
  std::string where;   ///< what() without the step
};

}  // namespace vkphys
