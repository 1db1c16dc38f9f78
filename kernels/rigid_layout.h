// The rigid-body step's data layout, shared by the shaders (shaders/rigid_*.comp through
// shaders/rigid_common.glsl) and the CPU reference (host/cpu/rigid_env.h): one definition for
// both, std430, built from 16-byte vectors and scalars.
//
// Bodies, N of them, structure-of-arrays (i = body index):
//   body_pos[i]     (x, 1/m)                  1/m = 0: static
//   body_rot[i]     q (x, y, z, w)            body to world
//   body_vel[i]     (v, 0)                    the solver's working velocity
//   body_omega[i]   (w, 0)                    world frame
//   body_start[2i], [2i+1]   (v_k, 0), (w_k, 0): velocities at the start of the step
//   body_iinv[3i..3i+2]      columns of the world inverse inertia R I^-1 R^T (per step)
//   body_inertia[i] (1/Ix, 1/Iy, 1/Iz, 0)     body frame, principal axes
//   body_shape[i]   (shape, material, group, 0)  bodies of one nonzero group never collide
//   body_dims[i]    shape sizes (kernels/collider.h)
//   body_aabb[2i], [2i+1]    AABB min, max (expanded by half the contact margin)
//   body_vel_pos[2i], [2i+1] split impulse: the velocities the positions integrate with
//   body_color[i], [N+i]     colouring: this pass's claim, and the colour + 1 that took it
//   body_range[i]   (begin, end) of the body's entries in the sorted incidence list (Jacobi)
// Pairs (capacity P) and their contact points (4 per pair, slot 4p + k):
//   pair_offsets[s] the broadphase's count, then exclusive scan, per sorted position s
//   pair_info[p]    (a, b, points, 0)          shape(a) <= shape(b); normal from a to b
//   pair_normal[p]  (n, 0)
//   point_geom[4p+k]    (world point, gap)     gap < 0: penetrating
//   point_lambda[4p+k]  (lambda_n, lambda_t1, lambda_t2, feature id as float bits)
//   point_prep[4(4p+k) + 0..3]  the prepared rows (kernels/rigid_contact.h)
//   prev_pair_info[p], prev_point_lambda[2(4p+k)], [2(4p+k)+1]: last step's pairs and points,
//     (lambda_n, world friction impulse) and (point in body a's frame, feature id), found through
//   prev_hash[slot] (open addressing on (a, b), VKPHYS_EMPTY_SLOT when free)
// Joints (J of them, topology fixed for the run):
//   joint_info[j]       (a, b, type, limited)
//   joint_frames[9j + ...]  anchor_a (w: length), anchor_b, axis_a, axis_b, ref_a, ref_b,
//                           limit_lo, limit_hi, (k, d, limit k, limit d)
//   joint_rows[4 (6j + r) + ...] the prepared rows (kernels/rigid_joint.h)
//   joint_lambda[2j], [2j+1]     six accumulated impulses
// Units are what the solver sweeps over and the colouring colours: units 0..J-1 are the
// joints, units J..J+P-1 the pairs (a pair with no points is inactive).
//   unit_color[u]   colour, VKPHYS_UNCOLORED while uncoloured, VKPHYS_INACTIVE
//   unit_dv[4u..4u+3]  Jacobi: the unit's velocity change of its split copies (dv_a, dw_a,
//                      dv_b, dw_b)
//   sort_keys / sort_values  scratch for the radix sort (AABB keys, colours, incidence)
#ifndef VKPHYS_KERNELS_RIGID_LAYOUT_H
#define VKPHYS_KERNELS_RIGID_LAYOUT_H
#include "kernels/common.h"
#include "kernels/layout.h"

KERNELS_BEGIN

#define VKPHYS_MAX_COLORS 32           // colour slots: max_colors <= 30, + overflow, + inactive
#define VKPHYS_INACTIVE_COLOR 31u
#define VKPHYS_UNCOLORED 0xFFFFFFFFu
#define VKPHYS_EMPTY_SLOT 0xFFFFFFFFu
#define VKPHYS_NO_BODY 0xFFFFFFFFu
#define VKPHYS_JOINT_STRIDE 9u
#define VKPHYS_JOINT_ROWS 6u

// Solver schemes, restitution and friction models (host/sim/scene.h mirrors them).
#define VKPHYS_SCHEME_SEQUENTIAL 0u
#define VKPHYS_SCHEME_COLORED 1u
#define VKPHYS_SCHEME_JACOBI 2u
#define VKPHYS_RESTITUTION_BIAS 0u
#define VKPHYS_RESTITUTION_NEWTON 1u
#define VKPHYS_FRICTION_CONE 0u
#define VKPHYS_FRICTION_BOX 1u
#define VKPHYS_FLAG_SPLIT 1u
#define VKPHYS_FLAG_GYROSCOPIC 2u

// What a solver sweep does to each unit (kernels/rigid_units.inl).
#define RIGID_KIND_WARM 0u      // apply the warm-start impulses
#define RIGID_KIND_SOLVE 1u     // one Gauss-Seidel sweep of the rows with the full SPOOK targets
#define RIGID_KIND_VELOCITY 2u  // the same without position correction (split impulse)
#define RIGID_KIND_IMPACT 3u    // Newton-Coulomb impacts

// Joint types (host/sim/scene.h, JointType).
#define VKPHYS_JOINT_DISTANCE 0u
#define VKPHYS_JOINT_BALL 1u
#define VKPHYS_JOINT_HINGE 2u

struct RigidParams {
  vec4 gravity_dt;   // (gx, gy, gz, h)
  vec4 solver;       // (relaxation, restitution threshold [m/s], friction on, warm-start factor)
  vec4 contact;      // (contact margin [m], |g| for the scaled-box friction bound,
                     //  contact stiffness cap [Hz] (0: none), 0)
  uvec4 counts;      // (bodies, joints, pair capacity, hash table size (power of two))
  uvec4 modes;       // (scheme, restitution model, friction model, flags)
  uvec4 coloring;    // (max colours, sub-passes per colour, planes, unit capacity J + P)
  uvec4 plane_bodies[VKPHYS_MAX_PLANES / 4];  // body indices of the plane bodies, 4 per entry
  vec4 materials[VKPHYS_MAX_MATERIALS];       // (restitution, friction, SPOOK k, SPOOK d)
};

// GPU-written counters and indirect arguments, read back once per step.
struct RigidCounters {
  uint pairs;          // pairs the broadphase wanted (may exceed the capacity)
  uint overflow;       // 1 when pairs > capacity: the host grows and redoes the step
  uint pair_groups;    // indirect dispatch over the stored pairs (x, y, z)
  uint pair_groups_y;
  uint pair_groups_z;
  uint unit_groups;    // indirect dispatch over the units J + stored pairs
  uint unit_groups_y;
  uint unit_groups_z;
  uint points;         // contact points in the stored manifolds
  uint manifolds;      // stored pairs with at least one point
  uint redo;           // 1 when fewer colours were recorded than the colouring needed
  uint pad2;
  uint color_start[VKPHYS_MAX_COLORS];
  uint color_end[VKPHYS_MAX_COLORS];
  uint color_groups[VKPHYS_MAX_COLORS * 3];  // indirect dispatch per colour (x, y, z)
};

// The plane body with list index k (k < coloring.z).
#define RIGID_PLANE_BODY(k) params.plane_bodies[(k) / 4u][int((k) % 4u)]

KERNELS_END
#endif
