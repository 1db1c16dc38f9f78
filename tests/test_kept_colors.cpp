// Colours kept from step to step (kernels/world_coloring.inl, "Colours kept from step to step"):
// a particle contact that persists takes last step's colour, only the new ones (and the rigid
// pairs) go through the colouring passes, and every step's colouring stays valid (no two units of
// a colour share a dynamic body) while contacts come and go. Coloured scheme, CPU and GPU.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "host/sim/rigid_scenes.h"
#include "host/sim/scene_builders.h"
#include "kernels/world_layout.h"
#include "tests/backends.h"

namespace vkphys {
namespace {

using test::WorldTest;

// A contact by its bodies (a, b).
using ContactKey = std::pair<std::uint32_t, std::uint32_t>;

struct StepColours {
  std::uint32_t pairs = 0;                     // active rigid pairs (coloured afresh every step)
  std::map<ContactKey, std::uint32_t> colour;  // every particle contact's unit colour
  std::uint32_t conflicts = 0;                 // dynamic bodies twice in one colour
};

// The step's units and their colours from its trace. Static bodies (the planes, at
// [first_plane, first_plane + planes)) may be shared within a colour; every other body of these
// scenes is dynamic.
StepColours colours_of(const StepTrace& t, std::uint32_t first_plane, std::uint32_t planes) {
  StepColours out;
  std::set<std::pair<std::uint32_t, std::uint32_t>> taken;  // (colour, body)
  auto mark = [&](std::uint32_t a, std::uint32_t b, std::uint32_t c) {
    if (c >= VKPHYS_INACTIVE_COLOR) return;  // the overflow colour's units may share bodies
    for (std::uint32_t body : {a, b}) {
      if (body >= first_plane && body < first_plane + planes) continue;
      if (!taken.emplace(c, body).second) ++out.conflicts;
    }
  };
  // Units: the joints (none here), the pairs, the particle contacts.
  const std::size_t pairs = t.pairs.size(), contacts = t.pcontact_bodies.size();
  EXPECT_EQ(t.colors.size(), pairs + contacts);
  for (std::size_t q = 0; q < pairs && q < t.colors.size(); ++q) {
    if (t.pairs[q].z == 0u) continue;
    ++out.pairs;
    mark(t.pairs[q].x, t.pairs[q].y, t.colors[q]);
  }
  for (std::size_t c = 0; c < contacts && pairs + c < t.colors.size(); ++c) {
    const glm::uvec2 ab = t.pcontact_bodies[c];
    out.colour[{ab.x, ab.y}] = t.colors[pairs + c];
    mark(ab.x, ab.y, t.colors[pairs + c]);
  }
  return out;
}

class KeptColours : public WorldTest {
 protected:
  void SetUp() override {
    if (GetParam().scheme != SolverScheme::colored) GTEST_SKIP() << "coloured scheme only";
    WorldTest::SetUp();
  }

  struct Tally {
    std::uint32_t kept = 0;    // particle contact-steps that kept last step's colour
    std::uint32_t afresh = 0;  // units coloured afresh in the last `tail` steps
    std::uint32_t units = 0;   // units in the last `tail` steps
  };

  // Steps `s` `steps` times. Every step's colouring must be valid; every particle contact that
  // had a colour (not the overflow colour) in the step before must have it still; the passes
  // must take exactly the rigid pairs, the new particle contacts and last step's overflow ones.
  Tally check_steps(const Scene& s, std::uint32_t steps, std::uint32_t tail) {
    load(s);
    const auto first_plane = static_cast<std::uint32_t>(s.bodies.size());
    const auto planes = static_cast<std::uint32_t>(s.planes.size());
    const std::uint32_t max_colors = s.settings.solver.max_colors;
    StepColours last;
    Tally out;
    std::uint32_t changed = 0, churn = 0;
    for (std::uint32_t k = 0; k < steps; ++k) {
      StepTrace t;
      backend_->step(&t);
      const StepColours now = colours_of(t, first_plane, planes);
      EXPECT_EQ(now.conflicts, 0u) << "step " << k;
      std::uint32_t fresh = 0;
      for (const auto& [key, c] : now.colour) {
        const auto before = last.colour.find(key);
        if (before == last.colour.end() || before->second >= max_colors) {
          ++fresh;
          continue;
        }
        (before->second == c ? out.kept : changed) += 1;
      }
      EXPECT_EQ(backend_->stats().colored_afresh, now.pairs + fresh) << "step " << k;
      churn += k > 0 && fresh > 0 ? 1u : 0u;
      if (k + tail >= steps) {
        out.afresh += backend_->stats().colored_afresh;
        out.units += now.pairs + static_cast<std::uint32_t>(now.colour.size());
      }
      last = now;
    }
    EXPECT_EQ(changed, 0u) << "a persisting particle contact changed colour";
    std::printf(
        "%s: %u particle contact-steps kept their colour; last %u steps: %u of %u units "
        "coloured afresh\n",
        s.name.c_str(), out.kept, tail, out.afresh, out.units);
    if (s.particles.pos_radius.empty()) return out;
    EXPECT_GT(out.kept, 0u);
    EXPECT_GT(churn, 0u) << "the scene should make new contacts after its first step";
    return out;
  }
};

// A pile of particles stirred (each given up to 0.5 m/s along x and z) settling again: contacts
// come and go while it settles, then almost none are new, so the passes have almost nothing to
// colour. Measured (CPU and lavapipe alike): 276,848 contact-steps kept their colour in 90
// steps, and the last 10 coloured none of their 31,150 contacts afresh.
TEST_P(KeptColours, StirredParticlesSettleColouringAlmostNothingAfresh) {
  Scene s = test::particles_after_cpu_steps(particle_box_scene(1200, 4), 10);
  for (std::size_t i = 0; i < s.particles.vel_invmass.size(); ++i) {
    const float vx = 0.1f * static_cast<float>(static_cast<int>((i * 37) % 11) - 5);
    const float vz = 0.1f * static_cast<float>(static_cast<int>((i * 53) % 11) - 5);
    s.particles.vel_invmass[i].x = vx;
    s.particles.vel_invmass[i].z = vz;
  }
  const Tally t = check_steps(s, 90, 10);
  EXPECT_LT(t.afresh, t.units / 100);
}

// Boxes raining onto the ground: their pairs are coloured afresh every step (the rigid pairs keep
// no colour: kernels/world_coloring.inl says why), and every step's colouring is valid.
TEST_P(KeptColours, RainingBoxesAreColouredAfreshEveryStep) {
  const Tally t = check_steps(box_rain_scene(120), 120, 20);
  EXPECT_EQ(t.afresh, t.units);
  EXPECT_GT(t.units, 0u);
}

VKPHYS_ON_ALL_CASES(KeptColours);

}  // namespace
}  // namespace vkphys
