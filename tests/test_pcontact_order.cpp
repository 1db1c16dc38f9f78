// Particle contacts in colour order (kernels/world_coloring.inl, pcontact_gather): the coloured
// scheme moves each step's particle contacts into colour order before the solve, and the commit
// writes the warm-start lists back in owner order through pcontact_origin. That the step's
// results do not move is pinned by tests/test_determinism_pins.cpp (cpu_colored/particles and
// gpu_colored/particles hold the hashes of the owner-order solve); these tests check the order
// itself and the mapping back.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <vector>

#include "host/sim/scene_builders.h"
#include "kernels/world_layout.h"
#include "tests/backends.h"

namespace vkphys {
namespace {

using test::WorldTest;

// A pile of particles on the floor of a closed box after 30 steps (settled, many contacts).
Scene settled_pile() {
  return test::particles_after_cpu_steps(particle_box_scene(1200, 4), 30);
}

// The particle contacts of one step as (a, b, then the normal's and the gap's bits), sorted: the
// multiset the order must keep.
using ContactBits = std::array<std::uint32_t, 6>;

std::vector<ContactBits> sorted_contacts(const StepTrace& t) {
  std::vector<ContactBits> out(t.pcontact_bodies.size());
  for (std::size_t c = 0; c < out.size(); ++c) {
    out[c][0] = t.pcontact_bodies[c].x;
    out[c][1] = t.pcontact_bodies[c].y;
    std::memcpy(&out[c][2], &t.pcontact_geom[c], sizeof(glm::vec4));
  }
  std::sort(out.begin(), out.end());
  return out;
}

class ParticleContactOrder : public WorldTest {};

// In the coloured scheme the stored contacts run colour by colour (the overflow colour last),
// a colour's contacts share no dynamic body, and they are the owner-order contacts of the same
// step on the same backend (the Jacobi scheme's, which keeps the grid's order) rearranged, none
// lost or repeated.
TEST_P(ParticleContactOrder, ColouredContactsAreTheOwnerOrderContactsByColour) {
  if (GetParam().scheme != SolverScheme::colored) GTEST_SKIP() << "colour order: coloured only";
  const Scene s = settled_pile();
  load(s);
  StepTrace coloured;
  backend_->step(&coloured);
  const std::size_t contacts = coloured.pcontact_bodies.size();
  ASSERT_GT(contacts, 2000u);
  ASSERT_GE(coloured.colors.size(), contacts);
  const std::size_t first_unit = coloured.colors.size() - contacts;
  const auto first_particle = static_cast<std::uint32_t>(s.bodies.size() + s.planes.size());
  std::uint32_t colour = 0, colours = 1;
  std::set<std::uint32_t> bodies;
  for (std::size_t c = 0; c < contacts; ++c) {
    const std::uint32_t k = coloured.colors[first_unit + c];
    ASSERT_GE(k, colour) << "contact " << c << " out of colour order";
    if (k != colour) {
      colour = k;
      ++colours;
      bodies.clear();
    }
    if (k == VKPHYS_UNCOLORED) continue;  // the overflow colour is solved sequentially
    for (const std::uint32_t b : {coloured.pcontact_bodies[c].x, coloured.pcontact_bodies[c].y}) {
      if (b < first_particle) continue;  // a plane: static, shared freely
      EXPECT_TRUE(bodies.insert(b).second) << "body " << b << " twice in colour " << k;
    }
  }
  EXPECT_GE(colours, 4u);
  // The same step in owner order, on the same backend: the contacts' normals and gaps are then
  // the same bits (on an H200 the GPU's differ from the CPU's by fused multiply-adds, so a CPU
  // reference failed a GPU run there).
  std::unique_ptr<Backend> owner = GetParam().backend == "cpu"
                                       ? make_cpu_backend()
                                       : make_gpu_backend(*test::gpu_context_or_null(nullptr));
  Scene j = s;
  j.settings.solver.scheme = SolverScheme::jacobi;
  owner->load(j);
  StepTrace reference;
  owner->step(&reference);
  EXPECT_EQ(sorted_contacts(coloured), sorted_contacts(reference));
  // Owner order is not colour order: the test would not see a gather that did nothing.
  EXPECT_NE(0, std::memcmp(coloured.pcontact_bodies.data(), reference.pcontact_bodies.data(),
                           contacts * sizeof(glm::uvec2)));
}

// Every scheme: the warm-start lists the step carries over (a checkpoint's prev_pcontact_*) are
// in owner order, each particle's range holding its own contacts' other bodies, with the very
// impulses the solve ended on and, in the coloured scheme, the colour the contact had (colour + 1
// in bits 26-31, 0 for the overflow colour and in the other schemes: kernels/world_coloring.inl,
// kept_color_code); a commit through the wrong place would put other bodies into a particle's
// range.
TEST_P(ParticleContactOrder, WarmStartListsStayInOwnerOrder) {
  const Scene s = settled_pile();
  load(s);
  StepTrace t;
  backend_->step(&t);
  const CarriedState carried = backend_->save();
  const auto first_particle = static_cast<std::uint32_t>(s.bodies.size() + s.planes.size());
  ASSERT_EQ(carried.prev_pcontact_offsets.size(), s.particles.size() + 1);
  ASSERT_EQ(carried.prev_pcontact_offsets.back(), t.pcontact_bodies.size());
  ASSERT_GT(t.pcontact_bodies.size(), 2000u);
  const bool coloured = GetParam().scheme == SolverScheme::colored;
  ASSERT_GE(t.colors.size(), t.pcontact_bodies.size());
  const std::size_t first_contact = t.colors.size() - t.pcontact_bodies.size();
  std::uint32_t kept = 0;
  for (std::size_t c = 0; c < t.pcontact_bodies.size(); ++c) {
    const glm::uvec2 ab = t.pcontact_bodies[c];
    // The owner is the lower particle, or the particle of a plane contact.
    const bool plane = ab.x < first_particle;
    const std::uint32_t owner = (plane ? ab.y : ab.x) - first_particle;
    const std::uint32_t other = plane ? ab.x : ab.y;
    std::uint32_t found = 0;
    for (std::uint32_t e = carried.prev_pcontact_offsets[owner];
         e < carried.prev_pcontact_offsets[owner + 1]; ++e) {
      if ((carried.prev_pcontact_other[e] & 0x3FFFFFFu) != other) continue;
      ++found;
      EXPECT_EQ(0, std::memcmp(&carried.prev_pcontact_lambda[e].x, &t.pcontact_lambda[c].x,
                               sizeof(float)))
          << "contact " << c << " (" << ab.x << ", " << ab.y << ")";
      const std::uint32_t colour = t.colors[first_contact + c];
      const std::uint32_t code =
          coloured && colour < s.settings.solver.max_colors ? colour + 1 : 0u;
      EXPECT_EQ(carried.prev_pcontact_other[e] >> 26, code) << "contact " << c;
      kept += code > 0 ? 1u : 0u;
    }
    EXPECT_EQ(found, 1u) << "contact " << c << " (" << ab.x << ", " << ab.y << ")";
  }
  if (coloured) {
    EXPECT_GT(kept, t.pcontact_bodies.size() / 2) << "most contacts have a colour";
  }
}

VKPHYS_ON_ALL_CASES(ParticleContactOrder);

}  // namespace
}  // namespace vkphys
