// The world step's data layout, shared by the shaders (shaders/world_*.comp through
// shaders/world_common.glsl, which gives every buffer below its binding) and the CPU reference
// (host/cpu/world_env.h): one definition for both, std430, built from 16-byte vectors and
// scalars.
//
// Bodies share one index space, grouped by kind (Newton's kind-prefixed arrays): rigid bodies
// 0 .. R-1 (the scene's bodies, then one static plane body per scene plane), particles
// R .. N-1. Each kind stores only what it needs; a particle has no orientation, inertia or
// angular velocity anywhere.
//   every body (N):
//     body_pos[i]     (x, radius)        radius: a particle's; 0 for rigid bodies (rigid_dims)
//     body_vel[i]     (v, 1/m)           the solver's working velocity; 1/m = 0: static
//     body_start[i]   (v_k, 0)           velocity at the start of the step
//     body_info[i]    (shape, material, group, t/2)   bodies of one nonzero group never collide
//                                        (but self-colliding particles); a particle's shape
//                                        is a sphere, t/2 half its thickness as float bits
//                                        (0: none; rigid bodies 0), kernels/particle_grid.inl
//     body_color[i], [N+i]   colouring: this pass's claim, and the mask of the colours taken on
//                     the body by this step's contacts (bit c; kept ones and new ones); then
//                     [0, N] the overflow colour's per-body entry counts, their scan and fill
//                     cursors (kernels/world_coloring.inl, overflow_count); made at load and
//                     never cleared: [2N+i] the mask of body i's joints' colours (bit c),
//                     [3N+j] joint j's colour (VKPHYS_UNCOLORED: left to the step's
//                     colouring), host/sim/joint_coloring.h (in body_color, not a binding of
//                     their own: the fused kernel binds lavapipe's 32 storage buffers already)
//     body_range[i]   (begin, end) of the body's entries in the sorted incidence list (Jacobi)
//                     or in the overflow colour's incidence list (coloured scheme)
//     sweep_ref[i], [N+i]  the velocity (v, 1/m) and, for a rigid body, (w, 0) before the
//                     step's last solver sweep: the solver residual (kernels/world_units.inl);
//                     between substeps with the warm start carried, before each substep's
//                     solve (world_units.inl, body_predict_carrying); in the GPU's Jacobi
//                     gather, which measures the residual itself, an impact pass's change to the
//                     body's step-start velocity
//     body_vel_next[i]  the GPU's Jacobi gather (shaders/world_jacobi_gather.glsl): the other
//                     half of (v, 1/m) double-buffered across the sweeps (N; empty otherwise)
//   rigid bodies (R):
//     rigid_rot[i]    q (x, y, z, w), body to world
//     rigid_omega[i]  (w, 0) world frame;  rigid_omega_start[i]: w_k
//     rigid_iinv[3i..3i+2]   columns of the world inverse inertia R I^-1 R^T (per step)
//     rigid_inertia[i] (1/Ix, 1/Iy, 1/Iz, 0) body frame, principal axes
//     rigid_dims[i]   shape sizes (kernels/collider.h)
//     rigid_aabb[2i], [2i+1]     AABB min (w: the speculative reach e_i), max (expanded by
//                                max(margin / 2, e_i): kernels/world_bodies.inl)
//     rigid_vel_pos[2i], [2i+1]  split impulse: the velocities the positions integrate with
//     rigid_force[i], rigid_torque[i]  (F, 0), (tau, 0): constant applied force and torque
//   particles (P = N - R, index p = i - R):
//     grid_keys[p], grid_values[p]   grid cell hash and body index, sorted by cell
//     cell_start[h], cell_end[h]     each hash bucket's range of sorted entries
//     partner_offsets[p]  each particle's range of partner_list (P + 1, exclusive scan), and
//     partner_list[e]     its spring partners' world indices, ascending (2 per particle-particle
//                         spring); both empty unless some particle has a thickness
// Contact pairs that involve a rigid body other than a plane (SAP pairs, capacity PC) and
// their points (4 per pair, slot 4p + k):
//   sweep_walk[s]   the length of the sweep's walk from sorted position s (planes, forward,
//                   backward, up and down entries), then exclusive scan: the walks laid end to
//                   end (N + 1)
//   sweep_ranges[s] (forward entries, backward entries, first sorted position of the up walk,
//                   of the down walk) of that walk (N; the last two only with slabs)
//   sweep_yz[s]     (min y, min z, max y, max z) of the body at sorted position s: the forward
//                   walks' test streams through these instead of gathering each candidate's
//                   AABB by body index (N)
//   pair_offsets[w] the pairs of sweep work item w (a chunk of the walks laid end to end), then
//                   exclusive scan (N + 1; kernels/world_broadphase.inl)
//   pair_info[p]    (a, b, points, 0)          shape(a) <= shape(b); normal from a to b
//   pair_normal[p]  (n, 0)
//   point_geom[4p+k]    (world point, gap)     gap < 0: penetrating
//   point_lambda[4p+k]  (lambda_n, lambda_t1, lambda_t2, feature id as float bits)
//   point_prep[16(4p+k) + 0..15] the prepared rows (kernels/contact_manifold.inl)
//   pair_frame[2p], [2p+1]   the manifold's reference (kernels/world_narrowphase.inl, the
//                        manifold cache): (normal in body a's frame, 0), conj(q_a) q_b
//   point_ref[2(4p+k)], [2(4p+k)+1]  the point at the reference pose: (in body a's frame,
//                        feature id), (in body b's frame, gap)
//   prev_pair_info[p], prev_pair_frame[2p..2p+1], prev_point_lambda[3(4p+k) + 0..2]: last
//     step's pairs and points, (lambda_n, world friction impulse) and the point_ref pair, found
//     through
//   prev_hash[slot] (open addressing on (a, b), VKPHYS_EMPTY_SLOT when free)
// Particle contacts (particle-particle and particle-plane, one point each, capacity CC),
// listed per owning particle (the lower particle index, or the particle of a plane contact):
//   pcontact_offsets[p]  count, then exclusive scan, per particle (P + 1)
//   pcontact_bodies[c]   (a, b), normal from a to b: (particle, higher particle) or
//                        (plane body, particle)
//   pcontact_geom[c]     (n, gap)
//   pcontact_target[c]   (T_n, T_t1, T_t2, eps)   kernels/contact_particle.inl
//   pcontact_lambda[c]   (lambda_n, lambda_t1, lambda_t2, mu)
//   prev_pcontact_offsets[p], prev_pcontact_other[c], prev_pcontact_lambda[c]: last step's
//     lists, the other body (bits 0-25; bits 26-31 the contact's colour + 1, 0 none:
//     kernels/world_coloring.inl) and (lambda_n, world friction impulse)
//   pcontact_origin[c]   the contact's place in the owner order above: c itself, until the
//                        coloured scheme stores the contacts in colour order
//                        (kernels/world_coloring.inl, pcontact_gather); the commit writes the
//                        prev_ lists through it, so they stay in owner order
//   pcontact_copy_bodies[c], pcontact_copy_lambda[c]: the colour-order gather's copies
//                        (pcontact_target holds the gathered normals until the targets
//                        overwrite it); in the GPU's Jacobi gather pcontact_copy_lambda is the
//                        other half of the double-buffered impulses
// Joints (J of them, topology fixed for the run), between rigid bodies:
//   joint_info[j]       (a, b, type, limited)
//   joint_frames[joint_frame_slot(j, k, J, JF)]  frame k of joint j: 0 anchor_a (w: length),
//                           1 anchor_b, 2 axis_a, 3 axis_b, 4 ref_a, 5 ref_b, 6 limit_lo,
//                           7 limit_hi, 8 (k, d, limit k, limit d); frames 1 .. 7 only for the
//                           first JF joints (a spring reads 0 and 8 alone)
//   joint_rows[joint_row_base(j, r) + ...] the prepared rows, row-major: row 0 of the J joints,
//                                then rows 1 .. 5 of the first J1 (joint_row_slots); joint j
//                                uses rows 0 .. joint_row_count - 1 (kernels/joints.inl)
//   joint_lambda[2j], [2j+1]     six accumulated impulses
// Joint trees (kernels/joint_trees.inl, K trees of NT nodes: bodies and joints):
//   tree_ranges[t]     (first node, end)
//   tree_nodes[n]      (body, or joint | VKPHYS_TREE_JOINT; parent node or VKPHYS_TREE_ROOT;
//                      the end of the edge's joint the body is, 0 a / 1 b; a joint's rows)
//   tree_blocks[26n + 0..25]  D^-1 and L, 6x6 each as four mat3 of 3 vec4, then the solve's y,
//                      later x, in 2 vec4 (VKPHYS_TREE_NODE_STRIDE)
// Units are what the solver sweeps over and the colouring colours: units 0..J-1 are the
// joints, then the stored SAP pairs (a pair with no points is inactive), then the stored
// particle contacts; the capacity is J + PC + CC.
//   unit_color[u]   colour, VKPHYS_UNCOLORED while uncoloured, VKPHYS_INACTIVE_COLOR
//   unit_dv[...]    Jacobi and the coloured scheme's overflow colour: the velocity changes of
//                   the unit's split copies: joints and pairs
//                   4 entries (dv_a, dw_a, dv_b, dw_b), particle contacts 2 (dv_a, dv_b)
//   sort_keys / sort_values  scratch for the radix sort (sweep keys, colours, incidence); in the
//                     coloured scheme's solve sort_values hold the colour lists and sort_keys
//                     the overflow colour's incidence list
// Driven motion, written by the host before each step (host/sim/drive.h), in double precision
// there and rounded once:
//   drive_paths[4k + 0..3]   kinematic path k: (v over this step, body index as uint bits),
//                            (w, 0), (x at the end of the step, 0), q at the end of the step
//   drive_impulses[2m + 0..1] impulse m due this step: (J, body index as uint bits), (point, 0)
// Force springs (F of them, vkphys/scene.h SpringModel::force; compliant springs are joints) and
// the explicit integrators' state (kernels/world_ode.inl), particles only:
//   fspring_ends[f]      (a, b) world indices of the spring's particles
//   fspring_params[f]    (rest length, k, c, 0)
//   fspring_offsets[p]   each particle's range of fspring_incident (P + 1, exclusive scan)
//   fspring_incident[e]  2F entries, per particle in spring order: spring << 1 | side (1: b)
//   ode_state[7p + 0..6] (x at the (sub)step's start, x0 and v0 of the current ODE step, the
//                        weighted sums of the stages' x' and v', the full step's x and v (step
//                        doubling); after the ODE: slot 5 the ODE's x, slot 6 its v*)
//   ode_deriv[p]         (a, 0) at the current stage state; symplectic: the springs' f/m;
//                        after the rows, a strain-limit pass's (dv, 0) (kernels/strain_limit.inl)
//   ode_touched[p]       1 when a row (contact, compliant spring) holds the particle this step:
//                        it takes the symplectic step instead of the explicit method
// The wind on the scene's triangles (T of them with forces.wind, else none; kernels/aero.h),
// gathered per particle so that each particle sums its triangles in a fixed order (no atomics:
// both backends and repeated runs add the same floats in the same order):
//   wind_tris[t]         (a, b, c, sides) world indices of triangle t's particles and which of
//                        its faces the air reaches (VKPHYS_WIND_*, kernels/aero.h)
//   wind_offsets[p]      each particle's range of wind_incident (P + 1, exclusive scan)
//   wind_incident[e]     3T entries, per particle in triangle order: the triangle's index
// The implicit integrator's conjugate gradient (kernels/world_implicit.inl), particles only
// (allocated only with solver.integrator "implicit"):
//   cg_vec[7p + 0..6]    r, z, p, A p, and the columns of the inverse diagonal block P^-1
//                        (kernels/implicit.h VKPHYS_CG_*)
//   cg_dv[p]             the unknown dv; between solves the last solve's, the next one's warm
//                        start (carried in a checkpoint, host/sim/backend.h)
//   cg_partial[k]        chunk k's p.A p, then (at chunks + k) its r.z and r.r (and |b|^2
//                        after implicit_setup)
//                        (VKPHYS_CG_CHUNK particles each)
//   cg_scalar[0..1]      (r.z, r.r, |b|^2, done), (iterations, 0, 0, 0); [2..3] the
//                        iteration's copy
//   cg_blocks[3f + 0..2] force spring f's block B of the matrix at x0 (its columns), made once
//                        a solve by implicit_setup for cg_matvec and the lines' couplings
//   with solver.cg_preconditioner "lines" only (else empty), made at load (host/sim/cg_lines.h):
//   cg_lines[4p + 2f], [4p + 2f + 1]  particle p's predecessor and successor (particle indices
//                        p, VKPHYS_NO_LINK at a line's end) in line family f; then from 4P on the
//                        lines' first particles, family 0's L0, then family 1's L1
//   cg_factor[14p + 7f + 0..6]  the line's block LDL^T: D^-1, the coupling to the predecessor,
//                        and the family's solve y_f (kernels/implicit.h VKPHYS_LINE_*)
#ifndef VKPHYS_KERNELS_WORLD_LAYOUT_H
#define VKPHYS_KERNELS_WORLD_LAYOUT_H
#include "kernels/common.h"
#include "kernels/limits.h"

KERNELS_BEGIN

#define VKPHYS_MAX_COLORS 32  // colour slots: max_colors <= 30, + overflow, + inactive
#define VKPHYS_INACTIVE_COLOR 31u
#define VKPHYS_UNCOLORED 0xFFFFFFFFu
#define VKPHYS_EMPTY_SLOT 0xFFFFFFFFu
#define VKPHYS_JOINT_STRIDE 9u
#define VKPHYS_JOINT_ROWS 6u
#define VKPHYS_POINT_PREP 16u  // vec4 of prepared rows per contact point

// Solver schemes, restitution and friction models (vkphys/scene.h mirrors them).
#define VKPHYS_SCHEME_SEQUENTIAL 0u
#define VKPHYS_SCHEME_COLORED 1u
#define VKPHYS_SCHEME_JACOBI 2u
#define VKPHYS_RESTITUTION_BIAS 0u
#define VKPHYS_RESTITUTION_NEWTON 1u
#define VKPHYS_FRICTION_CONE 0u
#define VKPHYS_FRICTION_BOX 1u
#define VKPHYS_FLAG_SPLIT 1u
#define VKPHYS_FLAG_GYROSCOPIC 2u
#define VKPHYS_FLAG_PARTICLE_PAIRS 4u      // some two particles may collide (not all one group)
#define VKPHYS_FLAG_CONTACT_CACHE 8u       // solver.contact_cache (kernels/world_narrowphase.inl)
#define VKPHYS_FLAG_SPECULATIVE_REACH 16u  // solver.speculative_reach (kernels/world_bodies.inl)

// The manifold cache's tolerances (kernels/world_narrowphase.inl): the relative motion of the
// two bodies at each contact point [m], and the cosine of half the relative rotation (2 degrees).
#define VKPHYS_CACHE_DRIFT 1.0e-3f
#define VKPHYS_CACHE_COS_HALF_ANGLE 0.9998477f

// Joint types (vkphys/scene.h, JointType).
#define VKPHYS_JOINT_DISTANCE 0u
#define VKPHYS_JOINT_BALL 1u
#define VKPHYS_JOINT_HINGE 2u
// joint_info[j].w flags: the joint has limit rows; its equality rows are solved with its tree's
// (kernels/joint_trees.inl); the spring is a tether, which only pulls (kernels/joints.inl).
#define VKPHYS_JOINT_LIMITED 1u
#define VKPHYS_JOINT_IN_TREE 2u
#define VKPHYS_JOINT_TETHER 4u
// tree_nodes[n]: a joint node's index flag, and a root's parent.
#define VKPHYS_TREE_JOINT 0x80000000u
#define VKPHYS_TREE_ROOT 0xFFFFFFFFu

// The rows a joint of this type fills (of its VKPHYS_JOINT_ROWS slots): a distance joint (every
// compliant spring) one, a ball its 3 point rows and 3 limit rows, a hinge 3 point rows, 2
// angular rows and 1 limit row. joint_targets stores each of them, so none needs clearing, and
// the sweep reads no other.
KFN uint joint_row_count(uint type, bool limited) {
  if (type == VKPHYS_JOINT_DISTANCE) return 1u;
  if (type == VKPHYS_JOINT_HINGE) return limited ? 6u : 5u;
  return limited ? 6u : 3u;
}

// The row slots of J joints of which the first J1 may use rows past row 0 (joint_row_base,
// kernels/joints.inl): row 0 of every joint, rows 1 .. 5 of those J1. A compliant spring has one
// row, so a cloth's joints take one slot each (64 B), not six.
KFN uint joint_row_slots(uint joints, uint multi_row_joints) {
  return joints + (VKPHYS_JOINT_ROWS - 1u) * multi_row_joints;
}

// Frame k (0 .. VKPHYS_JOINT_STRIDE - 1) of joint j among J joints of which the first JF have
// frames 1 .. 7: frame 0 of every joint, then frame 8 of every joint, then frames 1 .. 7 of the
// JF. A spring between two particles (kernels/joints.inl, joint_is_spring) reads only its rest
// length (frame 0's w) and its k and d (frame 8), and the scene's joints come before the springs,
// so a cloth's spring keeps 32 B of frames, not 144.
KFN uint joint_frame_slot(uint j, uint k, uint joints, uint framed) {
  if (k == 0u) return j;
  if (k == VKPHYS_JOINT_STRIDE - 1u) return joints + j;
  return 2u * joints + (k - 1u) * framed + j;
}

KFN uint joint_frame_slots(uint joints, uint framed) {
  return 2u * joints + (VKPHYS_JOINT_STRIDE - 2u) * framed;
}

// A limited joint's axis is locked when its range is empty (hi <= lo; joint frames 6 and 7 hold
// lo and hi): its limit row is two-sided (kernels/joints.inl, limit_locked).
KFN bool limit_axis_locked(vec4 lo, vec4 hi, uint axis) {
  return hi[int(axis)] <= lo[int(axis)];
}

// The rows a joint (info: joint_info; lo, hi: its limits) brings to its tree's direct solve
// (kernels/joint_trees.inl), as a mask (bit r: row r; a joint's block is 6 x 6 with row r at
// position r, the others padded): its equality rows (the first ones) and, for a limited ball,
// the limit rows of its locked axes (row 3 + i for axis i), which are equality rows too
// (store_limit_row's two-sided row). The one-sided limit rows stay with the sweep. Limited hinges
// join no tree (host/sim/joint_trees.cpp), so their limit row needs no bit.
//
// Why the locked axes: seed 004's shoulders are locked on two axes, and swept after the tree's
// exact solve they are the one place where the doll's rows still fight by Gauss-Seidel. At its
// own 30 Hz and 1 x 2, with solver.speculative_reach on (the arms meet the floor within the
// landing step), the shoulder's locked axis gave way by 0.31 rad (sequential) and 0.33
// (coloured) on the landing step, the worst of any limit; in the tree it holds (measured:
// tests/test_rigid_seed_scenes.cpp, RigidRagdoll.PinsAtSeed004Settings).
KFN uint joint_tree_row_mask(uvec4 info, vec4 lo, vec4 hi) {
  uint mask = (1u << joint_row_count(info.z, false)) - 1u;
  if (info.z != VKPHYS_JOINT_BALL || (info.w & VKPHYS_JOINT_LIMITED) == 0u) return mask;
  for (uint i = 0u; i < 3u; ++i) mask |= limit_axis_locked(lo, hi, i) ? 8u << i : 0u;
  return mask;
}

struct WorldParams {
  vec4 gravity_dt;  // (gx, gy, gz, h)
  vec4 solver;      // (relaxation, restitution threshold [m/s], friction on, warm-start factor)
  vec4 manifold;    // (the weight of a two-way manifold's increments: under Jacobi
                    //  solver.jacobi_contact_relaxation, else 1 (kernels/contact_manifold.inl,
                    //  manifold_weight), 0, 0, 0)
  vec4 contact;     // (contact margin [m], |g| for the scaled-box friction bound,
                    //  contact stiffness cap [Hz] (0: none), substeps per step)
  vec4 drag;        // (linear drag c [kg/s], quadratic drag 1/2 rho C_D [kg/m^3], the wind's
                    //  1/2 rho C_D and 1/2 rho C_L on triangles [kg/m^3], kernels/aero.h)
  vec4 wind;        // (wind velocity [m/s], rho C_f [kg/m^3]: both faces' skin friction)
  vec4 central;     // central field (centre, strength), kernels/integrate.h
  vec4 grid;        // (cell size [m], 1 / cell size, the largest particle reach 2 r_max + margin
                    //  [m], 0)
  vec4 sweep;       // (slab width W [m], 1 / W, 0, 0): the sweep's slabs along z
                    //  (kernels/world_broadphase.inl); W = 0: one slab
  uvec4 counts;     // (bodies N, joints J, pair capacity PC, hash table size (power of two))
  uvec4 kinds;      // (rigid bodies R, particles P, particle-contact capacity CC,
                    //  grid table size (power of two))
  uvec4 modes;      // (scheme, restitution model, friction model, flags)
  uvec4 coloring;   // (max colours, sub-passes per colour, planes, unit capacity J + PC + CC)
  uvec4 drive;      // (central field law, kinematic paths, impulses due this step, 0)
  uvec4 ode;        // (integrator (kernels/ode.h), force springs F, CG iteration cap,
                    //  tolerance as float bits: the CG's relative residual (implicit) or the
                    //  adaptive step's error (the explicit methods))
  uvec4 aero;       // (triangles under the wind T (0: no wind), 0, 0, 0)
  uvec4 trees;      // (joint trees K, their nodes NT, 0, 0), kernels/joint_trees.inl
  uvec4 lines;      // (CG preconditioner (VKPHYS_CG_BLOCK_JACOBI or VKPHYS_CG_LINES), lines of
                    //  family 0 L0, of family 1 L1, 0), kernels/world_implicit.inl
  vec4 strain;      // (the force springs' strain limit (0: off), 0, 0, 0),
                    //  kernels/strain_limit.inl
  uvec4 joint_use;  // (J1: joints 0 .. J1 - 1 have row slots past row 0, JF: joints
                    //  0 .. JF - 1 have frames 1 .. 7, 0, 0): joint_row_slots,
                    //  joint_frame_slot
  uvec4 plane_bodies[VKPHYS_MAX_PLANES / 4];  // body indices of the plane bodies, 4 per entry
  vec4 materials[VKPHYS_MAX_MATERIALS];       // (restitution, friction, SPOOK k, SPOOK d)
};

// GPU-written counters and indirect arguments, read back once per step.
struct WorldCounters {
  uint pairs;        // SAP pairs wanted (may exceed the capacity)
  uint overflow;     // 1 when pairs or particle contacts exceed their capacity: the host
                     // grows and redoes the step
  uint pair_groups;  // indirect dispatch over the stored pairs (x, y, z)
  uint pair_groups_y;
  uint pair_groups_z;
  uint unit_groups;  // indirect dispatch over the units J + stored pairs + stored contacts
  uint unit_groups_y;
  uint unit_groups_z;
  uint points;           // contact points in the stored manifolds
  uint manifolds;        // stored pairs with at least one point
  uint redo;             // 1 when fewer colours were recorded than the colouring needed
  uint pcontacts;        // particle contacts wanted (may exceed the capacity)
  uint pcontact_groups;  // indirect dispatch over the stored particle contacts
  uint pcontact_groups_y;
  uint pcontact_groups_z;
  uint rigid_unit_groups;  // indirect dispatch over the joints and stored pairs
  uint rigid_unit_groups_y;
  uint rigid_unit_groups_z;
  uint ode_error;      // step doubling: the largest error of the step as float bits (>= 0, so the
                       // bits order as the values and atomicMax is exact and order-independent)
  uint cg_iterations;  // implicit: CG iterations of the step, summed over its substeps
  uint cg_residual;    // implicit: the largest final |r| / |b| of the step's solves, float bits
  uint cg_most;        // implicit: the most CG iterations one of the step's solves took
  uint cg_short;       // implicit: 1 when a solve ran out of a recording shorter than the cap
                       // unconverged: the host redoes the step with the cap (ode_control.h)
  uint cg_unmet;       // implicit: the step's solves that ended above solver.cg_tolerance
  uint ode_over;       // step doubling: 1 when the step's error passed the tolerance and the
                       // host redoes it with twice the ODE steps (ode_control.h)
  uint reused;         // stored pairs that kept last step's manifold (the manifold cache)
  uint residual;       // the solver residual: the largest change of a body's velocity in the
                       // step's last sweep [m/s], float bits (>= 0: atomicMax as ode_error)
  uint residual_w;     // the same for a rigid body's angular velocity [rad/s]
  uint units;          // the units J + stored pairs + stored contacts (finalize_lists): the
                       // live part of the colouring's sort (its tail holds the largest key)
  uint unit_sides;     // 2 units: the live part of the Jacobi incidence's sort (the same)
  uint uncolored;      // units left to the colouring's passes (color_init lists them in
                       // sort_values) and the passes' indirect dispatch over them
  uint uncolored_groups;
  uint uncolored_groups_y;
  uint uncolored_groups_z;
  uint nonfinite;  // 0, or the first stage and body the step left NaN or infinite
                   // (kernels/stages.h, nonfinite_code): the step is undone
  // Per colour list: list 2c holds colour c's joints and pairs, 2c + 1 its particle contacts
  // (kernels/world_coloring.inl, color_key).
  uint color_start[2 * VKPHYS_MAX_COLORS];
  uint color_end[2 * VKPHYS_MAX_COLORS];
  uint color_groups[2 * VKPHYS_MAX_COLORS * 3];  // indirect dispatch per colour list (x, y, z)
  uint pcontact_first[VKPHYS_MAX_COLORS];  // colour c's particle contacts start here in colour
                                           // order (color_groups, pcontact_gather)
  // The step before's overflow, redo, cg_short, ode_over and nonfinite, copied here as that step
  // ended (host/gpu/step_recording.cpp, record_step_end) and not cleared as a step begins: a step
  // submitted before the host has read the step before it commits nothing when that step is to
  // be redone (kernels/world_narrowphase.inl, step_undone). Zero on the CPU backend, whose
  // steps run one at a time.
  uint undone_before[5];
};

// Every world buffer after the step constants (binding 0) and the counters (binding 1), once:
// (binding, element type, name). shaders/world_common.glsl declares them from this table,
// host/cpu/world_env.h makes them member pointers, the GPU backend binds its buffers by it.
#define VKPHYS_WORLD_BUFFERS(BUF)      \
  BUF(2, vec4, body_pos)               \
  BUF(3, vec4, body_vel)               \
  BUF(4, vec4, body_start)             \
  BUF(5, uvec4, body_info)             \
  BUF(6, uint, body_color)             \
  BUF(7, uvec2, body_range)            \
  BUF(8, vec4, rigid_rot)              \
  BUF(9, vec4, rigid_omega)            \
  BUF(10, vec4, rigid_omega_start)     \
  BUF(11, vec4, rigid_iinv)            \
  BUF(12, vec4, rigid_inertia)         \
  BUF(13, vec4, rigid_dims)            \
  BUF(14, vec4, rigid_aabb)            \
  BUF(15, vec4, rigid_vel_pos)         \
  BUF(16, uint, sort_keys)             \
  BUF(17, uint, sort_values)           \
  BUF(18, uint, pair_offsets)          \
  BUF(19, uvec4, pair_info)            \
  BUF(20, vec4, pair_normal)           \
  BUF(21, vec4, point_geom)            \
  BUF(22, vec4, point_lambda)          \
  BUF(23, vec4, point_prep)            \
  BUF(24, uvec4, prev_pair_info)       \
  BUF(25, vec4, prev_point_lambda)     \
  BUF(26, uint, prev_hash)             \
  BUF(27, uvec4, joint_info)           \
  BUF(28, vec4, joint_frames)          \
  BUF(29, vec4, joint_rows)            \
  BUF(30, vec4, joint_lambda)          \
  BUF(31, uint, unit_color)            \
  BUF(32, vec4, unit_dv)               \
  BUF(33, uint, grid_keys)             \
  BUF(34, uint, grid_values)           \
  BUF(35, uint, cell_start)            \
  BUF(36, uint, cell_end)              \
  BUF(37, uint, pcontact_offsets)      \
  BUF(38, uvec2, pcontact_bodies)      \
  BUF(39, vec4, pcontact_geom)         \
  BUF(40, vec4, pcontact_target)       \
  BUF(41, vec4, pcontact_lambda)       \
  BUF(42, uint, prev_pcontact_offsets) \
  BUF(43, uint, prev_pcontact_other)   \
  BUF(44, vec4, prev_pcontact_lambda)  \
  BUF(45, vec4, rigid_force)           \
  BUF(46, vec4, rigid_torque)          \
  BUF(47, vec4, drive_paths)           \
  BUF(48, vec4, drive_impulses)        \
  BUF(49, uvec2, fspring_ends)         \
  BUF(50, vec4, fspring_params)        \
  BUF(51, uint, fspring_offsets)       \
  BUF(52, uint, fspring_incident)      \
  BUF(53, vec4, ode_state)             \
  BUF(54, vec4, ode_deriv)             \
  BUF(55, uint, ode_touched)           \
  BUF(56, vec4, cg_vec)                \
  BUF(57, vec4, cg_partial)            \
  BUF(58, vec4, cg_scalar)             \
  BUF(59, uint, partner_offsets)       \
  BUF(60, uint, partner_list)          \
  BUF(61, vec4, pair_frame)            \
  BUF(62, vec4, point_ref)             \
  BUF(63, vec4, prev_pair_frame)       \
  BUF(64, uvec4, wind_tris)            \
  BUF(65, uint, wind_offsets)          \
  BUF(66, uint, wind_incident)         \
  BUF(67, vec4, sweep_ref)             \
  BUF(68, uvec2, tree_ranges)          \
  BUF(69, uvec4, tree_nodes)           \
  BUF(70, vec4, tree_blocks)           \
  BUF(71, uint, pcontact_origin)       \
  BUF(72, uvec2, pcontact_copy_bodies) \
  BUF(73, vec4, pcontact_copy_lambda)  \
  BUF(74, uint, sweep_walk)            \
  BUF(75, uvec4, sweep_ranges)         \
  BUF(76, vec4, body_vel_next)         \
  BUF(77, vec4, sweep_yz)              \
  BUF(78, vec4, cg_dv)                 \
  BUF(79, uint, cg_lines)              \
  BUF(80, vec4, cg_factor)             \
  BUF(81, vec4, cg_blocks)
#define VKPHYS_WORLD_BINDINGS 82u
// prev_pcontact_other: the other body in the low bits, the kept colour above them.
#define VKPHYS_PCONTACT_OTHER_BITS 26u
#define VKPHYS_PCONTACT_OTHER_MASK 0x3FFFFFFu  // (1 << VKPHYS_PCONTACT_OTHER_BITS) - 1
#define VKPHYS_TREE_NODE_STRIDE 26u
// The least number of walk entries in one sweep work item (kernels/world_broadphase.inl).
#define VKPHYS_SWEEP_CHUNK 64u
// The sweep's slabs along z (kernels/world_broadphase.inl): slab numbers are taken modulo
// VKPHYS_SWEEP_SLABS, and VKPHYS_SWEEP_SLAB_LAST sorts planes and shapeless bodies after them
// all; VKPHYS_SWEEP_SLAB_BITS bits hold both.
#define VKPHYS_SWEEP_SLABS 1023u
#define VKPHYS_SWEEP_SLAB_LAST 1023u
#define VKPHYS_SWEEP_SLAB_BITS 10u
#define VKPHYS_ODE_STRIDE 7u

// The plane body with list index k (k < coloring.z).
#define WORLD_PLANE_BODY(k) params.plane_bodies[(k) / 4u][int((k) % 4u)]

KERNELS_END
#endif
