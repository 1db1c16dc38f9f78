// Particles in space-filling order (issue 11; solver.particle_reorder, vkphys/scene.h).
//
// The particle step reads each contact's two bodies by index: the grid walk gathers every
// candidate's position, the sweeps gather and scatter both bodies' (v, 1/m). When neighbours in
// space are neighbours in memory those reads share cache lines; when they are not, every one
// misses. A lattice built row by row is in such an order already; particles poured, mixed by a
// long run or listed at random by a user are not: the 100,000-particle box shuffled takes 1.8-1.9x
// the lattice's time a step on the CPU (docs/benchmarks.md, stop 57).
//
// So the particles can be held in the Morton (Z-curve) order of their positions: the bounding box
// of the movable particles quantized into 2^21 steps along its longest side (a cube, so no axis
// is stretched), each axis's step number's bits interleaved into a 63-bit key, ties kept in the
// current order. A Morton curve keeps each power-of-two block of space contiguous at every scale,
// so it serves any grid cell size.
//
// Only particles that nothing names by index move: a particle in a spring, a triangle, a
// kinematic path or a scheduled impulse keeps its slot, so the springs, surfaces, CG lines and
// drive schedules built from the scene need no renumbering (cloth and soft bodies are built in
// an order of their own). Every other particle takes one of the movable slots.
//
// The order is the backends' private business: host/sim/particle_order_backend.cpp wraps either
// backend, loads it with the scene's particles in this order and maps every index and per-body
// array it hands out (the state, the trace, a NaN's body) back to the scene's order.
#pragma once

#include <cstdint>
#include <glm/glm.hpp>
#include <span>
#include <vector>

#include "host/sim/backend.h"
#include "vkphys/scene.h"

namespace vkphys {

// Whether each scene particle may move to another slot (1) or is named by index by a spring, a
// triangle, a kinematic path or a scheduled impulse (0).
std::vector<unsigned char> movable_particles(const Scene& scene);

// A relabelling of the particles at positions `pos` (their slots' order): to[k] is the new slot of
// the particle at slot k. The movable slots (`movable`) go to the movable particles in the Morton
// order of their positions, ties by slot; the others keep theirs. The identity when some movable
// position is not finite (the step's own checks report that).
std::vector<std::uint32_t> morton_relabel(std::span<const glm::vec4> pos,
                                          const std::vector<unsigned char>& movable);

// Whether to[k] == k for every k.
bool is_identity(const std::vector<std::uint32_t>& to);

// `order` holds, per slot, the scene index of the particle there (a permutation).
// The scene with its particles' per-particle lists in slot order.
Scene scene_in_order(const Scene& scene, const std::vector<std::uint32_t>& order);
// Particle lists (state or scene) from slot order to scene order and back.
void particles_to_scene_order(Particles& p, const std::vector<std::uint32_t>& order);
void particles_to_slot_order(Particles& p, const std::vector<std::uint32_t>& order);

// The carried state (host/sim/backend.h) relabelled by `to` (morton_relabel's): the particles'
// positions and velocities, the CG's last solve, the particle-rigid pairs' body indices and the
// particle contacts' warm-start lists, regrouped under their owners' new slots. `rigid`: the
// world's rigid bodies (scene bodies and plane bodies), below the particles in the body index.
void relabel_carried(CarriedState& s, std::uint32_t rigid, const std::vector<std::uint32_t>& to);

// Throws std::invalid_argument unless `order` is a permutation of the scene's particles that
// leaves every unmovable one (`movable`) in its own slot: a checkpoint's particle order.
void check_particle_order(const std::vector<std::uint32_t>& order,
                          const std::vector<unsigned char>& movable);

}  // namespace vkphys
