#include "host/sim/mass_properties.h"

#include <numbers>

namespace vkphys {

namespace {
constexpr double kPi = std::numbers::pi;
}

double shape_volume(const Body& b) {
  const double r = double(b.radius);
  switch (b.shape) {
    case Shape::sphere:
      return 4.0 / 3.0 * kPi * r * r * r;
    case Shape::capsule:
      return kPi * r * r * (2.0 * double(b.half_height)) + 4.0 / 3.0 * kPi * r * r * r;
    case Shape::box:
      return 8.0 * double(b.half_extents.x) * double(b.half_extents.y) * double(b.half_extents.z);
    case Shape::plane:
    case Shape::none:
      break;
  }
  return 0.0;
}

glm::dvec3 principal_inertia(const Body& b) {
  const double m = double(b.mass);
  const double r = double(b.radius);
  switch (b.shape) {
    case Shape::box: {
      const glm::dvec3 e = 2.0 * glm::dvec3(b.half_extents);  // edge lengths
      return m / 12.0 *
             glm::dvec3(e.y * e.y + e.z * e.z, e.x * e.x + e.z * e.z, e.x * e.x + e.y * e.y);
    }
    case Shape::capsule: {
      // A cylinder of length L = 2 hh plus two hemispheres, masses split by volume. About the
      // long (y) axis: (1/2) m_c r^2 + (2/5) m_s r^2. About a transverse axis through the centre:
      // cylinder m_c (L^2/12 + r^2/4); each hemisphere (83/320) m_h r^2 about its own centre of
      // mass, moved by the parallel-axis theorem to the centre: distance L/2 + 3r/8.
      const double L = 2.0 * double(b.half_height);
      const double vc = kPi * r * r * L;
      const double vs = 4.0 / 3.0 * kPi * r * r * r;
      const double mc = m * vc / (vc + vs);
      const double ms = m - mc;  // both hemispheres together
      const double axial = 0.5 * mc * r * r + 0.4 * ms * r * r;
      const double d = 0.5 * L + 3.0 * r / 8.0;
      const double trans = mc * (L * L / 12.0 + r * r / 4.0) + ms * (83.0 / 320.0 * r * r + d * d);
      return {trans, axial, trans};
    }
    case Shape::sphere:
    case Shape::plane:
    case Shape::none:
      break;
  }
  return glm::dvec3(0.4 * m * r * r);
}

glm::vec3 inverse_inertia(const Body& b) {
  if (b.mass <= 0.0f) return glm::vec3(0.0f);
  const glm::dvec3 i = principal_inertia(b);
  return glm::vec3(1.0 / i.x, 1.0 / i.y, 1.0 / i.z);
}

}  // namespace vkphys
