// The GPU data layout, shared by the shaders and the host (one struct definition for both, as
// Jolt does). Everything is std430 and built from 16-byte vectors or scalars so the C++ and GLSL
// layouts agree without padding rules to remember.
//
// Particle state is structure-of-arrays:
//   pos_radius[i]  = (x, y, z, radius)
//   vel_invmass[i] = (vx, vy, vz, 1/m)       1/m = 0 is a static particle
//   material[i]    = index into the material table
// Contacts are "directed": a touching pair (i, j) is stored once in i's list and once in j's
// list, so the Jacobi solve is a gather per body with no atomics (see kernels/contact_solve.h).
// Contact c of body b lives at contact_offset[b] <= c < contact_offset[b+1]:
//   contact_bodies[c]  = (b, other)    other = particle index, or PLANE_BIT | plane index
//   contact_geom[c]    = (n, g)        n points from the lower body index to the higher one (from
//                                      the plane into the particle for plane contacts); g is the
//                                      gap, negative when penetrating
//   contact_target[c]  = (T_n, T_t1, T_t2, eps)  velocity targets and SPOOK regulariser
//   contact_lambda[c]  = (lambda_n, lambda_t1, lambda_t2, mu)  accumulated impulses, friction
#ifndef VKPHYS_KERNELS_LAYOUT_H
#define VKPHYS_KERNELS_LAYOUT_H
#include "kernels/common.h"

KERNELS_BEGIN

#define VKPHYS_GROUP_SIZE 64
#define VKPHYS_MAX_PLANES 16
#define VKPHYS_MAX_MATERIALS 64
#define VKPHYS_PLANE_BIT 0x80000000u
#define VKPHYS_EMPTY_CELL 0xFFFFFFFFu

// Per-step constants, identical on both backends (a uniform buffer on the GPU).
struct StepParams {
  vec4 gravity_dt;        // (gx, gy, gz, h)
  vec4 grid;              // (cell size, 1/cell size, contact margin, drag [kg/s])
  vec4 solver;            // (relaxation, restitution threshold [m/s], friction on (1/0),
                          //  warm-start factor in [0, 1])
  uvec4 counts;           // (particles, planes, hash table size (power of two), contact capacity)
  vec4 planes[VKPHYS_MAX_PLANES];        // (n, offset): points x with dot(n, x) = offset
  uvec4 plane_material[VKPHYS_MAX_PLANES];  // (material, 0, 0, 0)
  vec4 materials[VKPHYS_MAX_MATERIALS];  // (restitution, friction, SPOOK k, SPOOK d)
};

// GPU-written counters, read back once per step.
struct StepCounters {
  uint contacts;          // directed contacts wanted this step (may exceed capacity)
  uint overflow;          // 1 when contacts > capacity: the host grows and redoes the step
  uint dispatch_x;        // indirect dispatch over the stored contacts
  uint dispatch_y;
  uint dispatch_z;
  uint pad0;
  uint pad1;
  uint pad2;
};

KERNELS_END
#endif
