// Particles held in Morton order (solver.particle_reorder; host/sim/particle_order.h and
// particle_order_backend.cpp): the relabelling against a brute-force sort, the warm-start lists
// against a brute-force relabelling, and whole runs, where the order must be invisible but for
// the rounding of the contacts' order: a run in Morton order from a shuffled scene is the same
// bits, particle for particle, as one from the scene's own order (both hold the same slots); a
// run without contacts is the same bits with or without the reorder; a checkpoint resumes on the
// same bits; errors and a NaN name the scene's particle, not a slot.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "host/sim/backend.h"
#include "host/sim/particle_order.h"
#include "host/sim/scene_builders.h"
#include "tests/backends.h"
#include "tests/rigid_scene_helpers.h"
#include "tests/same_bits.h"
#include "tests/same_state.h"

namespace vkphys::test {
namespace {

// The key the order promises, bit by bit: the movable particles' bounding box as a cube of side
// its longest extent, 2^21 - 1 steps along it, bit i of the x, y and z steps at bits 3i, 3i + 1
// and 3i + 2.
std::vector<std::uint64_t> brute_morton_keys(const std::vector<glm::vec4>& pos,
                                             const std::vector<unsigned char>& movable) {
  glm::dvec3 lo(1e300), hi(-1e300);
  for (std::size_t k = 0; k < pos.size(); ++k) {
    if (!movable[k]) continue;
    lo = glm::min(lo, glm::dvec3(pos[k]));
    hi = glm::max(hi, glm::dvec3(pos[k]));
  }
  const double side = std::max({hi.x - lo.x, hi.y - lo.y, hi.z - lo.z});
  const double steps = double((1u << 21) - 1u);
  std::vector<std::uint64_t> key(pos.size(), 0u);
  for (std::size_t k = 0; k < pos.size(); ++k) {
    const glm::dvec3 x = (glm::dvec3(pos[k]) - lo) * (steps / side);
    const std::uint64_t q[3] = {std::uint64_t(std::min(x.x, steps)),
                                std::uint64_t(std::min(x.y, steps)),
                                std::uint64_t(std::min(x.z, steps))};
    for (int bit = 0; bit < 21; ++bit)
      for (int axis = 0; axis < 3; ++axis) key[k] |= ((q[axis] >> bit) & 1u) << (3 * bit + axis);
  }
  return key;
}

TEST(ParticleOrder, MortonRelabelSortsTheMovableParticlesByTheirKeys) {
  std::mt19937 rng(11u);
  std::uniform_real_distribution<float> u(-3.0f, 5.0f);
  const std::size_t n = 1003;  // not a multiple of anything the backends group by
  std::vector<glm::vec4> pos(n);
  std::vector<unsigned char> movable(n, 1u);
  for (std::size_t k = 0; k < n; ++k) {
    pos[k] = glm::vec4(u(rng), 0.25f * u(rng), u(rng), 0.05f);
    if (k % 7 == 3) movable[k] = 0u;
  }
  pos[501] = pos[20];  // a tie between two movable particles: kept in slot order
  const std::vector<std::uint32_t> to = morton_relabel(pos, movable);
  const std::vector<std::uint64_t> key = brute_morton_keys(pos, movable);
  std::vector<std::uint32_t> slots, by_key;
  for (std::uint32_t k = 0; k < n; ++k) {
    if (!movable[k]) {
      EXPECT_EQ(to[k], k) << "an unmovable particle left its slot";
    } else {
      slots.push_back(k);
    }
  }
  by_key = slots;
  std::sort(by_key.begin(), by_key.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::tie(key[a], a) < std::tie(key[b], b);
  });
  for (std::size_t i = 0; i < slots.size(); ++i) {
    EXPECT_EQ(to[by_key[i]], slots[i]) << "the " << i << "th movable particle by key";
  }
  ASSERT_TRUE(movable[20] && movable[501]);
  EXPECT_LT(to[20], to[501]);
  EXPECT_FALSE(is_identity(to));
  // Sorting what is sorted moves nothing.
  std::vector<glm::vec4> sorted(n);
  for (std::size_t k = 0; k < n; ++k) sorted[to[k]] = pos[k];
  EXPECT_TRUE(is_identity(morton_relabel(sorted, movable)));
  // A position that is not finite leaves the order as it is (the step reports it).
  pos[8].y = NAN;
  EXPECT_TRUE(is_identity(morton_relabel(pos, movable)));
}

TEST(ParticleOrder, MovableParticlesAreThoseNothingNamesByIndex) {
  Scene s;
  for (int k = 0; k < 10; ++k) s.particles.add(glm::vec3(float(k), 1.0f, 0.0f), {}, 0.1f, 1.0f, 0);
  s.bodies.push_back(Body{});
  s.springs.push_back(Spring{.a = 1, .b = 2});
  s.springs.push_back(Spring{.a = 3, .b = 0, .end_b = SpringEnd::body});  // b is body 0
  s.triangles.push_back(Triangle{4, 5, 6});
  s.kinematic.push_back(KinematicPath{.target = {true, 7}});
  s.kinematic.push_back(KinematicPath{.target = {false, 0}});  // a body, not particle 0
  s.impulses.push_back(ScheduledImpulse{.target = {true, 8}});
  const std::vector<unsigned char> movable = movable_particles(s);
  EXPECT_EQ(movable, (std::vector<unsigned char>{1, 0, 0, 0, 0, 0, 0, 0, 0, 1}));
}

// The warm-start lists relabelled against a brute-force one: every contact keeps its pair, its
// normal impulse and its kept colour; a pair the relabelling turns round is listed under its new
// lower particle with its friction impulse (the one on the other body) negated.
TEST(ParticleOrder, RelabelledWarmStartListsKeepEveryContact) {
  const std::uint32_t rigid = 3, particles = 301;
  std::mt19937 gen(5u);
  auto rng = [&] { return static_cast<std::uint32_t>(gen()); };
  CarriedState s;
  s.body_pos.resize(rigid + particles);
  s.body_vel.resize(rigid + particles);
  for (std::size_t i = 0; i < s.body_pos.size(); ++i) {
    s.body_pos[i] = glm::vec4(float(i), 0.0f, 0.0f, 0.1f);
    s.body_vel[i] = glm::vec4(0.0f, float(i), 0.0f, 1.0f);
  }
  struct Entry {
    std::uint32_t owner, other;  // particle slot; world index of the other body
    glm::vec4 lambda;
    std::uint32_t color;
  };
  std::vector<Entry> entries;
  s.prev_pcontact_offsets.push_back(0u);
  for (std::uint32_t p = 0; p < particles; ++p) {
    for (std::uint32_t c = rng() % 4; c > 0; --c) {
      const std::uint32_t other = rng() % 3 == 0 || p + 1 == particles
                                      ? rng() % rigid
                                      : rigid + p + 1 + rng() % (particles - p - 1);
      const glm::vec4 lam(float(rng() % 100), float(rng() % 7) - 3.0f, float(rng() % 5) - 2.0f,
                          float(rng() % 3) - 1.0f);
      entries.push_back({p, other, lam, rng() % 64u});
      s.prev_pcontact_other.push_back(other | entries.back().color << 26u);
      s.prev_pcontact_lambda.push_back(lam);
    }
    s.prev_pcontact_offsets.push_back(static_cast<std::uint32_t>(entries.size()));
  }
  const std::size_t capacity = entries.size() + 17;  // the lists' unused tail stays unused
  s.prev_pcontact_other.resize(capacity, 0xFFFFFFFFu);
  s.prev_pcontact_lambda.resize(capacity, glm::vec4(-1.0f));
  s.prev_pair_info = {glm::uvec4(0, rigid + 5, 4, 0), glm::uvec4(1, 2, 4, 0)};
  std::vector<std::uint32_t> to(particles);
  std::iota(to.begin(), to.end(), 0u);
  std::shuffle(to.begin(), to.end(), gen);
  const CarriedState before = s;
  relabel_carried(s, rigid, to);

  for (std::uint32_t p = 0; p < particles; ++p) {
    EXPECT_TRUE(same_bits(s.body_pos[rigid + to[p]], before.body_pos[rigid + p]));
    EXPECT_TRUE(same_bits(s.body_vel[rigid + to[p]], before.body_vel[rigid + p]));
  }
  EXPECT_TRUE(same_bits(s.body_pos[1], before.body_pos[1]));
  EXPECT_EQ(s.prev_pair_info[0], glm::uvec4(0, rigid + to[5], 4, 0));
  EXPECT_EQ(s.prev_pair_info[1], glm::uvec4(1, 2, 4, 0));
  ASSERT_EQ(s.prev_pcontact_offsets.size(), particles + 1u);
  EXPECT_EQ(s.prev_pcontact_offsets.back(), entries.size());
  using Key = std::tuple<std::uint32_t, std::uint32_t, float, float, float, float, std::uint32_t>;
  std::multiset<Key> expected, got;
  for (const Entry& e : entries) {
    std::uint32_t owner = to[e.owner], other = e.other;
    glm::vec4 lam = e.lambda;
    if (other >= rigid) {
      other = rigid + to[other - rigid];
      if (other - rigid < owner) {
        std::swap(owner, other);
        other += rigid;
        owner -= rigid;
        lam = glm::vec4(lam.x, -lam.y, -lam.z, -lam.w);
      }
    }
    expected.insert({owner, other, lam.x, lam.y, lam.z, lam.w, e.color});
  }
  for (std::uint32_t p = 0; p < particles; ++p) {
    ASSERT_LE(s.prev_pcontact_offsets[p], s.prev_pcontact_offsets[p + 1]);
    for (std::uint32_t c = s.prev_pcontact_offsets[p]; c < s.prev_pcontact_offsets[p + 1]; ++c) {
      const std::uint32_t other = s.prev_pcontact_other[c] & 0x3FFFFFFu;
      if (other >= rigid) {
        EXPECT_GT(other - rigid, p) << "a pair is listed under its lower particle";
      }
      const glm::vec4 lam = s.prev_pcontact_lambda[c];
      got.insert({p, other, lam.x, lam.y, lam.z, lam.w, s.prev_pcontact_other[c] >> 26u});
    }
  }
  EXPECT_TRUE(expected == got);
}

// A fresh backend of this case's kind (the test's own is WorldTest::backend_).
class ParticleOrderRun : public WorldTest {
 protected:
  std::unique_ptr<Backend> another() {
    return GetParam().backend == "cpu" ? make_cpu_backend()
                                       : make_gpu_backend(*gpu_context_or_null(nullptr));
  }
  Scene box(std::uint32_t reorder) {
    Scene s = particle_box_scene(1201, 7);
    s.settings.solver.scheme = GetParam().scheme;
    s.settings.solver.particle_reorder = reorder;
    return s;
  }
};

// `s` with its particles listed in a random order; perm[k] is the scene index of shuffled k.
Scene shuffled(Scene s, std::vector<std::uint32_t>& perm) {
  perm.resize(s.particles.size());
  std::iota(perm.begin(), perm.end(), 0u);
  std::mt19937 rng(3u);
  std::shuffle(perm.begin(), perm.end(), rng);
  Scene out = s;
  for (std::size_t k = 0; k < perm.size(); ++k) {
    out.particles.pos_radius[k] = s.particles.pos_radius[perm[k]];
    out.particles.vel_invmass[k] = s.particles.vel_invmass[perm[k]];
    out.particles.material[k] = s.particles.material[perm[k]];
  }
  return out;
}

// The pile falls and settles over 70 steps, reordered at load and before steps 25 and 50: from the
// scene's lattice order and from a shuffled list the backends hold the same slots, so the two
// runs are the same bits, particle for particle, and so are the last step's contacts.
TEST_P(ParticleOrderRun, ShuffledSceneRunsOnTheBitsOfItsOwnOrder) {
  const Scene lattice = box(25);
  std::vector<std::uint32_t> perm;
  const Scene mixed = shuffled(lattice, perm);
  std::unique_ptr<Backend> other = another();
  backend_->load(lattice);
  other->load(mixed);
  StepTrace ta, tb;
  backend_->steps(70, &ta);
  other->steps(70, &tb);
  WorldState a, b;
  backend_->read(a);
  other->read(b);
  ASSERT_EQ(a.particles.size(), b.particles.size());
  std::size_t differ = 0;
  for (std::size_t k = 0; k < perm.size(); ++k) {
    differ += !same_bits(b.particles.pos_radius[k], a.particles.pos_radius[perm[k]]) ||
              !same_bits(b.particles.vel_invmass[k], a.particles.vel_invmass[perm[k]]);
  }
  EXPECT_EQ(differ, 0u) << "particles whose state differs between the two orders";
  // The contacts, in the scene's numbering of each run: the same pairs.
  const std::uint32_t rigid = static_cast<std::uint32_t>(lattice.planes.size());
  auto pairs = [&](const StepTrace& t, const std::vector<std::uint32_t>* map) {
    std::multiset<std::pair<std::uint32_t, std::uint32_t>> out;
    for (glm::uvec2 ab : t.pcontact_bodies) {
      if (map) {
        if (ab.x >= rigid) ab.x = rigid + (*map)[ab.x - rigid];
        if (ab.y >= rigid) ab.y = rigid + (*map)[ab.y - rigid];
      }
      out.insert({std::min(ab.x, ab.y), std::max(ab.x, ab.y)});
    }
    return out;
  };
  EXPECT_GT(ta.pcontact_bodies.size(), 1000u);
  EXPECT_TRUE(pairs(ta, nullptr) == pairs(tb, &perm));
  // The reorder changed the slots' order: the pile is the same pile, solved in another order,
  // so its state is not the scene order's to the bit, but its energy is the same to rounding.
  std::unique_ptr<Backend> plain = another();
  Scene unordered = lattice;
  unordered.settings.solver.particle_reorder = 0;
  plain->load(unordered);
  plain->steps(70);
  WorldState c;
  plain->read(c);
  double ea = 0.0, ec = 0.0;
  for (std::size_t k = 0; k < a.particles.size(); ++k) {
    ea += 9.81 * double(a.particles.pos_radius[k].y);
    ec += 9.81 * double(c.particles.pos_radius[k].y);
  }
  EXPECT_NEAR(ea, ec, 1e-4 * std::abs(ec)) << "the pile's potential energy, with and without";
}

// Particles that never touch (far apart, above no floor) move each on its own: reordered every
// third step or never, they end on the same bits, so the state goes through the relabelling and
// back to the scene's order unchanged.
TEST_P(ParticleOrderRun, ParticlesApartKeepTheBitsOfTheScenesOrder) {
  Scene s;
  s.settings.solver.scheme = GetParam().scheme;
  s.settings.drag = 0.3f;
  std::mt19937 rng(9u);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (int k = 0; k < 517; ++k) {
    s.particles.add(glm::vec3(40.0f * u(rng), 40.0f * u(rng), 40.0f * u(rng)),
                    glm::vec3(u(rng), 3.0f * u(rng), u(rng)), 0.05f, 1.0f + 0.5f * u(rng), 0);
  }
  Scene reordered = s;
  reordered.settings.solver.particle_reorder = 3;
  std::unique_ptr<Backend> other = another();
  backend_->load(s);
  other->load(reordered);
  backend_->steps(40);
  other->steps(40);
  WorldState a, b;
  backend_->read(a);
  other->read(b);
  EXPECT_TRUE(same_state(a, b));
  // write() goes through the same map: a velocity set in the scene's numbering moves that
  // particle, h v a step, in both.
  const float x0 = a.particles.pos_radius[100].x;
  a.particles.vel_invmass[100] = glm::vec4(2.0f, 0.0f, 0.0f, 0.0f);
  backend_->write(a);
  other->write(a);
  backend_->steps(5);
  other->steps(5);
  backend_->read(a);
  other->read(b);
  EXPECT_TRUE(same_state(a, b));
  const float moved = a.particles.pos_radius[100].x - x0;  // 5 h 2 m/s less the drag's share
  EXPECT_GT(moved, 0.95f * 10.0f * s.settings.time_step);
  EXPECT_LT(moved, 10.0f * s.settings.time_step);
}

// A checkpoint between reorders and one at a reorder's step both resume on the bits of the run
// that went on; a scene without the reorder refuses a reordered checkpoint, naming the setting.
TEST_P(ParticleOrderRun, CheckpointsResumeOnTheSameBits) {
  const Scene s = box(10);
  backend_->load(s);
  backend_->steps(25);
  const CarriedState between = backend_->save();
  EXPECT_EQ(between.particle_order.size(), s.particles.size());
  backend_->steps(5);
  const CarriedState at = backend_->save();  // step 30: the reorder comes before step 31
  backend_->steps(15);
  WorldState end;
  backend_->read(end);
  for (const CarriedState* c : {&between, &at}) {
    std::unique_ptr<Backend> resumed = another();
    resumed->restore(s, *c);
    resumed->steps(static_cast<std::uint32_t>(45 - c->step));
    WorldState r;
    resumed->read(r);
    EXPECT_TRUE(same_state(end, r)) << "resumed from step " << c->step;
  }
  Scene plain = s;
  plain.settings.solver.particle_reorder = 0;
  std::unique_ptr<Backend> refusing = another();
  try {
    refusing->restore(plain, at);
    FAIL() << "restored a reordered checkpoint into the scene's order";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "the checkpoint holds its particles reordered (solver.particle_reorder), and this "
              "scene's solver.particle_reorder is 0");
  }
  CarriedState torn = at;
  std::swap(torn.particle_order[0], torn.particle_order[1]);
  torn.particle_order[1] = torn.particle_order[0];
  EXPECT_THROW(refusing->restore(s, torn), std::invalid_argument);
}

// An error at load names the scene's particle, and so does a NaN: not the slot that holds it.
TEST_P(ParticleOrderRun, ErrorsAndNonFiniteStatesNameTheScenesParticle) {
  Scene bad = box(10);
  bad.particles.pos_radius[5].w = -1.0f;
  try {
    load(bad);
    FAIL() << "loaded a negative radius";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("particle 5: radius -1", 0), 0u) << e.what();
  }
  const Scene s = box(10);
  load(s);
  backend_->steps(3);
  WorldState st;
  backend_->read(st);
  const std::uint32_t blown = 700;
  st.particles.pos_radius[blown] = glm::vec4(3.3e38f, 1.0f, 1.0f, st.particles.pos_radius[blown].w);
  st.particles.vel_invmass[blown] = glm::vec4(3.3e38f, 0.0f, 0.0f, 1.0f);
  backend_->write(st);
  try {
    backend_->steps(2);
    FAIL() << "a particle past the float range went on";
  } catch (const NonFiniteState& e) {
    EXPECT_EQ(e.body, s.planes.size() + blown) << e.what();
  }
}

// A renumbering between steps (Backend::renumber_particles; the GPU's on the device,
// host/gpu/particle_renumber.h) leaves the carried buffers as the host's relabelling of a
// checkpoint (relabel_carried) leaves them, to the bit: a random numbering turns about half the
// particle pairs round, and a ball resting on the pile makes particle-rigid pairs; with and
// without the implicit method's last solve. The steps after it are those of a backend restored
// from the relabelled checkpoint (the rigid pairs' warm-start table rebuilt, shapes and
// materials moved with their particles: every third particle is of a softer, rougher material).
TEST_P(ParticleOrderRun, RenumberingIsTheHostRelabelling) {
  for (Integrator integrator : {Integrator::symplectic, Integrator::implicit}) {
    Scene s = box(0);
    s.settings.solver.integrator = integrator;
    Material soft = s.materials[0];
    soft.name = "soft";
    soft.friction = 0.9f;
    soft.spook_k = 0.2f * soft.spook_k;
    s.materials.push_back(soft);
    for (std::size_t k = 0; k < s.particles.size(); k += 3) s.particles.material[k] = 1;
    glm::vec3 lo(1e30f), hi(-1e30f);
    for (const glm::vec4& x : s.particles.pos_radius) {
      lo = glm::min(lo, glm::vec3(x));
      hi = glm::max(hi, glm::vec3(x));
    }
    s.bodies.push_back(
        make_sphere({0.5f * (lo.x + hi.x), hi.y + 0.2f, 0.5f * (lo.z + hi.z)}, 0.15f, 0.5f));
    const auto rigid = static_cast<std::uint32_t>(s.bodies.size() + s.planes.size());
    const auto n = static_cast<std::uint32_t>(s.particles.size());
    backend_->load(s);
    backend_->steps(30);
    const CarriedState before = backend_->save();
    std::vector<std::uint32_t> to(n), order(n);
    std::iota(to.begin(), to.end(), 0u);
    std::mt19937 rng(11u);
    std::shuffle(to.begin(), to.end(), rng);
    for (std::uint32_t k = 0; k < n; ++k) order[to[k]] = k;
    // What the test needs to mean something: pairs of the ball with particles, pairs turned round.
    std::size_t with_ball = 0, turned = 0;
    for (const glm::uvec4& pair : before.prev_pair_info)
      with_ball += pair.x < rigid && pair.y >= rigid;
    for (std::uint32_t p = 0; p < n; ++p) {
      for (std::uint32_t c = before.prev_pcontact_offsets[p];
           c < before.prev_pcontact_offsets[p + 1]; ++c) {
        const std::uint32_t other = before.prev_pcontact_other[c] & 0x3FFFFFFu;
        turned += other >= rigid && to[other - rigid] < to[p];
      }
    }
    EXPECT_GT(with_ball, 0u) << integrator_name(integrator);
    EXPECT_GT(turned, 200u) << integrator_name(integrator);
    EXPECT_EQ(before.cg_dv.size(), integrator == Integrator::implicit ? n : 0u);
    CarriedState expected = before;
    relabel_carried(expected, rigid, to);
    const Scene renumbered = scene_in_order(s, order);
    backend_->renumber_particles(renumbered, to);
    const CarriedState after = backend_->save();
#define VKPHYS_SAME_CARRIED(T, name, count) \
  EXPECT_TRUE(same_bits(after.name, expected.name)) << #name << ", " << integrator_name(integrator);
    VKPHYS_CARRIED_BUFFERS(VKPHYS_SAME_CARRIED)
#undef VKPHYS_SAME_CARRIED
    std::unique_ptr<Backend> restored = another();
    restored->restore(renumbered, expected);
    backend_->steps(10);
    restored->steps(10);
    WorldState a, b;
    backend_->read(a);
    restored->read(b);
    EXPECT_TRUE(same_state(a, b)) << integrator_name(integrator);
  }
}

VKPHYS_ON_ALL_CASES(ParticleOrderRun);

// Lavapipe rounds the particle step as the CPU does: in Morton order, reordered as the pile
// settles, both backends hold the same bits.
TEST(ParticleOrderParity, CpuAndLavapipeHoldTheSameBits) {
  if (!on_lavapipe()) {
    GTEST_SKIP() << "the oracle is lavapipe's rounding (a GPU's parity is held to tolerances)";
  }
  for (SolverScheme scheme : {SolverScheme::colored, SolverScheme::jacobi}) {
    std::vector<std::uint32_t> perm;
    Scene s = shuffled(particle_box_scene(499, 7), perm);
    s.settings.solver.scheme = scheme;
    s.settings.solver.particle_reorder = 20;
    std::unique_ptr<Backend> cpu = make_cpu_backend();
    std::unique_ptr<Backend> gpu = make_gpu_backend(*gpu_context_or_null(nullptr));
    cpu->load(s);
    gpu->load(s);
    cpu->steps(50);
    gpu->steps(50);
    WorldState a, b;
    cpu->read(a);
    gpu->read(b);
    EXPECT_TRUE(same_state(a, b)) << scheme_name(scheme);
  }
}

}  // namespace
}  // namespace vkphys::test
