// Shared by the public-API tests (test_api_*.cpp): bitwise equality of two Worlds' states, the
// message of a refused call.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>

#include "vkphys/error.h"
#include "vkphys/world.h"

namespace vkphys::test {

inline constexpr Field kAllFields[] = {Field::body_position,     Field::body_orientation,
                                       Field::body_velocity,     Field::body_angular_velocity,
                                       Field::particle_position, Field::particle_velocity};

// Success when every state array of `a` has the same bits as `b`'s, else the first field and
// entry that differ.
inline ::testing::AssertionResult same_bits(const World& a, const World& b) {
  for (Field f : kAllFields) {
    std::span<const glm::vec4> x = a.state(f), y = b.state(f);
    if (x.size() != y.size()) {
      return ::testing::AssertionFailure()
             << field_name(f) << ": " << x.size() << " vs " << y.size() << " entries";
    }
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (std::memcmp(&x[i], &y[i], sizeof(glm::vec4)) != 0) {
        return ::testing::AssertionFailure()
               << field_name(f) << "[" << i << "] differs: (" << x[i].x << ", " << x[i].y << ", "
               << x[i].z << ", " << x[i].w << ") vs (" << y[i].x << ", " << y[i].y << ", " << y[i].z
               << ", " << y[i].w << ")";
      }
    }
  }
  return ::testing::AssertionSuccess();
}

// The message of the Error `f` throws ("" if it throws none).
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// A distance joint (a rod of `length`) from the point `anchor` of body a (a world body: its
// world position) to body b's centre.
inline Joint rod(std::uint32_t a, std::uint32_t b, glm::vec3 anchor, float length) {
  Joint j;
  j.type = JointType::distance;
  j.body_a = a;
  j.body_b = b;
  j.anchor_a = anchor;
  j.length = length;
  return j;
}

inline std::string scene_path(const char* name) {
  return std::string(VKPHYS_SOURCE_DIR) + "/scenes/" + name;
}

}  // namespace vkphys::test
