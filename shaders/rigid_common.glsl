// Common prologue of the rigid-body shaders: the shared layout, the step constants at binding 0,
// every rigid-body buffer at a fixed binding (the host binds the same list to every rigid
// kernel, host/gpu/rigid_gpu_backend.cpp), the per-dispatch push constants, and the stage
// functions of kernels/rigid_*.inl, which use the buffers by these names. Each rigid shader is
// then a thin main(): index, bounds check, call one stage function.
#include "kernels/collide.h"
#include "kernels/narrowphase.h"
#include "kernels/rigid_body.h"
#include "kernels/rigid_layout.h"
#include "kernels/rigid_rows.h"
#include "kernels/spook.h"

layout(local_size_x = VKPHYS_GROUP_SIZE) in;
layout(std140, binding = 0) uniform Params { RigidParams params; };
layout(std430, binding = 1) buffer Counters { RigidCounters counters; };
layout(std430, binding = 2) buffer BodyPos { vec4 body_pos[]; };
layout(std430, binding = 3) buffer BodyRot { vec4 body_rot[]; };
layout(std430, binding = 4) buffer BodyVel { vec4 body_vel[]; };
layout(std430, binding = 5) buffer BodyOmega { vec4 body_omega[]; };
layout(std430, binding = 6) buffer BodyStart { vec4 body_start[]; };
layout(std430, binding = 7) buffer BodyIinv { vec4 body_iinv[]; };
layout(std430, binding = 8) buffer BodyInertia { vec4 body_inertia[]; };
layout(std430, binding = 9) buffer BodyShape { uvec4 body_shape[]; };
layout(std430, binding = 10) buffer BodyDims { vec4 body_dims[]; };
layout(std430, binding = 11) buffer BodyAabb { vec4 body_aabb[]; };
layout(std430, binding = 12) buffer BodyVelPos { vec4 body_vel_pos[]; };
layout(std430, binding = 13) buffer BodyColor { uint body_color[]; };
layout(std430, binding = 14) buffer BodyRange { uvec2 body_range[]; };
layout(std430, binding = 15) buffer SortKeys { uint sort_keys[]; };
layout(std430, binding = 16) buffer SortValues { uint sort_values[]; };
layout(std430, binding = 17) buffer PairOffsets { uint pair_offsets[]; };
layout(std430, binding = 18) buffer PairInfo { uvec4 pair_info[]; };
layout(std430, binding = 19) buffer PairNormal { vec4 pair_normal[]; };
layout(std430, binding = 20) buffer PointGeom { vec4 point_geom[]; };
layout(std430, binding = 21) buffer PointLambda { vec4 point_lambda[]; };
layout(std430, binding = 22) buffer PointPrep { vec4 point_prep[]; };
layout(std430, binding = 23) buffer PrevPairInfo { uvec4 prev_pair_info[]; };
layout(std430, binding = 24) buffer PrevPointLambda { vec4 prev_point_lambda[]; };
layout(std430, binding = 25) buffer PrevHash { uint prev_hash[]; };
layout(std430, binding = 26) buffer JointInfo { uvec4 joint_info[]; };
layout(std430, binding = 27) buffer JointFrames { vec4 joint_frames[]; };
layout(std430, binding = 28) buffer JointRows { vec4 joint_rows[]; };
layout(std430, binding = 29) buffer JointLambda { vec4 joint_lambda[]; };
layout(std430, binding = 30) buffer UnitColor { uint unit_color[]; };
layout(std430, binding = 31) buffer UnitDv { vec4 unit_dv[]; };

// (mode, a, b, c): which stage function, and its arguments (colour, pass, kind...).
layout(push_constant) uniform Push { uvec4 push; };

#include "kernels/rigid_bodies.inl"
#include "kernels/rigid_broadphase.inl"
#include "kernels/rigid_narrowphase.inl"
#include "kernels/rigid_coloring.inl"
#include "kernels/rigid_solver.inl"
#include "kernels/rigid_joints.inl"
#include "kernels/rigid_units.inl"
