// Particles in Morton order: the relabelling and what it moves (host/sim/particle_order.h).
#include "host/sim/particle_order.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>

#include "kernels/particle_renumber.h"

namespace vkphys {
namespace {

constexpr double kSteps = double((1u << 21) - 1u);  // Morton steps per axis, 21 bits each

// The 21 low bits of v spread to every third bit of a 63-bit word.
std::uint64_t spread3(std::uint64_t v) {
  v &= 0x1FFFFFu;
  v = (v | v << 32) & 0x001F00000000FFFFull;
  v = (v | v << 16) & 0x001F0000FF0000FFull;
  v = (v | v << 8) & 0x100F00F00F00F00Full;
  v = (v | v << 4) & 0x10C30C30C30C30C3ull;
  v = (v | v << 2) & 0x1249249249249249ull;
  return v;
}

// The list's old contents, in a copy kept per element type and thread: a World reads the state
// after every step, and this keeps that read from allocating (the list keeps its own storage too).
template <typename T>
const std::vector<T>& copy_of(const std::vector<T>& v) {
  thread_local std::vector<T> copy;
  copy.assign(v.begin(), v.end());
  return copy;
}

template <typename T>
void gather(std::vector<T>& v, const std::vector<std::uint32_t>& from) {
  if (v.empty()) return;
  const std::vector<T>& old = copy_of(v);
  for (std::size_t k = 0; k < from.size(); ++k) v[k] = old[from[k]];
}

template <typename T>
void scatter(std::vector<T>& v, const std::vector<std::uint32_t>& to) {
  if (v.empty()) return;
  const std::vector<T>& old = copy_of(v);
  for (std::size_t k = 0; k < to.size(); ++k) v[to[k]] = old[k];
}

void permute_particles(Particles& p, const std::vector<std::uint32_t>& index, bool to_scene) {
  auto move = [&](auto& list) { to_scene ? scatter(list, index) : gather(list, index); };
  move(p.pos_radius);
  move(p.vel_invmass);
  move(p.material);
  move(p.group);
  move(p.thickness);
}

// The particle contacts' warm-start lists under the owners' new slots (the rule for one entry:
// kernels/particle_renumber.h), as a stable counting sort by new owner: each list keeps its
// entries in the order of their old owners, then of their old places.
void relabel_pcontacts(CarriedState& s, std::uint32_t rigid, const std::vector<std::uint32_t>& to) {
  const std::size_t particles = to.size();
  const std::vector<std::uint32_t>& offsets = s.prev_pcontact_offsets;
  std::vector<std::uint32_t> owner(offsets[particles]);
  std::vector<std::uint32_t> other(owner.size());
  std::vector<glm::vec4> lambda(owner.size());
  std::vector<std::uint32_t> count(particles + 1, 0u);
  for (std::size_t p = 0; p < particles; ++p) {
    for (std::uint32_t c = offsets[p]; c < offsets[p + 1]; ++c) {
      const std::uint32_t word = s.prev_pcontact_other[c];
      const std::uint32_t body = word & VKPHYS_PCONTACT_OTHER_MASK;
      const kern::RenumberedPcontact r = kern::renumber_pcontact(
          to[p], word, s.prev_pcontact_lambda[c], rigid, body >= rigid ? to[body - rigid] : 0u);
      owner[c] = r.holder;
      other[c] = r.other;
      lambda[c] = r.lambda;
      ++count[r.holder + 1];
    }
  }
  std::partial_sum(count.begin(), count.end(), s.prev_pcontact_offsets.begin());
  std::vector<std::uint32_t> cursor(s.prev_pcontact_offsets.begin(),
                                    s.prev_pcontact_offsets.end() - 1);
  for (std::size_t c = 0; c < owner.size(); ++c) {
    const std::uint32_t at = cursor[owner[c]]++;
    s.prev_pcontact_other[at] = other[c];
    s.prev_pcontact_lambda[at] = lambda[c];
  }
}

}  // namespace

std::vector<unsigned char> movable_particles(const Scene& scene) {
  std::vector<unsigned char> movable(scene.particles.size(), 1u);
  auto pin = [&](std::uint32_t i) {
    if (i < movable.size()) movable[i] = 0u;  // out of range: the load reports it
  };
  for (const Spring& s : scene.springs) {
    pin(s.a);
    if (!s.to_body()) pin(s.b);
  }
  for (const Triangle& t : scene.triangles) {
    pin(t.a);
    pin(t.b);
    pin(t.c);
  }
  for (const KinematicPath& k : scene.kinematic) {
    if (k.target.particle) pin(k.target.index);
  }
  for (const ScheduledImpulse& m : scene.impulses) {
    if (m.target.particle) pin(m.target.index);
  }
  return movable;
}

std::vector<std::uint32_t> morton_relabel(std::span<const glm::vec4> pos,
                                          const std::vector<unsigned char>& movable) {
  std::vector<std::uint32_t> to(pos.size());
  std::iota(to.begin(), to.end(), 0u);
  std::vector<std::uint32_t> slots;
  glm::dvec3 lo(INFINITY), hi(-INFINITY);
  for (std::uint32_t k = 0; k < pos.size(); ++k) {
    if (!movable[k]) continue;
    const glm::dvec3 x(pos[k]);
    if (!std::isfinite(x.x) || !std::isfinite(x.y) || !std::isfinite(x.z)) return to;
    slots.push_back(k);
    lo = glm::min(lo, x);
    hi = glm::max(hi, x);
  }
  if (slots.size() < 2) return to;
  const glm::dvec3 extent = hi - lo;
  const double side = std::max({extent.x, extent.y, extent.z});
  const double scale = side > 0.0 ? kSteps / side : 0.0;
  std::vector<std::uint64_t> key(pos.size());
  for (std::uint32_t k : slots) {
    // In [0, kSteps]: the box's own corners bound every position, and doubles keep the product
    // exact enough that nothing rounds past the last step.
    const glm::dvec3 step = glm::min((glm::dvec3(pos[k]) - lo) * scale, glm::dvec3(kSteps));
    key[k] = spread3(std::uint64_t(step.x)) | spread3(std::uint64_t(step.y)) << 1 |
             spread3(std::uint64_t(step.z)) << 2;
  }
  std::vector<std::uint32_t> sorted = slots;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return key[a] < key[b]; });
  for (std::size_t i = 0; i < slots.size(); ++i) to[sorted[i]] = slots[i];
  return to;
}

bool is_identity(const std::vector<std::uint32_t>& to) {
  for (std::size_t k = 0; k < to.size(); ++k) {
    if (to[k] != k) return false;
  }
  return true;
}

Scene scene_in_order(const Scene& scene, const std::vector<std::uint32_t>& order) {
  Scene out = scene;
  permute_particles(out.particles, order, false);
  return out;
}

void particles_to_scene_order(Particles& p, const std::vector<std::uint32_t>& order) {
  permute_particles(p, order, true);
}

void particles_to_slot_order(Particles& p, const std::vector<std::uint32_t>& order) {
  permute_particles(p, order, false);
}

void relabel_carried(CarriedState& s, std::uint32_t rigid, const std::vector<std::uint32_t>& to) {
  const std::size_t particles = to.size();
  auto bodies = [&](std::vector<glm::vec4>& v) {
    std::vector<glm::vec4> moved(v.begin() + rigid, v.end());
    scatter(moved, to);
    std::copy(moved.begin(), moved.end(), v.begin() + rigid);
  };
  bodies(s.body_pos);
  bodies(s.body_vel);
  if (s.cg_dv.size() == particles) scatter(s.cg_dv, to);
  for (glm::uvec4& pair : s.prev_pair_info) {
    if (pair.x >= rigid && pair.x - rigid < particles) pair.x = rigid + to[pair.x - rigid];
    if (pair.y >= rigid && pair.y - rigid < particles) pair.y = rigid + to[pair.y - rigid];
  }
  relabel_pcontacts(s, rigid, to);
}

void check_particle_order(const std::vector<std::uint32_t>& order,
                          const std::vector<unsigned char>& movable) {
  if (order.size() != movable.size()) {
    throw std::invalid_argument("the checkpoint's particle order lists " +
                                std::to_string(order.size()) + " particles; the scene has " +
                                std::to_string(movable.size()));
  }
  std::vector<unsigned char> seen(order.size(), 0u);
  for (std::size_t k = 0; k < order.size(); ++k) {
    const std::uint32_t i = order[k];
    if (i >= order.size() || seen[i] || (!movable[i] && i != k)) {
      throw std::invalid_argument(
          "the checkpoint's particle order is not a reordering of the scene's particles (slot " +
          std::to_string(k) + " holds particle " + std::to_string(i) + ")");
    }
    seen[i] = 1u;
  }
}

}  // namespace vkphys
