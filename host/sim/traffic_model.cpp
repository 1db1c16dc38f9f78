#include "host/sim/traffic_model.h"

#include <bit>
#include <numeric>

#include "kernels/radix.h"
#include "kernels/world_layout.h"

namespace vkphys {
namespace {

using u64 = std::uint64_t;
constexpr u64 kV4 = 16;  // one vec4 / uvec4 element
constexpr u64 kU32 = 4;

// An exclusive scan reads and writes each element once.
u64 scan_bytes(u64 n) {
  return 2 * kU32 * n;
}

// The GPU's LSD radix sort of `n` (key, value) pairs by `bits` bits, at the width it chooses
// (kernels/radix.h, radix_width): per pass, the histogram reads the keys, the scatter reads both
// and writes both; the pass's 2^pass_bits entries per block are written by the histogram, read
// and written by the scan and read by the scatter (at 11 bits 2 entries per key, no longer small
// beside the keys). A list that fits one workgroup (VKPHYS_LOCAL_SORT_MAX) is read and written
// once.
u64 sort_bytes(u64 n, std::uint32_t bits) {
  if (n <= 1 || bits == 0) return 0;
  if (n <= VKPHYS_LOCAL_SORT_MAX) return 4 * kU32 * n;
  const auto count = static_cast<std::uint32_t>(n);
  const std::uint32_t width = kern::radix_width(count, bits);
  const u64 blocks = (n + VKPHYS_SORT_BLOCK - 1) / VKPHYS_SORT_BLOCK;
  u64 bytes = 0;
  for (std::uint32_t pass = 0; pass < kern::radix_passes(bits, width); ++pass) {
    const u64 entries = (u64{1} << kern::radix_pass_bits(pass, bits, width)) * blocks;
    bytes += 5 * kU32 * n + entries * kU32 + scan_bytes(entries) + entries * kU32;
  }
  return bytes;
}

// One sweep over every unit. A manifold reads its pair (pair_info, pair_normal) and reads and
// writes both bodies' (v, 1/m) and (w, 0); each point reads prepared vec4 0-3 and 6-14
// (contact_manifold.inl; 4 and 5 serve the targets) and reads and writes its impulses. A
// particle contact reads its bodies, normal, targets and impulses, writes the impulses, and
// reads and writes both particles' (v, 1/m). A joint reads joint_info, its rows (4 vec4 each,
// joints.inl) and reads and writes its six impulses (2 vec4) and its bodies (a particle's
// (v, 1/m) alone, a rigid body's (v, 1/m) and (w, 0)).
struct SweepBytes {
  u64 rigid = 0;     // joints and manifolds
  u64 particle = 0;  // particle contacts
};

SweepBytes sweep_bytes(const StepStats& st, const WorldArrays& world) {
  SweepBytes s;
  s.rigid = u64{st.manifolds} * (2 * kV4 + 2 * 2 * 2 * kV4) + u64{st.points} * (13 + 2) * kV4;
  for (const glm::uvec4& j : world.joint_info) {
    const u64 ends = (j.x < world.rigid ? u64{2} : u64{1}) +
                     (j.y < world.rigid ? u64{2} : u64{1});  // vec4 per end
    s.rigid += kV4 + 2 * 2 * kV4 + 2 * ends * kV4;
  }
  s.rigid += u64{world.joint_rows} * 4 * kV4;
  s.particle = u64{st.particle_contacts} * (8 + 3 * kV4 + kV4 + 2 * 2 * kV4);
  return s;
}

// The Jacobi scheme's extra per sweep: each unit writes its split copies' velocity changes
// (unit_dv: 4 vec4 for joints and pairs, 2 for particle contacts), and each body reads its range,
// its entries (sort_values) and their changes, and reads and writes its velocities.
u64 jacobi_average_bytes(const StepStats& st, const WorldArrays& world) {
  const u64 rigid_units = u64{st.manifolds} + world.joints();
  const u64 entries = 2 * (rigid_units + st.particle_contacts);
  return rigid_units * 4 * kV4 + u64{st.particle_contacts} * 2 * kV4 +
         u64{world.bodies()} * (8 + 2 * kV4) + u64{world.rigid} * 2 * kV4 +
         entries * (kU32 + 2 * kV4) * 2;  // written by the units, read by the bodies
}

// The GPU's Jacobi gather per sweep (shaders/world_jacobi_gather.glsl), which replaces both the
// particle contacts' sweep and the averages: each body reads its range and reads and writes its
// (v, 1/m); each of a contact's (up to) two entries reads the entry, the contact's bodies,
// normal, targets and impulses, and both particles' (v, 1/m) and ranges (their shares); the
// owner writes the impulses once.
u64 jacobi_gather_bytes(const StepStats& st, const WorldArrays& world) {
  const u64 entries = 2 * u64{st.particle_contacts};
  return u64{world.bodies()} * (8 + 2 * kV4) + entries * (kU32 + 8 + 3 * kV4 + 2 * (kV4 + 8)) +
         u64{st.particle_contacts} * kV4;
}

// Its copy back after a phase of an odd number of sweeps: each body's (v, 1/m) read and
// written and its range read; each entry and its contact's bodies read; the impulses copied.
u64 jacobi_gather_settle_bytes(const StepStats& st, const WorldArrays& world) {
  const u64 entries = 2 * u64{st.particle_contacts};
  return u64{world.bodies()} * (8 + 2 * kV4) + entries * (kU32 + 8) +
         u64{st.particle_contacts} * 2 * kV4;
}

// After each of its impact passes, each body's range and deferred start change read and its
// step-start velocity read and written (jacobi_gather_impact_start).
u64 jacobi_gather_impact_start_bytes(const WorldArrays& world) {
  return u64{world.bodies()} * (8 + 3 * kV4);
}

// The phases of a step whose sweeps take an odd number of turns (step_recording.cpp, `sweeps`;
// the warm start runs in place and takes none): each settles the gather once.
u64 odd_phases_per_step(const SolverSettings& sv) {
  const u64 solve = u64{sv.iterations} % 2;
  const u64 per_substep =
      solve * (sv.split_impulse ? 2 : 1) + (sv.relax_iterations % 2 == 1 ? 1 : 0);
  const u64 impact = sv.restitution == RestitutionModel::newton ? sv.impact_passes % 2 : 0;
  return u64{sv.substeps} * per_substep + impact;
}

// The sweeps a step runs (step_recording.cpp and cpu_backend.cpp, `sweeps`): per substep a warm
// start and `iterations`, again for the split impulse's velocity solve, and the relax sweeps;
// the Newton-Coulomb impact passes once a step. With the warm start carried (carries_warm_start)
// only the first substep sweeps one; the later ones take it in their predict.
u64 sweeps_per_step(const SolverSettings& sv, const WorldArrays& world) {
  const u64 per_substep =
      (1 + u64{sv.iterations}) * (sv.split_impulse ? 2 : 1) + sv.relax_iterations;
  const u64 impact = sv.restitution == RestitutionModel::newton ? sv.impact_passes : 0;
  const u64 carried = carries_warm_start(sv, world) ? u64{sv.substeps} - 1 : 0;
  return u64{sv.substeps} * per_substep + impact - carried;
}

}  // namespace

u64 StepTraffic::total() const {
  return std::accumulate(bytes.begin(), bytes.end(), u64{0});
}

StepTraffic step_traffic(const StepStats& st, const Scene& scene, const WorldArrays& world,
                         const Capacities& cap) {
  const SolverSettings& sv = scene.settings.solver;
  const u64 n = world.bodies(), r = world.rigid, p = world.particles(), j = world.joints();
  const u64 pairs = st.pairs, manifolds = st.manifolds, points = st.points;
  const u64 pc = st.particle_contacts;
  const u64 unit_cap = j + cap.pairs + cap.contacts;
  StepTraffic t;
  auto add = [&t](Stage s, u64 bytes) { t.bytes[static_cast<std::size_t>(s)] += bytes; };

  // setup: every body's (x, radius), (v, 1/m) and info are read; a rigid body's rotation,
  // inertia and dims are read and its AABB (2 vec4) and world inverse inertia (3 vec4) written;
  // the sweep's keys and values written.
  add(Stage::setup, n * 3 * kV4 + r * (3 + 5) * kV4 + (world.sweepers ? n * 2 * kU32 : 0));

  // broadphase: the sweep's sort (with slabs, then each body's AABB read for its slab key and the
  // sort by slab), its walk lengths (each body's AABB read, its walk, its parts and y and z
  // extents written) and two scans, each found pair's extents and both bodies' info (read by
  // the count and again by the write) and its pair_info; the candidates a walk rejects on y and
  // z (one vec4 each) and the walks' binary searches are not counted; the particle grid's hash
  // (position in, key and value out), sort, cell ranges, per-particle counts and scan, and each
  // contact's two positions (count and write) and its stored bodies, normal and impulses.
  if (world.sweepers) {
    add(Stage::broadphase, sort_bytes(n, 32) + n * (4 * kV4 + kU32) + 2 * scan_bytes(n + 1) +
                               pairs * (2 * 3 * kV4 + kV4));
    if (world.sweep_slab > 0.0f) {
      add(Stage::broadphase, n * (2 * kV4 + 2 * kU32) + sort_bytes(n, VKPHYS_SWEEP_SLAB_BITS));
    }
  }
  if (world.particle_contacts) {
    const u64 table = grid_table_size(world.particles());
    add(Stage::broadphase,
        p * (kV4 + 2 * kU32) +
            sort_bytes(p, static_cast<std::uint32_t>(std::bit_width(table - 1))) + p * 4 * kU32 +
            table * 2 * kU32 + scan_bytes(p + 1) + pc * (2 * 2 * kV4 + 8 + 2 * kV4));
  }

  // narrowphase: per pair both bodies' pose and dims (3 vec4 each) and pair_info in; normal,
  // info and the manifold's reference frame (2 vec4) out; the warm-start match reads the last
  // step's frame (2 vec4) and hash slot. Per point: geometry, impulses and the two reference
  // points out, and the last step's impulses (3 vec4) and reference points (2 vec4) in.
  add(Stage::narrowphase,
      pairs * (7 * kV4) + manifolds * (4 * kV4 + 2 * kV4 + 8) + points * (4 * kV4 + 5 * kV4));

  // coloring: the coloured scheme's init over the unit capacity; per colour 2 propose and 2
  // assign passes over the live units, each reading the unit's colour word, and a unit still
  // uncoloured reading its bodies and their claims and writing them (taken as 4 passes a unit:
  // how long a unit stays uncoloured depends on the graph); the colour keys and their 6-bit
  // sort, the ranges, and the particle contacts' gather into colour order (bodies, normal,
  // impulses in and out, and their copies). Jacobi: the incidence list (2 entries a unit), its
  // sort and the per-body ranges, or the GPU gather's counted lists.
  const u64 live_units = j + manifolds + pc;
  if (sv.scheme == SolverScheme::colored) {
    add(Stage::coloring, unit_cap * (kU32 + 3 * kU32) + sort_bytes(unit_cap, 6) +
                             u64{st.colors} * 2 * 2 * live_units * kU32 +
                             live_units * 4 * (kV4 + 4 * kU32) + pc * 2 * (8 + 3 * kV4));
  } else if (jacobi_gathers(sv, world)) {
    // The GPU gather's incidence without the sort (world_coloring.inl, incidence_count): per
    // contact, twice (count, fill), its bodies and their (v, 1/m) read and two counters bumped,
    // then its two entries written; the counts' scan; per body its cursors read and its range
    // written, and its entries read and written once by the insertion sort.
    add(Stage::coloring, pc * 2 * (8 + 2 * kV4 + 2 * kU32) + pc * 2 * kU32 + scan_bytes(n + 1) +
                             n * (2 * kU32 + 8) + 2 * pc * 2 * kU32);
  } else if (sv.scheme == SolverScheme::jacobi) {
    add(Stage::coloring,
        2 * unit_cap * 3 * kU32 +
            sort_bytes(2 * unit_cap, static_cast<std::uint32_t>(std::bit_width(world.bodies()))) +
            n * 8);
  }

  // predict (per substep, the first here and the others in solve): each body's velocity read
  // and written, position and force read, start velocity written (a rigid body's angular
  // velocity, torque and start too); force springs read their ends and parameters and both
  // particles' positions and velocities; the trace's copy of the predicted velocities.
  const u64 predict = n * 5 * kV4 + r * 4 * kV4 + u64{world.force_springs()} * (8 + kV4 + 4 * kV4);
  add(Stage::predict, predict + (n + r) * 2 * kV4);

  // prepare: a point's 15 prepared vec4 written from its geometry, reference points and both
  // bodies' state (pose, velocities, inverse inertia: 7 vec4 each, per manifold); a joint's
  // frames (9 vec4) and bodies in, its rows out. Then the targets of every solve phase: a point
  // reads 3 prepared vec4 and its geometry and writes 2; a particle contact reads its bodies and
  // normal and writes its targets; a joint row reads and writes 2 vec4.
  const u64 phases =
      u64{sv.substeps} * ((sv.split_impulse ? u64{2} : u64{1}) + (sv.relax_iterations ? 1u : 0u));
  const u64 targets =
      points * 6 * kV4 + pc * (8 + 2 * kV4 + 2 * kV4) + u64{world.joint_rows} * 4 * kV4;
  add(Stage::prepare, points * (15 + 3) * kV4 + manifolds * 2 * 7 * kV4 +
                          j * (9 * kV4 + 2 * 7 * kV4) + u64{world.joint_rows} * 4 * kV4 + targets);

  // solve: the sweeps (and the Jacobi averages, or the gather and its copies back), the later
  // substeps' predict, the other phases' targets, the positions' integration (position,
  // velocity, start velocity; a rigid body's rotation read and written and angular velocity
  // read), and the implicit integrator's conjugate-gradient iterations (per iteration each
  // particle's 8 CG vectors read or written about once, and for A p every force spring's ends,
  // its stored block (cg_blocks, three vec4) from each end and both particles' p).
  const SweepBytes sweep = sweep_bytes(st, world);
  u64 per_sweep = sweep.rigid + sweep.particle;
  u64 settles = 0;
  if (jacobi_gathers(sv, world)) {
    per_sweep = jacobi_gather_bytes(st, world);
    settles = odd_phases_per_step(sv) * jacobi_gather_settle_bytes(st, world);
    if (sv.restitution == RestitutionModel::newton) {
      settles += u64{sv.impact_passes} * jacobi_gather_impact_start_bytes(world);
    }
  } else if (sv.scheme == SolverScheme::jacobi) {
    per_sweep += jacobi_average_bytes(st, world);
  }
  // The carried warm start: each body's velocities kept before the first substep's solve, and
  // in each later predict read and kept again (kernels/world_units.inl).
  const u64 carry =
      carries_warm_start(sv, world) ? (n + r) * kV4 * (1 + 2 * (u64{sv.substeps} - 1)) : 0;
  add(Stage::solve,
      sweeps_per_step(sv, world) * per_sweep + settles + (sv.substeps - 1u) * predict + carry +
          (phases - 1) * targets + sv.substeps * (n * 4 * kV4 + r * 3 * kV4) +
          u64{st.cg_iterations} *
              (p * 8 * kV4 + u64{world.force_springs()} * (8 + 2 * 3 * kV4 + 2 * kV4)));

  // integrate: the commit reads every pair slot's info and writes each manifold's frame and its
  // points' impulses and reference points for the next step's match; clears and refills the
  // warm-start hash; writes the particle contacts' offsets, other bodies and impulses.
  add(Stage::integrate, u64{cap.pairs} * kV4 + manifolds * 2 * kV4 + points * 5 * kV4 +
                            u64{pair_hash_size(cap.pairs)} * 2 * kU32 + (p + 1) * 2 * kU32 +
                            pc * (8 + 2 * kV4 + kU32 + kV4));
  return t;
}

}  // namespace vkphys
