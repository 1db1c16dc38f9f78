// Issue 13: list totals that wrapped past 2^32 (65,600 particles within one huge contact margin:
// the scan's total wrapped, the contact arrays were sized to the wrapped total and the write
// pass ran past their end). The scans now saturate at 2^31 (tests/test_primitives.cpp), so a
// total is exact or known to be too large, and a step that needs more than a list may hold stops
// with a capacity error on every backend, keeping the step-start state. And the grid never turns
// an out-of-range float into an int.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "kernels/grid.h"
#include "tests/backends.h"
#include "vkphys/scene.h"

namespace vkphys {
namespace {

using test::WorldTest;

TEST(GridCell, ClampsInsteadOfConvertingOutOfRange) {
  constexpr int kLimit = 1 << 30;
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(kern::grid_cell(glm::vec3(3e38f, -3e38f, 0.5f), 4.0f), glm::ivec3(kLimit, -kLimit, 2));
  EXPECT_EQ(kern::grid_cell(glm::vec3(inf, -inf, std::nanf("")), 1.0f),
            glm::ivec3(kLimit, -kLimit, -kLimit));
  // The neighbours of a clamped cell do not overflow, and in-range cells are exact.
  const glm::ivec3 c = kern::grid_cell(glm::vec3(1e20f), 1.0f) + glm::ivec3(1);
  EXPECT_EQ(c, glm::ivec3(kLimit + 1));
  EXPECT_EQ(kern::grid_cell(glm::vec3(-0.5f, 1e6f, -1e6f), 10.0f),
            glm::ivec3(-5, 10000000, -10000000));
}

class CapacityLimits : public WorldTest {};

// 6,000 particles within one 10 m margin of each other: 17,997,000 contacts, past the 2^24 - 1
// a step may hold. Built in code: the scene loader refuses a margin over 1 m.
TEST_P(CapacityLimits, TooManyContactsStopWithAnErrorAndKeepTheState) {
  Scene s;
  s.settings.contact_margin = 10.0f;
  s.materials = {Material{}};
  for (int i = 0; i < 6000; ++i) {
    const glm::vec3 x(0.05f * static_cast<float>(i % 20), 0.05f * static_cast<float>(i / 20 % 20),
                      0.05f * static_cast<float>(i / 400));
    s.particles.add(x, glm::vec3(0.0f), 0.01f, 1.0f, 0);
  }
  Backend& b = load(s);
  WorldState before;
  b.read(before);
  std::string message;
  try {
    b.step();
    ADD_FAILURE() << "no capacity error";
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  EXPECT_NE(message.find("17997000 particle contacts needed in one step"), std::string::npos)
      << message;
  EXPECT_NE(message.find("at most 2^24 - 1 fit"), std::string::npos) << message;
  WorldState after;
  b.read(after);
  EXPECT_EQ(after.particles.pos_radius, before.particles.pos_radius);
  EXPECT_EQ(after.particles.vel_invmass, before.particles.vel_invmass);
}

VKPHYS_ON_ALL_CASES(CapacityLimits);

}  // namespace
}  // namespace vkphys
