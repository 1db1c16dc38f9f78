// The sizes of the step's append-style lists (host/sim/world_setup.h, Capacities) and of its two
// hash tables. Both backends size from here, so a scene overflows, grows and redoes its step
// identically on either; the 2^24 unit limit is the colouring's (kernels/world_coloring.inl:
// unit indices must fit its 24-bit priorities).
#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>
#include <utility>

#include "host/sim/world_setup.h"
#include "kernels/radix.h"

namespace vkphys {

Capacities default_capacities(const WorldArrays& world) {
  // Pairs: 4 per rigid body (a box on a pile touches about that many). Particle contacts: 4
  // per particle (a settled pile has about 6 neighbours, each contact owned by one of the two).
  Capacities c;
  c.pairs = std::max(64u, 4u * world.rigid);
  c.contacts = world.particles() ? std::max(1024u, 4u * world.particles()) : 0u;
  return c;
}

Capacities grown_capacities(const Capacities& now, std::uint32_t pairs, std::uint32_t contacts,
                            std::uint32_t joints) {
  constexpr std::uint64_t limit = (1u << 24) - 1u;
  // A total that reached the scans' saturation is only known to be at least that.
  auto count = [](std::uint32_t n) {
    return n >= VKPHYS_SCAN_LIMIT ? std::string("2^31 or more") : std::to_string(n);
  };
  const char* advice = " (use fewer bodies or particles, or a smaller contact_margin)";
  for (const auto& [needed, what] : {std::pair{pairs, "pairs"}, {contacts, "particle contacts"}}) {
    if (needed > limit) {
      throw std::runtime_error(count(needed) + " " + what +
                               " needed in one step; at most 2^24 - 1 fit" + advice);
    }
  }
  const std::uint64_t need_pairs = std::max(pairs, now.pairs);
  const std::uint64_t need_contacts = std::max(contacts, now.contacts);
  if (joints + need_pairs + need_contacts > limit) {
    throw std::runtime_error(std::to_string(joints) + " joints + " + std::to_string(need_pairs) +
                             " pairs + " + std::to_string(need_contacts) +
                             " particle contacts needed in one step; the solver takes at most "
                             "2^24 - 1 units" +
                             advice);
  }
  std::uint64_t room = limit - joints - need_pairs - need_contacts;
  auto grow = [&room](std::uint64_t need) {
    const std::uint64_t extra = std::min(need / 2u + 64u, room);
    room -= extra;
    return static_cast<std::uint32_t>(need + extra);
  };
  Capacities next = now;
  if (pairs > now.pairs) next.pairs = grow(need_pairs);
  if (contacts > now.contacts) next.contacts = grow(need_contacts);
  return next;
}

std::uint32_t grid_table_size(std::uint32_t particles) {
  return std::bit_ceil(std::max<std::uint32_t>(64u, 2u * particles));
}

std::uint32_t pair_hash_size(std::uint32_t pair_capacity) {
  return std::bit_ceil(std::max(2u * pair_capacity, 64u));
}

}  // namespace vkphys
