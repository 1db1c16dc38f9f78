// Turning a Scene into the world step's arrays and constants (kernels/world_layout.h), shared
// by both backends so they start from identical data.
//
// Body order: the scene's rigid bodies, then one static plane body per scene plane (together
// the R rigid bodies), then the scene's particles. Bodies joined by a joint (directly or
// through a chain of joints) form a collision group: jointed parts overlap at their joints by
// design, so they never collide with each other.
//
// Where each part lives: build_world and the joints (world_setup.cpp), what joins particles
// (particle_links.h), the joint trees (joint_trees.h), the list capacities and table sizes
// (world_capacities.cpp), the step constants (world_params.cpp), and the state, checkpoint and
// statistics exchange both backends share (world_state.cpp).
#pragma once

#include <cstdint>
#include <glm/glm.hpp>
#include <span>
#include <vector>

#include "host/sim/backend.h"
#include "host/sim/drive.h"
#include "kernels/world_layout.h"
#include "vkphys/scene.h"

namespace vkphys {

struct WorldArrays {
  // every body (N)
  std::vector<glm::vec4> pos;    // (x, radius)
  std::vector<glm::vec4> vel;    // (v, 1/m)
  std::vector<glm::uvec4> info;  // (shape, material, group, t/2 as float bits)
  // rigid bodies (R)
  std::vector<glm::vec4> rot, omega, inertia, dims;
  std::vector<glm::vec4> force, torque;  // constant applied force and torque
  std::vector<glm::uvec4> joint_info;
  std::vector<glm::vec4> joint_frames;  // VKPHYS_JOINT_STRIDE per joint (laid_out_joint_frames)
  std::vector<std::uint32_t> plane_bodies;
  // force springs (F) and each particle's incident list (kernels/world_layout.h)
  std::vector<glm::uvec2> fspring_ends;
  std::vector<glm::vec4> fspring_params;
  std::vector<std::uint32_t> fspring_offsets, fspring_incident;
  // each particle's spring partners, ascending (self-collision's pair filter; empty unless some
  // particle has a thickness)
  std::vector<std::uint32_t> partner_offsets, partner_list;
  // the triangles under the wind (T; none without forces.wind) and each particle's incident list
  // (kernels/world_layout.h)
  std::vector<glm::uvec4> wind_tris;
  std::vector<std::uint32_t> wind_offsets, wind_incident;
  // the CG line preconditioner's lines (host/sim/cg_lines.h; solver.cg_preconditioner "lines"
  // only, else empty): cg_lines as kernels/world_layout.h lays it out, and the two families'
  // line counts
  std::vector<std::uint32_t> cg_lines;
  glm::uvec2 cg_line_counts{0u};
  // the joint trees (K) and their nodes (host/sim/joint_trees.h, kernels/joint_trees.inl)
  std::vector<glm::uvec2> tree_ranges;
  std::vector<glm::uvec4> tree_nodes;
  // each body's mask of its joints' colours, then the joints' colours (N + J; body_color from
  // 2N on, host/sim/joint_coloring.h)
  std::vector<std::uint32_t> joint_colors;
  Drive drive;                 // kinematic paths and scheduled impulses
  std::uint32_t rigid = 0;     // R
  std::uint32_t sweepers = 0;  // rigid bodies that start a sweep (not planes or shapeless)
  // Whether two particles may ever collide (VKPHYS_FLAG_PARTICLE_PAIRS: without, the grid skips
  // its neighbour scan), and whether any particle contact can form at all, with a plane too
  // (without, both backends leave out the grid and the particle contacts' lists and passes).
  bool particle_pairs = false;
  bool particle_contacts = false;
  std::uint32_t joint_rows = 0;  // rows the joints use (for statistics)
  // J1: 1 + the last joint with more than one row (kern::joint_row_slots)
  std::uint32_t multi_row_joints = 0;
  // JF: 1 + the last joint that is not a spring between two particles (kern::joint_frame_slot)
  std::uint32_t framed_joints = 0;
  float max_particle_radius = 0.0f;
  float max_pair_radius = 0.0f;  // the largest max(r, t/2) a particle shows other particles
  float sweep_slab = 0.0f;       // the sweep's slab width along z [m], 0: one slab
                                 // (sweep_slab_width, made once by build_world)
  std::uint32_t bodies() const { return static_cast<std::uint32_t>(pos.size()); }
  std::uint32_t particles() const { return bodies() - rigid; }
  std::uint32_t joints() const { return static_cast<std::uint32_t>(joint_info.size()); }
  std::uint32_t force_springs() const { return static_cast<std::uint32_t>(fspring_ends.size()); }
  std::uint32_t wind_triangles() const { return static_cast<std::uint32_t>(wind_tris.size()); }
  std::uint32_t trees() const { return static_cast<std::uint32_t>(tree_ranges.size()); }
  // Whether particles feel forces that depend on other particles (springs, wind): symplectic
  // Euler then runs the particle force pass (kernels/world_ode.inl spring_force_pass).
  bool particle_forces() const { return force_springs() > 0 || wind_triangles() > 0; }
};

// Whether the GPU backend sweeps the Jacobi scheme as one gather per body a sweep
// (shaders/world_jacobi_gather.glsl): the Jacobi scheme in a world of particles whose only
// units are particle contacts (no joints or springs, no rigid body other than a plane).
bool jacobi_gathers(const SolverSettings& solver, const WorldArrays& world);

// Whether a substep after the first may take its warm start from the bodies, as the velocity
// change the last substep's solve made (kernels/world_units.inl, "the warm start carried"),
// instead of a sweep over every unit's rows: with substeps, in the sequential and coloured
// schemes, under symplectic Euler, without the strain limit, in a world without joints (each of
// those changes impulses, rows or velocities between substeps: Jacobi's spring start, a
// joint's rows taken again each phase from its anchors' new poses, the limit's and the other
// integrators' passes). The backends carry it unless told to sweep (WarmStart,
// host/sim/backend.h).
bool carries_warm_start(const SolverSettings& solver, const WorldArrays& world);

// Validates what the step relies on (throws std::invalid_argument naming the body, particle,
// joint, path or impulse). Kinematic bodies and particles get 1/m = 0 (and I^-1 = 0): they push
// and are not pushed.
WorldArrays build_world(const Scene& scene);

// The set element i belongs to in a union-find forest `parent` (path halving): the collision
// groups of jointed bodies and the joint trees' loop check.
std::uint32_t union_find_root(std::vector<std::uint32_t>& parent, std::uint32_t i);

// Joint j between world bodies a and b: its info, its frames (kernels/world_layout.h) and its
// row count, appended to w (the scene's joints, then the compliant springs).
void pack_joint(const Joint& j, std::uint32_t a, std::uint32_t b, WorldArrays& w);
// The joints' frames as the kernels read them (kern::joint_frame_slot), from joint_frames'
// VKPHYS_JOINT_STRIDE a joint.
std::vector<glm::vec4> laid_out_joint_frames(const WorldArrays& w);

// Capacities of the append-style lists; both grow on overflow (the step is redone).
struct Capacities {
  std::uint32_t pairs = 0;     // SAP pairs (each up to 4 contact points)
  std::uint32_t contacts = 0;  // particle contacts
};
Capacities default_capacities(const WorldArrays& world);
// The capacities after a step that needed `pairs` pairs and `contacts` particle contacts (a
// list that overflowed grows to 1.5x its need, plus 64), with the joints' units: the solver's
// units, joints + pairs + contacts, stay below 2^24 (unit indices must fit the colouring's
// 24-bit priorities), so the headroom is what the three needs leave. Throws std::runtime_error
// naming the needs when they do not fit together, before anything changes.
Capacities grown_capacities(const Capacities& now, std::uint32_t pairs, std::uint32_t contacts,
                            std::uint32_t joints);
// Smallest power of two >= 2 * capacity (the warm-start hash table).
std::uint32_t pair_hash_size(std::uint32_t pair_capacity);
// The particle grid's hash table: the smallest power of two >= 2 * particles, at least 64.
std::uint32_t grid_table_size(std::uint32_t particles);

kern::WorldParams make_world_params(const Scene& scene, const WorldArrays& world,
                                    const Capacities& capacities);

// The sweep's slab width along z for a world as built (host/sim/world_params.cpp), or 0 for one
// slab: build_world stores it in WorldArrays::sweep_slab, which the step constants and the
// traffic model read.
float sweep_slab_width(const Settings& settings, const WorldArrays& world);

// The state both backends report: `pos` and `vel` of every body in the step's layout
// ((x, radius), (v, 1/m)), `rot` and `omega` of the rigid bodies. `out`'s arrays keep their
// storage when their sizes do not change (a World reads into the same one every step).
void world_state(const Scene& scene, std::uint32_t rigid, std::span<const glm::vec4> pos,
                 std::span<const glm::vec4> vel, std::span<const glm::vec4> rot,
                 std::span<const glm::vec4> omega, WorldState& out);

// Backend::write: `state`'s positions, orientations and velocities into the step's layout
// arrays, keeping their w components (1/m, radii). Throws std::invalid_argument when a size
// differs from the arrays'.
void write_world_state(const WorldState& state, std::uint32_t rigid, std::vector<glm::vec4>& pos,
                       std::vector<glm::vec4>& vel, std::vector<glm::vec4>& rot,
                       std::vector<glm::vec4>& omega);

// The sizes of the carried buffers (host/sim/backend.h) for this world and these capacities.
CarriedSizes carried_sizes(const Scene& scene, const WorldArrays& world,
                           const Capacities& capacities);
// Throws std::invalid_argument naming the first carried buffer whose size is not `sizes`'.
void check_carried(const CarriedState& state, const CarriedSizes& sizes);

// Statistics from the counters and colour ranges (the same on both backends).
void fill_world_stats(const kern::WorldCounters& counters, const Scene& scene,
                      const WorldArrays& world, const Capacities& capacities, StepStats& stats);

}  // namespace vkphys
