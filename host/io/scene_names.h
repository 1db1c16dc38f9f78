// The spellings of a scene file's enumerated values and format name: what the reader
// (host/io/scene_file.cpp, scene_read_settings.cpp) accepts and the writer
// (host/io/scene_writer.cpp) writes.
#pragma once

#include <array>
#include <string_view>

#include "vkphys/scene.h"

namespace vkphys::io {

inline constexpr std::string_view kFormatName = "vkphys-scene";

// Indexed by the enum's value (vkphys/scene.h).
inline constexpr std::array<std::string_view, 3> kSchemeNames{"sequential", "colored", "jacobi"};
inline constexpr std::array<std::string_view, 2> kRestitutionNames{"bias", "newton"};
inline constexpr std::array<std::string_view, 2> kFrictionModelNames{"cone", "scaled_box"};
inline constexpr std::array<std::string_view, 2> kCentralLawNames{"inverse_square", "linear"};
inline constexpr std::array<std::string_view, 5> kIntegratorNames{"symplectic", "euler", "midpoint",
                                                                  "rk4", "implicit"};
inline constexpr std::array<std::string_view, 2> kCgPreconditionerNames{"block_jacobi", "lines"};
inline constexpr std::array<std::string_view, 2> kSpringModelNames{"compliant", "force"};
inline constexpr std::array<std::string_view, 2> kClothDiagonalNames{"both", "alternating"};
inline constexpr std::array<std::string_view, 3> kClothTetherNames{"none", "euclidean", "geodesic"};

constexpr std::string_view joint_name(JointType type) {
  switch (type) {
    case JointType::distance:
      return "distance";
    case JointType::ball:
      return "ball";
    case JointType::hinge:
      break;
  }
  return "hinge";
}

}  // namespace vkphys::io
